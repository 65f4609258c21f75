#include "analysis/fleet/fleet_plan.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <tuple>

#include "analysis/fleet/endpoint_groups.h"
#include "analysis/fleet/fleet_group_run.h"
#include "analysis/fleet/fleet_scenario.h"
#include "analysis/metrics/endpoint_selector.h"
#include "analysis/metrics/json_path.h"
#include "analysis/output/number_text.h"
#include "analysis/run/run.h"
#include "models/mig/layout.h"
#include "models/mig/mig_parted.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/parallel_tasks.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {

namespace {

constexpr int kMaxReplicas = 16;

// The objectives of a fleet plan: the user's, each per endpoint (a request metric without a
// selector applies to every endpoint), then the implicit ones.
std::vector<Objective> fleet_objectives(const std::vector<std::string>& texts) {
  std::vector<Objective> out;
  for (const std::string& t : texts) {
    Objective o = parse_objective(t);
    if (o.relative_to_exclusive) {
      throw InputError("--objective " + t, o.metric,
                       "a fleet plan holds every endpoint to an absolute bound; a bound "
                       "relative to exclusive has no per-endpoint meaning here");
    }
    if (!o.endpoints) {
      require_per_endpoint_metric(o.metric, "--objective " + t);
      o.endpoints = EndpointSelector{EndpointSelector::Kind::kGlob, "*"};
    } else {
      require_per_endpoint_metric(o.metric, "--objective " + t);
    }
    for (const Objective& prior : out) {
      if (prior.subject() == o.subject()) {
        throw InputError("--objective " + t, o.metric,
                         "given twice for the same endpoints (" + prior.text() + ")");
      }
    }
    out.push_back(std::move(o));
  }
  for (const char* metric : {"requests.refused", "requests.dropped"}) {
    Objective o;
    o.metric = metric;
    o.bound = Bound::kAtMost;
    o.limit = 0.0;
    o.implicit = true;
    o.endpoints = EndpointSelector{EndpointSelector::Kind::kGlob, "*"};
    const bool given = std::any_of(out.begin(), out.end(),
                                   [&](const Objective& u) { return u.subject() == o.subject(); });
    if (!given) out.push_back(std::move(o));
  }
  return out;
}

class Planner {
 public:
  Planner(const FleetRequest& request, FleetResult& result, std::ostream* progress)
      : base_(load_fleet_base(request)),
        result_(result),
        progress_(progress),
        runner_(request.scratch_dir, request.scenario_file, request.seeds, result.objectives) {}

  const FleetBase& base() const { return base_; }

  // Runs `layout` (GPUs, each its endpoints and their settings) and judges it.
  GroupRun run(const std::string& model, const std::vector<FleetGpuSettings>& layout) {
    return runner_.run(base_, model, layout);
  }
  GroupRun run_on(const FleetBase& base, const std::string& model,
                  const std::vector<FleetGpuSettings>& layout) {
    return runner_.run(base, model, layout);
  }

  FleetAnswer plan(const std::string& model);
  void naive();
  // Endpoints that miss an objective alone on a whole GPU become round-robin replicas: the
  // fewest (up to kMaxReplicas) each of which meets every objective alone.
  void replicate();

 private:
  void say(const std::string& line) {
    const std::lock_guard<std::mutex> lock(say_mutex_);
    if (progress_) *progress_ << "[plan --fleet] " << line << "\n" << std::flush;
  }
  std::vector<FleetGpuSettings> shared_settings(const std::string& model,
                                                const std::vector<EndpointMask>& groups) const;
  bool mig_assignment(EndpointMask group, std::vector<std::string>& profiles) const;
  // What the whole-fleet run showed of each endpoint and GPU beyond its objectives (CDFs, busy
  // shares, memory), into the answer.
  void record_fleet_run(const GroupRun& fleet, FleetAnswer& a) const;
  // Whether the group holds both plain services and LLM endpoints.
  bool mixes_kinds(EndpointMask group) const {
    bool plain = false, llm = false;
    for (const int i : mask_members(group)) {
      (base_.endpoints[static_cast<std::size_t>(i)].plain ? plain : llm) = true;
    }
    return plain && llm;
  }
  // The widest tensor_parallel among the group's endpoints (1: none spans several GPUs).
  int gang_width(EndpointMask group) const {
    int w = 1;
    for (const int i : mask_members(group)) {
      w = std::max(w, base_.endpoints[static_cast<std::size_t>(i)].tensor_parallel);
    }
    return w;
  }

