// summary.json metrics.queued_by_reason end to end: its total against the jobs' queueing
// delays in jobs.csv (docs/outputs.md gives the definition), the run's "queued by" line, and
// the report's "Why jobs queued" section, old summaries included.
#include <gtest/gtest.h>

#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/metrics/summary_metrics.h"
#include "sim/core/queue_reason.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::read_file;
using testing::run_cli;
namespace fs = std::filesystem;

std::string queue_reason_quickstart() {
  return (testing::source_dir() / "scenarios/examples/quickstart.json").string();
}

// Sum over jobs.csv of start - submit, and `end` - submit for jobs still queued.
double summed_delays(const fs::path& jobs_csv, double end) {
  std::istringstream in(read_file(jobs_csv));
  std::string line;
  std::getline(in, line);
  std::map<std::string, std::size_t> column;
  {
    std::istringstream header(line);
    std::string name;
    for (std::size_t i = 0; std::getline(header, name, ','); ++i) column[name] = i;
  }
  double sum = 0.0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell);
    cells.resize(column.size());
    const std::string& state = cells[column.at("state")];
    const double submit = std::stod(cells[column.at("submit_s")]);
    if (state == "queued") {
      sum += end - submit;
    } else if (state == "finished" || state == "running") {
      sum += std::stod(cells[column.at("start_s")]) - submit;
    }
  }
  return sum;
}

void expect_reasons_sum_to_total(const nlohmann::json& family) {
  double sum = 0.0;
  for (std::string_view reason : kQueueReasonNames) {
    ASSERT_TRUE(family.contains(std::string(reason))) << reason;
    sum += family[std::string(reason)]["job_s"].get<double>();
  }
  EXPECT_NEAR(sum, family["total_job_s"].get<double>(), 1e-6);
}

TEST(QueuedByReason, TotalIsTheJobsQueueingDelays) {
  const auto dir = testing::temp_dir("queued_by_reason");
  const auto r = run_cli({"run", queue_reason_quickstart(), "--out", dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  const auto& family = summary["metrics"]["queued_by_reason"];
  const double total = family["total_job_s"].get<double>();
  ASSERT_GT(total, 0.0);
  EXPECT_NEAR(total, summed_delays(dir / "jobs.csv", 0.0), 1e-6);
  // Every finished: the same as queueing_delay_s's mean x count.
  const auto& delay = summary["metrics"]["queueing_delay_s"];
  EXPECT_NEAR(total, delay["mean"].get<double>() * delay["count"].get<double>(), 1e-6 * total);
  expect_reasons_sum_to_total(family);
  // Exclusive GPUs and no node CPUs: the head only ever waits for GPUs.
  EXPECT_DOUBLE_EQ(family["gpus"]["share"].get<double>(), 1.0);
  std::ostringstream line;
  line << "  queued by   gpus 100.0 % of " << std::setprecision(3) << total << " job-s\n";
  EXPECT_NE(r.out.find(line.str()), std::string::npos) << r.out;
}

TEST(QueuedByReason, JobsStillQueuedAtTheTimeLimitCountToTheEnd) {
  const auto dir = testing::temp_dir("queued_by_reason_limit");
  const auto r = run_cli({"run", queue_reason_quickstart(), "--out", dir.string(), "--quiet",
                          "--set", "limits.max_time_s=1800"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(read_file(dir / "summary.json"));
  ASSERT_GT(summary["metrics"]["jobs"]["unfinished_queued"].get<int>(), 0);
  const auto& family = summary["metrics"]["queued_by_reason"];
  EXPECT_NEAR(family["total_job_s"].get<double>(), summed_delays(dir / "jobs.csv", 1800.0), 1e-6);
  expect_reasons_sum_to_total(family);
}

TEST(QueuedByReason, NothingQueuedGivesNullSharesAndNoLine) {
  const auto dir = testing::temp_dir("queued_by_reason_none");
  auto scenario = nlohmann::json::parse(read_file(queue_reason_quickstart()));
  scenario["cluster"]["node_groups"][0]["nodes"] = 40;
  scenario["trace"]["file"] =
      (testing::source_dir() / "traces/samples/tiresias_60_job.csv").string();
  testing::write_file(dir / "big.json", scenario.dump());
  const auto r = run_cli({"run", (dir / "big.json").string(), "--out", (dir / "out").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(read_file(dir / "out" / "summary.json"));
  const auto& family = summary["metrics"]["queued_by_reason"];
  EXPECT_EQ(family["total_job_s"].get<double>(), 0.0);
  for (std::string_view reason : kQueueReasonNames) {
    EXPECT_EQ(family[std::string(reason)]["job_s"].get<double>(), 0.0) << reason;
    EXPECT_TRUE(family[std::string(reason)]["share"].is_null()) << reason;
  }
  EXPECT_EQ(r.out.find("queued by"), std::string::npos) << r.out;
}

TEST(QueuedByReason, ReportHasTheSectionAndSaysWhenASummaryPredatesIt) {
  const auto base = testing::temp_dir("queued_by_reason_report");
  const auto r =
      run_cli({"run", queue_reason_quickstart(), "--out", (base / "new").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  // An older run: the same folder without the key.
  fs::copy(base / "new", base / "old", fs::copy_options::recursive);
  auto summary = nlohmann::json::parse(read_file(base / "old" / "summary.json"));
  summary["metrics"].erase("queued_by_reason");
  testing::write_file(base / "old" / "summary.json", summary.dump());
  const auto page = base / "report.html";
  const auto rep =
      run_cli({"report", (base / "new").string(), (base / "old").string(), "-o", page.string()});
  ASSERT_EQ(rep.code, 0) << rep.err;
  const std::string html = read_file(page);
  const auto at = html.find("<section id=\"why-queued\">\n<h2>Why jobs queued</h2>");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  EXPECT_NE(section.find("<tr><td>gpus</td><td>100.0 %</td><td>-</td></tr>"), std::string::npos)
      << section;
  EXPECT_NE(section.find("<tr><td>memory</td><td>0.0 %</td><td>-</td></tr>"), std::string::npos)
      << section;
  EXPECT_NE(section.find("<td>not recorded</td>"), std::string::npos) << section;
  EXPECT_NE(section.find("predates the queued_by_reason metrics"), std::string::npos) << section;
}

// expect, plan and diff read these metrics like any other; their n/a says why.
TEST(QueuedByReason, ReadMetricSaysWhyAShareIsNotAvailable) {
  const auto nothing_queued = nlohmann::json::parse(
      R"({"metrics": {"queued_by_reason": {"total_job_s": 0, "gpus": {"job_s": 0, "share": null}}}})");
  EXPECT_EQ(read_metric(nothing_queued, "queued_by_reason.gpus.job_s").value, 0.0);
  EXPECT_EQ(read_metric(nothing_queued, "queued_by_reason.gpus.share").why_na,
            "no job queued over the run");
  const auto older = nlohmann::json::parse(R"({"metrics": {"jobs": {"arrived": 1}}})");
  EXPECT_EQ(read_metric(older, "queued_by_reason.total_job_s").why_na,
            "this run's summary predates the queued_by_reason metrics");
}

}  // namespace
}  // namespace gpumux
