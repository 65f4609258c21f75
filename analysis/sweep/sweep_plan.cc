#include "analysis/sweep/sweep_plan.h"

#include <cstdio>
#include <filesystem>

#include "analysis/compare/compare_metrics.h"
#include "analysis/metrics/expectations.h"
#include "analysis/run/model_choice.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPlanFormat = "gpumux-sweep-plan-1";

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
  return buffer;
}

// "a.b" and "/a/b" name the same key: the dotted form is turned into a pointer as --set does.
std::string pointer_of(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  std::string pointer;
  std::size_t start = 0;
  while (true) {
    const auto dot = path.find('.', start);
    pointer += "/" + path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return pointer;
}

// A path the sweep itself owns may not be overridden: the run would not be what its label says.
void reject_owned_path(const std::string& path, const std::string& where) {
  const std::string p = pointer_of(path);
  if (p == "/seed") {
    throw InputError(where, "set", "the seed is set by the sweep's \"seeds\" key, not overridden");
  }
  if (p == "/outputs/dir" || p == "/outputs") {
    throw InputError(where, "set",
                     "a sweep writes each run to DIR/runs/NNNNNN/; outputs.dir is not overridden");
  }
}

struct Axis {
  std::string path;
  std::vector<nlohmann::json> values;
};

struct SweepFile {
  std::string name;
  std::string description;
  std::vector<std::string> scenarios;  // resolved against the sweep file's folder
  std::vector<std::string> sets;
  std::vector<ModelRequest> models;  // empty: each scenario's own model
  std::vector<Axis> axes;
  bool seed_count = true;
  std::uint64_t seeds_n = 1;
  std::vector<std::uint64_t> seed_list;
  bool summary_only = true;
};

std::vector<std::string> string_list(JsonObject& o, const std::string& key, bool required) {
  std::vector<std::string> list;
  if (!o.has(key)) {
    if (required) throw InputError(o.where(), key, "missing (a non-empty array of strings)");
    return list;
  }
  const nlohmann::json& a = o.raw(key);
  if (!a.is_array() || (required && a.empty())) {
    throw InputError(o.where(key), key,
                     std::string("expected a") + (required ? " non-empty" : "n") +
                         " array of strings, got " + describe_json(a));
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) {
      throw InputError(o.where(key) + "/" + std::to_string(i), key,
                       "expected a string, got " + describe_json(a[i]));
    }
    list.push_back(a[i].get<std::string>());
  }
  return list;
}