  FleetBase base_;
  FleetResult& result_;
  std::ostream* progress_;
  GroupRunner runner_;
  std::mutex say_mutex_;
  // mig: per endpoint, the profiles it meets its objectives on alone (smallest first).
  std::vector<std::vector<std::string>> mig_fits_;
  std::vector<std::optional<FleetMiss>> mig_largest_miss_;
};

// The equal-share settings of a GPU with k endpoints under mps or timeslice (the device
// plugin's shares: what can be deployed).
FleetEndpointSettings equal_share(int index, int k, FleetForm form, const DeviceProfile& device) {
  FleetEndpointSettings s;
  s.index = index;
  s.gpu_memory_utilization = std::floor(90.0 / k) / 100.0;
  if (form == FleetForm::kMpsClients) {
    s.mps_thread_percentage = 100 / k;
    s.mps_memory_limit_mib = device.memory.mib() / k;
  }
  return s;
}

std::vector<FleetGpuSettings> Planner::shared_settings(
    const std::string& model, const std::vector<EndpointMask>& groups) const {
  std::vector<FleetGpuSettings> out;
  for (const EndpointMask g : groups) {
    FleetGpuSettings gpu;
    const auto members = mask_members(g);
    const FleetForm form = *fleet_form(model);
    if (const int tp = gang_width(g); tp > 1) {
      // A gang alone on its whole GPUs, under every model.
      FleetEndpointSettings s;
      s.index = members.front();
      s.gpu_memory_utilization = 0.9;
      gpu.width = tp;
      gpu.endpoints.push_back(s);
      out.push_back(std::move(gpu));
      continue;
    }
    std::vector<std::string> profiles;
    if (form == FleetForm::kInstances) mig_assignment(g, profiles);
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (form == FleetForm::kInstances) {
        FleetEndpointSettings s;
        s.index = members[i];
        s.gpu_memory_utilization = 0.9;
        s.mig_profile = profiles[i];
        gpu.endpoints.push_back(s);
      } else if (form == FleetForm::kWhole) {
        FleetEndpointSettings s;
        s.index = members[i];
        s.gpu_memory_utilization = 0.9;
        gpu.endpoints.push_back(s);
      } else {
        gpu.endpoints.push_back(
            equal_share(members[i], static_cast<int>(members.size()), form, base_.device));
      }
    }
    out.push_back(std::move(gpu));
  }
  return out;
}

// A choice of each member's fitting profiles (smallest first, first valid choice in order)
// that places validly on the device.
bool Planner::mig_assignment(EndpointMask group, std::vector<std::string>& profiles) const {
  const auto members = mask_members(group);
  profiles.assign(members.size(), "");
  std::function<bool(std::size_t)> choose = [&](std::size_t i) -> bool {
    if (i == members.size()) return place_profiles(base_.device, profiles).ok;
    for (const std::string& p : mig_fits_[static_cast<std::size_t>(members[i])]) {
      profiles[i] = p;
      // Prune: the profiles chosen so far must place on their own.
      if (!place_profiles(base_.device,
                          std::vector<std::string>(profiles.begin(), profiles.begin() + i + 1))
               .ok) {
        continue;
      }
      if (choose(i + 1)) return true;
    }
    return false;
  };
  return choose(0);
}

