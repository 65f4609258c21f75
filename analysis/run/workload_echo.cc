#include "analysis/run/workload_echo.h"

#include <string>

#include "models/registry.h"

namespace gpumux {

nlohmann::json workloads_json(const Scenario& scenario, const WorkloadCounts& counts,
                              const ColocationCounts* colocation) {
  nlohmann::json filled = nlohmann::json::object();
  for (JobField f : {JobField::kSmUtil, JobField::kMemBwUtil, JobField::kMemory}) {
    filled[std::string(job_field_info(f).name)] = counts.filled[static_cast<int>(f)];
  }
  nlohmann::json out = {
      {"catalogue", scenario.trace.workloads.catalogue_file},
      {"jobs", {{"named", counts.named}, {"drawn", counts.drawn}, {"without", counts.without}}},
      {"filled", filled},
      {"mig_speeds", {{"measured", counts.mig_measured}, {"model", counts.mig_model}}},
  };
  if (colocation) {
    out["colocation_speeds"] = {{"measured", colocation->measured},
                                {"model", colocation->model},
                                {"unrunnable", colocation->unrunnable}};
  } else {
    out["colocation_speeds"] = "not used";  // the model never shares a whole GPU in pairs
  }
  return out;
}

void add_workload_parameters(nlohmann::json& summary, const Scenario& scenario,
                             const WorkloadCounts& counts, const ColocationCounts* colocation) {
  nlohmann::json& sharing = summary["scenario"]["sharing"];
  if (colocation) {
    std::string source = "trace.catalogue " + scenario.trace.workloads.catalogue_file +
                         "; the other " + std::to_string(colocation->model) +
                         " jobs that ran use the model's rates";
    if (colocation->unrunnable > 0) {
      source += "; " + std::to_string(colocation->unrunnable) +
                " met a partner measured as unable to run beside them (speed 0) and ran at the "
                "model's rate";
    }
    sharing["parameters"].push_back(
        {{"name", "measured_colocation_speeds"},
         {"value", colocation->measured},  // a count: echoed "N jobs", not "N.0 jobs"
         {"unit", "jobs"},
         {"source", source},
         {"description",
          "jobs that ran at a measured co-location speed: on a GPU holding exactly two jobs "
          "whose pair the catalogue measured on that device type (alone, 3+ jobs or unmeasured "
          "pairs: the model's rates)"}});
  }
  if (!capabilities_of(sharing.value("model", std::string())).mig_instances) return;
  sharing["parameters"].push_back(
      {{"name", "measured_mig_speeds"},
       {"value", counts.mig_measured},  // a count, as above
       {"unit", "jobs"},
       {"source", "trace.catalogue " + scenario.trace.workloads.catalogue_file + "; the other " +
                      std::to_string(counts.mig_model) + " jobs use speed_model"},
       {"description",
        "jobs whose workload has measured speeds per MIG profile on the cluster's device: in a "
        "measured profile they run at the measured speed, in any other at speed_model's"}});
}

void print_workloads_line(const nlohmann::json& w, std::ostream& out) {
  const auto& jobs = w["jobs"];
  out << "  workloads " << w["catalogue"].get<std::string>() << ": " << jobs["named"]
      << " jobs named one, " << jobs["drawn"] << " drawn from trace.workload_mix, "
      << jobs["without"] << " without; filled from it:";
  for (const auto& [field, n] : w["filled"].items()) out << " " << field << " " << n;
  out << "; MIG speeds measured for " << w["mig_speeds"]["measured"] << " jobs, modelled for "
      << w["mig_speeds"]["model"];
  const auto& pairs = w["colocation_speeds"];
  if (pairs.is_object()) {
    out << "; pair speeds measured for " << pairs["measured"] << " jobs, modelled for "
        << pairs["model"];
    if (pairs["unrunnable"] != 0) {
      out << " (" << pairs["unrunnable"] << " beside a partner measured as unable to run)";
    }
  }
  out << "\n";
}

}  // namespace gpumux
