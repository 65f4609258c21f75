// A parameter declared once: its key in its params object (a model's `sharing.params`, a queue
// or placement policy's `scheduler.params`), unit, default, accepted values, where the default
// comes from and what it means. Reading the scenario's value (range-checked, the key marked as
// known), the echo in every output (ModelParameter: value, unit, source) and `gpumux models
// NAME` all come from that one declaration, so they cannot drift apart.
//
// An entry keeps its declarations as constants beside its code, e.g.
//   constexpr NumberSpec kSwitchCost{"switch_cost_us", "us", 50.0, 0.0, 1e6,
//                                    "default (assumption: ...)", "context-switch time ..."};
// and reads them with read(p, kSwitchCost), then echoes declare(kSwitchCost, value).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/base/json_fields.h"
#include "sim/base/parameter.h"

namespace gpumux {

// A number (or, with `integer`, a whole number) in [min, max].
struct NumberSpec {
  std::string_view key;
  std::string_view unit;
  double fallback = 0.0;  // the default
  double min = 0.0;
  double max = 0.0;
  std::string_view default_source;  // e.g. "default (open GPU kernel driver)"
  std::string_view description;
  bool integer = false;
  // What the quantity is, for a device's measured value: "<measured_as> on H200 GPUs".
  std::string_view measured_as = {};
  // The unit a device's measured value is echoed in, when its echo has always said it
  // differently from `unit` (empty: `unit`).
  std::string_view measured_unit = {};
};

// One name out of a few: `names[fallback]` is the default.
struct ChoiceSpec {
  std::string_view key;
  std::span<const std::string_view> names;
  int fallback = 0;
  std::string_view default_source;
  std::string_view description;
};

// On or off.
struct SwitchSpec {
  std::string_view key;
  bool fallback = false;
  std::string_view default_source;
  std::string_view description;
};

// A file named by its path, relative to the scenario file's folder unless absolute; it must
// exist. Optional: an entry without the key reads no file. The scenario parser resolves every
// path parameter of the chosen entry (resolve_path_parameters) before the entry reads its
// params, so that the entry opens the resolved path and outputs echo the path as written.
struct PathSpec {
  std::string_view key;
  std::string_view description;
};

// A parameter's value and where it came from: "scenario", the spec's default source, or
// "calibration FILE".
struct NumberSetting {
  double value = 0.0;
  std::string source;
  bool is_default = true;  // neither the scenario nor a calibration file gave it
};
struct ChoiceSetting {
  int index = 0;
  std::string_view name;
  std::string source;
};
struct SwitchSetting {
  bool on = false;
  std::string source;
};

// Reads `spec.key` from `p` when present (InputError naming the key when out of range), else
// the default; either way the key counts as known.
NumberSetting read(JsonObject& p, const NumberSpec& spec);
// The same, where a calibration file's value (when it has one) replaces the default and an
// explicit key still overrides both.
NumberSetting read(JsonObject& p, const NumberSpec& spec, std::optional<double> calibrated,
                   const std::string& calibration_source);
// The default, for a key inside an object the scenario leaves out (nothing to read it from).
NumberSetting default_setting(const NumberSpec& spec);
// InputError "expected 'a', 'b' or 'c', got 'x'" for a name not in the spec.
ChoiceSetting read(JsonObject& p, const ChoiceSpec& spec);
SwitchSetting read(JsonObject& p, const SwitchSpec& spec);

// A path parameter as written and as resolved (relative to the scenario's folder).
struct PathSetting {
  std::string key;
  std::string given;
  std::string resolved;
};

// For each spec of `specs` whose key `params` holds as a string: replaces it in `params` with the
// path resolved against `base_dir` (unless absolute) and returns both, in the specs' order.
// InputError at `pointer`/KEY when the resolved path does not exist. Values that are not strings
// are left for the entry to read (a path parameter may also accept an inline object).
std::vector<PathSetting> resolve_path_parameters(nlohmann::json& params,
                                                 std::span<const PathSpec> specs,
                                                 const std::string& base_dir,
                                                 const std::string& where);

// The echo of a setting, with the spec's unit, description and accepted values. `description`
// replaces the spec's where the meaning depends on other settings.
ModelParameter declare(const NumberSpec& spec, const NumberSetting& setting,
                       std::string_view description = {});
ModelParameter declare(const ChoiceSpec& spec, const ChoiceSetting& setting);
ModelParameter declare(const SwitchSpec& spec, const SwitchSetting& setting,
                       std::string_view description = {});
// The echo of a key read inside an object of `sharing.params`, named "OBJECT.KEY", e.g.
// within("repartition", declare(kHysteresis, setting)) is "repartition.hysteresis_s".
ModelParameter within(std::string_view object, ModelParameter echo);

}  // namespace gpumux
