#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <queue>
#include <random>
#include <tuple>

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

// The heap against a plain ordered reference over interleaved pushes and pops with many equal
// times: every pop must be the earliest (time, insertion) pending.
TEST(EventQueue, PopsInTheSameOrderAsAReferenceUnderInterleaving) {
  EventQueue q;
  using Key = std::tuple<std::int64_t, std::uint64_t, std::uint32_t>;  // time, order, target
  std::priority_queue<Key, std::vector<Key>, std::greater<>> reference;
  std::mt19937_64 rng(11);
  std::uint64_t pushed = 0;
  std::int64_t now = 0;
  for (int step = 0; step < 200000; ++step) {
    const bool push = reference.empty() || rng() % 100 < 52;
    if (push) {
      const std::int64_t at = now + static_cast<std::int64_t>(rng() % 16);  // many ties
      const auto target = static_cast<std::uint32_t>(rng());
      q.push(Time::from_us(at), EventKind::kCompletion, target);
      reference.emplace(at, pushed++, target);
    } else {
      const auto [at, order, target] = reference.top();
      reference.pop();
      ASSERT_EQ(q.top().time.us(), at) << "step " << step;
      const Event e = q.pop();
      ASSERT_EQ(e.time.us(), at) << "step " << step;
      ASSERT_EQ(e.sequence, order) << "step " << step;
      ASSERT_EQ(e.target, target) << "step " << step;
      now = at;
    }
    ASSERT_EQ(q.size(), reference.size());
  }
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
