#include "sim/base/parameter_spec.h"

#include <filesystem>
#include <sstream>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

// "[0, 1e+06] us" as the range errors print it (JsonObject::required_number).
std::string accepted_range(const NumberSpec& spec) {
  std::ostringstream out;
  out << "[" << spec.min << ", " << spec.max << "]";
  if (!spec.unit.empty()) out << " " << spec.unit;
  if (spec.integer) out << ", whole numbers";
  return out.str();
}

std::string quoted_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + std::string(names[i]) + "'";
  }
  return out;
}

}  // namespace

NumberSetting read(JsonObject& p, const NumberSpec& spec) {
  return read(p, spec, std::nullopt, "");
}

NumberSetting read(JsonObject& p, const NumberSpec& spec, std::optional<double> calibrated,
                   const std::string& calibration_source) {
  if (p.has(spec.key)) {
    const double value =
        spec.integer
            ? static_cast<double>(p.required_int(spec.key, static_cast<std::int64_t>(spec.min),
                                                 static_cast<std::int64_t>(spec.max)))
            : p.required_number(spec.key, spec.min, spec.max);
    return {value, "scenario", false};
  }
  p.allow(spec.key);
  if (calibrated) return {*calibrated, calibration_source, false};
  return default_setting(spec);
}

NumberSetting default_setting(const NumberSpec& spec) {
  return {spec.fallback, std::string(spec.default_source), true};
}

ChoiceSetting read(JsonObject& p, const ChoiceSpec& spec) {
  if (!p.has(spec.key)) {
    p.allow(spec.key);
    return {spec.fallback, spec.names[static_cast<std::size_t>(spec.fallback)],
            std::string(spec.default_source)};
  }
  const std::string given = p.required_string(spec.key);
  for (std::size_t i = 0; i < spec.names.size(); ++i) {
    if (spec.names[i] == given) return {static_cast<int>(i), spec.names[i], "scenario"};
  }
  throw InputError(p.where(spec.key), std::string(spec.key),
                   "expected " + quoted_names(spec.names) + ", got '" + given + "'");
}

SwitchSetting read(JsonObject& p, const SwitchSpec& spec) {
  const bool given = p.has(spec.key);
  const bool on = p.optional_bool(spec.key, spec.fallback);
  return {on, given ? "scenario" : std::string(spec.default_source)};
}

ModelParameter declare(const NumberSpec& spec, const NumberSetting& setting,
                       std::string_view description) {
  ModelParameter out(std::string(spec.key), setting.value, std::string(spec.unit), setting.source,
                     std::string(description.empty() ? spec.description : description));
  out.accepts = accepted_range(spec);
  return out;
}

ModelParameter declare(const ChoiceSpec& spec, const ChoiceSetting& setting) {
  ModelParameter out = ModelParameter::chosen(std::string(spec.key), setting.index, setting.name,
                                              setting.source, std::string(spec.description));
  out.accepts = "one of " + quoted_names(spec.names);
  return out;
}

ModelParameter declare(const SwitchSpec& spec, const SwitchSetting& setting,
                       std::string_view description) {
  ModelParameter out =
      ModelParameter::on_off(std::string(spec.key), setting.on, setting.source,
                             std::string(description.empty() ? spec.description : description));
  out.accepts = "true or false";
  return out;
}

ModelParameter within(std::string_view object, ModelParameter echo) {
  echo.name = std::string(object) + "." + echo.name;
  return echo;
}

std::vector<PathSetting> resolve_path_parameters(nlohmann::json& params,
                                                 std::span<const PathSpec> specs,
                                                 const std::string& base_dir,
                                                 const std::string& where) {
  std::vector<PathSetting> out;
  if (!params.is_object()) return out;  // the entry's reader says what it expected
  for (const PathSpec& spec : specs) {
    const std::string key(spec.key);
    if (!params.contains(key) || !params[key].is_string()) continue;
    const std::string given = params[key].get<std::string>();
    // As every path of a scenario (scenario_sections::resolve_path).
    const std::filesystem::path path(given);
    const std::string resolved =
        given.empty() || path.is_absolute() || base_dir.empty()
            ? given
            : (std::filesystem::path(base_dir) / path).lexically_normal().string();
    std::error_code ec;
    if (!std::filesystem::exists(resolved, ec)) {
      throw InputError(where + "/" + key, key, "file not found: " + resolved);
    }
    params[key] = resolved;
    out.push_back({key, given, resolved});
  }
  return out;
}

}  // namespace gpumux
