// `gpumux report` on a sweep folder and --data: variants by their axes with the seeds as
// repetitions, the table over seeds in the digits of the terminal, the mean over seeds with its
// band, log CDFs, bars with 95% intervals, unfinished runs named, and each figure's data file
// holding what is drawn. Expected values are computed here from the runs' own files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_support.h"

namespace gpumux {
namespace {

using testing::read_file;
using testing::run_cli;
using testing::write_file;
namespace fs = std::filesystem;

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == sep && !quoted) {
      out.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

// A CSV as rows of fields, the header first.
std::vector<std::vector<std::string>> read_csv(const fs::path& file) {
  std::istringstream in(read_file(file));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(split(line, ','));
  return rows;
}

// A numeric column of a run's CSV (by header name), in row order; `keep` filters rows by the
// value of `filter_column`.
std::vector<std::pair<double, double>> column_pairs(const fs::path& file, const std::string& x,
                                                    const std::string& y) {
  const auto rows = read_csv(file);
  const auto& head = rows.front();
  const auto xi = std::find(head.begin(), head.end(), x) - head.begin();
  const auto yi = std::find(head.begin(), head.end(), y) - head.begin();
  std::vector<std::pair<double, double>> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    out.push_back({std::stod(rows[r][xi]), std::stod(rows[r][yi])});
  }
  return out;
}

std::vector<double> finished_jct(const fs::path& jobs_csv) {
  const auto rows = read_csv(jobs_csv);
  const auto& head = rows.front();
  const auto state = std::find(head.begin(), head.end(), "state") - head.begin();
  const auto jct = std::find(head.begin(), head.end(), "jct_s") - head.begin();
  std::vector<double> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r][state] == "finished") out.push_back(std::stod(rows[r][jct]));
  }
  return out;
}

std::string fixed(double x, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, x);
  return buffer;
}

// The cells of a table row of the page: "<tr><th>LABEL</th><td>..</td>...</tr>".
std::vector<std::string> html_row(const std::string& html, const std::string& label) {
  const auto at = html.find("<tr><th>" + label + "</th>");
  std::vector<std::string> cells;
  if (at == std::string::npos) return cells;
  const auto end = html.find("</tr>", at);
  for (auto c = html.find("<td>", at); c != std::string::npos && c < end;
       c = html.find("<td>", c + 1)) {
    cells.push_back(html.substr(c + 4, html.find("</td>", c) - c - 4));
  }
  return cells;
}

struct SweepFixture {
  fs::path dir;
  nlohmann::json plan;
};

// 2 models x 2 queues x 2 seeds of the quickstart, keeping the runs' CSVs.
const SweepFixture& sweep() {
  static const SweepFixture f = [] {
    const fs::path base = testing::temp_dir("report_sweep");
    const fs::path file = base / "sweep.json";
    write_file(file,
               nlohmann::json{
                   {"name", "report-sweep"},
                   {"scenarios",
                    {(testing::source_dir() / "scenarios/examples/quickstart.json").string()}},
                   {"models", {"exclusive", "timeslice"}},
                   {"axes", {{{"set", "scheduler.queue"}, {"values", {"fifo", "fifo-backfill"}}}}},
                   {"seeds", 2},
                   {"run_files", "scenario"}}
                   .dump());
    const auto r = run_cli({"sweep", file.string(), "--out", (base / "s").string(), "-j", "1"});
    EXPECT_EQ(r.code, 0) << r.err;
    return SweepFixture{base / "s",
                        nlohmann::json::parse(read_file(base / "s" / "sweep-plan.json"))};
  }();
  return f;
}

fs::path run_dir(std::size_t index) {
  char name[16];
  std::snprintf(name, sizeof name, "%06zu", index);
  return sweep().dir / "runs" / name;
}

