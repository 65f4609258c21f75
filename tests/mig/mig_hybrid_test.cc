// The `mig+mps` and `mig+timeslice` hybrids: parameters, sub-devices and rescaled jobs, rates as
// instance roofline x inner rate (checked against the inner models run independently),
// isolation between instances, admission and instance choice, faults kept inside an instance,
// no allocation in compute_rates, and runs through the engine and the scenario path.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "analysis/run/run.h"
#include "models/mig/instance_rate.h"
#include "models/mig/mig_hybrid_model.h"
#include "models/mps/mps_model.h"
#include "models/registry.h"
#include "models/timeslice/timeslice_model.h"
#include "scenarios/scenario.h"
#include "sim/engine/engine.h"
#include "sim/placement/registry.h"
#include "tests/checked_engine.h"
#include "tests/mig/allocation_counter.h"
#include "tests/mig/mig_test_util.h"
#include "tests/traces/test_files.h"

namespace gpumux {
namespace {

using gpumux::testing::input_error_message;
using mig_test::device;
using mig_test::job;
using ::testing::HasSubstr;
using json = nlohmann::json;

std::unique_ptr<SharingModel> make_hybrid_model(const std::string& name, const json& params) {
  JsonObject o(params, "s.json", "/sharing/params");
  return make_sharing_model(name, o, "s.json#/sharing/model");
}

const MigHybridModel& hybrid(const std::unique_ptr<SharingModel>& m) {
  return dynamic_cast<const MigHybridModel&>(*m);
}

std::string hybrid_error_of(const std::string& name, const json& params) {
  return input_error_message([&] { make_hybrid_model(name, params); });
}

// A100-40GB, two 3g.20gb instances (indices 0 and 1).
const json kTwoHalves = {{"layout", {"3g.20gb", "3g.20gb"}}};
// A100-40GB: 3g.20gb, 2g.10gb, 1g.5gb, 1g.5gb (in this order: placement puts the largest first).
const json kBalanced = {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}}};

json with(json params, const std::string& key, json value) {
  params[key] = std::move(value);
  return params;
}

// A GPU as the engine shows it: residents with their instance and memory in use.
struct HybridGpu {
  const DeviceProfile& device;
  std::vector<const JobSpec*> residents;
  std::vector<int> slots;
  std::vector<MemoryMiB> memory;  // in use; defaults to the peak

  GpuView view() const {
    MemoryMiB used;
    for (MemoryMiB m : memory) used += m;
    return GpuView{device, residents, used, memory, 0, slots};
  }
  // Places `j` where the model says when it admits it; returns its slot or -1.
  int offer(const SharingModel& m, const JobSpec& j) {
    if (!m.admits(view(), j)) return -1;
    const int s = m.slot_layout()->choose_slot(view(), j);
    residents.push_back(&j);
    slots.push_back(s);
    memory.push_back(j.memory);
    return s;
  }
  std::vector<double> rates(const SharingModel& m, GpuLoad& load) const {
    std::vector<double> r(residents.size(), 0.0);
    m.compute_rates(view(), r, load);
    return r;
  }
};

JobSpec spec(std::int64_t memory_mib, double sm_util, double sm_share, std::int64_t kernel_us) {
  JobSpec j = job(memory_mib, sm_util, sm_share);
  j.kernel_length = Time::from_us(kernel_us);
  return j;
}

// The job rescaled to an instance by the formula of mig_hybrid_model.h, written out here again
// so that the check does not reuse the code under test.
JobSpec by_hand(const JobSpec& j, double s) {
  JobSpec out = j;
  const double k = std::max(1.0, j.sm_share / s);
  out.sm_share = std::min(1.0, j.sm_share / s);
  out.sm_util = j.sm_util * k / (j.sm_util * k + 1.0 - j.sm_util);
  out.kernel_length = Time::from_us(std::llround(static_cast<double>(j.kernel_length.us()) * k));
  out.mig_profile.clear();
  return out;
}

DeviceProfile instance_device(const DeviceProfile& d, const std::string& profile) {
  const MigProfile* p = find_mig_profile(d, profile);
  DeviceProfile sub = d;
  sub.memory = p->memory;
  sub.sms = p->sms;
  sub.mig_memory_slices = sub.mig_compute_slices = 0;
  sub.mig_profiles.clear();
  return sub;
}

