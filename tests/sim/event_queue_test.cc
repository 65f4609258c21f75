#include "sim/event_queue.h"

#include <gtest/gtest.h>

namespace gpumux {
namespace {

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.push(Time::from_us(20), EventKind::kCompletion, 1);
  q.push(Time::from_us(10), EventKind::kCompletion, 2);
  q.push(Time::from_us(20), EventKind::kCompletion, 3);
  q.push(Time::from_us(10), EventKind::kArrival, 4);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().target);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{2, 4, 1, 3}));
}

TEST(EventQueue, SameTimeEventsKeepInsertionOrderAtScale) {
  EventQueue q;
  q.reserve(16);
  for (std::uint32_t i = 0; i < 1000; ++i) q.push(Time::from_us(5), EventKind::kArrival, i);
  for (std::uint32_t i = 0; i < 1000; ++i) EXPECT_EQ(q.pop().target, i);
  EXPECT_TRUE(q.empty());
}

TEST(TimeUnits, SecondsRoundToMicroseconds) {
  EXPECT_EQ(Time::from_seconds(1.5).us(), 1'500'000);
  EXPECT_EQ(Time::from_seconds(0.0000004).us(), 0);
  EXPECT_EQ(Time::from_seconds(0.0000006).us(), 1);
  EXPECT_DOUBLE_EQ(Time::from_us(2'500'000).seconds(), 2.5);
  EXPECT_TRUE(Time::infinity().is_infinite());
}

}  // namespace
}  // namespace gpumux