void Planner::record_fleet_run(const GroupRun& fleet, FleetAnswer& a) const {
  for (std::size_t i = 0; i < a.endpoints.size(); ++i) {
    FleetEndpoint& e = a.endpoints[i];
    if (const auto c = fleet.cdfs.find(e.id); c != fleet.cdfs.end()) {
      e.ttft_cdf_ms = c->second.ttft_ms;
      e.tpot_cdf_ms = c->second.tpot_ms;
    }
    if (const auto b = fleet.busy_share.find(e.id); b != fleet.busy_share.end()) {
      e.busy_share = b->second;
    }
    if (const auto n = fleet.served.find(e.id);
        n != fleet.served.end() && std::isfinite(n->second)) {
      e.served_requests = n->second;
    }
    if (const auto k = fleet.kv_cache_use.find(e.id); k != fleet.kv_cache_use.end()) {
      e.kv_cache_use = k->second;
    }
    e.fixed_mib = base_.endpoints[i].fixed_mib;
    if (const auto* m = json_at_path(e.engine, "engine_memory_mib"); m && m->is_number()) {
      e.engine_memory_mib = m->get<double>();
    }
  }
  // The whole-fleet run places GPU by GPU in the answer's order (first fit), so its GPU index is
  // the answer's.
  if (!fleet.shared_gpus.is_array()) return;
  for (FleetGpu& gpu : a.gpus) {
    for (const auto& row : fleet.shared_gpus) {
      if (row.value("gpu", -1) != gpu.first) continue;
      gpu.gpu_busy = fleet_number_at(row, "gpu_busy");
      gpu.sm_busy = fleet_number_at(row, "sm_busy");
      gpu.bandwidth_busy = fleet_number_at(row, "bandwidth_busy");
    }
  }
}

