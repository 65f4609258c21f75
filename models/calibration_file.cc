#include "models/calibration_file.h"

#include <nlohmann/json.hpp>

#include "sim/json_fields.h"

namespace gpumux {

Calibration read_calibration(const std::string& file, const std::string& model) {
  const nlohmann::json document = read_json_file(file);
  JsonObject root(document, file, "");
  if (root.optional_string("model", model) != model) {
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
  Calibration c;
  c.file = file;
  c.interference = fitted.required_number("interference", 0.0, 100.0);
  c.switch_cost_us = fitted.optional_number("switch_cost_us", 0.0, 0.0, 1e6);
  for (const char* key : {"kernel_us", "time_slice_us", "util_exponent", "util_scale"}) {
    fitted.allow(key);
  }
  fitted.finish();
  root.finish();
  return c;
}

}  // namespace gpumux
