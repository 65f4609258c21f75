#include "calibrate/probe/measurement_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "calibrate/probe/overlap_math.h"

namespace gpumux::calibration {
namespace {

using AloneKey = std::tuple<std::string, int, int, double, double>;

AloneKey alone_key(const std::string& mode, int atp, const MemberSpec& m) {
  return {mode, atp, m.blocks, m.kernel_us, m.duty};
}

// Every (sm_share, kernel_us, duty) combination, in the reference data's order.
std::vector<MemberSpec> palette(const ProbeOptions& o, int sm_count,
                                const std::vector<double>& shares) {
  std::vector<MemberSpec> out;
  for (double share : shares) {
    for (double k : o.kernel_us) {
      for (double d : o.duty) out.push_back({blocks_for_share(share, sm_count), k, d});
    }
  }
  // Shares that round to the same block count would measure the same thing twice.
  std::vector<MemberSpec> unique;
  for (const MemberSpec& m : out) {
    const bool seen = std::any_of(unique.begin(), unique.end(), [&](const MemberSpec& u) {
      return u.blocks == m.blocks && u.kernel_us == m.kernel_us && u.duty == m.duty;
    });
    if (!seen) unique.push_back(m);
  }
  return unique;
}

// Deterministic sets of `size` distinct palette entries; the same for every mode so that
// modes can be compared set by set.
std::vector<std::vector<MemberSpec>> mixed_sets(const std::vector<MemberSpec>& pal, int size,
                                                int count, uint64_t seed) {
  std::vector<std::vector<MemberSpec>> sets;
  if (static_cast<int>(pal.size()) < size || count <= 0) return sets;
  std::mt19937_64 rng(seed * 1000003ULL + static_cast<uint64_t>(size));
  std::set<std::vector<size_t>> chosen;
  for (int tries = 0; static_cast<int>(sets.size()) < count && tries < 100 * count; ++tries) {
    std::vector<size_t> idx;
    while (static_cast<int>(idx.size()) < size) {
      const size_t i = static_cast<size_t>(rng() % pal.size());
      if (std::find(idx.begin(), idx.end(), i) == idx.end()) idx.push_back(i);
    }
    std::vector<size_t> key = idx;
    std::sort(key.begin(), key.end());
    if (!chosen.insert(key).second) continue;
    std::vector<MemberSpec> set;
    for (size_t i : idx) set.push_back(pal[i]);
    sets.push_back(set);
  }
  return sets;
}

PlanItem make_set(const std::string& mode, int atp, const std::string& name,
                  std::vector<MemberSpec> members) {
  PlanItem item;
  item.kind = ItemKind::kSet;
  item.mode = mode;
  item.active_thread_pct = atp;
  item.name = name;
  item.members = std::move(members);
  return item;
}

int mode_rank(const PlanItem& item) {
  if (item.kind == ItemKind::kSolo) return 0;
  return item.mode == "timeslice" ? 1 : 2;
}

}  // namespace

std::string mode_label(const std::string& mode, int active_thread_pct) {
  if (active_thread_pct >= 100) return mode;
  return mode + "_atp" + std::to_string(active_thread_pct);
}

double tail_seconds(const MemberSpec& m) {
  const double period_s = (m.kernel_us + gap_us(m.kernel_us, m.duty)) * 1e-6;
  return std::max(0.02, 2 * period_s);
}

double loop_seconds(const ProbeOptions& o, const MemberSpec& m) {
  return o.warmup_s + o.window_s + tail_seconds(m);
}

int solo_repeats(double kernel_us) {
  return std::clamp(static_cast<int>(0.1e6 / kernel_us), 20, 2000);
}

std::vector<MemberSpec> solo_points(const ProbeOptions& o, int sm_count) {
  std::vector<int> blocks = {1};
  for (int eighth = 1; eighth <= 8; ++eighth) blocks.push_back(std::max(1, sm_count * eighth / 8));
  blocks.push_back(sm_count + 1);
  blocks.push_back(2 * sm_count);
  std::sort(blocks.begin(), blocks.end());
  blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
  std::vector<MemberSpec> points;
  for (double k : o.kernel_us) {
    for (int b : blocks) points.push_back({b, k, 1.0});
  }
  return points;
}

MeasurementPlan build_plan(const ProbeOptions& o, const PlanContext& ctx) {
  const PlanTimes& t = ctx.times;
  const int sms = ctx.sm_count;
  const bool prohibited = ctx.compute_mode == 2;
  const bool exclusive = ctx.compute_mode == 1 || ctx.compute_mode == 3;
  const bool want_ts = std::find(o.modes.begin(), o.modes.end(), "timeslice") != o.modes.end();
  const bool want_mps = std::find(o.modes.begin(), o.modes.end(), "mps") != o.modes.end();

  // Candidates in priority order.
  std::vector<PlanItem> candidates;
  PlanItem solo;
  solo.kind = ItemKind::kSolo;
  solo.name = "solo";
  solo.solo_points = solo_points(o, sms);
  candidates.push_back(solo);

  const std::vector<MemberSpec> pal = palette(o, sms, o.sm_share);
  const double max_share = o.sm_share.empty() ? 1.0 : o.sm_share.back();
  const std::vector<MemberSpec> full_pal = palette(o, sms, {max_share});
  std::vector<std::string> modes;
  if (want_ts) modes.push_back("timeslice");
  if (want_mps) modes.push_back("mps");

  for (const std::string& mode : modes) {
    int i = 0;
    for (const MemberSpec& m : pal) {
      candidates.push_back(make_set(mode, 100, mode + "-pair" + std::to_string(i++), {m, m}));
    }
  }
  if (want_mps) {
    for (int atp : o.active_thread_pct) {
      // A cap changes nothing for kernels that fit under it; measure where it binds.
      std::vector<double> shares;
      for (double s : o.sm_share) {
        if (s > atp / 100.0) shares.push_back(s);
      }
      int i = 0;
      const std::string label = mode_label("mps", atp);
      for (const MemberSpec& m : palette(o, sms, shares)) {
        candidates.push_back(make_set("mps", atp, label + "-pair" + std::to_string(i++), {m, m}));
      }
    }
  }
  const auto pairs = mixed_sets(pal, 2, o.mixed_pairs, o.seed);
  for (const std::string& mode : modes) {
    int i = 0;
    for (const auto& s : pairs) {
      candidates.push_back(make_set(mode, 100, mode + "-mixed-pair" + std::to_string(i++), s));
    }
  }
  if (o.containment) {
    for (const std::string& mode : modes) {
      PlanItem mem;
      mem.kind = ItemKind::kMemoryContainment;
      mem.mode = mode;
      mem.name = mode + "-memory";
      candidates.push_back(mem);
      PlanItem fault = mem;
      fault.kind = ItemKind::kFaultContainment;
      fault.name = mode + "-fault";
      candidates.push_back(fault);
    }
  }
  for (const std::string& mode : modes) {
    int i = 0;
    for (const MemberSpec& m : full_pal) {
      candidates.push_back(make_set(mode, 100, mode + "-triple" + std::to_string(i++), {m, m, m}));
    }
  }
  const auto triples = mixed_sets(pal, 3, o.mixed_triples, o.seed);
  for (const std::string& mode : modes) {
    int i = 0;
    for (const auto& s : triples) {
      candidates.push_back(make_set(mode, 100, mode + "-mixed-triple" + std::to_string(i++), s));
    }
  }

  // Keep what fits, in priority order.
  MeasurementPlan plan;
  std::set<AloneKey> alone_planned;
  double used = t.reserve_s;
  bool mps_started = false;
  for (PlanItem& item : candidates) {
    std::string reason;
    if (prohibited) {
      reason = "compute mode is prohibited: no process may use the GPU";
    } else if (item.mode == "timeslice" && exclusive && item.kind != ItemKind::kSolo) {
      reason =
          "compute mode is exclusive-process: a second process cannot create a context, "
          "so time-slicing sets are impossible";
    }
    double est = 0;
    switch (item.kind) {
      case ItemKind::kSolo: {
        double gpu_s = 0;
        for (const MemberSpec& p : item.solo_points) {
          const double waves = std::ceil(static_cast<double>(p.blocks) / sms);
          // Timed twice (events, then wall clock), ~10 us launch overhead per kernel.
          gpu_s += 2 * solo_repeats(p.kernel_us) * (p.kernel_us * waves + 10) * 1e-6;
        }
        est = t.spawn_s + gpu_s;
        break;
      }
      case ItemKind::kSet: {
        item.alone_first.clear();
        double alone_s = 0;
        for (const MemberSpec& m : item.members) {
          const AloneKey key = alone_key(item.mode, item.active_thread_pct, m);
          const bool dup = std::any_of(
              item.alone_first.begin(), item.alone_first.end(), [&](const MemberSpec& a) {
                return alone_key(item.mode, item.active_thread_pct, a) == key;
              });
          if (alone_planned.count(key) == 0 && !dup) {
            item.alone_first.push_back(m);
            alone_s += loop_seconds(o, m);
          }
        }
        double together_s = 0;
        for (const MemberSpec& m : item.members)
          together_s = std::max(together_s, loop_seconds(o, m));
        est = t.spawn_s + together_s + (item.alone_first.empty() ? 0 : t.spawn_s + alone_s);
        break;
      }
      case ItemKind::kMemoryContainment:
        est = t.spawn_s + t.memory_test_s;
        break;
      case ItemKind::kFaultContainment:
        est = t.spawn_s + (item.mode == "mps" ? t.fault_test_mps_s : t.fault_test_timeslice_s);
        break;
    }
    if (item.mode == "mps" && !mps_started) est += t.mps_start_s;
    item.estimate_s = est;
    if (reason.empty() && used + est > o.budget_s) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "does not fit the budget: needs %.1f s, %.1f s left", est,
                    std::max(0.0, o.budget_s - used));
      reason = buf;
    }
    if (!reason.empty()) {
      plan.skipped.push_back({item.name, reason, est});
      continue;
    }
    used += est;
    if (item.mode == "mps") mps_started = true;
    for (const MemberSpec& m : item.alone_first) {
      alone_planned.insert(alone_key(item.mode, item.active_thread_pct, m));
    }
    plan.items.push_back(item);
  }
  // Execution order: solo, time-slicing, MPS; within a mode the fault test last.
  std::stable_sort(plan.items.begin(), plan.items.end(), [](const PlanItem& a, const PlanItem& b) {
    const int ra = mode_rank(a), rb = mode_rank(b);
    if (ra != rb) return ra < rb;
    return (a.kind == ItemKind::kFaultContainment) < (b.kind == ItemKind::kFaultContainment);
  });
  plan.estimate_s = used;
  return plan;
}

std::string describe_plan(const MeasurementPlan& plan, int sm_count) {
  std::ostringstream out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "plan: %zu items, about %.0f s (SM count %d)\n", plan.items.size(),
                plan.estimate_s, sm_count);
  out << buf;
  for (const PlanItem& item : plan.items) {
    std::snprintf(buf, sizeof buf, "  %-28s %6.1f s", item.name.c_str(), item.estimate_s);
    out << buf;
    for (const MemberSpec& m : item.members) {
      std::snprintf(buf, sizeof buf, "  [%d blocks %g us duty %g]", m.blocks, m.kernel_us, m.duty);
      out << buf;
    }
    if (item.kind == ItemKind::kSolo) out << "  " << item.solo_points.size() << " kernels timed";
    out << '\n';
  }
  for (const SkippedItem& s : plan.skipped) {
    out << "  skipped " << s.name << ": " << s.reason << '\n';
  }
  return out.str();
}

}  // namespace gpumux::calibration