FleetAnswer Planner::plan(const std::string& model) {
  FleetAnswer a;
  a.model = model;
  const FleetForm form = *fleet_form(model);
  a.form = form;
  // Every simulation of this answer's search, counted.
  const auto simulate = [&](const std::string& m, const std::vector<FleetGpuSettings>& layout) {
    ++a.groups_simulated;
    return run(m, layout);
  };
  const int n = static_cast<int>(base_.endpoints.size());
  std::map<EndpointMask, GroupRun> runs;  // every group run, by mask
  GroupOracle oracle([&](EndpointMask mask) -> bool {
    // Plain services and LLM endpoints share a GPU only as isolated MIG instances (fleet_plan.h).
    if (form != FleetForm::kInstances && std::popcount(mask) > 1 && mixes_kinds(mask)) {
      return false;
    }
    const bool gang = gang_width(mask) > 1;
    // A tensor-parallel endpoint has its GPUs to itself, whole, under every model.
    if (gang && std::popcount(mask) > 1) return false;
    if (form == FleetForm::kWhole && std::popcount(mask) > 1) return false;
    if (form == FleetForm::kInstances && !gang) {
      std::vector<std::string> profiles;
      return mig_assignment(mask, profiles);
    }
    if (form != FleetForm::kWhole && std::popcount(mask) > 1) {
      // Memory first: the weights and runtime reserve of each must fit its equal share.
      const int k = std::popcount(mask);
      for (const int i : mask_members(mask)) {
        const double share = std::floor(90.0 / k) / 100.0 * base_.device.memory.mib();
        if (base_.endpoints[static_cast<std::size_t>(i)].fixed_mib >= share) return false;
      }
    }
    GroupRun g;
    try {
      g = simulate(model, shared_settings(model, {mask}));
    } catch (const InputError& e) {
      // The equal share leaves no room for an engine (refused as vLLM would refuse to start).
      g.met = false;
      g.miss = FleetMiss{"", std::string("the engines do not start: ") + e.what(), 0, 0};
    }
    const bool met = g.met;
    runs.emplace(mask, std::move(g));
    return met;
  });
  if (form == FleetForm::kInstances) {
    // Each endpoint alone on each profile, smallest first (compute slices, then memory).
    mig_fits_.assign(static_cast<std::size_t>(n), {});
    mig_largest_miss_.assign(static_cast<std::size_t>(n), std::nullopt);
    std::vector<MigProfile> order = base_.device.mig_profiles;
    std::stable_sort(order.begin(), order.end(), [](const MigProfile& x, const MigProfile& y) {
      return std::tie(x.compute_slices, x.memory_slices) <
             std::tie(y.compute_slices, y.memory_slices);
    });
    // More SMs and memory never make an endpoint worse (the assumption of endpoint_groups.h):
    // a profile at least as large in both as one the endpoint fits adds nothing to the choice,
    // and is neither run nor offered; the fitting profiles kept are the minimal ones.
    const auto covers = [](const MigProfile& big, const MigProfile& small) {
      return big.compute_slices >= small.compute_slices && big.memory_slices >= small.memory_slices;
    };
    for (int i = 0; i < n; ++i) {
      if (base_.endpoints[static_cast<std::size_t>(i)].tensor_parallel > 1) continue;
      std::vector<const MigProfile*> fitting;
      for (const MigProfile& p : order) {
        if (std::any_of(fitting.begin(), fitting.end(),
                        [&](const MigProfile* f) { return covers(p, *f); })) {
          continue;
        }
        FleetGpuSettings gpu;
        FleetEndpointSettings s;
        s.index = i;
        s.gpu_memory_utilization = 0.9;
        s.mig_profile = p.name;
        gpu.endpoints.push_back(s);
        GroupRun g;
        try {
          g = simulate(model, {gpu});
        } catch (const InputError& e) {
          g.met = false;
          g.miss = FleetMiss{base_.endpoints[static_cast<std::size_t>(i)].id,
                             std::string("does not fit ") + p.name + ": " + e.what(), 0, 0};
        }
        if (g.met) {
          fitting.push_back(&p);
          mig_fits_[static_cast<std::size_t>(i)].push_back(p.name);
          runs.emplace(EndpointMask{1} << i, g);  // the smallest fitting profile's run
        } else {
          mig_largest_miss_[static_cast<std::size_t>(i)] = g.miss;
        }
      }
    }
    say(model + ": each endpoint alone on its smallest fitting profiles (of " +
        std::to_string(order.size()) + ")");
  }
  const GroupSearchResult found = fewest_groups(n, oracle);
  a.exact = found.exact;
  if (n > kExactSearchLimit) {
    const std::string first_fit = "first fit: " + std::to_string(found.first_fit_groups) + " GPUs";
    a.search_note = found.exact
                        ? "every working group listed (" + std::to_string(found.working_groups) +
                              ") and every cover by them searched; " + first_fit
                        : "not exact, " + found.not_exact_because + " (" +
                              std::to_string(found.working_groups) + " working groups listed); " +
                              first_fit;
  }
  for (const int i : mask_members(found.alone_failing)) {
    if (form == FleetForm::kInstances && base_.endpoints[static_cast<std::size_t>(i)].tensor_parallel == 1) {
      if (mig_largest_miss_[static_cast<std::size_t>(i)]) {
        a.alone_misses.push_back(*mig_largest_miss_[static_cast<std::size_t>(i)]);
      }
    } else if (const auto it = runs.find(EndpointMask{1} << i);
               it != runs.end() && it->second.miss) {
      a.alone_misses.push_back(*it->second.miss);
    }
  }
  // GPUs with fewer endpoints first: under memory admission each GPU's engines then fill it
  // before the next GPU's start (the whole-fleet run places them in this order).
  std::vector<EndpointMask> groups = found.groups;
  // Gangs go first, widest first, so that none straddles a node (widths are powers of two that
  // divide the node).
  std::stable_sort(groups.begin(), groups.end(), [&](EndpointMask x, EndpointMask y) {
    const int wx = gang_width(x), wy = gang_width(y);
    if (wx != wy) return wx > wy;
    return std::popcount(x) < std::popcount(y);
  });
  const std::vector<FleetGpuSettings> layout = shared_settings(model, groups);
  a.endpoints.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const FleetEndpointInfo& info = base_.endpoints[static_cast<std::size_t>(i)];
    a.endpoints[static_cast<std::size_t>(i)].id = info.id;
    a.endpoints[static_cast<std::size_t>(i)].service_class = info.service_class;
    a.endpoints[static_cast<std::size_t>(i)].llm_model = info.llm_model;
    a.endpoints[static_cast<std::size_t>(i)].parent = info.parent;
    a.endpoints[static_cast<std::size_t>(i)].replica = info.replica;
    a.endpoints[static_cast<std::size_t>(i)].replicas = info.replicas;
  }
  std::map<std::string, std::vector<double>> planned_values;  // by id, from its group's run
  int next_gpu = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    FleetGpu gpu;
    gpu.first = next_gpu;
    gpu.width = layout[g].width;
    next_gpu += gpu.width;
    // mig: the group's run is each member's alone run on its profile (isolated instances).
    for (const FleetEndpointSettings& s : layout[g].endpoints) {
      FleetEndpoint& e = a.endpoints[static_cast<std::size_t>(s.index)];
      GroupRun* from = nullptr;
      GroupRun alone;
      if (form == FleetForm::kInstances) {
        FleetGpuSettings one;
        one.width = layout[g].width;
        one.endpoints.push_back(s);
        alone = simulate(model, {one});
        from = &alone;
      } else {
        from = &runs.at(groups[g]);
      }
      const FleetEndpoint& numbers = from->endpoints.at(e.id);
      if (const auto v = from->values.find(e.id); v != from->values.end()) {
        planned_values[e.id] = v->second;
      }
      e.gpu = gpu.first;
      e.tensor_parallel = gpu.width;
      e.mig_profile = s.mig_profile;
      e.gpu_memory_utilization = s.gpu_memory_utilization;
      e.mps_thread_percentage = s.mps_thread_percentage;
      e.mps_memory_limit_mib = s.mps_memory_limit_mib;
      e.plain = numbers.plain;
      e.latency_p50_ms = numbers.latency_p50_ms;
      e.latency_p99_ms = numbers.latency_p99_ms;
      e.ttft_p50_ms = numbers.ttft_p50_ms;
      e.ttft_p99_ms = numbers.ttft_p99_ms;
      e.tpot_p50_ms = numbers.tpot_p50_ms;
      e.tpot_p99_ms = numbers.tpot_p99_ms;
      e.output_tokens_per_s = numbers.output_tokens_per_s;
      e.checks = numbers.checks;
      gpu.endpoints.push_back(s.index);
      if (!s.mig_profile.empty()) gpu.mig_layout.push_back(s.mig_profile);
      if (std::isfinite(e.output_tokens_per_s)) gpu.output_tokens_per_s += e.output_tokens_per_s;
    }
    a.gpus.push_back(std::move(gpu));
  }
  // The whole fleet, as one scenario.
  const FleetDocument whole = fleet_document(base_, model, layout);
  a.scenario = whole.scenario;
  a.trace_csv = whole.trace_csv;
  if (!layout.empty()) {
    const GroupRun fleet = simulate(model, layout);
    for (const auto& [id, engine] : fleet.engines) {
      a.endpoints[static_cast<std::size_t>(base_.index_of(id))].engine = engine;
    }
    for (const auto& [id, echo] : fleet.llm_echoes) {
      a.endpoints[static_cast<std::size_t>(base_.index_of(id))].llm_echo = echo;
    }
    record_fleet_run(fleet, a);
    std::string differ;
    for (const auto& [id, values] : fleet.values) {
      const std::vector<double>& planned = planned_values[id];
      const auto& checks = a.endpoints[static_cast<std::size_t>(base_.index_of(id))].checks;
      if (values.size() != planned.size() && differ.empty()) {
        differ = id + ": " + std::to_string(values.size()) + " values in the whole fleet, " +
                 std::to_string(planned.size()) + " planned";
      }
      for (std::size_t k = 0; k < values.size() && k < planned.size(); ++k) {
        const bool same =
            (std::isnan(values[k]) && std::isnan(planned[k])) ||
            std::abs(values[k] - planned[k]) <= 1e-9 * std::max(1.0, std::abs(planned[k]));
        if (!same && differ.empty()) {
          // Values run objective by objective, then seed by seed.
          const std::string what = checks.empty() ? "" : " " + checks[k % checks.size()].objective;
          differ = id + what + " " + number_text(values[k]) + " in the whole fleet, " +
                   number_text(planned[k]) + " planned";
        }
      }
    }
    a.verified = differ.empty();
    a.verification = a.verified
                         ? "the whole fleet run as one scenario gives every endpoint its planned "
                           "values"
                         : "the whole fleet run as one scenario differs from the plan (" + differ +
                               "): endpoints did not land as planned";
  }
  // Headroom: each GPU's endpoints at 1.25, 1.5 and 2 times their load, together, until each
  // has missed once.
  for (std::size_t g = 0; g < groups.size() && a.verified; ++g) {
    std::vector<int> open(a.gpus[g].endpoints);
    for (const double step : kHeadroomSteps) {
      if (open.empty()) break;
      FleetGpuSettings scaled = layout[g];
      for (auto& s : scaled.endpoints) s.load_scale = step;
      GroupRun r;
      try {
        r = simulate(model, {scaled});
      } catch (const InputError&) {
        // The scaled load cannot run: leave the headroom found so far; a plain service whose
        // arrivals do not scale (a rate series, request times) has none to show.
        for (const int i : open) {
          FleetEndpoint& e = a.endpoints[static_cast<std::size_t>(i)];
          if (e.plain) e.headroom = std::nan("");
        }
        open.clear();
        break;
      }
      for (auto it = open.begin(); it != open.end();) {
        FleetEndpoint& e = a.endpoints[static_cast<std::size_t>(*it)];
        const auto& checks = r.endpoints.at(e.id).checks;
        const bool met = std::all_of(checks.begin(), checks.end(),
                                     [](const FleetEndpoint::Check& c) { return c.met; });
        if (met) {
          e.headroom = step;
          ++it;
        } else {
          it = open.erase(it);
        }
      }
    }
    for (const int i : open) a.endpoints[static_cast<std::size_t>(i)].headroom_open = true;
  }
  // One GPU fewer: the two GPUs of least output tokens/s merged.
  // Gangs keep their GPUs whole: only single GPUs merge.
  std::vector<std::size_t> order;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (a.gpus[g].width == 1) order.push_back(g);
  }
  if (form == FleetForm::kWhole && a.gpu_count() >= 2) {
    a.one_fewer_note = "one endpoint per GPU: " + std::to_string(groups.size()) +
                       " endpoints need " + std::to_string(a.gpu_count()) + " GPUs";
  } else if (order.size() < 2 && a.gpu_count() >= 2) {
    a.one_fewer_note = "no two single GPUs to merge (tensor-parallel gangs keep their GPUs)";
  }
  if (order.size() >= 2 && form != FleetForm::kWhole) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return a.gpus[x].output_tokens_per_s < a.gpus[y].output_tokens_per_s;
    });
    // The least loaded pair that may share: plain services merge with plain services only.
    std::size_t x = order[0], y = order[1];
    bool paired = false;
    for (std::size_t i = 0; i < order.size() && !paired; ++i) {
      for (std::size_t j = i + 1; j < order.size() && !paired; ++j) {
        if (form == FleetForm::kInstances || !mixes_kinds(groups[order[i]] | groups[order[j]])) {
          x = order[i];
          y = order[j];
          paired = true;
        }
      }
    }
    const EndpointMask merged = groups[x] | groups[y];
    const int first = std::min(a.gpus[x].first, a.gpus[y].first);
    const int second = std::max(a.gpus[x].first, a.gpus[y].first);
    const std::string gpus_text =
        "GPUs " + std::to_string(first) + " and " + std::to_string(second);
    if (a.exact) {
      a.one_fewer_note = "no partition into " + std::to_string(a.gpu_count() - 1) +
                         " GPUs works (exact search); e.g. " + gpus_text + " merged";
    } else {
      a.one_fewer_note = gpus_text +
                         " merged (the search was not exact: other partitions not "
                         "all tried)";
    }
    if (!paired) {
      a.one_fewer_note = (a.exact ? "no partition into " + std::to_string(a.gpu_count() - 1) +
                                        " GPUs works (exact search); "
                                  : std::string()) +
                         "no two GPUs to merge as an example (plain services share a GPU with "
                         "LLM endpoints only as MIG instances)";
    } else if (form == FleetForm::kInstances) {
      std::vector<std::string> profiles;
      if (!mig_assignment(merged, profiles)) {
        a.one_fewer_note += ": their endpoints' instances do not fit one GPU";
      }
    } else if (const auto it = runs.find(merged); it != runs.end() && it->second.miss) {
      a.one_fewer_miss = it->second.miss;
    } else {
      GroupRun g;
      try {
        g = simulate(model, shared_settings(model, {merged}));
        if (g.miss) a.one_fewer_miss = g.miss;
      } catch (const InputError& e) {
        a.one_fewer_note += std::string(": the engines do not start (") + e.what() + ")";
      }
    }
  }
  a.met = found.complete && a.verified;
  say(model + ": " + std::to_string(a.gpu_count()) + " GPUs, " +
      std::to_string(a.groups_simulated) + " simulations" +
      (a.met            ? ""
       : found.complete ? " (not verified)"
                        : " (some endpoint misses alone)"));
  return a;
}