// Rates of `jobs` run by `inner` alone on `sub`, all with their peaks in use.
std::vector<double> inner_rates(const SharingModel& inner, const DeviceProfile& sub,
                                const std::vector<JobSpec>& jobs) {
  std::vector<const JobSpec*> ptrs;
  MemoryMiB used;
  for (const JobSpec& j : jobs) {
    ptrs.push_back(&j);
    used += j.memory;
  }
  std::vector<double> r(jobs.size(), 0.0);
  GpuLoad load;
  inner.compute_rates(GpuView{sub, ptrs, used}, r, load);
  return r;
}

TEST(MigHybrid, RegistryNamesParametersAndErrors) {
  const auto mps =
      make_hybrid_model("mig+mps", with(kBalanced, "inner", {{"admission", "average"}}));
  EXPECT_EQ(mps->name(), "mig+mps");
  EXPECT_EQ(hybrid(mps).inner().name(), "mps");
  EXPECT_EQ(hybrid(mps).instance_choice(), InstanceChoice::kSpread);
  std::map<std::string, ModelParameter> p;
  for (const ModelParameter& q : mps->parameters()) p[q.name] = q;
  EXPECT_TRUE(p.count("layout_entries"));
  EXPECT_TRUE(p.count("compute_aware"));
  EXPECT_FALSE(p.count("jobs_per_instance")) << "the hybrid shares instances";
  EXPECT_TRUE(p.count("inner.memory_admission_fraction"));
  EXPECT_TRUE(p.count("inner.active_thread_percentage"));
  EXPECT_EQ(p["instance_choice"].value, 0.0);
  EXPECT_EQ(p["instance_choice"].source, "default");
  EXPECT_TRUE(p.count("instance_rescaling"));
  for (const auto& [name, q] : p) {
    EXPECT_TRUE(q.kind != ModelParameter::Kind::kNumber || !q.unit.empty()) << name;
    EXPECT_FALSE(q.source.empty()) << name;
    EXPECT_FALSE(q.description.empty()) << name;
  }

  const auto ts = make_hybrid_model("mig+timeslice", with(kBalanced, "instance_choice", "pack"));
  EXPECT_EQ(ts->name(), "mig+timeslice");
  EXPECT_EQ(hybrid(ts).inner().name(), "timeslice");
  EXPECT_EQ(hybrid(ts).instance_choice(), InstanceChoice::kPack);
  bool found = false;
  for (const ModelParameter& q : ts->parameters()) {
    if (q.name == "inner.max_jobs_per_gpu") found = true;
    if (q.name == "instance_choice") {
      EXPECT_EQ(q.value, 1.0);
      EXPECT_EQ(q.source, "scenario");
    }
  }
  EXPECT_TRUE(found);

  EXPECT_THAT(hybrid_error_of("mig+mps", with(kBalanced, "bogus", 1)),
              HasSubstr("s.json#/sharing/params/bogus: field 'bogus': unknown key"));
  EXPECT_THAT(hybrid_error_of("mig+mps", with(kBalanced, "inner", {{"admision", "peak"}})),
              HasSubstr("s.json#/sharing/params/inner/admision: field 'admision': unknown key"));
  EXPECT_THAT(hybrid_error_of("mig+timeslice", with(kBalanced, "inner", {{"admission", "peak"}})),
              HasSubstr("s.json#/sharing/params/inner/admission: field 'admission'"));
  EXPECT_THAT(hybrid_error_of("mig+mps", with(kBalanced, "inner", 3)),
              HasSubstr("s.json#/sharing/params/inner"));
  EXPECT_THAT(hybrid_error_of("mig+mps", with(kBalanced, "instance_choice", "random")),
              HasSubstr("s.json#/sharing/params/instance_choice: field 'instance_choice': "
                        "expected 'spread' or 'pack', got 'random'"));
  EXPECT_THAT(hybrid_error_of("mig+timeslice", json::object()), HasSubstr("give exactly one of"));
  // Layouts are still checked per device, at the mig parameter.
  const auto wrong = make_hybrid_model("mig+mps", {{"layout", {"3g.40gb"}}});
  EXPECT_THAT(input_error_message([&] { wrong->check_device(device("A100-40GB")); }),
              HasSubstr("s.json#/sharing/params/layout: field 'layout'"));
}

