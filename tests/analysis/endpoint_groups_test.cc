// The fewest-groups search of the fleet planner (analysis/fleet/endpoint_groups.h) against
// predicates whose answers are known by hand.
#include "analysis/fleet/endpoint_groups.h"

#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <vector>

namespace gpumux {
namespace {

// Endpoints with sizes; a group works when its sizes sum to at most 1.
GroupOracle sized(const std::vector<double>& sizes, std::map<EndpointMask, int>* asked = nullptr) {
  return GroupOracle([sizes, asked](EndpointMask m) {
    if (asked) ++(*asked)[m];
    double sum = 0;
    for (int i : mask_members(m)) sum += sizes[static_cast<std::size_t>(i)];
    return sum <= 1.0 + 1e-12;
  });
}

EndpointMask cover(const std::vector<EndpointMask>& groups) {
  EndpointMask all = 0;
  for (EndpointMask g : groups) {
    EXPECT_EQ(all & g, 0u) << "groups overlap";
    all |= g;
  }
  return all;
}

TEST(EndpointGroups, FindsTheFewestGroupsWhereFirstFitDoesNot) {
  // Sizes 0.4 0.4 0.6 0.6: first fit in order gives {0.4, 0.4}, {0.6}, {0.6} (3 groups); the
  // fewest is {0.4, 0.6} twice (2 groups).
  GroupOracle oracle = sized({0.4, 0.4, 0.6, 0.6});
  const GroupSearchResult r = fewest_groups(4, oracle);
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(r.complete);
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(cover(r.groups), 0b1111u);
  EXPECT_EQ(r.groups[0], 0b1001u);  // endpoint 0 with endpoint 3 (larger subsets tried first)
  EXPECT_EQ(r.groups[1], 0b0110u);
}

TEST(EndpointGroups, AsksEveryGroupAtMostOnceAndNeverAGroupWithAFailingPart) {
  std::map<EndpointMask, int> asked;
  GroupOracle oracle = sized({0.7, 0.6, 0.2, 0.2, 0.1}, &asked);
  const GroupSearchResult r = fewest_groups(5, oracle);
  EXPECT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(cover(r.groups), 0b11111u);
  for (const auto& [mask, times] : asked) {
    EXPECT_EQ(times, 1) << mask;
    // {0, 1} fails (1.3), so no group holding both is ever asked.
    if (std::popcount(mask) > 2) {
      EXPECT_NE(mask & 0b11u, 0b11u) << mask;
    }
  }
  EXPECT_EQ(oracle.asked(), static_cast<int>(asked.size()));
}

TEST(EndpointGroups, AnEndpointFailingAloneLeavesTheCoverIncomplete) {
  GroupOracle oracle = sized({0.5, 1.5, 0.5});
  const GroupSearchResult r = fewest_groups(3, oracle);
  EXPECT_FALSE(r.complete);
  EXPECT_EQ(r.alone_failing, 0b010u);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0], 0b101u);
}

TEST(EndpointGroups, BeyondTheExactLimitFirstFitInOrder) {
  const int n = kExactSearchLimit + 1;
  GroupOracle oracle = sized(std::vector<double>(static_cast<std::size_t>(n), 0.5));
  const GroupSearchResult r = fewest_groups(n, oracle);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.groups.size(), static_cast<std::size_t>((n + 1) / 2));
  EXPECT_EQ(cover(r.groups), (EndpointMask{1} << n) - 1);
  EXPECT_EQ(r.groups[0], 0b11u);  // in endpoint order
}

TEST(EndpointGroups, OneEndpointIsOneGroupAndBadCountsAreRefused) {
  GroupOracle oracle = sized({0.9});
  const GroupSearchResult r = fewest_groups(1, oracle);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0], 1u);
  EXPECT_THROW(fewest_groups(0, oracle), std::invalid_argument);
  EXPECT_THROW(fewest_groups(kMaxEndpoints + 1, oracle), std::invalid_argument);
}

TEST(EndpointGroups, MaskMembersAreAscending) {
  EXPECT_EQ(mask_members(0b101001u), (std::vector<int>{0, 3, 5}));
  EXPECT_TRUE(mask_members(0).empty());
}

}  // namespace
}  // namespace gpumux
