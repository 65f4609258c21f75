// `--check-invariants`: a broken model, engine bookkeeping or signal sequence makes the check
// fire with a message naming job, GPU and time; a sound run passes it.
#include "sim/invariants/invariant_checker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "models/exclusive_model.h"
#include "sim/engine/engine.h"
#include "sim/invariants/engine_invariants.h"
#include "sim/invariants/invariant_violation.h"
#include "sim/placement/registry.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using ::testing::HasSubstr;
using testing::job;

JobSpec with_memory(JobSpec j, std::int64_t mib) {
  j.memory = MemoryMiB(mib);
  return j;
}

// Shares a GPU between any number of jobs at rate 1/n and never checks memory nor handles out
// of memory: a model that breaks the capacity invariant as soon as two big jobs meet.
class NoOomModel : public SharingModel {
 public:
  std::string_view name() const override { return "no-oom"; }
  bool admits(const GpuView&, const JobSpec&) const override { return true; }
  void compute_rates(const GpuView&, std::span<double> rates, GpuLoad& load) const override {
    for (double& r : rates) r = 1.0 / static_cast<double>(rates.size());
    load = {};
  }
  std::vector<ModelParameter> parameters() const override { return {}; }
};

// Splits each GPU into two slots of 4 GiB but hands out slot 5.
class BadSlotModel : public NoOomModel, public SlotLayout {
 public:
  std::string_view name() const override { return "bad-slot"; }
  const SlotLayout* slot_layout() const override { return this; }
  int layout_count(const DeviceProfile&) const override { return 1; }
  int choose_slot(const GpuView&, const JobSpec&) const override { return 5; }
  int slot_count(const DeviceProfile&, int) const override { return 2; }
  SlotInfo slot_info(const DeviceProfile&, int, int) const override {
    return {"half", 1, MemoryMiB(4096)};
  }
};

struct Run {
  Cluster cluster = testing::make_cluster(1, 1);  // one 16 GiB GPU
  Scheduler scheduler{"fifo", make_placement_policy("first-fit"), 64};
};

// Runs `jobs` under `model` with both checks on; returns the violation message or "".
std::string violation(const SharingModel& model, std::vector<JobSpec> jobs, bool check = true) {
  Run r;
  testing::ListSource source(std::move(jobs));
  EngineOptions options;
  options.check_invariants = check;
  Engine engine(r.cluster, model, r.scheduler, source, options);
  InvariantChecker checker(r.cluster, model);
  if (check) engine.add_observer(&checker);
  try {
    engine.run();
  } catch (const InvariantViolation& e) {
    return e.what();
  }
  if (check) {
    EXPECT_GT(checker.signals(), 0u);
  }
  return "";
}

TEST(InvariantChecks, MemoryAboveCapacityWithoutOutOfMemoryFires) {
  NoOomModel model;
  const std::vector<JobSpec> jobs = {with_memory(job("a", 0, 1, 100), 10000),
                                     with_memory(job("b", 10, 1, 100), 10000)};
  EXPECT_EQ(violation(model, jobs, false), "");  // unchecked, the run goes through silently
  const std::string what = violation(model, jobs);
  EXPECT_THAT(what, HasSubstr("invariant violated: GPU 0 (TestGPU"));
  EXPECT_THAT(what, HasSubstr("t=10.000000 s"));
  EXPECT_THAT(what, HasSubstr("'a', 'b'"));
  EXPECT_THAT(what, HasSubstr("20000 MiB of its 16384 MiB"));
}

TEST(InvariantChecks, OverAllocationUnderEmptyGpuAdmissionFires) {
  Cluster cluster = testing::make_cluster(1, 1);
  ExclusiveModel model;
  InvariantChecker checker(cluster, model);
  cluster.add_resident(0, 0, MemoryMiB(0));
  EXPECT_NO_THROW(checker.on_gpu_changed(Time::zero(), 0, cluster.gpu(0)));
  cluster.add_resident(0, 1, MemoryMiB(0));  // a second job on an exclusive GPU
  try {
    checker.on_gpu_changed(Time::from_seconds(1), 0, cluster.gpu(0));
    ADD_FAILURE() << "no violation";
  } catch (const InvariantViolation& e) {
    EXPECT_THAT(e.what(), HasSubstr("GPU 0 (TestGPU) at t=1.000000 s: 2 jobs share it"));
    EXPECT_THAT(e.what(), HasSubstr("over-allocation"));
  }
}

