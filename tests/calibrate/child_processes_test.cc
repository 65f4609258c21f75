#include "calibrate/probe/child_processes.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace gpumux::calibration {
namespace {

TEST(ChildProcesses, MembersStartTogetherAndReportPayloads) {
  const SetRun run = run_child_set(
      {{}, {}, {}},
      [](int member, StartGate& gate) {
        // Members become ready at different times; the start is common anyway.
        std::this_thread::sleep_for(std::chrono::milliseconds(20 * member));
        const double start = gate.ready_and_wait();
        const double woke = monotonic_s();
        char buf[128];
        std::snprintf(buf, sizeof buf, "%d %.17g %.17g", member, start, woke);
        return std::string(buf);
      },
      5, 5);
  ASSERT_EQ(run.children.size(), 3u);
  EXPECT_GT(run.start_s, 0);
  for (int i = 0; i < 3; ++i) {
    const ChildResult& c = run.children[static_cast<size_t>(i)];
    EXPECT_TRUE(c.ready);
    EXPECT_TRUE(c.exited);
    EXPECT_EQ(c.exit_code, 0);
    ASSERT_TRUE(c.has_payload);
    int member = -1;
    double start = 0, woke = 0;
    ASSERT_EQ(std::sscanf(c.payload.c_str(), "%d %lf %lf", &member, &start, &woke), 3);
    EXPECT_EQ(member, i);
    EXPECT_DOUBLE_EQ(start, run.start_s);
    // Every member was ready before the start was sent (the slowest after 40 ms), and
    // each wakes at the start, not before.
    EXPECT_GE(woke, start);
    EXPECT_LT(woke - start, 0.05);
  }
}

TEST(ChildProcesses, EnvironmentIsSetPerChild) {
  const SetRun run = run_child_set(
      {{{"GPUMUX_TEST_VAR", "a"}}, {{"GPUMUX_TEST_VAR", "b"}}},
      [](int, StartGate&) {
        const char* v = std::getenv("GPUMUX_TEST_VAR");
        return std::string(v ? v : "unset");
      },
      5, 5);
  EXPECT_EQ(run.children[0].payload, "a");
  EXPECT_EQ(run.children[1].payload, "b");
  EXPECT_EQ(std::getenv("GPUMUX_TEST_VAR"), nullptr);  // the parent's stays untouched
}

TEST(ChildProcesses, EmptyValueRemovesAnInheritedVariable) {
  ::setenv("GPUMUX_TEST_INHERITED", "2,3", 1);
  const SetRun run = run_child_set(
      {{{"GPUMUX_TEST_INHERITED", ""}}, {}},
      [](int, StartGate&) {
        const char* v = std::getenv("GPUMUX_TEST_INHERITED");
        return std::string(v ? v : "unset");
      },
      5, 5);
  ::unsetenv("GPUMUX_TEST_INHERITED");
  EXPECT_EQ(run.children[0].payload, "unset");
  EXPECT_EQ(run.children[1].payload, "2,3");
}

TEST(ChildProcesses, ExceptionsCrashesAndHangsAreReportedNotInherited) {
  const SetRun run = run_child_set(
      {{}, {}, {}, {}},
      [](int member, StartGate& gate) -> std::string {
        if (member == 0) throw std::runtime_error("cudaSetDevice failed: no device");
        if (member == 1) ::abort();
        gate.ready_and_wait();
        if (member == 2) {
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        return "fine";
      },
      5, 0.3);
  EXPECT_EQ(run.children[0].error, "cudaSetDevice failed: no device");
  EXPECT_FALSE(run.children[0].has_payload);
  EXPECT_FALSE(run.children[0].ready);
  EXPECT_EQ(run.children[1].signal, SIGABRT);
  EXPECT_TRUE(run.children[2].timed_out);
  EXPECT_EQ(run.children[2].signal, SIGKILL);
  EXPECT_EQ(run.children[3].payload, "fine");
  EXPECT_GE(run.children[3].exit_s, run.start_s);
}

TEST(ChildProcesses, ChildNeverReadyIsKilledAtTheReadyDeadline) {
  const double t = monotonic_s();
  const SetRun run = run_child_set(
      {{}},
      [](int, StartGate&) -> std::string {
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
      },
      0.2, 10);
  EXPECT_LT(monotonic_s() - t, 2.0);
  EXPECT_TRUE(run.children[0].timed_out);
  EXPECT_LT(run.start_s, 0);
}

TEST(ChildProcesses, SingleChildHelper) {
  const ChildResult c = run_child(
      {{"X_PROBE", "1"}}, [] { return std::string(std::getenv("X_PROBE")); }, 5);
  EXPECT_EQ(c.payload, "1");
  EXPECT_TRUE(c.exited);
  const ChildResult slow = run_child(
      {},
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return std::string("late");
      },
      0.2);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_FALSE(slow.has_payload);
}

TEST(ChildProcesses, LargePayloadsArriveWhole) {
  const ChildResult c = run_child(
      {}, [] { return std::string(1 << 20, 'x'); }, 10);
  EXPECT_EQ(c.payload.size(), size_t{1} << 20);
}

}  // namespace
}  // namespace gpumux::calibration
