#include "analysis/compare/compare.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>

#include "analysis/compare/compare_report.h"
#include "analysis/compare/compare_report_input.h"
#include "analysis/metrics/summary_metrics.h"
#include "analysis/output/number_text.h"
#include "analysis/output/output_folder.h"
#include "analysis/report/html_report.h"
#include "analysis/run/provenance.h"
#include "analysis/run/run.h"
#include "analysis/stats/mean_interval.h"
#include "scenarios/override_source.h"
#include "scenarios/scenario.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"
#include "sim/base/parallel_tasks.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

CompareCell cell_of(std::vector<std::optional<double>> values) {
  CompareCell c;
  std::vector<double> present;
  for (const auto& v : values) {
    if (v) present.push_back(*v);
  }
  c.n = present.size();
  if (c.n == values.size()) {
    const MeanInterval m = mean_interval(present);
    c.mean = m.mean;
    c.half_width = m.half_width;
  }
  c.values = std::move(values);
  return c;
}

}  // namespace

CompareResult run_compare(const CompareRequest& request, std::ostream* progress) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (request.models.empty()) throw InputError("--models", "", "no sharing model given");
  if (request.seeds < 1) {
    throw InputError("--seeds " + std::to_string(request.seeds), "seeds", "must be at least 1");
  }
  const std::string file = request.scenario_file;
  const std::string base_dir = fs::path(file).parent_path().string();
  nlohmann::json document = read_json_file(file);
  for (const auto& a : request.sets) apply_override(document, a);
  const Scenario own = [&] {
    try {
      return parse_scenario(document, file, base_dir);
    } catch (const InputError& e) {
      throw with_override_source(e, file, request.sets);
    }
  }();

  CompareResult result;
  result.scenario_name = own.name;
  result.scenario_file = own.file;
  result.provenance = provenance_json(own);
  for (int i = 0; i < request.seeds; ++i) result.seeds.push_back(own.seed + i);
  reject_repeated_models(request.models);
  for (const auto& m : request.models) {
    CompareVariant v;
    static_cast<ModelChoice&>(v) = choose_model_params(document, file, base_dir, m);
    result.variants.push_back(std::move(v));
  }
  if (!request.baseline.empty()) {
    const auto it =
        std::find_if(result.variants.begin(), result.variants.end(),
                     [&](const CompareVariant& v) { return v.model == request.baseline; });
    if (it == result.variants.end()) {
      throw InputError("--baseline", "baseline",
                       "'" + request.baseline + "' is not one of the compared models (--models)");
    }
    result.baseline = static_cast<std::size_t>(it - result.variants.begin());
  }

  // Every run's scenario, parsed now so that bad input fails before any run.
  const std::size_t seeds = result.seeds.size();
  std::vector<Scenario> runs;
  for (auto& v : result.variants) {
    for (const std::uint64_t seed : result.seeds) {
      nlohmann::json doc = with_sharing(document, v.model, v.params);
      doc["seed"] = seed;
      Scenario s = parse_scenario(doc, file, base_dir);
      if (request.out_dir) {
        s.outputs.dir =
            (fs::path(*request.out_dir) / v.model / ("seed-" + std::to_string(seed))).string();
        v.run_dirs.push_back(s.outputs.dir);
      }
      validate_expect_names(s);
      add_provenance_inputs(result.provenance, s);
      runs.push_back(std::move(s));
    }
  }
  // The share rows when the scenario or any run reports them (compare_metrics.h).
  const bool shares =
      reports_shares(own) ||
      std::any_of(runs.begin(), runs.end(), [](const Scenario& s) { return reports_shares(s); });
  result.metrics = compare_metrics(own.services.given, shares, has_llm_endpoint(own.services));

  // The whole comparison goes into the folder's temporary twin, replaced only at the end: a
  // failed or stopped comparison leaves the folder as it was (output_folder.h).
  std::unique_ptr<OutputFolder> folder;
  if (request.out_dir) {
    folder = std::make_unique<OutputFolder>(*request.out_dir, OutputKind::kComparison);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      runs[i].outputs.dir = (fs::path(folder->temp_path()) / result.variants[i / seeds].model /
                             ("seed-" + std::to_string(runs[i].seed)))
                                .string();
    }
  }
  const std::shared_ptr<TraceCache> cache = request.read_trace_per_run ? nullptr
                                            : request.trace_cache      ? request.trace_cache
                                                                  : std::make_shared<TraceCache>();
  std::vector<nlohmann::json> summaries(runs.size());
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto run_one = [&](std::size_t i) {
    RunOptions options;
    options.write_outputs = request.out_dir.has_value();
    options.check_invariants = request.check_invariants;
    options.trace_cache = cache.get();
    const RunReport report = run_scenario(runs[i], options);
    summaries[i] = report.summary;
    if (progress) {
      // Lines come in completion order; they are on stderr, never in the results.
      const std::lock_guard<std::mutex> lock(progress_mutex);
      ++done;
      *progress << "[gpumux compare] " << done << "/" << runs.size()
                << " runs done: " << result.variants[i / seeds].model << " seed " << runs[i].seed
                << " (" << fixed_text(report.wall_seconds, 2) << " s)\n"
                << std::flush;
    }
  };
  run_indexed(runs.size(), request.threads, run_one);

  // Each endpoint's own rows after the pooled ones, as the first run names its services.
  if (!summaries.empty()) {
    for (CompareMetric& row : endpoint_rows(summaries.front())) {
      result.metrics.push_back(std::move(row));
    }
    // Then each kind of job's rows, where the run has two kinds or more.
    for (CompareMetric& row : kind_rows(summaries.front())) {
      result.metrics.push_back(std::move(row));
    }
  }
  for (std::size_t v = 0; v < result.variants.size(); ++v) {
    for (const auto& metric : result.metrics) {
      std::vector<std::optional<double>> values;
      for (std::size_t s = 0; s < seeds; ++s) {
        values.push_back(compare_value(summaries[v * seeds + s], metric.name));
      }
      result.variants[v].cells.push_back(cell_of(std::move(values)));
    }
  }
  if (folder) {
    write_compare_files(result, folder->temp_path());
    if (request.report) {
      // Drawn from the temporary folder but naming the folder the outputs end up in.
      ReportInputs inputs;
      inputs.shown = {*request.out_dir};
      read_compare_folder(folder->temp_path(), *request.out_dir, "", inputs);
      write_html_report(inputs, (fs::path(folder->temp_path()) / "report.html").string());
    }
    folder->commit();
  }
  if (progress) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    *progress << "[gpumux compare] " << runs.size() << " runs in " << fixed_text(wall, 2)
              << " s wall time (" << request.threads
              << (request.threads == 1 ? " thread)\n" : " threads)\n");
  }
  return result;
}

}  // namespace gpumux
