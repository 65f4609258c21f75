// `gpumux report` and `--report` on run and compare: the sections of the page, self-containment,
// balanced markup, determinism, the size bound on large runs, and bad input (exit 2, nothing
// written).
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/report/svg_chart.h"
#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::read_file;
using testing::run_cli;
using testing::write_file;
namespace fs = std::filesystem;

std::string source_scenario(const std::string& relative) {
  return (testing::source_dir() / relative).string();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Self-contained and well-formed enough for a browser: no network reference, no script, every
// <svg>, <section> and <table> closed.
void expect_self_contained(const std::string& html) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  for (const char* tag : {"svg", "section", "table", "tr"}) {
    EXPECT_EQ(count(html, std::string("<") + tag + ">") + count(html, std::string("<") + tag + " "),
              count(html, std::string("</") + tag + ">"))
        << tag;
  }
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

// The run's outputs, produced once for the tests below.
const fs::path& quickstart_run() {
  static const fs::path dir = [] {
    const fs::path d = testing::temp_dir("report_run") / "run";
    const auto r = run_cli({"run", source_scenario("scenarios/examples/quickstart.json"), "--out",
                            d.string(), "--quiet", "--report"});
    EXPECT_EQ(r.code, 0) << r.err;
    return d;
  }();
  return dir;
}

TEST(Report, RunReportHasEverySectionAndIsSelfContained) {
  const std::string html = read_file(quickstart_run() / "report.html");
  expect_self_contained(html);
  for (const char* section :
       {"id=\"metrics\"", "id=\"over-time\"", "id=\"cdfs\"", "id=\"requests\"", "id=\"faults\"",
        "id=\"mig\"", "id=\"scenario\""}) {
    EXPECT_NE(html.find(section), std::string::npos) << section;
  }
  EXPECT_EQ(html.find("id=\"compare\""), std::string::npos);  // not a compare folder
  for (const char* chart :
       {"GPU allocation ratio", "SM-busy utilization", "GPUs in use", "Queued jobs", "JCT CDF",
        "Queueing-delay CDF", "Out-of-memory events", "Fatal GPU faults"}) {
    EXPECT_NE(html.find("aria-label=\"" + std::string(chart) + "\""), std::string::npos) << chart;
  }
  // Time series and CDFs drawn, fault counts of 0 drawn as lines too (the columns exist).
  EXPECT_GE(count(html, "<polyline"), 10u);
  EXPECT_EQ(count(html, "class=\"no-data\""), 0u);
  // The scenario with its trace defaults and their sources; 60 jobs finished.
  EXPECT_NE(html.find("<td>quickstart</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>sm_util</th><td>{&quot;uniform&quot;:[0.3,0.95]}</td><td>scenario "
                      "trace.defaults</td><td>60</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<tr><th>jobs finished</th><td>60</td></tr>"), std::string::npos);
  // Key metrics in the digits of gpumux compare's table (3 for shares, 1 for seconds, 2 for
  // mean GPUs), other values with 4 significant digits.
  const auto summary = nlohmann::json::parse(read_file(quickstart_run() / "summary.json"));
  const auto fixed = [](double x, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, x);
    return std::string(buffer);
  };
  const auto& m = summary["metrics"];
  for (const auto& [label, text] : std::vector<std::pair<std::string, std::string>>{
           {"GPU allocation ratio", fixed(m["gpu_allocation_ratio"], 3)},
           {"JCT p95 (s)", fixed(m["jct_s"]["p95"], 1)},
           {"mean GPUs in use", fixed(m["mean_allocated_gpus"], 2)},
           {"makespan (s)", short_number(m["makespan_s"])}}) {
    EXPECT_NE(html.find("<tr><th>" + label + "</th><td>" + text + "</td></tr>"), std::string::npos)
        << label << " " << text;
  }
  EXPECT_NE(html.find("No inference services"), std::string::npos);
  EXPECT_NE(html.find("No variant splits GPUs into slots"), std::string::npos);
}

TEST(Report, SameFoldersGiveTheSameBytes) {
  const fs::path out = testing::temp_dir("report_same");
  ASSERT_EQ(run_cli({"report", quickstart_run().string(), "-o", (out / "a.html").string()}).code,
            0);
  ASSERT_EQ(run_cli({"report", quickstart_run().string(), "-o", (out / "b.html").string()}).code,
            0);
  const std::string a = read_file(out / "a.html");
  EXPECT_EQ(a, read_file(out / "b.html"));
  EXPECT_EQ(a, read_file(quickstart_run() / "report.html"));
}