SweepFile read_sweep_file(const std::string& file) {
  const nlohmann::json doc = read_json_file(file);
  JsonObject o(doc, file, "");
  SweepFile s;
  s.name = o.optional_string("name", fs::path(file).stem().string());
  s.description = o.optional_string("description", "");
  const fs::path base = fs::path(file).parent_path();
  for (const auto& p : string_list(o, "scenarios", true)) {
    s.scenarios.push_back(fs::path(p).is_absolute() ? p : (base / p).string());
  }
  s.sets = string_list(o, "sets", false);
  for (std::size_t i = 0; i < s.sets.size(); ++i) {
    const auto eq = s.sets[i].find('=');
    reject_owned_path(s.sets[i].substr(0, eq), o.where("sets") + "/" + std::to_string(i));
  }

  if (o.has("models")) {
    const nlohmann::json& a = o.raw("models");
    if (!a.is_array() || a.empty()) {
      throw InputError(o.where("models"), "models",
                       "expected a non-empty array of model names or {\"name\", \"params\"} "
                       "objects, got " + describe_json(a));
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string where = o.pointer("models") + "/" + std::to_string(i);
      if (a[i].is_string()) {
        s.models.push_back({a[i].get<std::string>(), std::nullopt});
        continue;
      }
      JsonObject m(a[i], file, where);
      ModelRequest r{m.required_string("name"), std::nullopt};
      if (m.has("params")) {
        if (!m.raw("params").is_object()) {
          throw InputError(m.where("params"), "params",
                           "expected an object, got " + describe_json(m.raw("params")));
        }
        r.params = m.raw("params");
      }
      m.finish();
      s.models.push_back(std::move(r));
    }
    for (std::size_t i = 0; i < s.models.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (s.models[i].name == s.models[j].name) {
          throw InputError(o.where("models") + "/" + std::to_string(i), "name",
                           "model '" + s.models[i].name + "' is listed twice (also at /models/" +
                               std::to_string(j) + ")");
        }
      }
    }
  }

  if (o.has("axes")) {
    const nlohmann::json& a = o.raw("axes");
    if (!a.is_array()) {
      throw InputError(o.where("axes"), "axes",
                       "expected an array of {\"set\": PATH, \"values\": [...]}, got " +
                           describe_json(a));
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string pointer = o.pointer("axes") + "/" + std::to_string(i);
      JsonObject x(a[i], file, pointer);
      Axis axis;
      axis.path = x.required_string("set");
      if (axis.path.empty() || axis.path.find('=') != std::string::npos) {
        throw InputError(x.where("set"), "set",
                         "expected a path such as scheduler.queue or /cluster/node_groups/0/nodes");
      }
      reject_owned_path(axis.path, x.where("set"));
      if (!x.has("values") || !x.raw("values").is_array() || x.raw("values").empty()) {
        throw InputError(x.has("values") ? x.where("values") : x.where(), "values",
                         "expected a non-empty array of JSON values");
      }
      const nlohmann::json& values = x.raw("values");
      for (std::size_t v = 0; v < values.size(); ++v) {
        for (std::size_t w = 0; w < v; ++w) {
          if (values[v] == values[w]) {
            throw InputError(x.where("values") + "/" + std::to_string(v), "values",
                             "value " + values[v].dump() + " is listed twice");
          }
        }
        axis.values.push_back(values[v]);
      }
      x.finish();
      for (const auto& other : s.axes) {
        if (pointer_of(other.path) == pointer_of(axis.path)) {
          throw InputError(x.where("set"), "set",
                           "'" + axis.path + "' is already an axis ('" + other.path + "')");
        }
      }
      s.axes.push_back(std::move(axis));
    }
  }

  if (o.has("seeds")) {
    const nlohmann::json& v = o.raw("seeds");
    if (v.is_number_integer() && v.get<std::int64_t>() >= 1 &&
        v.get<std::int64_t>() <= static_cast<std::int64_t>(kMaxSweepRuns)) {
      s.seeds_n = v.get<std::uint64_t>();
    } else if (v.is_array() && !v.empty()) {
      s.seed_count = false;
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string where = o.where("seeds") + "/" + std::to_string(i);
        if (!v[i].is_number_integer() || (v[i].is_number_integer() && !v[i].is_number_unsigned() &&
                                          v[i].get<std::int64_t>() < 0)) {
          throw InputError(where, "seeds",
                           "expected a non-negative integer, got " + describe_json(v[i]));
        }
        const auto seed = v[i].get<std::uint64_t>();
        for (std::size_t j = 0; j < s.seed_list.size(); ++j) {
          if (s.seed_list[j] == seed) {
            throw InputError(where, "seeds", "seed " + std::to_string(seed) + " is listed twice");
          }
        }
        s.seed_list.push_back(seed);
      }
    } else {
      throw InputError(o.where("seeds"), "seeds",
                       "expected a count (1 to 1000000: the scenario's seed, seed + 1, ...) or "
                       "a non-empty array of seeds, got " + describe_json(v));
    }
  }
  const std::string run_files = o.optional_string("run_files", "summary");
  if (run_files != "summary" && run_files != "scenario") {
    throw InputError(o.where("run_files"), "run_files",
                     "expected \"summary\" (each run keeps summary.json only) or \"scenario\" "
                     "(the scenario's outputs block decides), got \"" + run_files + "\"");
  }
  s.summary_only = run_files == "summary";
  o.finish();
  return s;
}

}  // namespace

std::string axis_value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

