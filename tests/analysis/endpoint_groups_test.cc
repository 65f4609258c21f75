// The fewest-groups search of the fleet planner (analysis/fleet/endpoint_groups.h) against
// predicates whose answers are known by hand.
#include "analysis/fleet/endpoint_groups.h"

#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <map>
#include <random>
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

TEST(EndpointGroups, BeyondTheSmallLimitFirstFitThenEveryWorkingGroupListed) {
  const int n = kExactSearchLimit + 1;
  GroupOracle oracle = sized(std::vector<double>(static_cast<std::size_t>(n), 0.5));
  const GroupSearchResult r = fewest_groups(n, oracle);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.first_fit_groups, (n + 1) / 2);
  EXPECT_EQ(r.groups.size(), static_cast<std::size_t>((n + 1) / 2));
  EXPECT_EQ(cover(r.groups), (EndpointMask{1} << n) - 1);
  EXPECT_EQ(r.groups[0], 0b11u);  // first fit's, in endpoint order: no cover has fewer
  // n singles and n(n-1)/2 pairs work; no three do.
  EXPECT_EQ(r.working_groups, n + n * (n - 1) / 2);
  EXPECT_TRUE(r.not_exact_because.empty());
}

TEST(EndpointGroups, BeyondTheSmallLimitTheListedGroupsBeatFirstFit) {
  // Seven of 0.4 and seven of 0.6 as 0.4 0.4 0.6 0.6 ...: first fit in order takes 8 groups
  // ({0.4, 0.4} first leaves two 0.6 alone); the fewest is 7, each 0.4 with a 0.6.
  std::vector<double> sizes;
  for (int k = 0; k < 3; ++k) sizes.insert(sizes.end(), {0.4, 0.4, 0.6, 0.6});
  sizes.insert(sizes.end(), {0.4, 0.6});
  ASSERT_GT(sizes.size(), static_cast<std::size_t>(kExactSearchLimit));
  std::map<EndpointMask, int> asked;
  GroupOracle oracle = sized(sizes, &asked);
  const GroupSearchResult r = fewest_groups(static_cast<int>(sizes.size()), oracle);
  EXPECT_EQ(r.first_fit_groups, 8);
  EXPECT_TRUE(r.exact);
  ASSERT_EQ(r.groups.size(), 7u);
  EXPECT_EQ(cover(r.groups), (EndpointMask{1} << sizes.size()) - 1);
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    double sum = 0;
    for (const int i : mask_members(r.groups[g])) sum += sizes[static_cast<std::size_t>(i)];
    EXPECT_NEAR(sum, 1.0, 1e-12) << "group " << g;
    if (g > 0) {
      EXPECT_LT(r.groups[g - 1] & -r.groups[g - 1], r.groups[g] & -r.groups[g]);
    }
  }
  for (const auto& [mask, times] : asked) {
    EXPECT_EQ(times, 1) << mask;
    // A group of three is asked only when its pairs work (at most one 0.6 in it); as no three
    // work, no four are asked.
    EXPECT_LE(std::popcount(mask), 3) << mask;
    int large = 0;
    for (const int i : mask_members(mask)) large += sizes[static_cast<std::size_t>(i)] > 0.5;
    if (std::popcount(mask) == 3) {
      EXPECT_LE(large, 1) << mask;
    }
  }
}

// The fewest groups by brute force: every subset's fewest cover from its parts (3^n).
int fewest_by_brute_force(int n, const std::function<bool(EndpointMask)>& works) {
  const EndpointMask all = (EndpointMask{1} << n) - 1;
  std::vector<int> best(static_cast<std::size_t>(all) + 1, 1 << 20);
  best[0] = 0;
  for (EndpointMask left = 1; left <= all; ++left) {
    const EndpointMask low = left & -left;
    for (EndpointMask s = left & ~low;; s = (s - 1) & (left & ~low)) {
      const EndpointMask group = s | low;
      if (works(group)) {
        best[left] = std::min(best[left], 1 + best[left & ~group]);
      }
      if (s == 0) break;
    }
  }
  return best[all];
}

