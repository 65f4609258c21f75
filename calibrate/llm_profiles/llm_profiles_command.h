// The `llm-profiles` calibration source (calibrate/registry.cc): the LLM performance model
// (models/llm/roofline_time_model.h) against measured operator profiles (llm_profile_data.h).
//
//   calibrate llm-profiles fit PROFILE_DIR... --device NAME [--model NAME] -o CAL.json
//         Fits the model's efficiencies per operator class (llm_profile_fit.h) on the device's
//         peaks, writes them as JSON (read_llm_efficiency), and prints per class the points,
//         whether it was fitted, the median / p90 / max |relative error|, the cross-validated
//         error on held-out counts, then every parameter with its unit and fitted/stated.
//   calibrate llm-profiles check PROFILE_DIR... --device NAME [--model NAME]
//         [--calibration CAL.json]
//         Measured vs predicted per operator class (sums and |relative error|), a "layer" row
//         (a layer's operators summed at each token count), and as its LAST line "MAE <value>":
//         the mean |predicted / measured - 1| over every point. Without --calibration the
//         device's built-in efficiencies (llm_efficiency_defaults.h).
// --model names the catalogue shape of LLMServingSim folders (Vidur's CSVs carry their shape).
// --peak-tflops / --bandwidth-gbps override the device's peaks (a device not in the registry's
// table yet). Return codes: 0 success, 2 bad input (the InputError message on `err`).
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace gpumux::calibration {

struct LlmProfilesCommand {
  std::vector<std::string> folders;
  std::string device, model, out_json, calibration;
  double peak_tflops = 0.0, bandwidth_gbps = 0.0;  // 0: the device's own
  bool cross_validate = true;
};

void configure_llm_profiles_fit(CLI::App& sub, LlmProfilesCommand& cmd);
void configure_llm_profiles_check(CLI::App& sub, LlmProfilesCommand& cmd);
int run_llm_profiles_fit(const LlmProfilesCommand& cmd, std::ostream& out, std::ostream& err);
int run_llm_profiles_check(const LlmProfilesCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace gpumux::calibration
