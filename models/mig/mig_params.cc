#include "models/mig/mig_params.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <utility>

#include "models/calibration_file.h"
#include "sim/base/parameter_spec.h"

namespace gpumux {

namespace {

// The parameters, declared once (sim/base/parameter_spec.h). The layout sources (`layout`,
// `mig_parted` + `config`, `layouts`) are lists, objects and files, which no spec describes: they
// are read by hand in read_mig_params and echoed as layout_entries.
constexpr SwitchSpec kComputeAwareSpec{
    "compute_aware", false, "default",
    "true: a job without a requested profile also needs an instance with the SMs it occupies"};
constexpr std::string_view kStrategyNames[] = {"auto", "mixed", "single"};  // MigStrategy order
constexpr ChoiceSpec kStrategySpec{
    "strategy", kStrategyNames, 0, "default",
    "how jobs find instances: auto (gpumux picks the smallest fitting instance), mixed / single "
    "(Kubernetes device-plugin strategies: placement blind to memory)"};
// In `sizing`. By default a job accepts an instance that runs it at most 25% slower than its best.
constexpr NumberSpec kMaxSlowdownSpec{
    "max_slowdown",
    "x",
    1.25,
    1.0,
    1e6,
    "default (a choice)",
    "a job fits an instance only within this slowdown of its best rate on the device (roofline "
    "profile, models/mig/profile_sizing.h)"};
// In `repartition` (with `layouts`).
constexpr NumberSpec kReconfigurationSpec{
    "reconfiguration_s",
    "s",
    10.0,
    0.0,
    1e6,
    "default",
    "time to destroy and create instances once a GPU is empty"};
constexpr NumberSpec kResetSpec{"reset_s",
                                "s",
                                60.0,
                                0.0,
                                1e6,
                                "default",
                                "time instead when MIG mode toggles on Ampere (GPU reset)"};
constexpr NumberSpec kHysteresisSpec{
    "hysteresis_s", "s", 300.0, 0.0, 1e9, "default", "a GPU is not changed again within this time"};
constexpr NumberSpec kLookaheadSpec{"lookahead",
                                    "jobs",
                                    32.0,
                                    0.0,
                                    static_cast<double>(kReconfigurationLookahead),
                                    "default",
                                    "queued jobs behind the head a new layout is chosen for",
                                    true};
// In `repartition.migration`. Migration costs when the scenario gives none: assumptions, not
// measurements (docs/gpu-facts.md has no checkpoint figure). A checkpoint writes at most an
// instance's memory (<= 40 GB, usually a few GB) to local storage at a few GB/s; a restart starts
// a process and a CUDA context, loads the framework and reads the checkpoint back
// (models/mig/README.md, "Migration").
constexpr std::string_view kMigrationAssumption =
    "default (assumption; models/mig/README.md, \"Migration\")";
constexpr SwitchSpec kCheckpointSpec{
    "checkpoint", true, "default",
    "true: a moved job writes a checkpoint first (no work lost); false: it loses the work since "
    "its last periodic checkpoint"};
constexpr NumberSpec kCheckpointTimeSpec{"checkpoint_s",
                                         "s",
                                         10.0,
                                         0.0,
                                         1e6,
                                         kMigrationAssumption,
                                         "wall time a moved job spends writing its checkpoint"};
constexpr NumberSpec kRestartTimeSpec{
    "restart_s",
    "s",
    20.0,
    0.0,
    1e6,
    kMigrationAssumption,
    "wall time a moved job spends restoring before it progresses"};

// In `regrow`.
constexpr std::string_view kRegrowObjectiveNames[] = {"time_left",
                                                      "mean_slowdown"};  // MigRegrowObjective order
constexpr ChoiceSpec kRegrowObjectiveSpec{
    "objective", kRegrowObjectiveNames, 0, "default",
    "how a re-split in place is chosen: time_left (the layout and instances that finish the jobs "
    "soonest in total, pauses counted, and only for a gain over 1 s) or mean_slowdown (MISO's: "
    "at every job end, the layout with one instance per job and the instances of least mean "
    "predicted slowdown, moving costs not weighed; with a fixed layout, any move that lowers "
    "it)"};

// The job-speed model inside an instance (models/mig/instance_rate.h).
constexpr std::string_view kSpeedModelNames[] = {"fitted", "roofline"};  // MigSpeedModel order
constexpr ChoiceSpec kSpeedModelSpec{
    "speed_model", kSpeedModelNames, 0, "default",
    "a job's speed in an instance: fitted (kernels slowed by the instance's SMs and bandwidth, "
    "CPU gaps not; fitted on MISO A100-40GB) or roofline (min(1, s/c, m/b) over the whole "
    "runtime)"};
constexpr std::string_view kMisoFit = "fitted on MISO A100-40GB measurements";
constexpr NumberSpec kWidthBaseSpec{
    "width_base",
    "fraction of the GPU's SMs",
    kMigWidthBase,
    0.0,
    1.0,
    kMisoFit,
    "SMs a job's kernels keep busy when they draw no memory bandwidth (kernel width = "
    "min(sm_share, width_base + width_per_bandwidth x mem_bw_util / sm_util))"};
constexpr NumberSpec kWidthPerBandwidthSpec{
    "width_per_bandwidth",
    "fraction of the GPU's SMs per unit of bandwidth",
    kMigWidthPerBandwidth,
    0.0,
    10.0,
    kMisoFit,
    "how much wider kernels are per share of the GPU's bandwidth they draw while running"};

// A duration setting as the model keeps it: the echo shows the value at Time's resolution (us),
// the one the model uses.
Time as_time(NumberSetting& setting) {
  const Time t = Time::from_seconds(setting.value);
  setting.value = t.seconds();
  return t;
}

// `repartition` and the `migration` object inside it (with `layouts` only): fills the
// repartitioning fields of `out` and appends their echo to `echo`.
void read_repartition(JsonObject& p, MigParams& out, std::vector<ModelParameter>& echo) {
  const bool given = p.has("repartition");
  std::optional<JsonObject> r;
  if (given) {
    r.emplace(p.object("repartition"));
  } else {
    p.allow("repartition");
  }
  // The echo has always named a given `repartition` object as the source of each of its four
  // numbers, a number the object leaves out included; kept so that outputs stay the same.
  const auto number = [&](const NumberSpec& spec) {
    NumberSetting s = r ? read(*r, spec) : default_setting(spec);
    if (given) s.source = "scenario";
    return s;
  };
  NumberSetting reconfiguration = number(kReconfigurationSpec);
  NumberSetting reset = number(kResetSpec);
  NumberSetting hysteresis = number(kHysteresisSpec);
  const NumberSetting lookahead = number(kLookaheadSpec);
  out.reconfiguration_delay = as_time(reconfiguration);
  out.reset_delay = as_time(reset);
  out.hysteresis = as_time(hysteresis);
  out.lookahead = static_cast<int>(lookahead.value);
  echo.push_back(within("repartition", declare(kReconfigurationSpec, reconfiguration)));
  echo.push_back(within("repartition", declare(kResetSpec, reset)));
  echo.push_back(within("repartition", declare(kHysteresisSpec, hysteresis)));
  echo.push_back(within("repartition", declare(kLookaheadSpec, lookahead)));
  std::vector<ModelParameter> migration_echo;
  if (r && r->has("migration")) {
    JsonObject m = r->object("migration");
    out.migration.enabled = true;
    const SwitchSetting checkpoint = read(m, kCheckpointSpec);
    NumberSetting checkpoint_time = read(m, kCheckpointTimeSpec);
    NumberSetting restart_time = read(m, kRestartTimeSpec);
    m.finish();
    out.migration.checkpoint = checkpoint.on;
    out.migration.checkpoint_time = as_time(checkpoint_time);
    out.migration.restart_time = as_time(restart_time);
    migration_echo = {
        within("repartition.migration", declare(kCheckpointSpec, checkpoint)),
        within("repartition.migration", declare(kCheckpointTimeSpec, checkpoint_time)),
        within("repartition.migration", declare(kRestartTimeSpec, restart_time))};
  }
  if (r) r->finish();
  // An object, not a value: present means migrate.
  ModelParameter migration = ModelParameter::on_off(
      "repartition.migration", out.migration.enabled,
      out.migration.enabled ? "scenario" : "default",
      "true: a reconfigured GPU's residents are moved off (checkpoint-restart) instead of "
      "drained");
  migration.accepts = "an object {checkpoint, checkpoint_s, restart_s} inside repartition";
  echo.push_back(std::move(migration));
  echo.insert(echo.end(), migration_echo.begin(), migration_echo.end());
}

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

// A mig fit (`gpumux calibrate mig-speeds fit`) gives both terms of the kernel width.
constexpr CalibrationKey kCalibrated[] = {{&kWidthBaseSpec, std::nullopt, true},
                                          {&kWidthPerBandwidthSpec, std::nullopt, true}};

}  // namespace

const CalibrationKeys& mig_calibration_keys() {
  static const CalibrationKeys keys{"mig", kCalibrated, {}};
  return keys;
}

MigSpeedParams read_mig_speed_params(JsonObject& p, std::vector<ModelParameter>& echo) {
  const std::optional<Calibration> c = read_calibration_param(p, mig_calibration_keys());
  const ChoiceSetting model = read(p, kSpeedModelSpec);
  const NumberSetting base = read(p, kWidthBaseSpec, c);
  const NumberSetting per_bandwidth = read(p, kWidthPerBandwidthSpec, c);
  MigSpeedParams out;
  out.model = static_cast<MigSpeedModel>(model.index);
  out.width_base = base.value;
  out.width_per_bandwidth = per_bandwidth.value;
  echo.push_back(declare(kSpeedModelSpec, model));
  if (out.model == MigSpeedModel::kFitted) {
    echo.push_back(declare(kWidthBaseSpec, base));
    echo.push_back(declare(kWidthPerBandwidthSpec, per_bandwidth));
    echo.push_back({"bandwidth_demand", 1.0, "x sm_util x sm_share",
                    "assumption (for jobs whose trace has no mem_bw_util; models/mig/README.md)",
                    "a job's memory-bandwidth utilization when the trace does not measure it"});
  } else {
    echo.push_back({"bandwidth_demand", 1.0, "x sm_util x sm_share",
                    "assumption (no bandwidth field in traces; models/mig/README.md)",
                    "a job's memory-bandwidth demand as a fraction of the GPU's, for the "
                    "roofline rate"});
  }
  return out;
}

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
  std::vector<ModelParameter> repartition_echo;  // with `layouts` only
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
    read_repartition(p, out, repartition_echo);
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
    out.layout_where = p.where("mig_parted");
    const nlohmann::json& given = p.raw("mig_parted");
    const std::string config = p.required_string("config");
    if (given.is_object()) {
      // The config written inline, as JSON (which is YAML): how `gpumux plan` gives GPUs of a
      // node different layouts without writing a file.
      out.mig_parted = parse_mig_parted(given.dump(), out.layout_where, config);
      layout_source = "inline mig-parted config " + config;
    } else {
      const std::string file = p.required_string("mig_parted");
      out.mig_parted = read_mig_parted(file, config);
      layout_source = "mig-parted " + file + " config " + config;
    }
  }
  const SwitchSetting compute_aware = read(p, kComputeAwareSpec);
  out.compute_aware = compute_aware.on;
  std::optional<NumberSetting> max_slowdown;  // profile-guided sizing: off without `sizing`
  if (p.has("sizing")) {
    JsonObject z = p.object("sizing");
    max_slowdown = read(z, kMaxSlowdownSpec);
    out.max_slowdown = max_slowdown->value;
    z.finish();
    if (out.compute_aware) {
      throw InputError(p.where("sizing"), "sizing",
                       "give one of 'compute_aware' and 'sizing': both choose instances by the "
                       "SMs a job needs (sizing with max_slowdown 1 asks for its full speed)");
    }
  }
  const ChoiceSetting strategy = read(p, kStrategySpec);
  out.strategy = static_cast<MigStrategy>(strategy.index);
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
  std::vector<ModelParameter> regrow_echo;  // with `regrow` only
  if (p.has("regrow")) {
    JsonObject g = p.object("regrow");
    NumberSetting checkpoint_time = read(g, kCheckpointTimeSpec);
    NumberSetting restart_time = read(g, kRestartTimeSpec);
    const ChoiceSetting objective = read(g, kRegrowObjectiveSpec);
    g.finish();
    out.regrow = true;
    out.regrow_checkpoint = as_time(checkpoint_time);
    out.regrow_restart = as_time(restart_time);
    out.regrow_objective = static_cast<MigRegrowObjective>(objective.index);
    ModelParameter on = ModelParameter::on_off(
        "regrow", true, "scenario",
        "true: when a job finishes and nothing waits, the residents left on its GPU move into "
        "the layout and instances its objective picks (checkpoint-restart in place; with a "
        "fixed layout, into freed instances of it)");
    on.accepts = "an object {checkpoint_s, restart_s, objective}";
    regrow_echo = {std::move(on), within("regrow", declare(kCheckpointTimeSpec, checkpoint_time)),
                   within("regrow", declare(kRestartTimeSpec, restart_time)),
                   within("regrow", declare(kRegrowObjectiveSpec, objective))};
  }
  std::vector<ModelParameter> speed_echo;
  out.speed = read_mig_speed_params(p, speed_echo);
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
      declare(kComputeAwareSpec, compute_aware),
      declare(kStrategySpec, strategy),
      {"jobs_per_instance", 1.0, "jobs", "model (static MIG: one job per GPU instance)",
       "each job holds one whole instance; memory is a hard per-instance limit"},
  };
  out.declared.insert(out.declared.end(), speed_echo.begin(), speed_echo.end());
  out.declared.front().accepts =
      "layout: a list of MIG profile names, or such lists by device type; mig_parted + config; "
      "or layouts: candidate lists ([] = MIG off)";
  out.declared.insert(out.declared.end(), repartition_echo.begin(), repartition_echo.end());
  if (max_slowdown)
    out.declared.push_back(within("sizing", declare(kMaxSlowdownSpec, *max_slowdown)));
  out.declared.insert(out.declared.end(), regrow_echo.begin(), regrow_echo.end());
  return out;
}

}  // namespace gpumux
