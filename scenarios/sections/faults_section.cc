// The `faults` section: the fatal-fault rate of running processes, and faults injected at
// chosen instants.
#include "scenarios/sections/sections.h"

#include <set>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux::scenario_sections {
namespace {

// `faults.inject`: [{"job": ID, "after_s": S}, ...], each job at most once.
std::vector<InjectedFault> parse_injected(JsonObject& faults) {
  std::vector<InjectedFault> injected;
  const nlohmann::json& list = faults.raw("inject");
  const std::string where = faults.where("inject");
  if (!list.is_array()) {
    throw InputError(where, "inject", "expected an array of {\"job\", \"after_s\"}, got " +
                                          std::string(list.type_name()));
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string pointer = faults.pointer("inject") + "/" + std::to_string(i);
    if (!list[i].is_object()) {
      throw InputError(faults.file() + "#" + pointer, "inject",
                       "expected an object {\"job\", \"after_s\"}, got " +
                           std::string(list[i].type_name()));
    }
    JsonObject entry(list[i], faults.file(), pointer);
    InjectedFault f;
    f.job_id = entry.required_string("job");
    if (f.job_id.empty()) throw InputError(entry.where("job"), "job", "must not be empty");
    f.after_start = Time::from_seconds(entry.required_number("after_s", 0.0, 1e12));
    entry.finish();
    if (!seen.insert(f.job_id).second) {
      throw InputError(entry.where("job"), "job",
                       "job '" + f.job_id + "' is already given a fault (one per job)");
    }
    injected.push_back(std::move(f));
  }
  return injected;
}

}  // namespace

void parse_faults(Scenario& s, JsonObject& root) {
  if (root.has("faults")) {
    JsonObject f = root.object("faults");
    s.fatal_faults_per_gpu_hour = f.optional_number("fatal_per_gpu_hour", 0.0, 0.0, 1e6);
    if (f.has("inject")) s.injected_faults = parse_injected(f);
    f.finish();
  } else {
    root.allow("faults");
  }
  s.resolved["faults"] = {{"fatal_per_gpu_hour", s.fatal_faults_per_gpu_hour}};
  // Echoed only when given, so that scenarios without it keep their summaries.
  if (!s.injected_faults.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const InjectedFault& f : s.injected_faults) {
      list.push_back({{"job", f.job_id}, {"after_s", f.after_start.seconds()}});
    }
    s.resolved["faults"]["inject"] = list;
  }
}

}  // namespace gpumux::scenario_sections
