#include "calibrate/llm_profiles/llm_profiles_command.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <sstream>

#include "calibrate/llm_profiles/llm_profile_data.h"
#include "calibrate/llm_profiles/llm_profile_fit.h"
#include "models/device_registry.h"
#include "models/llm/llm_efficiency_defaults.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"

namespace gpumux::calibration {

namespace {

// NaN passes CLI::PositiveNumber (it compares with <=) and would read as "not given".
const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      return end != text.c_str() && !std::isfinite(value)
                 ? "expected a finite number, got '" + text + "'"
                 : "";
    },
    "");

struct Device {
  std::string name;
  LlmDevicePeaks peaks;
  const LlmEfficiency* defaults;
};

Device device_of(const LlmProfilesCommand& cmd) {
  const DeviceRegistry devices = DeviceRegistry::with_builtins();
  const DeviceProfile& d = devices.get(cmd.device, "--device");
  DeviceProfile p = d;
  if (cmd.peak_tflops > 0.0) p.peak_tflops_16bit = cmd.peak_tflops;
  if (cmd.bandwidth_gbps > 0.0) p.memory_bandwidth_gbps = cmd.bandwidth_gbps;
  return {d.name, llm_device_peaks(p), &default_llm_efficiency(d)};
}

std::string command_line(const LlmProfilesCommand& cmd) {
  std::string c = "gpumux calibrate llm-profiles fit";
  for (const std::string& f : cmd.folders) c += " " + f;
  c += " --device " + cmd.device;
  if (!cmd.model.empty()) c += " --model " + cmd.model;
  if (cmd.peak_tflops > 0.0) c += " --peak-tflops " + std::to_string(cmd.peak_tflops);
  if (cmd.bandwidth_gbps > 0.0) c += " --bandwidth-gbps " + std::to_string(cmd.bandwidth_gbps);
  return c;
}

std::string percent(double fraction) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100.0 * fraction << "%";
  return s.str();
}

void print_header(std::ostream& out, const LlmProfileData& data, const Device& d) {
  out << "profiles: " << data.files.size() << " files, " << data.points.size() << " points, "
      << data.shapes.size() << " shapes; device " << d.name << " (" << d.peaks.tflops_16bit
      << " TFLOP/s 16-bit, " << d.peaks.bandwidth_gbps << " GB/s)\n";
}

void add_options(CLI::App& sub, LlmProfilesCommand& cmd) {
  sub.add_option("profiles", cmd.folders,
                 "folders of operator profiles: Vidur's mlp.csv and/or attention.csv, or "
                 "LLMServingSim's dense.csv, per_sequence.csv, attention.csv "
                 "(../shared/data/llm-serving/)")
      ->required();
  sub.add_option("--device", cmd.device, "the device profiled (a `gpumux devices` name)")
      ->required();
  sub.add_option("--model", cmd.model,
                 "the model LLMServingSim folders profile (a `gpumux llm-models` name)");
  sub.add_option("--peak-tflops", cmd.peak_tflops,
                 "override the device's dense 16-bit tensor peak, TFLOP/s")
      ->check(kFinite)
      ->check(CLI::PositiveNumber);
  sub.add_option("--bandwidth-gbps", cmd.bandwidth_gbps,
                 "override the device's memory bandwidth, GB/s")
      ->check(kFinite)
      ->check(CLI::PositiveNumber);
}

}  // namespace

void configure_llm_profiles_fit(CLI::App& sub, LlmProfilesCommand& cmd) {
  add_options(sub, cmd);
  sub.add_option("-o,--out", cmd.out_json, "efficiencies to write (JSON)")->required();
}

void configure_llm_profiles_check(CLI::App& sub, LlmProfilesCommand& cmd) {
  add_options(sub, cmd);
  sub.add_option("--calibration", cmd.calibration,
                 "efficiencies from `gpumux calibrate llm-profiles fit` (default: the device's "
                 "built-in ones)");
}