void Planner::replicate() {
  std::vector<FleetEndpointInfo> expanded;
  for (const FleetEndpointInfo& e : base_.endpoints) {
    if (e.plain) {  // not replicated: one that misses alone is reported by the search
      expanded.push_back(e);
      continue;
    }
    int chosen = 1;
    for (int r = 1; r <= kMaxReplicas; ++r) {
      FleetBase trial = base_;
      trial.endpoints = replicas_of(e, r);
      bool all = true;
      for (int i = 0; i < r && all; ++i) {
        FleetGpuSettings gpu;
        FleetEndpointSettings s;
        s.index = i;
        gpu.width = e.tensor_parallel;
        gpu.endpoints.push_back(s);
        all = run_on(trial, fleet_model_of(FleetForm::kWhole), {gpu}).met;
      }
      if (all) {
        chosen = r;
        break;
      }
    }
    if (chosen > 1) {
      result_.replicas.emplace_back(e.id, chosen);
      say(e.id + ": " + std::to_string(chosen) + " round-robin replicas");
    }
    for (auto& rep : replicas_of(e, chosen)) expanded.push_back(std::move(rep));
  }
  if (expanded.size() > static_cast<std::size_t>(kMaxEndpoints)) {
    throw InputError(base_.file, "",
                     "with their replicas the endpoints number " + std::to_string(expanded.size()) +
                         ", more than a fleet plan places (" + std::to_string(kMaxEndpoints) + ")");
  }
  base_.endpoints = std::move(expanded);
}