TEST(MigHybrid, SubDevicesAndRescaledJobs) {
  const auto m = make_hybrid_model("mig+mps", kBalanced);
  const DeviceProfile& d = device("A100-40GB");
  m->check_device(d);
  const DeviceProfile& small = hybrid(m).sub_device(d, 0, 2);
  EXPECT_EQ(small.name, "A100-40GB/1g.5gb");
  EXPECT_EQ(small.memory, MemoryMiB(4864));
  EXPECT_EQ(small.sms, 14);
  EXPECT_FALSE(small.supports_mig());
  EXPECT_TRUE(small.mig_profiles.empty());
  EXPECT_EQ(small.architecture, d.architecture);
  EXPECT_EQ(small.mps_client_limit, d.mps_client_limit);
  EXPECT_EQ(&hybrid(m).sub_device(d, 0, 3), &small) << "one sub-device per profile, cached";
  EXPECT_EQ(hybrid(m).sub_device(d, 0, 0).name, "A100-40GB/3g.20gb");
  EXPECT_EQ(mig_sub_device(d, *find_mig_profile(d, "2g.10gb")).sms, 28);

  // A job wider than a 1g instance (s = 14/108): k = 0.5 / s = 3.857.
  JobSpec j = spec(1000, 0.5, 0.5, 1000);
  j.tenant = "a tenant whose name is long";
  j.mig_profile = "1g.5gb";
  j.memory_limit = MemoryMiB(900);
  JobSpec out;
  const double s = 14.0 / 108.0, k = 0.5 / s;
  rescale_to_instance(j, s, out);
  EXPECT_DOUBLE_EQ(out.sm_share, 1.0);
  EXPECT_NEAR(out.sm_util, 0.5 * k / (0.5 * k + 0.5), 1e-12);
  EXPECT_EQ(out.kernel_length, Time::from_us(std::llround(1000 * k)));
  EXPECT_EQ(out.memory, j.memory);
  EXPECT_EQ(out.memory_limit, j.memory_limit);
  EXPECT_EQ(out.tenant, j.tenant);
  EXPECT_TRUE(out.mig_profile.empty());
  // A narrow job keeps its duty cycle and kernels; its share grows to the instance's.
  rescale_to_instance(spec(1000, 0.3, 0.05, 700), s, out);
  EXPECT_NEAR(out.sm_share, 0.05 / s, 1e-12);
  EXPECT_DOUBLE_EQ(out.sm_util, 0.3);
  EXPECT_EQ(out.kernel_length, Time::from_us(700));
}

// Two jobs in one instance: rate = mig_instance_rate x the inner model's rate of the rescaled
// jobs on the sub-device, for both inner models.
TEST(MigHybrid, SharedInstanceRateIsInstanceRateTimesInnerRate) {
  const DeviceProfile& d = device("A100-40GB");
  const MigProfile& half = *find_mig_profile(d, "3g.20gb");
  const double s = 42.0 / 108.0;
  const DeviceProfile sub = instance_device(d, "3g.20gb");
  // One wider than the instance (k = 1.29), one narrow; both in instance 0.
  const JobSpec a = spec(6000, 0.6, 0.5, 2000), b = spec(4000, 0.8, 0.2, 300);
  for (const std::string name : {"mig+mps", "mig+timeslice"}) {
    SCOPED_TRACE(name);
    const json inner = name == "mig+mps" ? json{{"interference", 0.3}} : json::object();
    const auto m = make_hybrid_model(name, with(kTwoHalves, "inner", inner));
    HybridGpu g{d, {&a, &b}, {0, 0}, {a.memory, b.memory}};
    GpuLoad load;
    const std::vector<double> r = g.rates(*m, load);

    json inner_params = inner;
    JsonObject o(inner_params, "i.json", "/inner");
    std::unique_ptr<SharingModel> alone;
    if (name == "mig+mps") {
      alone = std::make_unique<MpsModel>(o);
    } else {
      alone = std::make_unique<TimeSliceModel>(o);
    }
    const std::vector<double> in = inner_rates(*alone, sub, {by_hand(a, s), by_hand(b, s)});
    EXPECT_NEAR(r[0], mig_instance_rate(a, d, half) * in[0], 1e-12);
    EXPECT_NEAR(r[1], mig_instance_rate(b, d, half) * in[1], 1e-12);
    // Under mps (blocks) the wide job's CPU gaps hide the narrow one's kernels: only the narrow
    // one waits. Under timeslice both do.
    EXPECT_LT(std::min(in[0], in[1]), 1.0) << "they do slow each other";
    // Fitted form: a's kernels (width 0.5) run 0.5 / s times longer, its CPU gaps do not.
    EXPECT_NEAR(mig_instance_rate(a, d, half), 1.0 / (1.0 + 0.6 * (0.5 / s - 1.0)), 1e-12);
    EXPECT_GT(load.useful_busy, 0.0);
    EXPECT_LE(load.useful_busy + load.overhead, s + 1e-12) << "one instance of 42/108 SMs busy";

    // Alone in its instance a job runs exactly as under `mig`.
    HybridGpu lone{d, {&a}, {0}, {a.memory}};
    EXPECT_NEAR(lone.rates(*m, load)[0], mig_instance_rate(a, d, half), 1e-12);
  }
}