int run_llm_profiles_fit(const LlmProfilesCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const Device d = device_of(cmd);
    const LlmProfileData data = read_llm_profiles(cmd.folders, cmd.model);
    // Start from the generic stated defaults, not the device's row: the fit must not depend on
    // an earlier fit.
    LlmEfficiency start;
    const LlmProfileFit fit = fit_llm_profiles(data, d.peaks, start, cmd.cross_validate);
    LlmEfficiency result = fit.efficiency;
    result.device = d.name;
    result.source = command_line(cmd);

    std::ostringstream text;
    print_header(text, data, d);
    text << std::left << std::setw(19) << "class" << std::right << std::setw(7) << "points"
         << std::setw(9) << "fitted" << std::setw(9) << "median" << std::setw(9) << "p90"
         << std::setw(9) << "max" << std::setw(12) << "held-out" << std::setw(9) << "median"
         << std::setw(9) << "p90"
         << "\n";
    for (const LlmClassFit& c : fit.classes) {
      text << std::left << std::setw(19) << llm_op_class_name(c.cls) << std::right << std::setw(7)
           << c.error.points << std::setw(9)
           << (c.parameters.empty() ? "checked"
               : c.fitted           ? "yes"
                                    : "no")
           << std::setw(9) << percent(c.error.median) << std::setw(9) << percent(c.error.p90)
           << std::setw(9) << percent(c.error.max);
      if (c.held_out.points > 0) {
        text << std::setw(12) << c.held_out.points << std::setw(9) << percent(c.held_out.median)
             << std::setw(9) << percent(c.held_out.p90);
      }
      text << "\n";
    }
    text << "(|predicted / measured - 1|; held-out: every 5th distinct token count (chunk, KV "
            "length) left out of the fit)\n";
    // Profiles of several tensor-parallel degrees: each degree's held-out error on its own.
    bool several = false;
    for (const LlmClassFit& c : fit.classes) several = several || c.held_out_by_tp.size() > 1;
    if (several) {
      text << "held-out by tensor-parallel degree:\n";
      for (const LlmClassFit& c : fit.classes) {
        for (const auto& [tp, stats] : c.held_out_by_tp) {
          text << "  " << std::left << std::setw(19) << llm_op_class_name(c.cls) << "tp "
               << std::setw(3) << tp << std::right << std::setw(7) << stats.points
               << " points  median" << std::setw(9) << percent(stats.median) << "  p90"
               << std::setw(9) << percent(stats.p90) << "\n";
        }
      }
    }
    text << "parameters:\n";
    for (const LlmEfficiencyField& f : llm_efficiency_fields()) {
      text << "  " << std::left << std::setw(38) << f.name << std::right << std::setw(12)
           << std::setprecision(5) << result.*f.member << " " << std::left << std::setw(16)
           << f.unit << (result.is_fitted(f.name) ? "fitted" : "stated (unfitted)") << "\n";
    }
    AtomicFile file(cmd.out_json);
    file.stream() << llm_efficiency_json(result);
    file.commit();
    out << text.str() << "wrote " << cmd.out_json << "\n";
    return 0;
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
}

