// Per-config co-location factors (calibrate/colocation/config_factors.h): applying, fitting,
// reading and writing them, the commands' --config-factors / --no-config-factors, and their
// held-out error on Lucid's pairs against the 0.06 goal.
#include "calibrate/colocation/config_factors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "calibrate/colocation/colocation_command.h"
#include "calibrate/colocation/colocation_model.h"
#include "models/calibration_file.h"
#include "models/timeslice/timeslice_physics.h"
#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

std::string colocation_data_dir() {
  const char* root = std::getenv("GPUMUX_SOURCE_DIR");
  return std::string(root ? root : ".") + "/../shared/data/colocation";
}
std::string lucid_singles_csv() { return colocation_data_dir() + "/lucid_single_data.csv"; }
std::string lucid_pairs_csv() { return colocation_data_dir() + "/lucid_pairs_train.csv"; }
bool have_shared_data() {
  return std::filesystem::exists(lucid_singles_csv()) && std::filesystem::exists(lucid_pairs_csv());
}

const ConfigKey kA{"A", "d", 32, 0}, kB{"B", "d", 64, 1}, kNew{"N", "d", 32, 0};

TEST(ConfigFactors, ApplyScalesEachSideAndLeavesUnknownConfigsAlone) {
  const std::pair<double, double> base{0.8, 0.5};  // slowdowns 0.25 and 1
  ConfigFactors f;
  EXPECT_EQ(apply_factors(base, f, kA, kB), base);  // no factors: the model's rates
  f[kA] = {std::log(2.0), 0.0};                     // A suffers twice as much
  f[kB] = {0.0, std::log(3.0)};                     // B presses three times as hard
  const auto r = apply_factors(base, f, kA, kB);
  EXPECT_NEAR(r.first, 1.0 / (1.0 + 0.25 * 2.0 * 3.0), 1e-12);
  EXPECT_NEAR(r.second, 0.5, 1e-12);  // B's own sensitivity and A's pressure are 0
  // A config never fitted keeps the model's prediction on its side, and exerts no pressure.
  const auto n = apply_factors(base, f, kNew, kA);
  EXPECT_NEAR(n.first, 0.8, 1e-12);
  EXPECT_NEAR(n.second, 1.0 / (1.0 + 1.0 * 2.0), 1e-12);
  // No slowdown stays no slowdown; large factors stay inside (0, 1].
  f[kA] = {20.0, 20.0};
  EXPECT_EQ(apply_factors({1.0, 1.0}, f, kA, kA), std::make_pair(1.0, 1.0));
  const auto big = apply_factors({0.9, 0.9}, f, kA, kA);
  EXPECT_GT(big.first, 0.0);
  EXPECT_LT(big.first, 1e-10);
}

// Six configs, every pair, speeds made by known factors on top of known model rates.
struct Synthetic {
  std::vector<SingleConfig> singles;
  std::vector<Pair> pairs;
  std::vector<const Pair*> all;
  std::vector<std::pair<double, double>> rates;
  ConfigFactors truth;
  Synthetic() {
    for (int i = 0; i < 6; ++i) {
      SingleConfig c;
      c.key = {"m" + std::to_string(i), "d", 32, 0};
      singles.push_back(c);
      truth[c.key] = {0.1 * i - 0.2, 0.3 - 0.15 * i};
    }
    for (int i = 0; i < 6; ++i) {
      for (int j = i; j < 6; ++j) {
        Pair p;
        p.key1 = singles[i].key, p.key2 = singles[j].key;
        p.job1 = &singles[i], p.job2 = &singles[j];
        const std::pair<double, double> base{0.9 - 0.05 * i, 0.95 - 0.06 * j};
        std::tie(p.speed1, p.speed2) = apply_factors(base, truth, p.key1, p.key2);
        pairs.push_back(p);
        rates.push_back(base);
      }
    }
    for (const Pair& p : pairs) all.push_back(&p);
  }
};

TEST(ConfigFactors, FitRecoversTheFactorsThatMadeTheSpeeds) {
  const Synthetic s;
  const ConfigFactors fit = fit_config_factors(s.all, s.rates, 1e-9);
  ASSERT_EQ(fit.size(), 6u);
  for (std::size_t k = 0; k < s.all.size(); ++k) {
    const auto r = apply_factors(s.rates[k], fit, s.all[k]->key1, s.all[k]->key2);
    EXPECT_NEAR(r.first, s.all[k]->speed1, 1e-6);
    EXPECT_NEAR(r.second, s.all[k]->speed2, 1e-6);
  }
  // A constant moved from every sensitivity to every pressure changes no prediction, so only
  // the differences between configs are determined; they match the truth.
  const ConfigKey& first = s.singles[0].key;
  for (const auto& [key, f] : s.truth) {
    EXPECT_NEAR(fit.at(key).sensitivity - fit.at(first).sensitivity,
                f.sensitivity - s.truth.at(first).sensitivity, 1e-4);
    EXPECT_NEAR(fit.at(key).pressure - fit.at(first).pressure,
                f.pressure - s.truth.at(first).pressure, 1e-4);
  }
  // A heavy ridge keeps every config at the model (factors near 0).
  for (const auto& [key, f] : fit_config_factors(s.all, s.rates, 1e6)) {
    EXPECT_NEAR(f.sensitivity, 0.0, 1e-3);
    EXPECT_NEAR(f.pressure, 0.0, 1e-3);
  }
}

