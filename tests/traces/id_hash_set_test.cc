// The flat set of id hashes behind the duplicate-id check: every hash is kept once, across
// growth, including the hash that marks empty slots.
#include "traces/io/id_hash_set.h"

#include <gtest/gtest.h>

namespace gpumux {
namespace {

TEST(IdHashSet, KeepsEveryHashOnceAcrossGrowth) {
  IdHashSet set;
  for (std::uint64_t i = 0; i < 100'000; ++i) {
    ASSERT_TRUE(set.insert(i * 0x9e3779b97f4a7c15ULL + 7)) << i;
  }
  EXPECT_EQ(set.size(), 100'000u);
  for (std::uint64_t i = 0; i < 100'000; i += 997) {
    EXPECT_FALSE(set.insert(i * 0x9e3779b97f4a7c15ULL + 7)) << i;
  }
  // Sequential hashes (std::hash of small integers is the identity) do not cluster into a crawl.
  IdHashSet sequential;
  for (std::uint64_t i = 1; i <= 50'000; ++i) ASSERT_TRUE(sequential.insert(i));
  EXPECT_FALSE(sequential.insert(25'000));
}

TEST(IdHashSet, TheEmptyMarkerIsAHashLikeAnother) {
  IdHashSet set;
  EXPECT_TRUE(set.insert(0));
  EXPECT_FALSE(set.insert(0));
  EXPECT_EQ(set.size(), 1u);
}

}  // namespace
}  // namespace gpumux
