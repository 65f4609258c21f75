#include "models/mig/mig_params.h"

#include <nlohmann/json.hpp>

namespace gpumux {

namespace {

// Migration costs when the scenario gives none: assumptions, not measurements (docs/gpu-facts.md
// has no checkpoint figure). A checkpoint writes at most an instance's memory (<= 40 GB, usually a
// few GB) to local storage at a few GB/s; a restart starts a process and a CUDA context, loads the
// framework and reads the checkpoint back (models/mig/README.md, "Migration").
constexpr double kDefaultCheckpointS = 10.0;
constexpr double kDefaultRestartS = 20.0;
// Profile-guided sizing: a job accepts an instance that runs it at most 25% slower than its best.
constexpr double kDefaultMaxSlowdown = 1.25;

std::vector<std::string> profile_list(const nlohmann::json& v, const std::string& where,
                                      const std::string& field) {
  if (!v.is_array()) {
    throw InputError(where, field, "expected a list of MIG profile names, got " + describe_json(v));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      throw InputError(where + "/" + std::to_string(i), field,
                       "expected a MIG profile name, got " + describe_json(v[i]));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

}  // namespace

std::string joined_profiles(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : " + ") + n;
  return s.empty() ? "(none)" : s;
}

MigParams read_mig_params(JsonObject& p) {
  MigParams out;
  const bool has_layout = p.has("layout"), has_parted = p.has("mig_parted");
  const bool has_candidates = p.has("layouts");
  if (static_cast<int>(has_layout) + static_cast<int>(has_parted) +
          static_cast<int>(has_candidates) !=
      1) {
    throw InputError(p.where(), has_layout ? "mig_parted" : "layout",
                     "give exactly one of 'layout' (a list of MIG profile names), 'mig_parted' "
                     "with 'config', or 'layouts' (candidate layouts for repartitioning)");
  }
  std::string layout_source;
  bool repartition_given = false;
  bool checkpoint_s_given = false, restart_s_given = false, checkpoint_given = false;
  if (has_candidates) {
    out.source = MigLayoutSource::kCandidates;
    out.layout_where = p.where("layouts");
    const nlohmann::json& v = p.raw("layouts");
    if (!v.is_array() || v.empty()) {
      throw InputError(out.layout_where, "layouts",
                       "expected a non-empty array of layouts (each a list of profile names; "
                       "[] = MIG off)");
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.candidates.push_back(
          profile_list(v[i], out.layout_where + "/" + std::to_string(i), "layouts"));
      layout_source +=
          (layout_source.empty() ? "" : " | ") + joined_profiles(out.candidates.back());
    }
    layout_source = "scenario candidates (" + layout_source + "); starts in the first";
    repartition_given = p.has("repartition");
    if (repartition_given) {
      JsonObject r = p.object("repartition");
      out.reconfiguration_delay =
          Time::from_seconds(r.optional_number("reconfiguration_s", 10.0, 0.0, 1e6));
      out.reset_delay = Time::from_seconds(r.optional_number("reset_s", 60.0, 0.0, 1e6));
      out.hysteresis = Time::from_seconds(r.optional_number("hysteresis_s", 300.0, 0.0, 1e9));
      out.lookahead = static_cast<int>(
          r.optional_int("lookahead", 32, 0, static_cast<std::int64_t>(kReconfigurationLookahead)));
      if (r.has("migration")) {
        JsonObject m = r.object("migration");
        out.migration.enabled = true;
        out.migration.checkpoint = m.optional_bool("checkpoint", true);
        out.migration.checkpoint_time =
            Time::from_seconds(m.optional_number("checkpoint_s", kDefaultCheckpointS, 0.0, 1e6));
        out.migration.restart_time =
            Time::from_seconds(m.optional_number("restart_s", kDefaultRestartS, 0.0, 1e6));
        m.finish();
        checkpoint_s_given = m.has("checkpoint_s");
        restart_s_given = m.has("restart_s");
        checkpoint_given = m.has("checkpoint");
      }
      r.finish();
    } else {
      p.allow("repartition");
    }
    p.allow("config");
  } else if (has_layout) {
    p.allow("layouts");
    p.allow("repartition");
    out.layout_where = p.where("layout");
    const nlohmann::json& v = p.raw("layout");
    if (v.is_object()) {
      out.source = MigLayoutSource::kPerDevice;
      for (const auto& [device, list] : v.items()) {
        out.per_device.emplace_back(device,
                                    profile_list(list, out.layout_where + "/" + device, "layout"));
        layout_source += (layout_source.empty() ? "" : "; ") + device + ": " +
                         joined_profiles(out.per_device.back().second);
      }
    } else {
      out.source = MigLayoutSource::kList;
      out.layout = profile_list(v, out.layout_where, "layout");
      layout_source = joined_profiles(out.layout);
    }
    layout_source = "scenario (" + layout_source + ")";
    p.allow("config");
    if (p.has("config")) {
      throw InputError(p.where("config"), "config",
                       "'config' goes with 'mig_parted', not 'layout'");
    }
  } else {
    p.allow("layouts");
    p.allow("repartition");
    out.source = MigLayoutSource::kMigParted;
    const std::string file = p.required_string("mig_parted");
    const std::string config = p.required_string("config");
    out.layout_where = p.where("mig_parted");
    out.mig_parted = read_mig_parted(file, config);
    layout_source = "mig-parted " + file + " config " + config;
  }
  out.compute_aware = p.optional_bool("compute_aware", false);
  const std::string aware_source = p.has("compute_aware") ? "scenario" : "default";
  bool sizing_bound_given = false;
  if (p.has("sizing")) {
    JsonObject z = p.object("sizing");
    out.max_slowdown = z.optional_number("max_slowdown", kDefaultMaxSlowdown, 1.0, 1e6);
    sizing_bound_given = z.has("max_slowdown");
    z.finish();
    if (out.compute_aware) {
      throw InputError(p.where("sizing"), "sizing",
                       "give one of 'compute_aware' and 'sizing': both choose instances by the "
                       "SMs a job needs (sizing with max_slowdown 1 asks for its full speed)");
    }
  }
  const std::string strategy = p.optional_string("strategy", "auto");
  const std::string strategy_source = p.has("strategy") ? "scenario" : "default";
  if (strategy == "auto") {
    out.strategy = MigStrategy::kAuto;
  } else if (strategy == "mixed") {
    out.strategy = MigStrategy::kMixed;
  } else if (strategy == "single") {
    out.strategy = MigStrategy::kSingle;
  } else {
    throw InputError(p.where("strategy"), "strategy",
                     "unknown strategy '" + strategy + "' (valid: auto, mixed, single)");
  }
  if (out.max_slowdown > 0.0 && out.strategy != MigStrategy::kAuto) {
    throw InputError(p.where("sizing"), "sizing",
                     "the Kubernetes strategies place jobs blind to their needs; 'sizing' "
                     "works with strategy 'auto' only");
  }
  if (out.strategy == MigStrategy::kSingle && out.source == MigLayoutSource::kCandidates) {
    throw InputError(p.where("strategy"), "strategy",
                     "'single' gives every GPU of a node the same layout, which repartitioning "
                     "one GPU at a time ('layouts') would break; use 'auto' or 'mixed'");
  }
  p.finish();

  out.declared = {
      {"layout_entries",
       static_cast<double>(out.source == MigLayoutSource::kList        ? out.layout.size()
                           : out.source == MigLayoutSource::kPerDevice ? out.per_device.size()
                           : out.source == MigLayoutSource::kCandidates
                               ? out.candidates.size()
                               : out.mig_parted.entries.size()),
       out.source == MigLayoutSource::kList         ? "instances per GPU"
       : out.source == MigLayoutSource::kPerDevice  ? "device types"
       : out.source == MigLayoutSource::kCandidates ? "candidate layouts"
                                                    : "mig-parted entries",
       layout_source,
       "static MIG layout; offsets placed largest first at the lowest allowed slice"},
      ModelParameter::on_off(
          "compute_aware", out.compute_aware, aware_source,
          "true: a job without a requested profile also needs an instance with the SMs it "
          "occupies"),
      ModelParameter::chosen(
          "strategy", static_cast<int>(out.strategy), strategy, strategy_source,
          "how jobs find instances: auto (gpumux picks the smallest fitting instance), mixed / "
          "single (Kubernetes device-plugin strategies: placement blind to memory)"),
      {"jobs_per_instance", 1.0, "jobs", "model (static MIG: one job per GPU instance)",
       "each job holds one whole instance; memory is a hard per-instance limit"},
      {"bandwidth_demand", 1.0, "x sm_util x sm_share",
       "assumption (no bandwidth field in traces; models/mig/README.md)",
       "a job's memory-bandwidth demand as a fraction of the GPU's, for the roofline rate"},
  };
  if (out.source == MigLayoutSource::kCandidates) {
    const std::string src = repartition_given ? "scenario" : "default";
    out.declared.push_back({"repartition.reconfiguration_s", out.reconfiguration_delay.seconds(),
                            "s", src, "time to destroy and create instances once a GPU is empty"});
    out.declared.push_back({"repartition.reset_s", out.reset_delay.seconds(), "s", src,
                            "time instead when MIG mode toggles on Ampere (GPU reset)"});
    out.declared.push_back({"repartition.hysteresis_s", out.hysteresis.seconds(), "s", src,
                            "a GPU is not changed again within this time"});
    out.declared.push_back({"repartition.lookahead", static_cast<double>(out.lookahead), "jobs",
                            src, "queued jobs behind the head a new layout is chosen for"});
    out.declared.push_back(ModelParameter::on_off(
        "repartition.migration", out.migration.enabled,
        out.migration.enabled ? "scenario" : "default",
        "true: a reconfigured GPU's residents are moved off (checkpoint-restart) instead of "
        "drained"));
  }
  if (out.migration.enabled) {
    const auto src = [](bool given) -> std::string {
      return given ? "scenario" : "default (assumption; models/mig/README.md, \"Migration\")";
    };
    out.declared.push_back(ModelParameter::on_off(
        "repartition.migration.checkpoint", out.migration.checkpoint,
        checkpoint_given ? "scenario" : "default",
        "true: a moved job writes a checkpoint first (no work lost); false: it loses the work "
        "since its last periodic checkpoint"));
    out.declared.push_back({"repartition.migration.checkpoint_s",
                            out.migration.checkpoint_time.seconds(), "s", src(checkpoint_s_given),
                            "wall time a moved job spends writing its checkpoint"});
    out.declared.push_back({"repartition.migration.restart_s", out.migration.restart_time.seconds(),
                            "s", src(restart_s_given),
                            "wall time a moved job spends restoring before it progresses"});
  }
  if (out.max_slowdown > 0.0) {
    out.declared.push_back({"sizing.max_slowdown", out.max_slowdown, "x",
                            sizing_bound_given ? "scenario" : "default (a choice)",
                            "a job fits an instance only within this slowdown of its best rate on "
                            "the device (roofline profile, models/mig/profile_sizing.h)"});
  }
  return out;
}

}  // namespace gpumux
