#include "analysis/sweep/sweep_inputs.h"

#include <algorithm>
#include <limits>

#include "analysis/run/provenance.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

// Enough of a digest to tell two files apart in a message; the files hold all 64 digits.
std::string shortened(const std::string& sha256) { return sha256.substr(0, 16); }

std::string named(const SweepInput& input) {
  return input.role + " '" + input.file + "' of scenario '" + input.scenario + "'";
}

const SweepInput* find_input(const std::vector<SweepInput>& inputs, const std::string& scenario,
                             const std::string& role, const std::string& file) {
  const auto it = std::find_if(inputs.begin(), inputs.end(), [&](const SweepInput& i) {
    return i.scenario == scenario && i.role == role && i.file == file;
  });
  return it == inputs.end() ? nullptr : &*it;
}

constexpr const char* kRerun =
    "rerun the sweep from scratch into a new --out, or restore the inputs it began with";

}  // namespace

void SweepInputList::add(const std::string& scenario_name, const Scenario& scenario) {
  for (const InputFile& f : scenario.input_files) {
    if (!listed_.emplace(scenario_name, f.role, f.shown).second) continue;
    const nlohmann::json j = input_file_json(f);
    inputs_.push_back({scenario_name, f.role, f.shown, j["bytes"].get<std::uint64_t>(),
                       j["sha256"].get<std::string>()});
  }
}

nlohmann::json sweep_inputs_to_json(const std::vector<SweepInput>& inputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const SweepInput& i : inputs) {
    out.push_back({{"scenario", i.scenario},
                   {"role", i.role},
                   {"file", i.file},
                   {"bytes", i.bytes},
                   {"sha256", i.sha256}});
  }
  return out;
}

std::vector<SweepInput> sweep_inputs_from_json(const nlohmann::json& json, const std::string& file,
                                               const std::string& pointer) {
  if (!json.is_array()) {
    throw InputError(file + "#" + pointer, "inputs",
                     "expected an array, got " + describe_json(json));
  }
  std::vector<SweepInput> inputs;
  for (std::size_t k = 0; k < json.size(); ++k) {
    JsonObject o(json[k], file, pointer + "/" + std::to_string(k));
    SweepInput i;
    i.scenario = o.required_string("scenario");
    i.role = o.required_string("role");
    i.file = o.required_string("file");
    i.bytes = static_cast<std::uint64_t>(
        o.required_int("bytes", 0, std::numeric_limits<std::int64_t>::max()));
    i.sha256 = o.required_string("sha256");
    o.finish();
    inputs.push_back(std::move(i));
  }
  return inputs;
}

void check_unchanged_inputs(const std::vector<SweepInput>& recorded,
                            const std::vector<SweepInput>& now, const std::string& plan_file) {
  for (const SweepInput& n : now) {
    const SweepInput* r = find_input(recorded, n.scenario, n.role, n.file);
    if (r == nullptr) {
      throw InputError(plan_file, "inputs",
                       "the sweep now reads " + named(n) +
                           ", which it did not read when it began; resuming would mix runs of "
                           "different inputs: " +
                           kRerun);
    }
    if (r->sha256 != n.sha256) {
      throw InputError(plan_file, "inputs",
                       "the " + named(n) + " has changed since the sweep began (SHA-256 " +
                           shortened(r->sha256) + "... then, " + shortened(n.sha256) +
                           "... now); resuming would mix runs of both versions: " + kRerun);
    }
  }
  for (const SweepInput& r : recorded) {
    if (find_input(now, r.scenario, r.role, r.file) == nullptr) {
      throw InputError(plan_file, "inputs",
                       "the sweep began reading " + named(r) + ", which it no longer reads; " +
                           "resuming would mix runs of different inputs: " + kRerun);
    }
  }
}

void check_run_inputs(const std::vector<SweepInput>& recorded, const std::string& scenario_name,
                      const std::string& run_label, const nlohmann::json& summary,
                      const std::string& summary_file) {
  if (!summary.contains("provenance")) return;
  const nlohmann::json& provenance = summary["provenance"];
  const std::string pointer = "/provenance/inputs";
  if (!provenance.is_object() || !provenance.contains("inputs") ||
      !provenance["inputs"].is_array()) {
    throw InputError(summary_file + "#" + pointer, "inputs",
                     "expected the run's input files (an array), got " +
                         describe_json(provenance.is_object() && provenance.contains("inputs")
                                           ? provenance["inputs"]
                                           : provenance));
  }
  const nlohmann::json& inputs = provenance["inputs"];
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string at = summary_file + "#" + pointer + "/" + std::to_string(k);
    const nlohmann::json& e = inputs[k];
    for (const char* key : {"role", "file", "sha256"}) {
      if (!e.is_object() || !e.contains(key) || !e[key].is_string()) {
        throw InputError(at, key, "expected a string in the run's record of its input file");
      }
    }
    const std::string role = e["role"].get<std::string>();
    const std::string file = e["file"].get<std::string>();
    const std::string sha256 = e["sha256"].get<std::string>();
    const SweepInput* r = find_input(recorded, scenario_name, role, file);
    if (r == nullptr) {
      throw InputError(at, "file",
                       run_label + " read " + role + " '" + file + "', which the sweep's plan " +
                           "(sweep-plan.json) does not list: its runs come from different "
                           "inputs; nothing was merged: " +
                           kRerun);
    }
    if (r->sha256 != sha256) {
      throw InputError(at + "/sha256", "sha256",
                       run_label + " read " + named(*r) + " with SHA-256 " + shortened(sha256) +
                           "..., but the sweep began with " + shortened(r->sha256) +
                           "... (sweep-plan.json): its runs come from different versions of the "
                           "file (a shard run after it changed?); nothing was merged: " +
                           kRerun + ", every shard reading the same inputs");
    }
  }
}

}  // namespace gpumux