void Planner::naive() {
  // Memory only: weights + runtime reserve + the KV cache held on average alone on a whole GPU,
  // first fit into 90 % of the device in endpoint order.
  std::vector<EndpointMask> groups;
  std::vector<double> used;
  const double budget = 0.9 * static_cast<double>(base_.device.memory.mib());
  int gang_gpus = 0;  // tensor-parallel endpoints keep their whole GPUs here too
  for (std::size_t i = 0; i < base_.endpoints.size(); ++i) {
    const FleetEndpointInfo& e = base_.endpoints[i];
    if (e.tensor_parallel > 1) {
      gang_gpus += e.tensor_parallel;
      continue;
    }
    const std::string& whole = fleet_model_of(FleetForm::kWhole);
    const GroupRun alone = run(whole, shared_settings(whole, {EndpointMask{1} << i}));
    const auto use = alone.kv_cache_use.find(e.id);
    const double kv = use != alone.kv_cache_use.end() && std::isfinite(use->second)
                          ? use->second * e.kv_cache_mib
                          : e.kv_cache_mib;
    const double need = e.fixed_mib + kv;
    bool placed = false;
    for (std::size_t g = 0; g < groups.size() && !placed; ++g) {
      if (used[g] + need <= budget && !mixes_kinds(groups[g] | (EndpointMask{1} << i))) {
        used[g] += need;
        groups[g] |= EndpointMask{1} << i;
        placed = true;
      }
    }
    if (!placed) {
      groups.push_back(EndpointMask{1} << i);
      used.push_back(need);
    }
  }
  result_.naive_gpus = gang_gpus + static_cast<int>(groups.size());
  for (const EndpointMask g : groups) {
    if (std::popcount(g) < 2) continue;
    try {
      const std::string& sliced = fleet_model_of(FleetForm::kTimeSliced);
      const GroupRun r = run(sliced, shared_settings(sliced, {g}));
      if (r.miss) {
        result_.naive_miss = r.miss;
        break;
      }
    } catch (const InputError& e) {
      result_.naive_miss =
          FleetMiss{"", std::string("the engines do not start: ") + e.what(), 0, 0};
      break;
    }
  }
}

}  // namespace

