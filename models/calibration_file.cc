#include "models/calibration_file.h"

#include <nlohmann/json.hpp>
#include <set>

#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

// The fit's keys the model takes (those the fit held `fixed` are not measured: left unread),
// then the keys it ignores; any other key is an error.
void read_fitted(JsonObject& fitted, const CalibrationKeys& keys,
                 const std::set<std::string, std::less<>>& fixed, Calibration& c) {
  for (const CalibrationKey& k : keys.fitted) {
    const std::string key(k.spec->key);
    if (fixed.count(key) > 0) {
      fitted.allow(key);
    } else if (fitted.has(key) || k.required) {
      c.values[key] = fitted.required_number(key, k.spec->min, k.spec->max);
    } else if (k.when_missing) {
      c.values[key] = *k.when_missing;
    }
  }
  for (std::string_view key : keys.ignored) fitted.allow(key);
  fitted.finish();
}

}  // namespace

std::optional<double> Calibration::value(const NumberSpec& spec) const {
  const auto it = values.find(spec.key);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

Calibration read_calibration(const std::string& file, const CalibrationKeys& keys) {
  const std::string model(keys.model);
  const nlohmann::json document = read_json_file(file);
  JsonObject root(document, file, "");
  Calibration c;
  c.file = file;
  if (root.has("models")) {
    if (root.optional_string("format", "gpumux-calibration") != "gpumux-calibration") {
      throw InputError(root.where("format"), "format", "expected 'gpumux-calibration'");
    }
    c.device = root.optional_string("device", "");
    for (const char* key : {"source", "version", "measurements", "command"}) root.allow(key);
    JsonObject models = root.object("models");
    if (!models.has(model)) {
      throw InputError(models.where(), model,
                       "no fit for model '" + model +
                           "' in this calibration; fit one with `gpumux calibrate SOURCE fit` on "
                           "measurements of it (gpumux calibrate --help)");
    }
    JsonObject fit = models.object(model);
    std::set<std::string, std::less<>> fixed;
    const nlohmann::json& entry = document["models"][model];
    if (entry.contains("fixed")) {
      const nlohmann::json& names = entry["fixed"];
      if (!names.is_array()) {
        throw InputError(fit.where("fixed"), "fixed", "expected an array of parameter names");
      }
      for (const nlohmann::json& name : names) {
        if (!name.is_string()) {
          throw InputError(fit.where("fixed"), "fixed", "expected an array of parameter names");
        }
        fixed.insert(name.get<std::string>());
      }
    }
    JsonObject fitted = fit.object("params");
    read_fitted(fitted, keys, fixed, c);
    // `calibrate pairs fit --config-factors` also writes per-config factors: they serve
    // `calibrate pairs check` (a simulated job has no Lucid config), the models read the params.
    for (const char* key :
         {"residuals", "notes", "rows", "fixed", "mapping", "train_mae", "train_rms",
          "cross_validation", "config_factors", "config_factors_ridge", "train_mae_with_factors"}) {
      fit.allow(key);
    }
    fit.finish();
    for (const auto& [key, value] : document["models"].items()) models.allow(key);
    models.finish();
    root.finish();
    return c;
  }
  // The earlier pairs-fit layout: one model's params, at the top.
  if (root.optional_string("model", model) != model) {
    throw InputError(root.where("model"), "model",
                     "calibration was fitted for another model; fit one with "
                     "`gpumux calibrate pairs fit --model " +
                         model + "`");
  }
  for (const char* key :
       {"cross_validation", "mapping", "source", "train_mae", "train_rms", "version"}) {
    root.allow(key);
  }
  JsonObject fitted = root.object("params");
  // A pairs fit always gave the interference; the slice stayed at the driver's.
  if (!fitted.has("interference")) fitted.required_number("interference", 0.0, 100.0);
  read_fitted(fitted, keys, {"time_slice_us"}, c);
  root.finish();
  return c;
}

std::optional<Calibration> read_calibration_param(JsonObject& p, const CalibrationKeys& keys) {
  if (!p.has("calibration")) {
    p.allow("calibration");
    return std::nullopt;
  }
  return read_calibration(p.required_string("calibration"), keys);
}

NumberSetting read(JsonObject& p, const NumberSpec& spec,
                   const std::optional<Calibration>& calibration) {
  if (!calibration) return read(p, spec, std::nullopt, "");
  return read(p, spec, calibration->value(spec), "calibration " + calibration->file);
}

std::string calibration_device(const std::string& file) {
  const nlohmann::json document = read_json_file(file);
  if (document.is_object() && document.contains("device") && document["device"].is_string()) {
    return document["device"].get<std::string>();
  }
  return "";
}

std::string calibration_device_warning(const std::string& file, const std::string& measured,
                                       const std::string& applied, const std::string& where) {
  if (measured.empty() || measured == applied) return "";
  return "warning: " + where + ": calibration " + file + " was measured on " + measured +
         ", applied here to " + applied +
         ": its fitted parameters describe the other device (fit one on measurements of " +
         applied + ")";
}

}  // namespace gpumux