SweepPlan load_sweep(const std::string& file) {
  const SweepFile sf = read_sweep_file(file);
  SweepPlan plan;
  plan.name = sf.name;
  plan.description = sf.description;

  std::size_t combos = 1;  // axis value combinations
  for (const auto& a : sf.axes) combos *= a.values.size();
  const std::size_t models = sf.models.empty() ? 1 : sf.models.size();
  const std::size_t seeds = sf.seed_count ? sf.seeds_n : sf.seed_list.size();
  const long double total = static_cast<long double>(sf.scenarios.size()) * models *
                            static_cast<long double>(combos) * seeds;
  if (total > kMaxSweepRuns) {
    char count[64];
    std::snprintf(count, sizeof count, "%.0Lf", total);
    throw InputError(file, "", std::string("expands to ") + count + " runs, more than the " +
                                   std::to_string(kMaxSweepRuns) +
                                   " one sweep may hold (split it into several sweeps)");
  }

  std::vector<std::string> names;  // scenario names, for repeated-name errors
  SweepInputList inputs;
  for (std::size_t si = 0; si < sf.scenarios.size(); ++si) {
    const std::string& scenario_file = sf.scenarios[si];
    const std::string where = file + "#/scenarios/" + std::to_string(si);
    const std::string base_dir = fs::path(scenario_file).parent_path().string();
    nlohmann::json document;
    try {
      document = read_json_file(scenario_file);
    } catch (const InputError& e) {
      throw InputError(where, "", e.what());
    }
    for (std::size_t k = 0; k < sf.sets.size() && document.is_object(); ++k) {
      try {
        apply_override(document, sf.sets[k]);
      } catch (const InputError& e) {
        throw InputError(file + "#/sets/" + std::to_string(k), "", e.what());
      }
    }
    if (sf.summary_only && document.is_object()) {
      nlohmann::json& outputs = document["outputs"];
      if (outputs.is_null()) outputs = nlohmann::json::object();
      if (outputs.is_object()) {
        outputs["jobs_csv"] = false;
        outputs["timeseries_csv"] = false;
      }
    }
    const Scenario own = [&] {
      try {
        return parse_scenario(document, scenario_file, base_dir);
      } catch (const InputError& e) {
        throw InputError(where, "", e.what());
      }
    }();
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (names[j] == own.name) {
        throw InputError(where, "", "scenario name '" + own.name + "' is also the name of " +
                                        "/scenarios/" + std::to_string(j) +
                                        " (variant labels start with it: give one a new name)");
      }
    }
    names.push_back(own.name);

    std::vector<ModelChoice> choices;
    for (std::size_t m = 0; m < sf.models.size(); ++m) {
      try {
        choices.push_back(choose_model_params(document, scenario_file, base_dir, sf.models[m]));
      } catch (const InputError& e) {
        throw InputError(file + "#/models/" + std::to_string(m), "",
                         "with scenario " + scenario_file + ": " + e.what());
      }
    }

    const std::size_t first_run = plan.runs.size();
    bool shares = reports_shares(own);  // as compare decides (compare_metrics.h)
    for (std::size_t m = 0; m < models; ++m) {
      const nlohmann::json model_doc =
          choices.empty() ? document : with_sharing(document, choices[m].model, choices[m].params);
      for (std::size_t c = 0; c < combos; ++c) {
        nlohmann::json doc = model_doc;
        std::vector<SweepAxisValue> axes;
        // The first axis varies slowest: decompose c in mixed radix, last axis fastest.
        std::vector<std::size_t> pick(sf.axes.size());
        for (std::size_t a = sf.axes.size(), rest = c; a-- > 0;) {
          pick[a] = rest % sf.axes[a].values.size();
          rest /= sf.axes[a].values.size();
        }
        for (std::size_t a = 0; a < sf.axes.size(); ++a) {
          const nlohmann::json& value = sf.axes[a].values[pick[a]];
          try {
            apply_override(doc, sf.axes[a].path + "=" + value.dump());
          } catch (const InputError& e) {
            throw InputError(file + "#/axes/" + std::to_string(a) + "/values/" +
                                 std::to_string(pick[a]),
                             "", e.what());
          }
          axes.push_back({sf.axes[a].path, value});
        }
        std::vector<std::uint64_t> run_seeds = sf.seed_list;
        if (sf.seed_count) {
          for (std::uint64_t k = 0; k < sf.seeds_n; ++k) run_seeds.push_back(own.seed + k);
        }
        for (const std::uint64_t seed : run_seeds) {
          SweepRun run;
          run.index = plan.runs.size();
          doc["seed"] = seed;
          std::string variant = own.name;
          try {
            const Scenario s = parse_scenario(doc, scenario_file, base_dir);
            validate_expect_names(s);
            inputs.add(own.name, s);
            run.model = s.resolved["sharing"]["model"].get<std::string>();
            run.services = s.services.given;
            run.llm = has_llm_endpoint(s.services);
            shares = shares || reports_shares(s);
          } catch (const InputError& e) {
            std::string label = own.name + (choices.empty() ? "" : " " + choices[m].model);
            for (const auto& a : axes) label += " " + a.path + "=" + axis_value_text(a.value);
            throw InputError(where, "",
                             "run " + std::to_string(run.index) + " (" + label + ", seed " +
                                 std::to_string(seed) + "): " + e.what());
          }
          variant += " " + run.model;
          for (const auto& a : axes) variant += " " + a.path + "=" + axis_value_text(a.value);
          run.variant = std::move(variant);
          run.scenario_name = own.name;
          run.axes = axes;
          run.seed = seed;
          run.digest = fnv1a_hex(doc.dump());
          run.scenario_file = scenario_file;
          run.document = doc;
          plan.runs.push_back(std::move(run));
        }
      }
    }
    for (std::size_t i = first_run; i < plan.runs.size(); ++i) plan.runs[i].shares = shares;
  }
  plan.inputs = inputs.inputs();
  return plan;
}