std::string FleetMiss::text() const {
  if (endpoint.empty()) return objective;
  return endpoint + " " + objective + ": " + number_text(value) + " against " + number_text(bound);
}

bool FleetResult::all_met() const {
  return std::all_of(answers.begin(), answers.end(), [](const FleetAnswer& a) { return a.met; });
}

FleetResult run_fleet_plan(const FleetRequest& request, std::ostream* progress) {
  FleetResult result;
  result.objectives = fleet_objectives(request.objectives);
  const std::vector<std::string> plannable = fleet_models();
  std::vector<std::string> models = request.models.empty() ? plannable : request.models;
  for (const std::string& m : models) {
    if (!fleet_form(m)) {
      std::string list;
      for (const auto& p : plannable) list += (list.empty() ? "" : ", ") + p;
      throw InputError(
          "--models", "models",
          "a fleet plan places endpoints under " + list + "; '" + m + "' is not one of them");
    }
  }
  Planner planner(request, result, progress);
  const FleetBase& base = planner.base();
  result.scenario_name = base.name;
  result.scenario_file = base.file;
  result.seed = base.seed;
  result.device = base.device.name;
  result.device_pci_ids = pci_device_ids(base.device);
  result.device_memory_mib = base.device.memory.mib();
  result.gpus_per_node = base.gpus_per_node;
  for (const auto& e : base.endpoints) {
    result.endpoint_ids.push_back(e.id);
    result.plain_services += e.plain ? 1 : 0;
  }
  for (const Objective& o : result.objectives) {
    bool picks = false, reports = false;
    for (const auto& e : base.endpoints) {
      const bool picked = o.endpoints->selects(e.parent, e.service_class);
      picks = picks || picked;
      reports = reports || (picked && !(e.plain && metric_of_llm_endpoints_only(o.metric)));
    }
    if (o.implicit) continue;
    if (!picks) {
      throw InputError("--objective " + o.text(), o.metric,
                       "its selector picks none of the scenario's endpoints");
    }
    if (!reports) {
      throw InputError("--objective " + o.text(), o.metric,
                       "it picks only plain services, and only LLM endpoints report this metric "
                       "(plain services: requests.latency_ms.*, requests.dropped, "
                       "requests.slo_attainment, ...)");
    }
  }
  planner.replicate();
  std::vector<std::string> planned;
  for (const std::string& m : models) {
    if (fleet_form(m) == FleetForm::kInstances && base.device.mig_profiles.empty()) {
      result.notes.push_back(m + " left out: " + base.device.name + " has no MIG profiles");
      continue;
    }
    planned.push_back(m);
  }
  // One task per model and one for the memory-only packing, on request.threads threads; each
  // model's search is its own, so the answers do not depend on the threads.
  const std::size_t tasks = planned.size() + 1;
  std::vector<FleetAnswer> answers(planned.size());
  run_indexed(tasks, request.threads, [&](std::size_t t) {
    if (t < planned.size()) {
      answers[t] = planner.plan(planned[t]);
    } else {
      planner.naive();
    }
  });
  result.answers = std::move(answers);
  result.notes.push_back(
      "every endpoint starts at 0 s; a GPU's endpoints share it with equal memory shares "
      "(gpu_memory_utilization floor(90/k) % each) and, under mps, equal thread shares "
      "(100/k %) and pinned memory limits (1/k of the device), as the device plugin deploys them");
  result.notes.push_back(
      "GPUs hold endpoints of one GPU each, which do not interact across GPUs: a group's run is "
      "its GPU's share of the fleet; nodes are counted as GPUs / gpus_per_node rounded up");
  return result;
}

}  // namespace gpumux
