#include "analysis/plan/size_search.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace gpumux {
namespace {

// Runs a search against `met(size)`; returns the sizes run, in order.
std::vector<int> drive(SizeSearch& search, const std::function<bool(int)>& met) {
  std::vector<int> order;
  while (auto size = search.next()) {
    EXPECT_EQ(search.next(), size) << "next() must not move without a record()";
    order.push_back(*size);
    search.record(*size, met(*size));
    EXPECT_LE(order.size(), 64u);
    if (order.size() > 64) break;
  }
  return order;
}

TEST(SizeSearch, DoublesThenBisectsAndRunsOneBelow) {
  SizeSearch s(100);
  EXPECT_EQ(s.remaining_runs(), 8 + 6);  // 1..64, 100; then a gap of 36
  const auto order = drive(s, [](int k) { return k >= 11; });
  EXPECT_EQ(order, (std::vector<int>{1, 2, 4, 8, 16, 12, 10, 11}));
  EXPECT_TRUE(s.done());
  EXPECT_EQ(s.answer(), 11);
  EXPECT_FALSE(s.searched_down());
  EXPECT_EQ(s.remaining_runs(), 0);
}

TEST(SizeSearch, AnswerAtSizeOneHasNothingBelow) {
  SizeSearch s(8);
  EXPECT_EQ(drive(s, [](int) { return true; }), (std::vector<int>{1}));
  EXPECT_EQ(s.answer(), 1);
}

TEST(SizeSearch, NothingMeetsUpToTheCap) {
  SizeSearch s(10);
  EXPECT_EQ(drive(s, [](int) { return false; }), (std::vector<int>{1, 2, 4, 8, 10}));
  EXPECT_EQ(s.answer(), 0);
}

TEST(SizeSearch, TheCapItselfCanBeTheAnswer) {
  SizeSearch s(10);
  EXPECT_EQ(drive(s, [](int k) { return k == 10; }), (std::vector<int>{1, 2, 4, 8, 10, 9}));
  EXPECT_EQ(s.answer(), 10);
}

TEST(SizeSearch, NonMonotoneOutcomesStillEndOnAFailingSizeBelow) {
  // Meets at 5 and from 7 on, fails at 6: the answer is a boundary whose size below failed.
  SizeSearch s(16);
  const auto met = [](int k) { return k == 5 || k >= 7; };
  const auto order = drive(s, met);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 4, 8, 6, 7}));
  EXPECT_EQ(s.answer(), 7);
  EXPECT_FALSE(met(s.answer() - 1));
}

TEST(SizeSearch, SameResultsSameSchedule) {
  // Two searches fed the same outcomes ask for the same sizes: nothing depends on timing.
  SizeSearch a(64), b(64);
  const auto met = [](int k) { return k >= 23; };
  EXPECT_EQ(drive(a, met), drive(b, met));
  EXPECT_EQ(a.answer(), 23);
}

}  // namespace
}  // namespace gpumux