TEST(Report, CompareFolderGetsTheTableAndOneLinePerVariant) {
  const fs::path dir = testing::temp_dir("report_compare") / "cmp";
  const auto r =
      run_cli({"compare", source_scenario("scenarios/examples/quickstart.json"), "--models",
               "exclusive,timeslice", "--seeds", "2", "--out", dir.string(), "--report"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(dir / "report.html");
  expect_self_contained(html);
  EXPECT_NE(html.find("<section id=\"compare\">"), std::string::npos);
  EXPECT_NE(html.find("<th>metric</th><th>exclusive</th><th>timeslice</th>"), std::string::npos);
  // Exclusive GPUs: the same JCTs in both seeds, a zero-width interval, in compare's digits.
  EXPECT_NE(html.find("<tr><th>JCT p95 (s)</th><td>366.0 \u00b1 0.0</td>"), std::string::npos);
  // Drawn from the temporary folder before it was renamed, the page names the final folder.
  EXPECT_EQ(html.find(".tmp-"), std::string::npos);
  EXPECT_NE(html.find(dir.string() + ": scenario &#39;quickstart&#39;, 2 seeds"),
            std::string::npos);
  // Each line chart has one legend entry and one line per variant, and with two seeds a band
  // under every time series (four over time, four fault counts).
  const std::size_t charts = count(html, "class=\"chart\">");
  EXPECT_EQ(count(html, "<polyline"), 2 * charts);
  EXPECT_EQ(count(html, "<polygon class=\"band\""), 2 * 8u);
  // A bar chart per metric across the two variants, but for those 0 or n/a in every run.
  std::size_t nonzero = 0;
  const auto compare = nlohmann::json::parse(read_file(dir / "compare.json"));
  for (const auto& [name, cell] : compare["variants"][0]["metrics"].items()) {
    bool any = false;
    for (const auto& v : compare["variants"]) {
      for (const auto& x : v["metrics"][name]["values"]) any = any || (x.is_number() && x != 0);
    }
    nonzero += any;
  }
  EXPECT_GE(nonzero, 8u);
  EXPECT_EQ(count(html, "class=\"chart bar-chart\""), nonzero);
  // Several inputs: labels name their folder.
  const fs::path both = dir.parent_path() / "both.html";
  ASSERT_EQ(run_cli({"report", dir.string(), quickstart_run().string(), "-o", both.string()}).code,
            0);
  const std::string merged = read_file(both);
  EXPECT_NE(merged.find(dir.string() + ": timeslice"), std::string::npos);
  EXPECT_EQ(count(merged, "<polyline"), 3 * count(merged, "class=\"chart\">"));
}

TEST(Report, ShowsFaultsRequestsAndMigSlotsWhenTheRunHasThem) {
  const fs::path base = testing::temp_dir("report_features");
  ASSERT_EQ(run_cli({"run", source_scenario("scenarios/regression/mps_optimistic_oom.json"),
                     "--out", (base / "oom").string(), "--quiet", "--report"})
                .code,
            0);
  const std::string oom = read_file(base / "oom" / "report.html");
  // The OOM chart climbs: its last point is higher (smaller y pixel) than its first.
  const auto at = oom.find("aria-label=\"Out-of-memory events\"");
  ASSERT_NE(at, std::string::npos);
  const std::string chart = oom.substr(at, oom.find("</svg>", at) - at);
  // The first polyline's points (plain string search: std::regex overflows the stack on them).
  const auto points_at = chart.find("points=\"");
  ASSERT_NE(points_at, std::string::npos);
  const auto points_begin = points_at + std::string("points=\"").size();
  std::istringstream points(
      chart.substr(points_begin, chart.find('"', points_begin) - points_begin));
  std::vector<double> ys;
  for (std::string pair; points >> pair;) ys.push_back(std::stod(pair.substr(pair.find(',') + 1)));
  ASSERT_GE(ys.size(), 2u);
  EXPECT_GT(ys.front(), ys.back());
  EXPECT_NE(oom.find("<tr><th>out-of-memory events</th><td>2</td></tr>"), std::string::npos);

  ASSERT_EQ(run_cli({"run", source_scenario("scenarios/regression/inference_mig.json"), "--out",
                     (base / "inference").string(), "--quiet", "--report"})
                .code,
            0);
  const std::string inference = read_file(base / "inference" / "report.html");
  expect_self_contained(inference);
  EXPECT_NE(inference.find("<th>latency p95 (ms)</th>"), std::string::npos);
  // The request-latency CDF is drawn from the summary's distribution, not a "no data" panel.
  const std::size_t cdf_at = inference.find("Request-latency CDF");
  ASSERT_NE(cdf_at, std::string::npos);
  const std::string cdf_chart = inference.substr(cdf_at, inference.find("</svg>", cdf_at) - cdf_at);
  EXPECT_NE(cdf_chart.find("points=\""), std::string::npos) << cdf_chart;
  EXPECT_EQ(cdf_chart.find("no data"), std::string::npos);
  EXPECT_NE(inference.find("<th>occupancy</th>"), std::string::npos);
  EXPECT_EQ(inference.find("No variant splits GPUs"), std::string::npos);
  // MIG slice occupancy over time, from the run's slot_timeseries.csv.
  const std::string slots = read_file(base / "inference" / "slot_timeseries.csv");
  EXPECT_EQ(slots.rfind("time_s,split_gpus,slices,busy_slices,", 0), 0u) << slots.substr(0, 200);
  for (const char* title : {"Busy share of MIG slices", "Fragmented share of MIG slices"}) {
    const std::size_t chart_at = inference.find(std::string("aria-label=\"") + title + "\"");
    ASSERT_NE(chart_at, std::string::npos) << title;
    const std::string svg =
        inference.substr(chart_at, inference.find("</svg>", chart_at) - chart_at);
    EXPECT_NE(svg.find("points=\""), std::string::npos) << title;
  }
  // Models without slots write no slot_timeseries.csv.
  EXPECT_FALSE(fs::exists(base / "oom" / "slot_timeseries.csv"));
}

TEST(Report, ARunOfServicesBesideTrainingJobsShowsEachKind) {
  const fs::path base = testing::temp_dir("report_kinds");
  ASSERT_EQ(run_cli({"run", source_scenario("scenarios/examples/plan_mixed.json"), "--out",
                     (base / "mixed").string(), "--quiet", "--report"})
                .code,
            0);
  const std::string page = read_file(base / "mixed" / "report.html");
  EXPECT_NE(page.find("<h3>By kind of job</h3>"), std::string::npos);
  EXPECT_NE(page.find("<tr><th>training jobs finished</th><td>60</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><th>services finished</th><td>23</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><th>batch inference JCT p95 (s)</th><td>-</td></tr>"),
            std::string::npos);
  const std::string plain = read_file(quickstart_run() / "report.html");
  EXPECT_EQ(plain.find("By kind of job"), std::string::npos);
}

// `gpumux plan --out DIR [--report]`: the folder holds plan.json (the JSON format), plan.txt
// (the printed table) and the report's plan table; `gpumux report DIR` draws it alone.
TEST(Report, PlanFolderHoldsThePlanAndTheReportDrawsItsTable) {
  const fs::path base = testing::temp_dir("report_plan");
  const fs::path dir = base / "plan";
  const auto r =
      run_cli({"plan", source_scenario("scenarios/examples/quickstart.json"), "--models",
               "exclusive,mps", "--objective", "queue_p95_s<=60", "--threads", "2", "--set",
               "scheduler.placement=spread", "--out", dir.string(), "--report"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(read_file(dir / "plan.txt"), r.out);
  const auto plan = nlohmann::json::parse(read_file(dir / "plan.json"));
  ASSERT_EQ(plan["models"].size(), 2u);
  const std::string html = read_file(dir / "report.html");
  expect_self_contained(html);
  EXPECT_NE(html.find("<h2>Capacity plan</h2>"), std::string::npos);
  for (const auto& m : plan["models"]) {
    const std::string row = "<tr><th>" + m["model"].get<std::string>() + "</th><td>" +
                            std::to_string(m["nodes"].get<int>()) + "</td><td>" +
                            std::to_string(m["gpus"].get<int>()) + "</td>";
    EXPECT_NE(html.find(row), std::string::npos) << row;
  }
  // The assumptions every answer rests on and the sensitivity to them (the quickstart's
  // sm_util and memory_mib defaults are distributions): one row per end and as planned.
  EXPECT_NE(html.find("Assumptions of every answer"), std::string::npos);
  EXPECT_NE(html.find("<code>sm_util</code> {&quot;uniform&quot;:[0.3,0.95]}"), std::string::npos);
  EXPECT_NE(html.find("<h4>Sensitivity to the defaulted trace fields</h4>"), std::string::npos);
  EXPECT_NE(html.find("<td>sm_util</td><td>0.3 (low end)</td>"), std::string::npos);
  // The same page from `gpumux report` on the folder.
  const auto again = run_cli({"report", dir.string(), "-o", (base / "again.html").string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(read_file(base / "again.html"), html);

  // --report needs --out; a plan.json without models is bad input naming the pointer.
  const auto no_out =
      run_cli({"plan", source_scenario("scenarios/examples/quickstart.json"), "--models",
               "exclusive", "--objective", "queue_p95_s<=60", "--report"});
  EXPECT_EQ(no_out.code, 2);
  EXPECT_NE(no_out.err.find("--report"), std::string::npos) << no_out.err;
  fs::create_directories(base / "broken");
  write_file(base / "broken" / "plan.json", "{\"models\": []}");
  const auto broken =
      run_cli({"report", (base / "broken").string(), "-o", (base / "broken.html").string()});
  EXPECT_EQ(broken.code, 2);
  EXPECT_NE(broken.err.find("plan.json#/models"), std::string::npos) << broken.err;
  EXPECT_FALSE(fs::exists(base / "broken.html"));
  fs::remove_all(base);
}

TEST(Report, LargeRunsAreDownsampledToASmallPage) {
  // A run folder with 200,000 time-series rows and 200,000 finished jobs.
  const fs::path dir = testing::temp_dir("report_large") / "run";
  fs::create_directories(dir);
  fs::copy_file(quickstart_run() / "summary.json", dir / "summary.json");
  std::string series =
      "time_s,allocated_gpus,allocation_ratio,sm_busy,overhead,queued,running,"
      "finished\n";
  std::string jobs = "id,state,queue_s,jct_s\n";
  for (int i = 0; i < 200'000; ++i) {
    const std::string n = std::to_string(i % 17);
    series += std::to_string(i * 60) + "," + n + ",0." + n + ",0." + n + ",0," + n + ",1," +
              std::to_string(i) + "\n";
    jobs += "j" + std::to_string(i) + ",finished," + std::to_string(i % 1000) + "," +
            std::to_string(i) + "\n";
  }
  write_file(dir / "timeseries.csv", series);
  write_file(dir / "jobs.csv", jobs);
  const fs::path page = dir.parent_path() / "large.html";
  const auto r = run_cli({"report", dir.string(), "-o", page.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(page);
  expect_self_contained(html);
  EXPECT_LT(html.size(), 600'000u);  // 6 lines of at most 2000 points, and the tables
  std::size_t lines = 0;
  for (auto at = html.find("points=\""); at != std::string::npos;
       at = html.find("points=\"", at + 1)) {
    const auto begin = at + 8, end = html.find('"', begin);
    // A step line draws two pixel pairs per point.
    EXPECT_LE(static_cast<std::size_t>(std::count(html.begin() + begin, html.begin() + end, ',')),
              2 * kMaxChartPoints);
    ++lines;
  }
  EXPECT_EQ(lines, 6u);
  // Without the fault columns (an older timeseries.csv) the fault charts are left out, each
  // listed once at the end with why.
  EXPECT_EQ(count(html, "class=\"no-data\""), 0u);
  EXPECT_EQ(count(html, ": no data: the timeseries.csv files have no such column</li>"), 4u);
}

TEST(Report, OddValuesInASummaryShowAsDashesNotACrash) {
  const fs::path dir = testing::temp_dir("report_odd") / "run";
  write_file(dir / "summary.json",
             R"({"scenario": {"name": ["x"], "sharing": {"parameters": [1, {"name": 2}]},
                 "cluster": {"node_groups": 5}},
                 "metrics": {"jobs": 3, "jct_s": {"p95": null}}, "trace": {"defaults_used": []}})");
  const fs::path page = dir.parent_path() / "odd.html";
  const auto r = run_cli({"report", dir.string(), "-o", page.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(page);
  expect_self_contained(html);
  EXPECT_NE(html.find("<tr><th>jobs arrived</th><td>-</td></tr>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>JCT p95 (s)</th><td>n/a</td></tr>"), std::string::npos);
  // No CSVs: no chart is drawn, and each of the ten is listed once at the end.
  EXPECT_EQ(count(html, "class=\"no-data\""), 0u);
  EXPECT_EQ(count(html, "<li>"), 10u);
  EXPECT_NE(html.find("<section id=\"left-out\">"), std::string::npos);
}

TEST(Report, BadInputExitsTwoNamingTheFileAndWritesNothing) {
  const fs::path base = testing::temp_dir("report_bad");
  const fs::path page = base / "report.html";
  auto expect_error = [&](const std::vector<std::string>& dirs, const std::string& message) {
    std::vector<std::string> args = {"report"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    args.insert(args.end(), {"-o", page.string()});
    const auto r = run_cli(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(page));
  };
  expect_error({(base / "missing").string()}, (base / "missing").string() + ": no such folder");
  fs::create_directories(base / "empty");
  expect_error({(base / "empty").string()}, "neither a run folder");
  // A good folder first does not save a bad second one.
  expect_error({quickstart_run().string(), (base / "empty").string()}, "neither a run folder");

  auto copy_run = [&](const std::string& name) {
    const fs::path d = base / name;
    fs::create_directories(d);
    for (const char* f : {"summary.json", "jobs.csv", "timeseries.csv"}) {
      fs::copy_file(quickstart_run() / f, d / f);
    }
    return d;
  };
  const fs::path bad_number = copy_run("bad_number");
  std::string series = read_file(bad_number / "timeseries.csv");
  series.replace(series.find("\n60,") + 1, 2, "6x");
  write_file(bad_number / "timeseries.csv", series);
  expect_error({bad_number.string()},
               (bad_number / "timeseries.csv").string() + ":3: field 'time_s': expected a number");

  const fs::path short_row = copy_run("short_row");
  write_file(short_row / "jobs.csv", read_file(short_row / "jobs.csv") + "x,finished,1\n");
  expect_error({short_row.string()}, (short_row / "jobs.csv").string() + ":62: expected 21 fields");

  const fs::path no_column = copy_run("no_column");
  write_file(no_column / "jobs.csv", "id,state\na,finished\n");
  expect_error({no_column.string()},
               (no_column / "jobs.csv").string() + ":1: field 'jct_s': required column");

  const fs::path bad_json = copy_run("bad_json");
  write_file(bad_json / "summary.json", "{\"scenario\": ");
  expect_error({bad_json.string()}, (bad_json / "summary.json").string() + ":1:");

  const fs::path not_summary = copy_run("not_summary");
  write_file(not_summary / "summary.json", "{\"scenario\": {}}");
  expect_error({not_summary.string()},
               (not_summary / "summary.json").string() + "#/metrics: field 'metrics'");

  const fs::path compare = base / "compare";
  write_file(compare / "compare.json",
             R"({"seeds": [1], "metrics": [{"name": "m", "label": "m"}],
                 "variants": [{"model": "mps", "metrics": {}}]})");
  expect_error({compare.string()}, (compare / "mps" / "seed-1").string() +
                                       ": run folder named by " +
                                       (compare / "compare.json").string() + " is missing");

  // --report needs the outputs it draws from.
  const auto no_out = run_cli({"compare", source_scenario("scenarios/examples/quickstart.json"),
                               "--models", "exclusive", "--report"});
  EXPECT_EQ(no_out.code, 2);
  EXPECT_NE(no_out.err.find("--report: needs --out DIR"), std::string::npos) << no_out.err;
  const auto no_outputs = run_cli({"run", source_scenario("scenarios/examples/quickstart.json"),
                                   "--no-outputs", "--report", "--quiet"});
  EXPECT_EQ(no_outputs.code, 2);
  EXPECT_NE(no_outputs.err.find("drop --no-outputs"), std::string::npos) << no_outputs.err;
}

}  // namespace
}  // namespace gpumux
