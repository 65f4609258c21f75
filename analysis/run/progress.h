// Progress of a long run on standard error (`gpumux run --progress`, on by default when
// standard error is a terminal): the share of jobs done (finished, rejected or failed) out of
// the jobs expected, simulated time, and an estimate of the wall time left.
//
// Never written to the outputs: wall time varies between runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "scenarios/scenario.h"
#include "sim/state/observer.h"

namespace gpumux {

// How many jobs the scenario's trace holds, when it is known before the run: the generator's
// `jobs`, or the data lines of a csv, tiresias (one header line) or jsonl file (blank lines
// left out). Rows the reader will skip are counted, so this is an upper bound. Empty for the
// public-trace formats (several files, filters) and unreadable files.
std::optional<std::uint64_t> expected_job_count(const Scenario& scenario);

// One progress line, e.g. "[gpumux] 45.2 % of 1000 jobs done (452; 900 arrived), simulated
// 12.3 h, 8.1 s elapsed, about 2.7 s left". Without an expected count: "[gpumux] 452 jobs done
// (900 arrived), simulated 12.3 h, 8.1 s elapsed". The estimate counts each job's arrival and
// its end as half its work, the engine's two events per job: on a loaded cluster jobs arrive
// long before they end, and the queue drains fast once arrivals stop.
std::string progress_line(std::uint64_t done, std::uint64_t arrived,
                          std::optional<std::uint64_t> expected, double simulated_s,
                          double elapsed_s);

class ProgressReporter : public EngineObserver {
 public:
  // Prints at most one line per `interval` of wall time.
  ProgressReporter(std::ostream& out, std::optional<std::uint64_t> expected_jobs,
                   std::chrono::steady_clock::duration interval = std::chrono::seconds(2));

  void on_job_arrived(Time, const ActiveJob&) override { ++arrived_; }
  void on_job_rejected(Time now, const ActiveJob&, std::string_view) override { done(now); }
  void on_job_finished(Time now, const ActiveJob&) override { done(now); }
  void on_job_failed(Time now, const ActiveJob&) override { done(now); }

 private:
  using Clock = std::chrono::steady_clock;
  void done(Time now);

  std::ostream& out_;
  std::optional<std::uint64_t> expected_;
  Clock::duration interval_;
  Clock::time_point start_;
  Clock::time_point last_;
  std::uint64_t done_ = 0;
  std::uint64_t arrived_ = 0;
};

}  // namespace gpumux
