#include "calibrate/colocation/colocation_command.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "calibrate/colocation/colocation_data.h"
#include "calibrate/colocation/colocation_model.h"
#include "models/registry.h"
#include "sim/base/atomic_file.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/terminal_text.h"

namespace gpumux::calibration {
namespace {

struct Dataset {
  std::vector<SingleConfig> singles;
  std::vector<Pair> pairs;
  std::vector<const Pair*> matched;
};

// Loads and joins; reports unmatched rows on `err`.
Dataset load(const std::string& single_csv, const std::string& pairs_csv, std::ostream& err) {
  Dataset d;
  d.singles = load_singles(single_csv);
  d.pairs = load_pairs(pairs_csv, d.singles);
  std::string lines;
  int unmatched = 0;
  for (const Pair& p : d.pairs) {
    if (p.matched()) {
      d.matched.push_back(&p);
    } else {
      ++unmatched;
      if (unmatched <= 20) lines += " " + std::to_string(p.line);
    }
  }
  err << "pairs: " << d.pairs.size() << " rows, " << d.matched.size() << " matched, " << unmatched
      << " unmatched (no single row with the same model,dataset,batchsize,amp)";
  if (unmatched > 0) err << "; lines" << lines << (unmatched > 20 ? " ..." : "");
  err << "\n";
  if (d.matched.empty()) throw InputError(pairs_csv, "", "no pair matches the single configs");
  return d;
}

std::string key_csv(const ConfigKey& k) {
  return k.model + "," + k.dataset + "," + std::to_string(k.batchsize) + "," +
         std::to_string(k.amp);
}

nlohmann::json key_json(const ConfigKey& k) {
  return {{"model", k.model}, {"dataset", k.dataset}, {"batchsize", k.batchsize}, {"amp", k.amp}};
}

// Through the same atomic writer as every output: the file appears whole or not at all, and
// its temporary goes on failure or SIGINT/SIGTERM.
void write_atomically(const std::string& path, const std::string& text) {
  AtomicFile file(path);
  file.stream() << text;
  file.commit();
}

}  // namespace

void configure_fit_command(CLI::App& sub, FitCommand& cmd) {
  sub.add_option("--single", cmd.single_csv, "configs measured alone (lucid_single_data.csv)")
      ->required();
  sub.add_option("--pairs", cmd.pairs_csv, "measured co-located pairs (lucid_pairs_train.csv)")
      ->required();
  sub.add_option("-o,--out", cmd.out_json, "where to write the fitted params.json")->required();
  sub.add_option("--folds", cmd.folds, "cross-validation folds")->check(CLI::Range(2, 100));
  sub.add_option("--seed", cmd.seed, "seed of the cross-validation shuffle");
  sub.add_option("--model", cmd.model, "model to fit: timeslice (default) or mps")
      ->check(CLI::IsMember(contention_model_names()));
  sub.add_option("--cv-groups", cmd.cv_groups,
                 "fold by pairs (default) or by configs (no tested config trained on)");
  sub.add_option("--gavel", cmd.gavel_json,
                 "Gavel's gavel_simulation_throughputs.json: a second source, cross-validated "
                 "per source");
  sub.add_flag("--config-factors", cmd.config_factors,
               "also fit per-config sensitivity and pressure factors from the pairs (written "
               "beside the params, cross-validated)");
}

void configure_predict_command(CLI::App& sub, PredictCommand& cmd) {
  sub.add_option("--single", cmd.single_csv, "configs measured alone")->required();
  sub.add_option("--pairs", cmd.pairs_csv, "co-located pairs to predict")->required();
  sub.add_option("--params", cmd.params_json, "params.json written by fit");
  sub.add_option("--model", cmd.model, "timeslice, mps, none or proportional")
      ->check(CLI::IsMember(pair_model_names()));
  sub.add_option("--format", cmd.format, "csv or json")->check(CLI::IsMember({"csv", "json"}));
  sub.add_flag("--no-config-factors", cmd.no_config_factors,
               "ignore per-config factors in the params file (the model alone)");
}

int run_fit_command(const FitCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const Dataset d = load(cmd.single_csv, cmd.pairs_csv, err);
    const ModelKind kind = parse_model(cmd.model);
    const FitReport fit = fit_model(kind, d.matched);
    const double train_mae = mean_abs_error(kind, fit.params, d.matched);
    const FoldGroups groups = parse_fold_groups(cmd.cv_groups);
    const CrossValidation cv =
        cross_validate(d.matched, cmd.folds, cmd.seed, groups, cmd.config_factors);
    ConfigFactors factors;
    double ridge = 0.0, factors_train_mae = 0.0;
    if (cmd.config_factors) {
      ridge = factor_ridge(fit.rms);
      factors = fit_config_factors(d.matched, predict_pairs(kind, fit.params, d.matched), ridge);
      factors_train_mae = mean_abs_error(kind, fit.params, d.matched, &factors);
    }
    std::vector<SourceScore> per_source;
    if (!cmd.gavel_json.empty()) {
      const GavelSource gavel = load_gavel_source(cmd.gavel_json);
      err << "gavel: " << gavel.singles.size() << " job types, " << gavel.pairs.size() << " pairs ("
          << gavel.skipped_unrunnable << " measurements that could not run together, "
          << gavel.one_direction << " measured one way only, left out)\n";
      std::vector<const Pair*> gavel_pairs;
      for (const Pair& p : gavel.pairs) gavel_pairs.push_back(&p);
      per_source = cross_validate_sources({d.matched, gavel_pairs}, {"lucid", "gavel"}, cmd.folds,
                                          cmd.seed, groups, cmd.config_factors);
    }
    // The calibration file format of `gpumux calibrate overlap fit` (models/calibration_file.h):
    // one entry under "models"; parameters held at an assumed value are listed as "fixed", so that
    // a model reading the file does not take them for measured ones.
    nlohmann::json fitted;
    fitted["params"] = to_json(fit.params);
    fitted["fixed"] = {"kernel_us", "time_slice_us"};
    fitted["mapping"] =
        "sm_util = clamp(util_scale * (gpu_util / 100)^util_exponent, 0.01, 1); mean kernel = "
        "kernel_us (assumed, not fitted) for "
        "every config; time slice fixed at the driver default";
    fitted["train_mae"] = train_mae;
    fitted["train_rms"] = fit.rms;
    fitted["cross_validation"] = {{"folds", cv.folds},
                                  {"seed", cv.seed},
                                  {"jobs", cv.jobs},
                                  {"timeslice_mae", cv.timeslice_mae},
                                  {"mps_mae", cv.mps_mae},
                                  {"none_mae", cv.none_mae},
                                  {"proportional_mae", cv.proportional_mae},
                                  {"groups", cmd.cv_groups}};
    if (cmd.config_factors) {
      fitted["config_factors"] = factors_to_json(factors);
      fitted["config_factors_ridge"] = ridge;
      fitted["train_mae_with_factors"] = factors_train_mae;
      fitted["cross_validation"]["timeslice_factors_mae"] = cv.timeslice_factors_mae;
      fitted["cross_validation"]["mps_factors_mae"] = cv.mps_factors_mae;
    }
    if (!per_source.empty()) {
      nlohmann::json rows = nlohmann::json::array();
      for (const SourceScore& r : per_source) {
        rows.push_back({{"train", r.train},
                        {"test", r.test},
                        {"jobs", r.jobs},
                        {"timeslice_mae", r.timeslice_mae},
                        {"mps_mae", r.mps_mae},
                        {"none_mae", r.none_mae},
                        {"proportional_mae", r.proportional_mae}});
        if (cmd.config_factors) {
          rows.back()["timeslice_factors_mae"] = r.timeslice_factors_mae;
          rows.back()["mps_factors_mae"] = r.mps_factors_mae;
        }
      }
      fitted["cross_validation"]["per_source"] = rows;
      fitted["cross_validation"]["gavel"] = cmd.gavel_json;
    }
    nlohmann::json j;
    j["format"] = "gpumux-calibration";
    j["source"] = "least-squares fit (Levenberg-Marquardt) on " + cmd.pairs_csv + ", " +
                  std::to_string(d.matched.size()) + " matched pairs";
    j["measurements"] = cmd.pairs_csv;
    j["models"] = {{model_name(kind), fitted}};
    j["version"] = GPUMUX_VERSION;
    write_atomically(cmd.out_json, j.dump(2) + "\n");
    out << std::setprecision(4) << "fitted: util_scale " << fit.params.util_scale
        << ", util_exponent " << fit.params.util_exponent << ", switch_cost_us "
        << fit.params.switch_cost_us << ", kernel_us " << fit.params.kernel_us << ", interference "
        << fit.params.interference << "\n"
        << "train MAE " << train_mae << " (rms " << fit.rms << ")\n"
        << cv.folds << "-fold cross-validated MAE (seed " << cv.seed << "): timeslice "
        << cv.timeslice_mae << ", mps " << cv.mps_mae << ", none " << cv.none_mae
        << ", proportional " << cv.proportional_mae
        << (groups == FoldGroups::kConfigs ? " (folds by config)" : "") << "\n";
    if (cmd.config_factors) {
      out << "with per-config factors (" << factors.size() << " configs, ridge " << ridge
          << "): train MAE " << factors_train_mae << "; cross-validated MAE timeslice "
          << cv.timeslice_factors_mae << ", mps " << cv.mps_factors_mae << "\n";
    }
    if (!per_source.empty()) {
      out << "per source (train -> test: jobs, timeslice, mps, none, proportional):\n";
      for (const SourceScore& r : per_source) {
        out << "  " << r.train << " -> " << r.test << ": " << r.jobs << ", " << r.timeslice_mae
            << ", " << r.mps_mae << ", " << r.none_mae << ", " << r.proportional_mae;
        if (cmd.config_factors) {
          out << "; with factors " << r.timeslice_factors_mae << ", " << r.mps_factors_mae;
        }
        out << "\n";
      }
    }
    return 0;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return 2;
  }
}