TEST(InvariantChecks, SlotOutsideTheLayoutFires) {
  BadSlotModel model;
  const std::string what = violation(model, {job("a", 0, 1, 100)});
  EXPECT_THAT(what, HasSubstr("job 'a' holds slot 5 of a layout of 2 slots"));
}

TEST(InvariantChecks, SoundRunsPass) {
  testing::PairModel model;
  EXPECT_EQ(violation(model, {job("a", 0, 1, 100), job("b", 10, 1, 50), job("c", 20, 2, 30),
                              job("d", 20, 1, 0)}),
            "");
}

TEST(InvariantChecks, CompletionBeforeTheWorkIsDoneFires) {
  ActiveJob j;
  j.spec = job("w", 0, 1, 100);
  EXPECT_NO_THROW(check_completion_work(j, 0.0, 1.0, Time::from_seconds(100)));
  EXPECT_NO_THROW(check_completion_work(j, -0.4, 0.5, Time::from_seconds(100)));  // rounding
  try {
    check_completion_work(j, 250.0, 1.0, Time::from_seconds(99));
    ADD_FAILURE() << "no violation";
  } catch (const InvariantViolation& e) {
    EXPECT_THAT(e.what(), HasSubstr("job 'w' completed at t=99.000000 s with 250"));
    EXPECT_THAT(e.what(), HasSubstr("finished early"));
  }
}

// Signals fed by hand: each sequence breaks one rule of the job lifecycle or of time.
struct Signals {
  Cluster cluster = testing::make_cluster(1, 2);
  testing::PairModel model;
  InvariantChecker checker{cluster, model};
  ActiveJob a;
  Signals() {
    a.spec = job("a", 0, 1, 100);
    a.remaining_us = 100e6;
  }
  void start_on_gpu0(Time now) {
    cluster.add_resident(0, 0, MemoryMiB(0));
    a.gpus = {0};
    checker.on_job_started(now, a);
  }
};

TEST(InvariantChecks, TimeGoingBackwardsFires) {
  Signals s;
  s.checker.on_job_arrived(Time::zero(), s.a);
  s.checker.on_gpu_changed(Time::from_seconds(5), 1, s.cluster.gpu(1));
  EXPECT_THROW(s.checker.on_gpu_changed(Time::from_seconds(4), 1, s.cluster.gpu(1)),
               InvariantViolation);
}

TEST(InvariantChecks, SecondTerminalStateFires) {
  Signals s;
  s.checker.on_job_arrived(Time::zero(), s.a);
  s.start_on_gpu0(Time::zero());
  s.checker.on_job_finished(Time::from_seconds(100), s.a);
  try {
    s.checker.on_job_finished(Time::from_seconds(100), s.a);
    ADD_FAILURE() << "no violation";
  } catch (const InvariantViolation& e) {
    EXPECT_THAT(e.what(), HasSubstr("job 'a' (#0) finished at t=100.000000 s after it already "
                                    "reached a terminal state"));
  }
}

TEST(InvariantChecks, FinishingFasterThanAloneFires) {
  Signals s;
  s.checker.on_job_arrived(Time::zero(), s.a);
  s.start_on_gpu0(Time::zero());
  try {
    s.checker.on_job_finished(Time::from_seconds(60), s.a);  // 100 s of work in 60 s
    ADD_FAILURE() << "no violation";
  } catch (const InvariantViolation& e) {
    EXPECT_THAT(e.what(), HasSubstr("faster than alone"));
  }
}

TEST(InvariantChecks, JobWithoutTerminalStateAtRunEndFires) {
  Signals s;
  s.checker.on_job_arrived(Time::zero(), s.a);
  try {
    s.checker.on_run_end(Time::from_seconds(1), {});  // `a` listed nowhere
    ADD_FAILURE() << "no violation";
  } catch (const InvariantViolation& e) {
    EXPECT_THAT(e.what(), HasSubstr("1 jobs reached no terminal state"));
  }
}

TEST(InvariantChecks, FinishWithoutStartFires) {
  Signals s;
  s.checker.on_job_arrived(Time::zero(), s.a);
  EXPECT_THROW(s.checker.on_job_finished(Time::from_seconds(100), s.a), InvariantViolation);
}

TEST(InvariantChecks, NegativeMemoryFires) {
  Signals s;
  s.cluster.change_memory(1, MemoryMiB(0), MemoryMiB(-5));
  EXPECT_THROW(s.checker.on_gpu_changed(Time::zero(), 1, s.cluster.gpu(1)), InvariantViolation);
}

}  // namespace
}  // namespace gpumux
