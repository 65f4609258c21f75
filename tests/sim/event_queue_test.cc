#include "sim/engine/event_queue.h"

#include <gtest/gtest.h>

#include <optional>
#include <queue>
#include <random>
#include <set>
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

TEST(EventQueue, SchedulingAKeyAgainReplacesItsEventAndTakesANewTurn) {
  EventQueue q;
  q.schedule(7, Time::from_us(50), EventKind::kCompletion, 1);
  q.push(Time::from_us(30), EventKind::kArrival);
  q.schedule(9, Time::from_us(30), EventKind::kCompletion, 1);
  q.schedule(7, Time::from_us(30), EventKind::kMemoryChange, 2);  // earlier now, pushed last
  EXPECT_EQ(q.size(), 3u);
  Event e = q.pop();
  EXPECT_EQ(e.kind, EventKind::kArrival);
  e = q.pop();
  EXPECT_EQ(e.target, 9u);
  EXPECT_FALSE(q.scheduled(9));
  e = q.pop();
  EXPECT_EQ(e.target, 7u);
  EXPECT_EQ(e.kind, EventKind::kMemoryChange);
  EXPECT_EQ(e.version, 2u);
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.scheduled(7));
}

TEST(EventQueue, CancelRemovesOnlyThatKeysEvent) {
  EventQueue q;
  for (std::uint32_t k = 0; k < 10; ++k) {
    q.schedule(k, Time::from_us(100 - 10 * k), EventKind::kCompletion);
  }
  q.cancel(3);
  q.cancel(3);   // twice: nothing more to remove
  q.cancel(99);  // a key never seen
  EXPECT_FALSE(q.scheduled(3));
  EXPECT_EQ(q.size(), 9u);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().target);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{9, 8, 7, 6, 5, 4, 2, 1, 0}));
}

// Keyed and unkeyed events against a plain ordered reference, with rescheduling (earlier and
// later) and cancelling at random: every pop is the earliest (time, sequence) pending, and a
// key's replaced or cancelled event never pops.
TEST(EventQueue, KeyedEventsPopInTheSameOrderAsAReferenceUnderInterleaving) {
  EventQueue q;
  using Key = std::tuple<std::int64_t, std::uint64_t, std::uint32_t, bool>;  // time, seq, target
  std::set<Key> reference;
  constexpr std::uint32_t kKeys = 300;
  std::vector<std::optional<Key>> pending(kKeys);
  std::mt19937_64 rng(5);
  std::uint64_t sequence = 0;
  std::int64_t now = 0;
  for (int step = 0; step < 200000; ++step) {
    const auto action = rng() % 100;
    if (action < 45) {
      const std::int64_t at = now + static_cast<std::int64_t>(rng() % 32);
      const auto key = static_cast<std::uint32_t>(rng() % kKeys);
      if (pending[key]) reference.erase(*pending[key]);
      pending[key] = Key{at, sequence++, key, true};
      reference.insert(*pending[key]);
      q.schedule(key, Time::from_us(at), EventKind::kCompletion);
    } else if (action < 55) {
      const std::int64_t at = now + static_cast<std::int64_t>(rng() % 32);
      const auto target = static_cast<std::uint32_t>(rng() % kKeys);
      reference.insert(Key{at, sequence++, target, false});
      q.push(Time::from_us(at), EventKind::kArrival, target);
    } else if (action < 65) {
      const auto key = static_cast<std::uint32_t>(rng() % kKeys);
      if (pending[key]) reference.erase(*pending[key]);
      pending[key].reset();
      q.cancel(key);
    } else if (!reference.empty()) {
      const auto [at, order, target, keyed] = *reference.begin();
      reference.erase(reference.begin());
      if (keyed) pending[target].reset();
      const Event e = q.pop();
      ASSERT_EQ(e.time.us(), at) << "step " << step;
      ASSERT_EQ(e.sequence, order) << "step " << step;
      ASSERT_EQ(e.target, target) << "step " << step;
      ASSERT_EQ(e.keyed, keyed) << "step " << step;
      now = at;
    }
    ASSERT_EQ(q.size(), reference.size()) << "step " << step;
  }
  for (std::uint32_t k = 0; k < kKeys; ++k) ASSERT_EQ(q.scheduled(k), pending[k].has_value());
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