int run_llm_profiles_check(const LlmProfilesCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const Device d = device_of(cmd);
    const LlmProfileData data = read_llm_profiles(cmd.folders, cmd.model);
    const LlmEfficiency efficiency =
        cmd.calibration.empty() ? *d.defaults : read_llm_efficiency(cmd.calibration);
    if (!cmd.calibration.empty() && efficiency.device != d.name) {
      err << "warning: " << cmd.calibration << " was fitted on " << efficiency.device
          << ", checked here on " << d.name << "\n";
    }
    const std::vector<double> predicted = predict_llm_profiles(data, d.peaks, efficiency);

    std::ostringstream text;
    text << std::fixed << std::setprecision(1);
    text << "efficiencies: "
         << (cmd.calibration.empty() ? "built-in for " + d.name : cmd.calibration) << " ("
         << efficiency.source << ")\n";
    print_header(text, data, d);
    text << std::left << std::setw(19) << "class" << std::right << std::setw(7) << "points"
         << std::setw(15) << "measured us" << std::setw(15) << "predicted us" << std::setw(9)
         << "median" << std::setw(9) << "p90" << std::setw(9) << "max"
         << "\n";
    auto row = [&](const std::string& name, const std::vector<double>& measured,
                   const std::vector<double>& pred) {
      double m = 0.0, p = 0.0;
      std::vector<double> errors;
      for (std::size_t i = 0; i < measured.size(); ++i) {
        m += measured[i];
        p += pred[i];
        errors.push_back(std::abs(pred[i] / measured[i] - 1.0));
      }
      const LlmErrorStats s = llm_error_stats(errors);
      text << std::left << std::setw(19) << name << std::right << std::setw(7) << s.points
           << std::setw(15) << m << std::setw(15) << p << std::setw(9) << percent(s.median)
           << std::setw(9) << percent(s.p90) << std::setw(9) << percent(s.max) << "\n";
    };
    double total_error = 0.0;
    const LlmOpClass classes[] = {
        LlmOpClass::kGemm,          LlmOpClass::kLmHead,           LlmOpClass::kElementwise,
        LlmOpClass::kSampler,       LlmOpClass::kPrefillAttention, LlmOpClass::kDecodeAttention,
        LlmOpClass::kMixedAttention};
    for (LlmOpClass c : classes) {
      std::vector<double> m, p;
      for (std::size_t i = 0; i < data.points.size(); ++i) {
        if (data.points[i].cls != c) continue;
        m.push_back(data.points[i].measured_us);
        p.push_back(predicted[i]);
      }
      if (!m.empty()) row(llm_op_class_name(c), m, p);
    }
    // Token operators one by one, under their file's names.
    std::vector<std::string> names;
    for (const LlmProfilePoint& p : data.points) {
      const bool token_op = p.cls == LlmOpClass::kGemm || p.cls == LlmOpClass::kElementwise ||
                            p.cls == LlmOpClass::kLmHead || p.cls == LlmOpClass::kSampler;
      if (token_op && std::find(names.begin(), names.end(), p.name) == names.end()) {
        names.push_back(p.name);
      }
    }
    for (const std::string& name : names) {
      std::vector<double> m, p;
      for (std::size_t i = 0; i < data.points.size(); ++i) {
        if (data.points[i].name != name) continue;
        m.push_back(data.points[i].measured_us);
        p.push_back(predicted[i]);
      }
      row("  " + name, m, p);
    }
    // A layer's GEMMs and elementwise kernels summed per (shape, tokens), when all four GEMMs
    // were measured there (the embedding and the final norm are per iteration, left out).
    std::map<std::pair<int, double>, std::pair<double, double>> layer;
    std::map<std::pair<int, double>, int> gemms;
    for (std::size_t i = 0; i < data.points.size(); ++i) {
      const LlmProfilePoint& p = data.points[i];
      total_error += std::abs(predicted[i] / p.measured_us - 1.0);
      const bool per_layer = (p.cls == LlmOpClass::kGemm || p.cls == LlmOpClass::kElementwise) &&
                             p.op != LlmOp::kEmbedding && p.name != "final_layernorm";
      if (!per_layer) continue;
      auto& sums = layer[{p.shape, p.tokens}];
      sums.first += p.measured_us;
      sums.second += predicted[i];
      if (p.cls == LlmOpClass::kGemm) ++gemms[{p.shape, p.tokens}];
    }
    std::vector<double> lm, lp;
    for (const auto& [key, sums] : layer) {
      if (gemms[key] < 4) continue;
      lm.push_back(sums.first);
      lp.push_back(sums.second);
    }
    if (!lm.empty()) row("layer (gemm+elem)", lm, lp);
    text << "(|predicted / measured - 1| per point; MAE: its mean over every point)\n";
    text << std::setprecision(4) << "MAE "
         << (data.points.empty() ? 0.0 : total_error / static_cast<double>(data.points.size()))
         << "\n";
    out << text.str();
    return 0;
  } catch (const InputError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace gpumux::calibration