TEST(ConfigFactors, JsonRoundTripAndBadInputNamesThePointer) {
  ConfigFactors f;
  f[kA] = {0.25, -0.5};
  f[kB] = {-1.0, 2.0};
  const ConfigFactors back = factors_from_json(factors_to_json(f), "p.json#/f");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_DOUBLE_EQ(back.at(kB).pressure, 2.0);
  EXPECT_DOUBLE_EQ(back.at(kA).sensitivity, 0.25);

  auto error = [](const nlohmann::json& j) {
    try {
      factors_from_json(j, "p.json#/f");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json rows = factors_to_json(f);
  EXPECT_NE(error(nlohmann::json::object()).find("p.json#/f"), std::string::npos);
  nlohmann::json missing = rows;
  missing[1].erase("pressure");
  EXPECT_NE(error(missing).find("p.json#/f/1/pressure"), std::string::npos) << error(missing);
  nlohmann::json far = rows;
  far[0]["sensitivity"] = 21.0;
  EXPECT_NE(error(far).find("p.json#/f/0/sensitivity"), std::string::npos) << error(far);
  nlohmann::json amp = rows;
  amp[0]["amp"] = 2;
  EXPECT_NE(error(amp).find("p.json#/f/0/amp"), std::string::npos) << error(amp);
  nlohmann::json twice = rows;
  twice.push_back(rows[0]);
  EXPECT_NE(error(twice).find("listed twice"), std::string::npos) << error(twice);
}

// The header and first `rows` pairs of the Lucid pairs file, as a temp file.
std::string first_lucid_pairs_csv(const std::string& name, int rows) {
  std::ifstream all_pairs(lucid_pairs_csv());
  std::string line, text;
  for (int row = 0; row <= rows && std::getline(all_pairs, line); ++row) text += line + "\n";
  const auto path = std::filesystem::temp_directory_path() / ("gpumux_colocation_" + name);
  std::ofstream(path) << text;
  return path.string();
}

// fit --config-factors writes the factors beside the params (the sharing models still read the
// file), and predict applies them unless --no-config-factors.
TEST(ConfigFactors, FitWritesThemAndPredictAppliesThem) {
  if (!have_shared_data())
    GTEST_SKIP() << "shared Lucid data not found at " << colocation_data_dir();
  const std::string params =
      (std::filesystem::temp_directory_path() / "gpumux_colocation_factors.json").string();
  FitCommand fit;
  fit.single_csv = lucid_singles_csv();
  fit.pairs_csv = first_lucid_pairs_csv("factors_pairs.csv", 120);
  fit.out_json = params;
  fit.config_factors = true;
  std::ostringstream out, err;
  ASSERT_EQ(run_fit_command(fit, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("with per-config factors"), std::string::npos) << out.str();
  std::ifstream written(params);
  const nlohmann::json j = nlohmann::json::parse(written)["models"]["timeslice"];
  ASSERT_TRUE(j.contains("config_factors"));
  EXPECT_GT(j["config_factors"].size(), 10u);
  EXPECT_GT(j["config_factors_ridge"].get<double>(), 0.0);
  EXPECT_LT(j["train_mae_with_factors"].get<double>(), j["train_mae"].get<double>());
  EXPECT_GT(j["cross_validation"]["timeslice_factors_mae"].get<double>(), 0.0);
  EXPECT_NO_THROW(read_calibration(params, timeslice_calibration_keys()));

  auto predicted_mae = [&](bool without) {
    PredictCommand predict;
    predict.single_csv = fit.single_csv;
    predict.pairs_csv = fit.pairs_csv;
    predict.params_json = params;
    predict.no_config_factors = without;
    std::ostringstream pout, perr;
    EXPECT_EQ(run_predict_command(predict, pout, perr), 0) << perr.str();
    EXPECT_EQ(perr.str().find("per-config factors") != std::string::npos, !without) << perr.str();
    const std::string text = pout.str();
    return std::stod(text.substr(text.rfind("MAE ") + 4));
  };
  const double with = predicted_mae(false), without = predicted_mae(true);
  EXPECT_NEAR(with, j["train_mae_with_factors"].get<double>(), 1e-4);
  EXPECT_NEAR(without, j["train_mae"].get<double>(), 1e-4);

  CLI::App app;
  FitCommand parsed;
  configure_fit_command(*app.add_subcommand("fit"), parsed);
  app.parse(std::vector<std::string>{"--config-factors", "x.json", "-o", "p.csv", "--pairs",
                                     "s.csv", "--single", "fit"});  // CLI11 takes them reversed
  EXPECT_TRUE(parsed.config_factors);
  std::filesystem::remove(params);
}

// The goal (docs/validation.md): held-out Lucid pairs predicted within 0.06 on average. With
// per-config factors the time-slicing model meets it when the pairs are held out (5 folds,
// seed 42); folds by config, where a tested config has no factor of its own, do not reach it
// but still beat the model alone.
TEST(ConfigFactors, HeldOutLucidPairsMeetTheGoal) {
  if (!have_shared_data())
    GTEST_SKIP() << "shared Lucid data not found at " << colocation_data_dir();
  const auto singles = load_singles(lucid_singles_csv());
  const auto pairs = load_pairs(lucid_pairs_csv(), singles);
  std::vector<const Pair*> all;
  for (const Pair& p : pairs) all.push_back(&p);
  const CrossValidation by_pair = cross_validate(all, 5, 42, FoldGroups::kPairs, true);
  EXPECT_LE(by_pair.timeslice_factors_mae, 0.06);
  EXPECT_LT(by_pair.timeslice_factors_mae, by_pair.timeslice_mae);
  const CrossValidation by_config = cross_validate(all, 5, 42, FoldGroups::kConfigs, true);
  EXPECT_LT(by_config.timeslice_factors_mae, by_config.timeslice_mae);
}

}  // namespace
}  // namespace gpumux::calibration
