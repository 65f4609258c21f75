#include "analysis/check/check.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "analysis/metrics/summary_metrics.h"
#include "analysis/output/number_text.h"
#include "analysis/output/output_folder.h"
#include "analysis/run/run.h"
#include "sim/base/input_error.h"
#include "sim/base/terminal_text.h"

namespace gpumux {

bool CheckResult::pass() const {
  return std::all_of(scenarios.begin(), scenarios.end(),
                     [](const ScenarioCheck& s) { return s.pass(); });
}

CheckResult run_check(const CheckRequest& request, std::ostream* progress) {
  ScenarioOverrides overrides;
  overrides.sets = request.sets;
  overrides.seed = request.seed;
  std::vector<Scenario> loaded;
  std::set<std::string> names;
  const bool with_baseline = !request.baseline_dir.empty();
  std::vector<std::string> baseline_files;
  std::vector<nlohmann::json> baselines;
  for (const auto& file : request.scenarios) {
    Scenario s = load_scenario(file, overrides);
    if (with_baseline) {
      baseline_files.push_back(
          (std::filesystem::path(request.baseline_dir) / s.name / "summary.json").string());
      baselines.push_back(read_summary_input(baseline_files.back()));
    }
    if (s.expect.empty() && !with_baseline) {
      throw InputError(file + "#/expect", "expect",
                       "no bounds to check: add an expect block, e.g. \"expect\": "
                       "{\"jobs.rejected\": {\"max\": 0}} (docs/checks.md \"Checks\")");
    }
    if (!s.expect.empty()) validate_expect_names(s);
    if (!request.out_dir.empty()) {
      if (!names.insert(s.name).second) {
        throw InputError(file + "#/name", "name",
                         "two scenarios are named '" + s.name + "': their outputs would share " +
                             request.out_dir + "/" + s.name);
      }
      s.outputs.dir = (std::filesystem::path(request.out_dir) / s.name).string();
    }
    loaded.push_back(std::move(s));
  }
  if (with_baseline) {
    std::vector<std::string> names_there;
    for (const auto& b : baselines) {
      for (auto& n : summary_metric_names(b, b)) names_there.push_back(std::move(n));
    }
    check_ignore_patterns(request.ignore, names_there);
  }
  // Each scenario's run on the next free thread; results land in their scenario's slot, so the
  // order of the result is the files' order whatever finished first.
  std::vector<std::optional<ScenarioCheck>> checks(loaded.size());
  std::vector<std::exception_ptr> errors(loaded.size());
  // Each run's written, uncommitted folder: an error in any scenario leaves every folder as it
  // was (the pending ones are dropped uncommitted), so exit 2 writes nothing.
  std::vector<std::shared_ptr<OutputFolder>> pending(loaded.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  auto work = [&] {
    while (!failed) {
      const std::size_t i = next++;
      if (i >= loaded.size()) return;
      const Scenario& s = loaded[i];
      try {
        RunOptions options;
        options.write_outputs = !request.out_dir.empty();
        options.check_invariants = request.check_invariants;
        options.defer_commit = true;  // committed below, once every scenario has run
        RunReport report = run_scenario(s, options);
        pending[i] = std::move(report.pending);
        ScenarioCheck c{s.file, s.name, s.seed, report.expect, report.wall_seconds, "", {}};
        if (with_baseline) {
          c.baseline_file = baseline_files[i];
          c.baseline = diff_summaries(baselines[i], report.summary, request.tolerances,
                                      request.ignore, request.fail_on);
        }
        if (progress) {
          const std::lock_guard<std::mutex> lock(progress_mutex);
          *progress << "[gpumux] " << (c.pass() ? "pass " : "FAIL ") << terminal_text(s.file)
                    << " (" << fixed_text(report.wall_seconds, 2) << " s)\n";
        }
        checks[i] = std::move(c);
      } catch (...) {
        // No new scenario starts after an error; those already started finish, so every
        // scenario before the failing one has run, as it would have on one thread.
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(std::max(1, request.threads), std::max<std::size_t>(1, loaded.size()));
  if (threads == 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);  // the first in scenario order
  }
  for (const auto& folder : pending) {
    if (folder) folder->commit();
  }
  CheckResult result;
  for (auto& c : checks) result.scenarios.push_back(std::move(*c));
  return result;
}

void print_check_table(const CheckResult& result, std::ostream& out) {
  std::size_t bounds = 0, failed_bounds = 0, failed_metrics = 0;
  bool with_baseline = false;
  std::vector<std::string> failed_files;
  for (const auto& s : result.scenarios) {
    std::size_t failed = 0;
    for (const auto& b : s.bounds) failed += b.pass ? 0 : 1;
    bounds += s.bounds.size();
    failed_bounds += failed;
    if (!s.pass()) failed_files.push_back(s.file);
    out << (s.pass() ? "PASS  " : "FAIL  ") << terminal_text(s.file) << "  (scenario '"
        << terminal_text(s.name) << "', seed " << s.seed << "; " << (s.bounds.size() - failed)
        << " of " << s.bounds.size() << " bounds hold";
    if (s.baseline) {
      with_baseline = true;
      failed_metrics += s.baseline->failing();
      out << "; against " << terminal_text(s.baseline_file) << " " << s.baseline->failing()
          << " of " << s.baseline->metrics.size() << " metrics fail the gate (--fail-on "
          << fail_on_name(s.baseline->fail_on) << ")";
    }
    out << ")\n";
    if (!s.bounds.empty()) print_expect_table(s.bounds, out);
    if (s.baseline) print_diff_table(*s.baseline, out);
    out << "\n";
  }
  const std::size_t n = result.scenarios.size();
  const std::string scenarios = std::to_string(n) + (n == 1 ? " scenario" : " scenarios");
  if (failed_files.empty()) {
    out << "check: all " << bounds << " bounds hold in " << scenarios;
    if (with_baseline) out << ", and no metric fails the baseline gate";
    out << "\n";
    return;
  }
  out << "check: FAILED: " << failed_bounds << " of " << bounds << " bounds";
  if (with_baseline) out << " and " << failed_metrics << " baseline metrics";
  out << " in " << failed_files.size() << " of " << scenarios << " (";
  for (std::size_t i = 0; i < failed_files.size(); ++i) out << (i ? ", " : "") << failed_files[i];
  out << ")\n";
}

nlohmann::json check_to_json(const CheckResult& result) {
  nlohmann::json scenarios = nlohmann::json::array();
  for (const auto& s : result.scenarios) {
    // With each bound's note, so that a failure read by a machine still says why the bound is
    // what it is (summary.json's expect list leaves notes to the scenario echo).
    nlohmann::json bounds = expect_results_json(s.bounds);
    for (std::size_t i = 0; i < s.bounds.size(); ++i) {
      if (!s.bounds[i].bound.note.empty()) bounds[i]["note"] = s.bounds[i].bound.note;
    }
    nlohmann::json one = {{"file", s.file},
                          {"name", s.name},
                          {"seed", s.seed},
                          {"pass", s.pass()},
                          {"bounds", std::move(bounds)}};
    if (s.baseline) {
      one["baseline"] = diff_to_json(*s.baseline);
      one["baseline"]["file"] = s.baseline_file;
    }
    scenarios.push_back(std::move(one));
  }
  return {{"pass", result.pass()}, {"scenarios", scenarios}};
}

}  // namespace gpumux
