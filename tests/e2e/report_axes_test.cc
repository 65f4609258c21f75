// `gpumux report` on a sweep with a numeric axis: the sweep's name as the title, one line chart
// per metric against the axis (a line per model, each point the mean over the seeds from the
// sweep's own table), charts with nothing to draw left out and listed once, and the metric
// tables as means over the seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

// A number as the figure files write it (%g: 0.5, 1, 2).
std::string number_as_written(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The quickstart under exclusive and timeslice at three loads, two seeds each; only summaries
// kept (the sweep default), so the time-series and CDF charts have nothing to draw.
fs::path load_axis_sweep(const fs::path& base) {
  const fs::path file = base / "sweep.json";
  testing::write_file(
      file,
      nlohmann::json{
          {"name", "load-axis"},
          {"scenarios", {(testing::source_dir() / "scenarios/examples/quickstart.json").string()}},
          {"models", {"exclusive", "timeslice"}},
          {"axes", {{{"set", "trace.load_factor"}, {"values", {0.5, 1, 2}}}}},
          {"seeds", 2}}
          .dump());
  const auto r = testing::run_cli({"sweep", file.string(), "--out", (base / "s").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  return base / "s";
}

TEST(ReportAxes, ANumericAxisGetsALineChartPerMetricWithTheTablesMeans) {
  const fs::path base = testing::temp_dir("report_axes");
  const fs::path sweep = load_axis_sweep(base);
  const auto r = testing::run_cli({"report", sweep.string(), "-o", (base / "r.html").string(),
                                   "--data", (base / "data").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testing::read_file(base / "r.html");
  EXPECT_NE(html.find("<title>gpumux report: sweep &#39;load-axis&#39;</title>"),
            std::string::npos);
  EXPECT_NE(html.find("<section id=\"axes\">"), std::string::npos);
  EXPECT_NE(html.find("JCT p95 (s) against load_factor"), std::string::npos);
  // The data file of that chart: per model, the three loads, each y the mean of the sweep's
  // table (sweep.json of the merge), x the axis value.
  const auto merge = testing::run_cli({"merge", sweep.string()});
  ASSERT_EQ(merge.code, 0) << merge.err;
  const auto table = nlohmann::json::parse(testing::read_file(sweep / "sweep.json"));
  const std::string csv = testing::read_file(base / "data" / "jct-p95-s-against-load-factor.csv");
  std::size_t lines = 0;
  for (const auto& v : table["variants"]) {
    const std::string model = v["model"];
    double load = 0;
    for (const auto& a : v["axes"]) {
      if (a["set"] == "trace.load_factor") load = a["value"].get<double>();
    }
    const double mean = v["metrics"]["jct_s.p95"]["mean"].get<double>();
    ASSERT_TRUE(std::isfinite(mean)) << v.dump();
    // "model,line,x,y,...": the line's row at this load.
    const std::string head = model + ",line," + number_as_written(load) + ",";
    const auto at = csv.find("\n" + head);
    ASSERT_NE(at, std::string::npos) << head << "\n" << csv;
    const double y = std::stod(csv.substr(at + 1 + head.size()));
    EXPECT_NEAR(y, mean, 1e-6 * std::max(1.0, mean)) << head;
    ++lines;
  }
  EXPECT_EQ(lines, 6u);
  // Without the runs' CSVs, the charts over time are left out and listed once, at the end.
  EXPECT_EQ(html.find("class=\"no-data\""), std::string::npos);
  const auto left_out = html.find("<section id=\"left-out\">");
  ASSERT_NE(left_out, std::string::npos);
  EXPECT_EQ(occurrences(html, "<li>GPU allocation ratio: "), 1u);
  EXPECT_GT(left_out, html.find("<section id=\"scenario\">"));
  fs::remove_all(base);
}

TEST(ReportAxes, KeyMetricsAreTheMeanOverTheSeeds) {
  const fs::path base = testing::temp_dir("report_means");
  const fs::path out = base / "cmp";
  const auto c = testing::run_cli(
      {"compare", (testing::source_dir() / "scenarios/examples/quickstart.json").string(),
       "--models", "exclusive", "--seeds", "3", "--out", out.string()});
  ASSERT_EQ(c.code, 0) << c.err;
  // SM-busy utilization moves with the seed (makespan does not, on this trace).
  double sum = 0, first = -1;
  int runs = 0;
  for (const auto& seed : fs::directory_iterator(out / "exclusive")) {
    const auto summary = nlohmann::json::parse(testing::read_file(seed.path() / "summary.json"));
    const double v = summary["metrics"]["sm_busy_utilization"].get<double>();
    if (first < 0) first = v;
    sum += v;
    ++runs;
  }
  ASSERT_EQ(runs, 3);
  ASSERT_GT(std::abs(sum / 3.0 - first), 1e-3);  // the mean is not the first seed's value
  const auto r = testing::run_cli({"report", out.string(), "-o", (base / "r.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testing::read_file(base / "r.html");
  const auto key = html.find("<section id=\"metrics\">");
  ASSERT_NE(key, std::string::npos);
  const std::string label = "<th>SM-busy utilization</th><td>";
  const auto row = html.find(label, key);
  ASSERT_NE(row, std::string::npos) << html.substr(key, 2000);
  const auto start = row + label.size();
  const double shown = std::stod(html.substr(start, html.find('<', start) - start));
  EXPECT_NEAR(shown, sum / 3.0, 0.0006) << html.substr(row, 200);  // printed to 3 decimals
  EXPECT_NE(html.find("each value is the mean over the seeds"), std::string::npos);
  fs::remove_all(base);
}

}  // namespace
}  // namespace gpumux
