#include "models/calibration_file.h"

#include <nlohmann/json.hpp>

#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

// `colocation fit` files carry the driver's default slice, never fitted: it is not read (the
// older flat layout says nothing; the calibration layout lists it under "fixed").
void read_params(JsonObject& fitted, Calibration& c, bool slice_was_fitted) {
  c.interference = fitted.optional_number("interference", 0.0, 0.0, 100.0);
  c.switch_cost_us = fitted.optional_number("switch_cost_us", 0.0, 0.0, 1e6);
  if (!slice_was_fitted) fitted.allow("time_slice_us");
  if (slice_was_fitted && fitted.has("time_slice_us")) {
    c.time_slice_us = fitted.required_number("time_slice_us", 1.0, 1e7);
  }
  if (fitted.has("launch_gap_us")) {
    c.launch_gap_us = fitted.required_number("launch_gap_us", 0.0, 1e6);
  }
  for (const char* key : {"kernel_us", "util_exponent", "util_scale"}) fitted.allow(key);
  fitted.finish();
}

}  // namespace

Calibration read_calibration(const std::string& file, const std::string& model) {
  const nlohmann::json document = read_json_file(file);
  JsonObject root(document, file, "");
  Calibration c;
  c.file = file;
  if (root.has("models")) {  // `gpumux calibrate fit`
    if (root.optional_string("format", "gpumux-calibration") != "gpumux-calibration") {
      throw InputError(root.where("format"), "format", "expected 'gpumux-calibration'");
    }
    c.device = root.optional_string("device", "");
    for (const char* key : {"source", "version", "measurements", "command"}) root.allow(key);
    JsonObject models = root.object("models");
    if (!models.has(model)) {
      throw InputError(models.where(), model,
                       "no fit for model '" + model +
                           "' in this calibration; run `gpumux "
                           "calibrate fit MEAS.csv --mode " +
                           model + "` on measurements of it");
    }
    JsonObject fit = models.object(model);
    bool slice_fixed = false;
    const nlohmann::json& entry = document["models"][model];
    if (entry.contains("fixed")) {
      const nlohmann::json& fixed = entry["fixed"];
      if (!fixed.is_array()) {
        throw InputError(fit.where("fixed"), "fixed", "expected an array of parameter names");
      }
      for (const nlohmann::json& name : fixed) {
        if (!name.is_string()) {
          throw InputError(fit.where("fixed"), "fixed", "expected an array of parameter names");
        }
        if (name == "time_slice_us") slice_fixed = true;
      }
    }
    JsonObject fitted = fit.object("params");
    if (model == "mig") {
      c.width_base = fitted.required_number("width_base", 0.0, 1.0);
      c.width_per_bandwidth = fitted.required_number("width_per_bandwidth", 0.0, 10.0);
      fitted.finish();
    } else {
      read_params(fitted, c, !slice_fixed);
    }
    // `colocation fit --config-factors` also writes per-config factors: they serve
    // `colocation predict` (a simulated job has no Lucid config), the models read the params.
    for (const char* key : {"residuals", "notes", "rows", "fixed", "mapping", "train_mae",
                            "train_rms", "cross_validation", "config_factors",
                            "config_factors_ridge", "train_mae_with_factors"}) {
      fit.allow(key);
    }
    fit.finish();
    for (const auto& [key, value] : document["models"].items()) models.allow(key);
    models.finish();
    root.finish();
    return c;
  }
  if (root.optional_string("model", model) != model) {  // `gpumux colocation fit`
    throw InputError(root.where("model"), "model",
                     "calibration was fitted for another model; fit one with "
                     "`gpumux colocation fit --model " +
                         model + "`");
  }
  for (const char* key :
       {"cross_validation", "mapping", "source", "train_mae", "train_rms", "version"}) {
    root.allow(key);
  }
  JsonObject fitted = root.object("params");
  if (!fitted.has("interference")) fitted.required_number("interference", 0.0, 100.0);
  read_params(fitted, c, false);
  root.finish();
  return c;
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
