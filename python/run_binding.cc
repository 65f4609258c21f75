#include "python/run_binding.h"

#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/run/run.h"
#include "apps/commands.h"
#include "models/registry.h"
#include "scenarios/scenario.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/registry.h"
#include "sim/services/registry.h"
#include "traces/formats/registry.h"

namespace py = pybind11;

namespace gpumux::python {

namespace {

// `gpumux ARGS...` in this process: (exit code, stdout, stderr). Errors raise (module.cc
// translates InputError); the run itself goes without the GIL, so that policies written in
// Python can be asked from any thread.
py::tuple command_line(const std::vector<std::string>& args) {
  std::vector<std::string> words{"gpumux"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  std::ostringstream out;
  std::ostringstream err;
  int code = 0;
  {
    py::gil_scoped_release free_gil;
    code = run_command_line_or_throw(static_cast<int>(argv.size()), argv.data(), out, err);
  }
  return py::make_tuple(code, out.str(), err.str());
}

// One scenario run: from the file `path`, or from `document` (JSON text; `path` then names it
// in messages and `base_dir` resolves its paths). Returns (summary.json text, output folder,
// warnings, wall seconds).
py::tuple run_one(const std::string& path, const std::string& document, const std::string& base_dir,
                  const std::vector<std::string>& sets, std::optional<std::uint64_t> seed,
                  std::optional<std::string> out_dir, bool write_outputs, bool check_invariants) {
  ScenarioOverrides overrides;
  overrides.sets = sets;
  overrides.seed = seed;
  overrides.out_dir = std::move(out_dir);
  RunReport report;
  std::vector<std::string> warnings;
  {
    py::gil_scoped_release free_gil;
    const Scenario scenario =
        document.empty()
            ? load_scenario(path, overrides)
            : scenario_from_document(nlohmann::json::parse(document), path, base_dir, overrides);
    warnings = scenario.warnings;
    RunOptions options;
    options.write_outputs = write_outputs;
    options.check_invariants = check_invariants;
    report = run_scenario(scenario, options);
  }
  return py::make_tuple(report.summary.dump(), write_outputs ? report.out_dir : std::string(),
                        warnings, report.wall_seconds);
}

template <class Table>
void list_family(py::list& rows, const char* family, const Table& table) {
  for (const auto& info : table) {
    py::dict row;
    row["family"] = family;
    row["name"] = std::string(info.name);
    row["summary"] = std::string(info.summary);
    rows.append(row);
  }
}

// Every name a scenario may choose, by family, from the same tables as `gpumux models`.
py::list model_rows() {
  py::list rows;
  list_family(rows, "sharing model", sharing_models());
  list_family(rows, "service engine", service_engines());
  list_family(rows, "queue policy", queue_policies());
  list_family(rows, "placement policy", placement_policies());
  list_family(rows, "trace format", trace_formats());
  return rows;
}

// The metric catalogue, as `gpumux metrics` lists it.
py::list metric_rows() {
  py::list rows;
  for (const MetricInfo& m : metric_catalogue()) {
    py::dict row;
    row["name"] = m.name;
    row["unit"] = m.unit;
    row["better"] = better_name(m.better);
    row["summary"] = m.summary;
    rows.append(row);
  }
  return rows;
}

}  // namespace

void bind_runs(py::module_& m) {
  m.def("command_line", &command_line, py::arg("args"),
        "gpumux ARGS... in this process: (exit code, stdout text, stderr text)");
  m.def("run_one", &run_one, py::arg("path"), py::arg("document"), py::arg("base_dir"),
        py::arg("sets"), py::arg("seed"), py::arg("out_dir"), py::arg("write_outputs"),
        py::arg("check_invariants"));
  m.def("model_rows", &model_rows);
  m.def("metric_rows", &metric_rows);
}

}  // namespace gpumux::python