TEST(EndpointGroups, BeyondTheSmallLimitTheFewestMatchBruteForce) {
  // Random sizes and random pairs that may not share: the listed search against every subset.
  std::mt19937 rng(20261207);
  for (int trial = 0; trial < 6; ++trial) {
    const int n = kExactSearchLimit + 1 + trial % 2;
    std::vector<double> sizes(static_cast<std::size_t>(n));
    std::uniform_real_distribution<double> size(0.1, 0.7);
    for (double& s : sizes) s = size(rng);
    std::vector<EndpointMask> conflicts(static_cast<std::size_t>(n), 0);
    std::bernoulli_distribution conflict(0.3);
    for (int i = 0; i < n; ++i) {
      for (int j = i + 1; j < n; ++j) {
        if (conflict(rng)) {
          conflicts[static_cast<std::size_t>(i)] |= EndpointMask{1} << j;
          conflicts[static_cast<std::size_t>(j)] |= EndpointMask{1} << i;
        }
      }
    }
    const auto works = [&](EndpointMask m) {
      double sum = 0;
      for (const int i : mask_members(m)) {
        if (conflicts[static_cast<std::size_t>(i)] & m) return false;
        sum += sizes[static_cast<std::size_t>(i)];
      }
      return sum <= 1.0;
    };
    GroupOracle oracle(works);
    const GroupSearchResult r = fewest_groups(n, oracle);
    ASSERT_TRUE(r.exact) << "trial " << trial << ": " << r.not_exact_because;
    EXPECT_EQ(cover(r.groups), (EndpointMask{1} << n) - 1) << "trial " << trial;
    for (const EndpointMask g : r.groups) EXPECT_TRUE(works(g)) << "trial " << trial;
    EXPECT_EQ(static_cast<int>(r.groups.size()), fewest_by_brute_force(n, works))
        << "trial " << trial;
    EXPECT_LE(static_cast<int>(r.groups.size()), r.first_fit_groups) << "trial " << trial;
  }
}

TEST(EndpointGroups, BeyondTheSmallLimitABudgetThatRunsOutKeepsFirstFitAndSaysWhy) {
  std::vector<double> sizes;
  for (int k = 0; k < 3; ++k) sizes.insert(sizes.end(), {0.4, 0.4, 0.6, 0.6});
  sizes.insert(sizes.end(), {0.4, 0.6});
  const int n = static_cast<int>(sizes.size());
  // Each budget cut short in turn, and the reason it gives.
  struct Case {
    ExactSearchBudget budget;
    const char* why;
  };
  const Case cases[] = {{{.questions = 5}, "more than 5 groups to ask"},
                        {{.working_groups = 20}, "more than 20 working groups"},
                        {{.cover_steps = 1}, "more than 1 search steps"}};
  for (const Case& c : cases) {
    GroupOracle oracle = sized(sizes);
    const GroupSearchResult r = fewest_groups(n, oracle, c.budget);
    EXPECT_FALSE(r.exact) << c.why;
    EXPECT_EQ(r.groups.size(), 8u) << c.why;  // first fit's
    EXPECT_EQ(cover(r.groups), (EndpointMask{1} << n) - 1) << c.why;
    EXPECT_NE(r.not_exact_because.find(c.why), std::string::npos) << r.not_exact_because;
  }
}

TEST(EndpointGroups, EndpointsThatOnlyWorkAloneBoundTheCoverSearch) {
  // 20 endpoints of size 1 (alone only) and 10 of 0.5 interleaved: the fewest is 20 + 5. Each
  // alone-only endpoint counts one whole GPU in the bound, so the search proves first fit's 25
  // at once: within a budget of 100 steps.
  std::vector<double> sizes;
  for (int i = 0; i < 10; ++i) sizes.insert(sizes.end(), {1.0, 0.5, 1.0});
  GroupOracle oracle = sized(sizes);
  ExactSearchBudget budget;
  budget.cover_steps = 100;
  const GroupSearchResult r = fewest_groups(static_cast<int>(sizes.size()), oracle, budget);
  EXPECT_TRUE(r.exact) << r.not_exact_because;
  EXPECT_EQ(r.groups.size(), 25u);
  EXPECT_EQ(r.working_groups, 30 + 45);  // every endpoint alone, every pair of the 0.5s
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
