#include "models/mps/gavel_compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "models/mps/mps_rates.h"
#include "sim/base/json_fields.h"

namespace gpumux {
namespace {

// "('ResNet-18 (batch size 16)', 1)" -> ("ResNet-18 (batch size 16)", 1); false if malformed.
bool parse_key(const std::string& key, std::string& name, int& scale) {
  if (key.size() < 7 || key.rfind("('", 0) != 0 || key.back() != ')') return false;
  const std::size_t sep = key.rfind("', ");
  if (sep == std::string::npos || sep < 2) return false;
  name = key.substr(2, sep - 2);
  try {
    scale = std::stoi(key.substr(sep + 3, key.size() - sep - 4));
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

double solo(const nlohmann::json& gen, const std::string& key, const std::string& file,
            const std::string& pointer) {
  if (!gen.contains(key) || !gen[key].is_object() || !gen[key].contains("null") ||
      !gen[key]["null"].is_number() || gen[key]["null"].get<double>() <= 0.0) {
    throw InputError(file + "#" + pointer, "null", "a positive solo throughput for " + key);
  }
  return gen[key]["null"].get<double>();
}

}  // namespace

GavelData load_gavel(const std::string& path) {
  const nlohmann::json root = read_json_file(path);
  for (const char* gen : {"k80", "p100", "v100"}) {
    if (!root.contains(gen) || !root[gen].is_object()) {
      throw InputError(path + "#/" + gen, gen, "an object of job types");
    }
  }
  const nlohmann::json& v100 = root["v100"];
  GavelData data;
  std::map<std::string, int> index;
  for (const auto& [key, value] : v100.items()) {
    std::string name;
    int scale = 0;
    if (!parse_key(key, name, scale)) {
      throw InputError(path + "#/v100", key, "a key like \"('Type', 1)\"");
    }
    if (scale != 1) continue;
    GavelJobType t;
    t.name = name;
    t.k80 = solo(root["k80"], key, path, "/k80");
    t.p100 = solo(root["p100"], key, path, "/p100");
    t.v100 = solo(v100, key, path, "/v100");
    index[key] = static_cast<int>(data.types.size());
    data.types.push_back(t);
  }
  for (const auto& [key, value] : v100.items()) {
    const auto self = index.find(key);
    if (self == index.end()) continue;
    for (const auto& [partner, pair] : value.items()) {
      if (partner == "null") continue;
      const auto other = index.find(partner);
      if (other == index.end() || !pair.is_array() || pair.size() != 2 || !pair[0].is_number()) {
        throw InputError(path + "#/v100/" + key, partner, "[own, partner] throughputs");
      }
      const double own = pair[0].get<double>();
      if (own <= 0.0) {
        ++data.skipped_unrunnable;
        continue;
      }
      data.v100_pairs.push_back({self->second, other->second, own / data.types[self->second].v100});
    }
  }
  return data;
}

std::vector<MpsJob> map_gavel_types(const GavelData& data, const GavelMapping& mapping) {
  double big_s = mapping.gpu_speedup;
  if (big_s <= 0.0) {
    for (const GavelJobType& t : data.types) big_s = std::max(big_s, t.v100 / t.k80);
  }
  std::vector<MpsJob> jobs;
  for (const GavelJobType& t : data.types) {
    const double s = t.v100 / t.k80;
    double util = 1.0;
    if (big_s > 1.0) {
      const double x = std::clamp((1.0 - 1.0 / s) / (1.0 - 1.0 / big_s), 0.0, 1.0);
      util = s * x / big_s;
    }
    MpsJob j;
    j.sm_util = std::clamp(util, mapping.min_sm_util, 1.0);
    j.sm_share = mapping.sm_share;
    j.active_thread_fraction = 1.0;
    j.mean_kernel_us = 1000.0;
    jobs.push_back(j);
  }
  return jobs;
}

GavelComparison compare_gavel(const GavelData& data, const GavelMapping& mapping) {
  GavelComparison out;
  out.gpu_speedup = mapping.gpu_speedup;
  if (out.gpu_speedup <= 0.0) {
    for (const GavelJobType& t : data.types) {
      out.gpu_speedup = std::max(out.gpu_speedup, t.v100 / t.k80);
    }
  }
  const std::vector<MpsJob> jobs = map_gavel_types(data, mapping);
  double abs_sum = 0.0, sum = 0.0, none = 0.0;
  for (const GavelPairSpeed& p : data.v100_pairs) {
    const MpsJob pair[2] = {jobs[p.job], jobs[p.partner]};
    const MpsRates r = mps_rates(pair, mapping.params);
    out.predicted.push_back(r.rates[0]);
    abs_sum += std::abs(r.rates[0] - p.measured);
    sum += r.rates[0] - p.measured;
    none += std::abs(1.0 - p.measured);
  }
  out.speeds = static_cast<int>(data.v100_pairs.size());
  if (out.speeds > 0) {
    out.mae = abs_sum / out.speeds;
    out.bias = sum / out.speeds;
    out.mae_none = none / out.speeds;
  }
  return out;
}

}  // namespace gpumux