int run_predict_command(const PredictCommand& cmd, std::ostream& out, std::ostream& err) {
  try {
    const ModelKind kind = parse_model(cmd.model);
    if (cmd.format != "csv" && cmd.format != "json") {
      throw InputError("--format", "format", "expected csv or json, got '" + cmd.format + "'");
    }
    ColocationParams params;
    ConfigFactors factors;
    bool with_factors = false;
    if (!cmd.params_json.empty()) {
      const nlohmann::json j = read_json_file(cmd.params_json);
      // A calibration file (one fit under "models": this model's, else the only one) or the
      // older flat layout with "params" at the top.
      std::string pointer = "";
      if (j.is_object() && j.contains("models") && j["models"].is_object()) {
        const nlohmann::json& models = j["models"];
        if (models.contains(model_name(kind))) {
          pointer = std::string("/models/") + model_name(kind);
        } else if (models.size() == 1) {
          pointer = "/models/" + models.begin().key();
        } else {
          throw InputError(cmd.params_json + "#/models", "models",
                           std::string("no fit for model '") + model_name(kind) + "'");
        }
      }
      const nlohmann::json& entry =
          pointer.empty() ? j : j.at(nlohmann::json::json_pointer(pointer));
      if (!entry.is_object() || !entry.contains("params") || !entry["params"].is_object()) {
        throw InputError(cmd.params_json + "#" + pointer + "/params", "params", "missing object");
      }
      params = params_from_json(entry["params"], cmd.params_json + "#" + pointer + "/params");
      if (entry.contains("config_factors") && !cmd.no_config_factors) {
        factors = factors_from_json(entry["config_factors"],
                                    cmd.params_json + "#" + pointer + "/config_factors");
        with_factors = true;
        err << "note: per-config factors of " << factors.size()
            << " configs applied (--no-config-factors for the model alone)\n";
      }
    } else if (kind == ModelKind::kTimeslice) {
      err << "note: no --params: timeslice model with unfitted defaults (switch cost and kernel "
             "length are assumptions)\n";
    }
    const Dataset d = load(cmd.single_csv, cmd.pairs_csv, err);
    double sum = 0.0;
    int count = 0;
    nlohmann::json rows = nlohmann::json::array();
    out << std::setprecision(4);
    if (cmd.format == "csv") {
      out << "line,model1,dataset1,batchsize1,amp1,model2,dataset2,batchsize2,amp2,"
             "measured1,predicted1,measured2,predicted2,status\n";
    }
    for (const Pair& p : d.pairs) {
      if (!p.matched()) {
        if (cmd.format == "csv") {
          out << p.line << "," << key_csv(p.key1) << "," << key_csv(p.key2) << "," << p.speed1
              << ",," << p.speed2 << ",,unmatched\n";
        } else {
          rows.push_back({{"line", p.line},
                          {"job1", key_json(p.key1)},
                          {"job2", key_json(p.key2)},
                          {"measured", {p.speed1, p.speed2}},
                          {"status", "unmatched"}});
        }
        continue;
      }
      auto rates = predict_pair(kind, params, *p.job1, *p.job2);
      if (with_factors) rates = apply_factors(rates, factors, p.key1, p.key2);
      const auto [s1, s2] = rates;
      sum += std::abs(s1 - p.speed1) + std::abs(s2 - p.speed2);
      count += 2;
      if (cmd.format == "csv") {
        out << p.line << "," << key_csv(p.key1) << "," << key_csv(p.key2) << "," << p.speed1 << ","
            << s1 << "," << p.speed2 << "," << s2 << ",ok\n";
      } else {
        rows.push_back({{"line", p.line},
                        {"job1", key_json(p.key1)},
                        {"job2", key_json(p.key2)},
                        {"measured", {p.speed1, p.speed2}},
                        {"predicted", {s1, s2}},
                        {"status", "ok"}});
      }
    }
    const double mae = sum / count;
    if (cmd.format == "json") {
      out << nlohmann::json{{"model", model_name(kind)}, {"pairs", rows}, {"mae", mae}}.dump(1)
          << "\n";
    }
    out << std::setprecision(6) << "MAE " << mae << "\n";
    return 0;
  } catch (const InputError& e) {
    err << "error: " << terminal_text(e.what()) << "\n";
    return 2;
  }
}

}  // namespace gpumux::calibration