TEST(ReportSweep, VariantsByAxesSeedsAsRepetitionsAndTheTerminalsDigits) {
  const fs::path out = testing::temp_dir("report_sweep_page");
  const auto r = run_cli({"report", sweep().dir.string(), "-o", (out / "r.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(out / "r.html");
  EXPECT_NE(html.find("<tr><th>metric</th><th>exclusive, queue=fifo</th><th>exclusive, "
                      "queue=fifo-backfill</th><th>timeslice, queue=fifo</th><th>timeslice, "
                      "queue=fifo-backfill</th></tr>"),
            std::string::npos);
  EXPECT_EQ(html.find("runs/000000:"), std::string::npos);  // no run labelled by its folder
  // JCT p95 of each variant: mean and Student t half-width (t(0.975, 1) = 12.706205) of its two
  // seeds' summaries, one decimal as gpumux compare prints it; an interval reaching below 0 (a
  // time cannot) is cut there and printed as its ends.
  const auto cells = html_row(html, "JCT p95 (s)");
  ASSERT_EQ(cells.size(), 4u);
  for (std::size_t v = 0; v < 4; ++v) {
    const auto a = nlohmann::json::parse(read_file(run_dir(2 * v) / "summary.json"));
    const auto b = nlohmann::json::parse(read_file(run_dir(2 * v + 1) / "summary.json"));
    const double x = a["metrics"]["jct_s"]["p95"], y = b["metrics"]["jct_s"]["p95"];
    const double mean = (x + y) / 2, half = 12.706205 * std::abs(x - y) / 2;
    const std::string expected =
        mean - half < 0 ? fixed(mean, 1) + " [" + fixed(0.0, 1) + ", " + fixed(mean + half, 1) + "]"
                        : fixed(mean, 1) + " \u00b1 " + fixed(half, 1);
    EXPECT_EQ(cells[v], expected) << v;
  }
  // The same cells as `gpumux merge` prints in the terminal.
  const auto merged = run_cli({"merge", sweep().dir.string()});
  ASSERT_EQ(merged.code, 0) << merged.err;
  for (const auto& c : cells) EXPECT_NE(merged.out.find(c), std::string::npos) << c;
  // Bars per metric across the four variants; every run ended, so no note of unfinished runs.
  EXPECT_NE(html.find("<section id=\"bars\">"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"JCT p95 (s)\" class=\"chart bar-chart\""), std::string::npos);
  EXPECT_EQ(html.find("not finished"), std::string::npos);
  // Several seeds: the time series have bands, and say so.
  EXPECT_NE(html.find("<polygon class=\"band\""), std::string::npos);
  EXPECT_NE(html.find("the shaded band spans the lowest to the highest seed"), std::string::npos);
}

TEST(ReportSweep, DataFilesHoldWhatIsDrawnComputedFromTheRuns) {
  const fs::path out = testing::temp_dir("report_sweep_data");
  const auto r = run_cli({"report", sweep().dir.string(), "-o", (out / "r.html").string(), "--data",
                          (out / "data").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(out / "r.html");

  // Allocation ratio of the first variant: at every time either seed sampled, within the span
  // both cover, the mean and range of the two seeds' last samples at or before it.
  const auto s0 = column_pairs(run_dir(0) / "timeseries.csv", "time_s", "allocation_ratio");
  const auto s1 = column_pairs(run_dir(1) / "timeseries.csv", "time_s", "allocation_ratio");
  const auto held = [](const std::vector<std::pair<double, double>>& s, double t) {
    double y = s.front().second;
    for (const auto& [x, v] : s) {
      if (x <= t) y = v;
    }
    return y;
  };
  const double from = std::max(s0.front().first, s1.front().first);
  const double to = std::min(s0.back().first, s1.back().first);
  std::vector<double> grid;
  for (const auto* s : {&s0, &s1}) {
    for (const auto& p : *s) {
      if (p.first >= from && p.first <= to) grid.push_back(p.first);
    }
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  ASSERT_LT(grid.size(), 2000u);  // short enough to be drawn whole
  const auto ratio = read_csv(out / "data" / "gpu-allocation-ratio.csv");
  EXPECT_EQ(ratio.front(),
            (std::vector<std::string>{"variant", "kind", "x", "y", "band_low", "band_high"}));
  std::vector<std::vector<std::string>> first;
  for (const auto& row : ratio) {
    if (row[0] == "exclusive, queue=fifo") first.push_back(row);
  }
  ASSERT_EQ(first.size(), grid.size());
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double a = held(s0, grid[i]), b = held(s1, grid[i]);
    EXPECT_DOUBLE_EQ(std::stod(first[i][2]), grid[i]);
    EXPECT_NEAR(std::stod(first[i][3]), (a + b) / 2, 1e-12) << grid[i];
    EXPECT_DOUBLE_EQ(std::stod(first[i][4]), std::min(a, b)) << grid[i];
    EXPECT_DOUBLE_EQ(std::stod(first[i][5]), std::max(a, b)) << grid[i];
  }

  // JCT CDF of the first variant: each row's y is the share of both seeds' finished jobs at or
  // below its x; the page draws one step line per variant with a corner per row after the first.
  std::vector<double> jct = finished_jct(run_dir(0) / "jobs.csv");
  const std::vector<double> more = finished_jct(run_dir(1) / "jobs.csv");
  jct.insert(jct.end(), more.begin(), more.end());
  const auto cdf = read_csv(out / "data" / "jct-cdf.csv");
  std::size_t rows = 0;
  for (const auto& row : cdf) {
    if (row[0] != "exclusive, queue=fifo") continue;
    ++rows;
    const double x = std::stod(row[2]);
    const double share = static_cast<double>(std::count_if(jct.begin(), jct.end(),
                                                           [&](double j) { return j <= x; })) /
                         static_cast<double>(jct.size());
    // The first point is the start of the steps, at 0.
    if (rows > 1) {
      EXPECT_DOUBLE_EQ(std::stod(row[3]), share) << x;
    }
  }
  ASSERT_GT(rows, 2u);
  const auto chart_at = html.find("aria-label=\"JCT CDF\"");
  ASSERT_NE(chart_at, std::string::npos);
  const auto points_at = html.find("points=\"", html.find("<polyline", chart_at)) + 8;
  const std::string points = html.substr(points_at, html.find('"', points_at) - points_at);
  EXPECT_EQ(static_cast<std::size_t>(std::count(points.begin(), points.end(), ',')), 2 * rows - 1);

  // The bars of JCT p95: mean and interval ends of compare's numbers over the two seeds.
  const auto bars = read_csv(out / "data" / "bars-jct-p95-s.csv");
  ASSERT_EQ(bars.size(), 5u);
  EXPECT_EQ(bars[0],
            (std::vector<std::string>{"variant", "metric", "mean", "ci95_low", "ci95_high", "n",
                                      "clipped"}));
  for (std::size_t v = 0; v < 4; ++v) {
    const auto a = nlohmann::json::parse(read_file(run_dir(2 * v) / "summary.json"));
    const auto b = nlohmann::json::parse(read_file(run_dir(2 * v + 1) / "summary.json"));
    const double x = a["metrics"]["jct_s"]["p95"], y = b["metrics"]["jct_s"]["p95"];
    const double mean = (x + y) / 2, half = 12.706205 * std::abs(x - y) / 2;
    EXPECT_NEAR(std::stod(bars[v + 1][2]), mean, 1e-9);
    // The low end cut at 0 where the interval reaches below it, and flagged.
    EXPECT_NEAR(std::stod(bars[v + 1][3]), std::max(0.0, mean - half), 1e-4 * (1 + half));
    EXPECT_NEAR(std::stod(bars[v + 1][4]), mean + half, 1e-4 * (1 + half));
    EXPECT_EQ(bars[v + 1][5], "2");
    EXPECT_EQ(bars[v + 1][6], mean - half < 0 ? "1" : "0");
  }

  // The same inputs give the same page and files.
  const auto again = run_cli({"report", sweep().dir.string(), "-o", (out / "r2.html").string(),
                              "--data", (out / "data2").string()});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(read_file(out / "r2.html"), html);
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(out / "data")) {
    ++files;
    EXPECT_EQ(read_file(e.path()), read_file(out / "data2" / e.path().filename())) << e.path();
  }
  EXPECT_GE(files, 20u);
}

TEST(ReportSweep, UnfinishedRunsAreNamedAndBadInputWritesNothing) {
  const fs::path base = testing::temp_dir("report_sweep_partial");
  const fs::path copy = base / "s";
  fs::copy(sweep().dir, copy, fs::copy_options::recursive);
  fs::remove_all(copy / "runs" / "000003");
  fs::remove(copy / "runs" / "000002" / "summary.json");
  write_file(copy / "runs" / "000002" / "error.json",
             R"({"index": 2, "variant": "x", "seed": 42, "kind": "input", "error": "bad row 7"})");
  const std::uint64_t seed2 = sweep().plan["runs"][2]["seed"];
  const std::uint64_t seed3 = sweep().plan["runs"][3]["seed"];
  const auto r = run_cli({"report", copy.string(), "-o", (base / "r.html").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(base / "r.html");
  EXPECT_NE(html.find("2 of 8 runs not finished"), std::string::npos);
  EXPECT_NE(html.find("run 3 (exclusive, queue=fifo-backfill, seed " + std::to_string(seed3) + ")"),
            std::string::npos);
  EXPECT_NE(html.find("run 2 (exclusive, queue=fifo-backfill, seed " + std::to_string(seed2) +
                      "): bad row 7"),
            std::string::npos);
  EXPECT_NE(html.find("8 runs, 6 ended, 1 failed, 1 missing"), std::string::npos);
  // The variant with no run that ended: a column of n/a, no line.
  const auto cells = html_row(html, "JCT p95 (s)");
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[1], "n/a");

  // A broken summary is bad input: exit 2 naming the file, no page and no data folder.
  write_file(copy / "runs" / "000000" / "summary.json", "{\"metrics\": ");
  const auto bad = run_cli({"report", copy.string(), "-o", (base / "bad.html").string(), "--data",
                            (base / "deep" / "data").string()});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find((copy / "runs" / "000000" / "summary.json").string()), std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(base / "bad.html"));
  EXPECT_FALSE(fs::exists(base / "deep"));
}

// The compare table of the page holds the very cells `gpumux compare` prints in the terminal.
TEST(ReportSweep, CompareTableCellsAreTheTerminals) {
  const fs::path dir = testing::temp_dir("report_compare_digits") / "cmp";
  const auto r = run_cli(
      {"compare", (testing::source_dir() / "scenarios/examples/quickstart.json").string(),
       "--models", "exclusive,timeslice", "--seeds", "3", "--out", dir.string(), "--report"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = read_file(dir / "report.html");
  const auto compare = nlohmann::json::parse(read_file(dir / "compare.json"));
  std::size_t checked = 0;
  for (const auto& m : compare["metrics"]) {
    const std::string label = m["label"];
    const auto cells = html_row(html, label);
    ASSERT_EQ(cells.size(), 2u) << label;
    // The terminal's row: the label, then the cells right-aligned, separated by 2+ spaces.
    const auto line_at = r.out.find("\n" + label + " ");
    ASSERT_NE(line_at, std::string::npos) << label;
    const std::string line = r.out.substr(line_at + 1, r.out.find('\n', line_at + 1) - line_at - 1);
    std::vector<std::string> terminal;
    for (std::size_t at = label.size(); at < line.size();) {
      at = line.find_first_not_of(' ', at);
      if (at == std::string::npos) break;
      std::size_t end = line.find("  ", at);
      if (end == std::string::npos) end = line.size();
      terminal.push_back(line.substr(at, end - at));
      at = end;
    }
    EXPECT_EQ(terminal, cells) << label;
    ++checked;
  }
  EXPECT_GE(checked, 10u);
}

}  // namespace
}  // namespace gpumux