TEST(MigHybrid, NoisyNeighbourInAnotherInstanceChangesNothing) {
  const DeviceProfile& d = device("A100-40GB");
  const JobSpec a = spec(6000, 0.6, 0.5, 2000), b = spec(4000, 0.8, 0.2, 300);
  const JobSpec noisy = spec(15000, 1.0, 1.0, 50), noisy2 = spec(3000, 1.0, 1.0, 50);
  for (const std::string name : {"mig+mps", "mig+timeslice"}) {
    SCOPED_TRACE(name);
    const auto m = make_hybrid_model(name, kTwoHalves);
    GpuLoad quiet_load, loud_load;
    const std::vector<double> quiet =
        HybridGpu{d, {&a, &b}, {0, 0}, {a.memory, b.memory}}.rates(*m, quiet_load);
    const std::vector<double> loud = HybridGpu{
        d,
        {&noisy, &a, &noisy2, &b},
        {1, 0, 1, 0},
        {noisy.memory, a.memory, noisy2.memory,
         b.memory}}.rates(*m, loud_load);
    EXPECT_EQ(loud[1], quiet[0]);
    EXPECT_EQ(loud[3], quiet[1]);
    EXPECT_GT(loud_load.useful_busy, quiet_load.useful_busy);
    EXPECT_LE(loud_load.useful_busy + loud_load.overhead, 1.0 + 1e-12);
  }
}

TEST(MigHybrid, AdmissionPerInstanceAndWholeGpus) {
  const DeviceProfile& d = device("A100-40GB");
  const auto m = make_hybrid_model("mig+mps", with(kTwoHalves, "instance_choice", "pack"));
  HybridGpu g{d, {}, {}, {}};
  const JobSpec gang = job(1000, 1.0, 0.1, "", 2);
  EXPECT_FALSE(m->admits(g.view(), gang)) << "no gang across MIG instances";
  const JobSpec too_big = job(25000);
  EXPECT_FALSE(m->admits(g.view(), too_big)) << "larger than every instance";
  // Peak admission per instance: 12 + 7 GB fill instance 0; 2 more GB go to instance 1.
  const JobSpec a = job(12000), b = job(7000), c = job(2000), e = job(17000);
  EXPECT_EQ(g.offer(*m, a), 0);
  EXPECT_EQ(g.offer(*m, b), 0);
  EXPECT_EQ(g.offer(*m, c), 1) << "instance 0 holds 19000 of 19968 MiB";
  EXPECT_EQ(g.offer(*m, e), 1);
  EXPECT_EQ(g.offer(*m, c), -1) << "both instances full although the GPU has 2960 MiB left";
  const JobSpec requested = job(1000, 1.0, 0.1, "3g.20gb");
  EXPECT_FALSE(m->admits(g.view(), requested));
  HybridGpu empty{d, {}, {}, {}};
  EXPECT_EQ(empty.offer(*m, requested), 0);
  EXPECT_EQ(empty.offer(*m, requested), 0);
  EXPECT_EQ(m->admits(empty.view(), job(1000, 1.0, 0.1, "1g.5gb")), false)
      << "no 1g.5gb in this layout";

  // One MPS server per instance: with one_user_per_server, tenants split across instances.
  const auto per_user = make_hybrid_model(
      "mig+mps",
      with(with(kTwoHalves, "inner", {{"one_user_per_server", true}}), "instance_choice", "pack"));
  JobSpec alice = job(1000), bob = job(1000);
  alice.tenant = "alice";
  bob.tenant = "bob";
  HybridGpu u{d, {}, {}, {}};
  EXPECT_EQ(u.offer(*per_user, alice), 0);
  EXPECT_EQ(u.offer(*per_user, bob), 1);
  EXPECT_EQ(u.offer(*per_user, alice), 0);
  EXPECT_EQ(u.offer(*per_user, bob), 1);
  JobSpec carol = job(1000);
  carol.tenant = "carol";
  EXPECT_FALSE(per_user->admits(u.view(), carol));

  // MIG off (V100, no MIG support): the inner model on the whole GPU, gangs included.
  const DeviceProfile& v100 = device("V100M32");
  HybridGpu w{v100, {}, {}, {}};
  const JobSpec twenty = job(20000, 0.5, 0.3);
  EXPECT_EQ(w.offer(*m, gang), 0);
  EXPECT_EQ(w.offer(*m, twenty), 0);
  EXPECT_EQ(w.offer(*m, twenty), -1) << "the inner model's peak memory check";
  EXPECT_FALSE(m->admits(HybridGpu{v100, {}, {}, {}}.view(), requested))
      << "a MIG request never lands on a whole GPU";
  GpuLoad load;
  const std::vector<double> r = w.rates(*m, load);
  json none = json::object();
  JsonObject o(none, "i.json", "/inner");
  const MpsModel mps(o);
  std::vector<double> expect(2, 0.0);
  GpuLoad l2;
  mps.compute_rates(w.view(), expect, l2);
  EXPECT_EQ(r, expect);
  EXPECT_EQ(m->slot_layout()->slot_count(v100, 0), 0);
  EXPECT_EQ(m->slot_layout()->slot_count(d, 0), 2);
  EXPECT_EQ(m->slot_layout()->slot_info(d, 0, 1).name, "3g.20gb");
  EXPECT_TRUE(m->slot_layout()->slot_fits(d, 0, 1, c));
}