nlohmann::json plan_to_json(const SweepPlan& plan) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : plan.runs) {
    nlohmann::json axes = nlohmann::json::array();
    for (const auto& a : r.axes) axes.push_back({{"set", a.path}, {"value", a.value}});
    runs.push_back({{"index", r.index},
                    {"variant", r.variant},
                    {"scenario", r.scenario_name},
                    {"model", r.model},
                    {"axes", axes},
                    {"seed", r.seed},
                    {"services", r.services},
                    {"digest", r.digest}});
    // Written only when true: the plans of sweeps without share metrics keep the bytes they had
    // before the key existed, so such folders still resume.
    if (r.shares) runs.back()["shares"] = true;
    if (r.llm) runs.back()["llm"] = true;
  }
  nlohmann::json json = {{"format", kPlanFormat},
                         {"name", plan.name},
                         {"description", plan.description},
                         {"runs", runs}};
  if (plan.inputs_recorded) json["inputs"] = sweep_inputs_to_json(plan.inputs);
  return json;
}

SweepPlan plan_from_json(const nlohmann::json& json, const std::string& file) {
  JsonObject o(json, file, "");
  if (o.required_string("format") != kPlanFormat) {
    throw InputError(o.where("format"), "format",
                     std::string("expected \"") + kPlanFormat +
                         "\" (written by another gpumux version?)");
  }
  SweepPlan plan;
  plan.name = o.required_string("name");
  plan.description = o.optional_string("description", "");
  const nlohmann::json& runs = o.raw("runs");
  if (!runs.is_array()) throw InputError(o.where("runs"), "runs", "expected an array");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    JsonObject r(runs[i], file, "/runs/" + std::to_string(i));
    SweepRun run;
    run.index = static_cast<std::size_t>(r.required_int("index", 0, kMaxSweepRuns - 1));
    if (run.index != i) throw InputError(r.where("index"), "index", "runs out of order");
    run.variant = r.required_string("variant");
    run.scenario_name = r.required_string("scenario");
    run.model = r.required_string("model");
    const nlohmann::json& axes = r.raw("axes");
    if (!axes.is_array()) throw InputError(r.where("axes"), "axes", "expected an array");
    for (std::size_t a = 0; a < axes.size(); ++a) {
      JsonObject x(axes[a], file, r.pointer("axes") + "/" + std::to_string(a));
      SweepAxisValue v{x.required_string("set"), nullptr};
      if (!x.has("value")) throw InputError(x.where(), "value", "missing");
      v.value = x.raw("value");
      x.finish();
      run.axes.push_back(std::move(v));
    }
    const nlohmann::json& seed = r.raw("seed");
    if (!seed.is_number_unsigned()) {
      throw InputError(r.where("seed"), "seed", "expected a non-negative integer");
    }
    run.seed = seed.get<std::uint64_t>();
    run.services = r.optional_bool("services", false);
    run.shares = r.optional_bool("shares", false);
    run.llm = r.optional_bool("llm", false);
    run.digest = r.required_string("digest");
    r.finish();
    plan.runs.push_back(std::move(run));
  }
  plan.inputs_recorded = o.has("inputs");
  if (plan.inputs_recorded) plan.inputs = sweep_inputs_from_json(o.raw("inputs"), file, "/inputs");
  o.finish();
  return plan;
}

}  // namespace gpumux