TEST(MigHybrid, SpreadAndPackChooseInstances) {
  const DeviceProfile& d = device("A100-40GB");
  auto names = [&](const SharingModel& m, int jobs, std::int64_t memory_mib) {
    std::vector<std::string> out;
    HybridGpu g{d, {}, {}, {}};
    static std::deque<JobSpec> keep;  // residents must outlive the HybridGpu's pointers
    for (int i = 0; i < jobs; ++i) {
      keep.push_back(job(memory_mib, 0.5, 0.05));
      const int s = g.offer(m, keep.back());
      out.push_back(s < 0 ? "-" : std::string(m.slot_layout()->slot_info(d, 0, s).name));
    }
    return out;
  };
  const auto spread = make_hybrid_model("mig+mps", kBalanced);
  EXPECT_EQ(names(*spread, 6, 2000), (std::vector<std::string>{"1g.5gb", "1g.5gb", "2g.10gb",
                                                               "3g.20gb", "1g.5gb", "1g.5gb"}));
  const auto pack = make_hybrid_model("mig+mps", with(kBalanced, "instance_choice", "pack"));
  // 2 GB jobs: two fit a 1g.5gb (4864 MiB), then the other 1g.5gb, then 2g.10gb (4), ...
  EXPECT_EQ(names(*pack, 9, 2000),
            (std::vector<std::string>{"1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "2g.10gb", "2g.10gb",
                                      "2g.10gb", "2g.10gb", "3g.20gb"}));
  // The two 1g.5gb of the spread run are distinct instances; pack fills one before the other.
  HybridGpu g{d, {}, {}, {}};
  const JobSpec small = job(2000, 0.5, 0.05);
  std::vector<int> slots;
  for (int i = 0; i < 3; ++i) slots.push_back(g.offer(*pack, small));
  EXPECT_EQ(slots[0], slots[1]);
  EXPECT_NE(slots[1], slots[2]);
  // A view without slots: the model replays its own choices and gets the same rates.
  HybridGpu hand = g;
  hand.slots.clear();
  GpuLoad l1, l2;
  EXPECT_EQ(g.rates(*pack, l1), hand.rates(*pack, l2));
  EXPECT_EQ(pack->slot_layout()->choose_slot(g.view(), small),
            pack->slot_layout()->choose_slot(hand.view(), small));
}

TEST(MigHybrid, MemoryFaultStaysInItsInstance) {
  const DeviceProfile& d = device("A100-40GB");
  const auto all = make_hybrid_model("mig+mps", with(kTwoHalves, "inner", {{"oom", "all"}}));
  const JobSpec a = job(8000), b = job(8000), c = job(8000), e = job(8000);
  // a, b in instance 0 grow to 11 + 10 GB (over 19968 MiB); c, e in instance 1 stay at 8 GB.
  HybridGpu g{d,
              {&a, &c, &b, &e},
              {0, 1, 0, 1},
              {MemoryMiB(11000), MemoryMiB(8000), MemoryMiB(10000), MemoryMiB(8000)}};
  std::vector<std::uint8_t> killed(4, 7);
  Time recovery = Time::from_seconds(99);
  ASSERT_TRUE(all->memory_fault(g.view(), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{1, 0, 1, 0})) << "only instance 0's clients";
  EXPECT_EQ(recovery, Time::zero()) << "others still run: no per-GPU recovery";
  // The GPU in total (37 GB) is within its 40 GB: the fault is the instance's.
  EXPECT_LT(g.view().memory_used, d.memory);

  // Both instances over: everyone dies, and the GPU recovers as the MPS server would.
  g.memory = {MemoryMiB(11000), MemoryMiB(12000), MemoryMiB(10000), MemoryMiB(9000)};
  ASSERT_TRUE(all->memory_fault(g.view(), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>(4, 1)));
  EXPECT_EQ(recovery, Time::from_seconds(kDefaultMpsFaultRecoveryS));

  // allocator (timeslice's default): the later allocation in the instance fails alone.
  const auto ts = make_hybrid_model("mig+timeslice", kTwoHalves);
  g.memory = {MemoryMiB(11000), MemoryMiB(8000), MemoryMiB(10000), MemoryMiB(8000)};
  ASSERT_TRUE(ts->memory_fault(g.view(), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(recovery, Time::zero());

  // Nobody over: nobody dies.
  g.memory = {MemoryMiB(8000), MemoryMiB(8000), MemoryMiB(8000), MemoryMiB(8000)};
  EXPECT_FALSE(all->memory_fault(g.view(), killed, recovery));
  EXPECT_EQ(killed, (std::vector<std::uint8_t>(4, 0)));
}

TEST(MigHybrid, OutOfMemoryInAnInstanceKillsItsAskerNotItsNeighbour) {
  const DeviceProfile& d = device("A100-40GB");
  const JobSpec a = job(8000), b = job(8000), c = job(8000);
  // a (placed first in instance 0) grew to 12000 MiB next to b (8000, unchanged): 20000 MiB is
  // over the 3g.20gb instance. Under the default (allocator) a dies in both hybrids.
  HybridGpu g{d, {&a, &c, &b}, {0, 1, 0}, {MemoryMiB(12000), MemoryMiB(8000), MemoryMiB(8000)}};
  const std::vector<std::uint8_t> asked{1, 0, 0};
  GpuView v = g.view();
  v.resident_asked = asked;
  for (const char* name : {"mig+mps", "mig+timeslice"}) {
    const auto m = make_hybrid_model(name, kTwoHalves);
    std::vector<std::uint8_t> killed(3, 7);
    Time recovery = Time::from_seconds(99);
    ASSERT_TRUE(m->memory_fault(v, killed, recovery)) << name;
    EXPECT_EQ(killed, (std::vector<std::uint8_t>{1, 0, 0})) << name;
    EXPECT_EQ(recovery, Time::zero()) << name;
  }
}

TEST(MigHybrid, AFatalFaultStaysInItsInstance) {
  const DeviceProfile& d = device("A100-40GB");
  const JobSpec a = job(4000), b = job(4000), c = job(4000), e = job(4000);
  HybridGpu g{d, {&a, &c, &b, &e}, {0, 1, 0, 1}, {}};
  g.memory.assign(4, MemoryMiB(4000));
  // mig+mps: the faulting client's server (instance 0) tears down a and b; c and e run on, so
  // the GPU takes no per-GPU recovery.
  const auto mps = make_hybrid_model("mig+mps", kTwoHalves);
  std::vector<std::uint8_t> killed(4, 0);
  Time recovery = Time::from_seconds(99);
  mps->fatal_fault(g.view(), 2, killed, recovery);
  EXPECT_EQ(killed, (std::vector<std::uint8_t>{1, 0, 1, 0}));
  EXPECT_EQ(recovery, Time::zero());
  // Alone on the GPU, the instance's clients are everyone: the server's recovery applies.
  HybridGpu lone{d, {&a, &b}, {0, 0}, {MemoryMiB(4000), MemoryMiB(4000)}};
  std::vector<std::uint8_t> both(2, 0);
  mps->fatal_fault(lone.view(), 0, both, recovery);
  EXPECT_EQ(both, (std::vector<std::uint8_t>{1, 1}));
  EXPECT_EQ(recovery, Time::from_seconds(kDefaultMpsFaultTeardownS + kDefaultMpsServerRestartS));
  // mig+timeslice and mig: the faulting job alone.
  for (const char* name : {"mig+timeslice", "mig"}) {
    const auto m = make_hybrid_model(name, kTwoHalves);
    HybridGpu solo{d, {&a, &c}, {0, 1}, {MemoryMiB(4000), MemoryMiB(4000)}};
    const bool shared = std::string(name) != "mig";
    std::vector<std::uint8_t> k(shared ? 4 : 2, 0);
    m->fatal_fault(shared ? g.view() : solo.view(), shared ? 2 : 1, k, recovery);
    EXPECT_EQ(k,
              shared ? (std::vector<std::uint8_t>{0, 0, 1, 0}) : (std::vector<std::uint8_t>{0, 1}))
        << name;
    EXPECT_EQ(recovery, Time::zero()) << name;
  }
}

TEST(MigHybrid, ComputeRatesDoesNotAllocate) {
  const DeviceProfile& d = device("A100-40GB");
  for (const std::string name : {"mig+mps", "mig+timeslice"}) {
    SCOPED_TRACE(name);
    const auto m = make_hybrid_model(name, kBalanced);
    m->check_device(d);
    std::deque<JobSpec> jobs;
    HybridGpu g{d, {}, {}, {}};
    for (int i = 0; i < 12; ++i) {
      jobs.push_back(spec(1500, 0.3 + 0.05 * i, 0.05 + 0.04 * i, 100 + 300 * i));
      jobs.back().tenant = "tenant-with-a-name-longer-than-sso-" + std::to_string(i);
      if (g.offer(*m, jobs.back()) < 0) jobs.pop_back();
    }
    ASSERT_GE(g.residents.size(), 8u);
    std::vector<double> rates(g.residents.size(), 0.0);
    GpuLoad load;
    const GpuView v = g.view();
    m->compute_rates(v, rates, load);  // warm: tenants grow the scratch's capacity
    mig_test::arm_allocation_counter();
    for (int i = 0; i < 50; ++i) m->compute_rates(v, rates, load);
    EXPECT_EQ(mig_test::disarm_allocation_counter(), 0);
  }
}

// Random offers and departures on every built-in MIG device: admitted jobs sit in instances
// that fit them, peak memory per instance stays within it (peak admission), rates in (0, 1].
TEST(MigHybrid, PropertyRandomTraffic) {
  std::mt19937_64 rng(7);
  for (const std::string dev : {"A100-40GB", "A100-80GB", "H100-80GB", "A30-24GB"}) {
    const DeviceProfile& d = device(dev);
    const std::string& smallest = d.mig_profiles.front().name;
    for (const std::string name : {"mig+mps", "mig+timeslice"}) {
      for (const std::string choice : {"spread", "pack"}) {
        SCOPED_TRACE(dev + " " + name + " " + choice);
        const auto m = make_hybrid_model(
            name, {{"layout", {smallest, smallest, smallest}}, {"instance_choice", choice}});
        m->check_device(d);
        std::deque<JobSpec> pool;
        HybridGpu g{d, {}, {}, {}};
        for (int step = 0; step < 300; ++step) {
          std::uniform_real_distribution<double> u(0.05, 1.0);
          if (!g.residents.empty() && rng() % 3 == 0) {
            const std::size_t k = rng() % g.residents.size();
            g.residents.erase(g.residents.begin() + static_cast<long>(k));
            g.slots.erase(g.slots.begin() + static_cast<long>(k));
            g.memory.erase(g.memory.begin() + static_cast<long>(k));
          } else {
            pool.push_back(spec(static_cast<std::int64_t>(200 + rng() % 6000), u(rng), u(rng),
                                static_cast<std::int64_t>(50 + rng() % 5000)));
            g.offer(*m, pool.back());
          }
          const int n = m->slot_layout()->slot_count(d, 0);
          std::vector<MemoryMiB> per(static_cast<std::size_t>(n));
          for (std::size_t k = 0; k < g.residents.size(); ++k) {
            ASSERT_GE(g.slots[k], 0);
            ASSERT_LT(g.slots[k], n);
            EXPECT_TRUE(m->slot_layout()->slot_fits(d, 0, g.slots[k], *g.residents[k]));
            per[static_cast<std::size_t>(g.slots[k])] += g.residents[k]->memory;
          }
          for (int s = 0; s < n; ++s) {
            EXPECT_LE(per[static_cast<std::size_t>(s)],
                      m->slot_layout()->slot_info(d, 0, s).memory);
          }
          if (g.residents.empty()) continue;
          GpuLoad load;
          for (double r : g.rates(*m, load)) {
            EXPECT_GT(r, 0.0);
            EXPECT_LE(r, 1.0);
          }
          EXPECT_GE(load.useful_busy, 0.0);
          EXPECT_LE(load.useful_busy + load.overhead, 1.0 + 1e-9);
        }
      }
    }
  }
}

struct FinishRecorder : EngineObserver {
  std::map<std::string, double> finished;
  void on_job_finished(Time now, const ActiveJob& j) override {
    finished[j.spec.id] = now.seconds();
  }
};

// Two never-idle jobs time-sliced in one 3g.20gb instance: each gets half of the instance (less
// the switches), and the instance's roofline caps a job wider than it.
TEST(MigHybrid, EngineRunTimesliceSharesOneInstance) {
  const auto m = make_hybrid_model("mig+timeslice",
                                   {{"layout", {"3g.20gb"}}, {"inner", {{"switch_cost_us", 0}}}});
  Cluster cluster({device("A100-40GB")}, {NodeSpec{"n0", 0, 1, 0, true}});
  Scheduler scheduler("fifo", make_placement_policy("first-fit"), 64);
  std::vector<JobSpec> jobs;
  for (const std::string id : {"a", "b"}) {
    JobSpec j = spec(5000, 1.0, 0.2, 1000);
    j.id = id;
    j.runtime = Time::from_seconds(100);
    jobs.push_back(j);
  }
  mig_test::ListSource source(std::move(jobs));
  testing::CheckedEngine engine(cluster, *m, scheduler, source);
  FinishRecorder r;
  engine.add_observer(&r);
  engine.run();
  // sm_share 0.2 < s = 42/108: instance rate 1; two u = 1 jobs without switch cost: 1/2 each.
  EXPECT_NEAR(r.finished["a"], 200.0, 1e-3);
  EXPECT_NEAR(r.finished["b"], 200.0, 1e-3);
}

// Through the scenario path: mig+mps takes more small jobs at once than mig on the same trace.
TEST(MigHybrid, ScenarioRunPacksMoreJobsThanMig) {
  json doc = {
      {"name", "hybrid-test"},
      {"seed", 3},
      {"cluster",
       {{"node_groups",
         {{{"name", "mig"}, {"nodes", 1}, {"gpus_per_node", 2}, {"device", "A100-40GB"}}}}}},
      {"sharing",
       {{"model", "mig+mps"},
        {"params",
         {{"layout", {"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}},
          {"inner", {{"admission", "peak"}}}}}}},
      {"scheduler", {{"queue", "fifo-backfill"}, {"placement", "best-fit"}}},
      {"trace",
       {{"generator",
         {{"jobs", 200},
          {"arrival", {{"process", "poisson"}, {"rate_per_hour", 120}}},
          {"runtime_s",
           {{"lognormal", {{"median", 600}, {"sigma", 0.5}}}, {"min", 60}, {"max", 3600}}},
          {"gpus", {{"choice", {1}}}},
          {"sm_util", {{"uniform", {0.1, 0.4}}}},
          {"sm_share", {{"uniform", {0.05, 0.2}}}},
          {"memory_mib", {{"choice", {1024, 2048}}}},
          {"inference_fraction", 1.0}}}}},
      {"outputs", {{"dir", "/nonexistent-hybrid-test"}}},
  };
  RunOptions options;
  options.write_outputs = false;
  const Scenario hybrid_s = parse_scenario(doc, "hybrid.json", ".");
  const RunReport hybrid_r = run_scenario(hybrid_s, options);
  doc["sharing"]["model"] = "mig";
  doc["sharing"]["params"].erase("inner");
  const RunReport mig_r = run_scenario(parse_scenario(doc, "mig.json", "."), options);
  const json& h = hybrid_r.summary["metrics"];
  const json& g = mig_r.summary["metrics"];
  EXPECT_EQ(h["jobs"]["finished"], 200);
  EXPECT_EQ(g["jobs"]["finished"], 200);
  EXPECT_EQ(h["failures"]["memory_faults"], 0);
  EXPECT_LT(h["jct_s"]["mean"].get<double>(), g["jct_s"]["mean"].get<double>());
  EXPECT_LT(h["queueing_delay_s"]["mean"].get<double>(),
            g["queueing_delay_s"]["mean"].get<double>());
  EXPECT_EQ(hybrid_r.summary["scenario"]["sharing"]["model"], "mig+mps");
}

}  // namespace
}  // namespace gpumux
