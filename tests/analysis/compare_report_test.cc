#include "analysis/compare/compare_report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gpumux {
namespace {

CompareCell cell(std::vector<std::optional<double>> values, std::optional<double> mean,
                 std::optional<double> half) {
  CompareCell c;
  for (const auto& v : values) c.n += v ? 1 : 0;
  c.values = std::move(values);
  c.mean = mean;
  c.half_width = half;
  return c;
}

// Two variants, three seeds; jct_s.p95 is empty in one seed of "b".
CompareResult result() {
  CompareResult r;
  r.scenario_name = "s";
  r.scenario_file = "s.json";
  r.seeds = {5, 6, 7};
  r.metrics = {{"jct_s.p95", "JCT p95 (s)", 1, false}, {"jobs.rejected", "jobs rejected", 0, true}};
  CompareVariant a;
  a.model = "a";
  a.params = nlohmann::json::object();
  a.params_source = "defaults";
  a.cells = {cell({10.0, 12.0, 14.0}, 12.0, 4.968), cell({0.0, 1.0, 2.0}, 1.0, 2.484)};
  CompareVariant b = a;
  b.model = "bb";
  b.cells = {cell({10.0, std::nullopt, 14.0}, std::nullopt, std::nullopt),
             cell({std::nullopt, std::nullopt, std::nullopt}, std::nullopt, std::nullopt)};
  r.variants = {a, b};
  return r;
}

TEST(CompareReport, CellText) {
  const CompareMetric seconds{"jct_s.p95", "JCT p95 (s)", 1, false};
  const CompareMetric count{"jobs.rejected", "jobs rejected", 0, true};
  EXPECT_EQ(compare_cell_text(seconds, cell({12.34}, 12.34, std::nullopt), 1), "12.3");
  EXPECT_EQ(compare_cell_text(count, cell({3.0}, 3.0, std::nullopt), 1), "3");
  // 1.5 ± 6.4 would reach below 0, which a count cannot: the interval is cut and its ends shown.
  EXPECT_EQ(compare_cell_text(count, cell({1.0, 2.0}, 1.5, 6.353), 2), "1.5 [0.0, 7.9]");
  EXPECT_EQ(compare_cell_text(count, cell({1.0, 2.0}, 1.5, 1.2), 2), "1.5 ± 1.2");
  const CompareMetric share{"gpu_allocation_ratio", "allocation", 3, false};
  EXPECT_EQ(compare_cell_text(share, cell({0.9, 1.0}, 0.95, 0.1), 2), "0.950 [0.850, 1.000]");
  EXPECT_EQ(compare_cell_text(seconds, cell({1.0, std::nullopt}, std::nullopt, std::nullopt), 2),
            "n/a (1/2)");
  EXPECT_EQ(compare_cell_text(seconds, cell({std::nullopt}, std::nullopt, std::nullopt), 1), "n/a");
}

TEST(CompareReport, TableIsAligned) {
  std::ostringstream out;
  print_compare_table(result(), out);
  const std::string t = out.str();
  // 1.0 ± 2.5 rejected jobs would reach below 0: cut, and printed as its ends.
  EXPECT_NE(t.find("metric                      a         bb\n"
                   "JCT p95 (s)        12.0 ± 5.0  n/a (2/3)\n"
                   "jobs rejected  1.0 [0.0, 3.5]        n/a\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("mean [low, high]: the interval cut"), std::string::npos) << t;
  EXPECT_NE(t.find("2 variants x 3 seeds (seed 5..7)"), std::string::npos) << t;
}

TEST(CompareReport, CsvNullIsAnEmptyField) {
  std::ostringstream out;
  write_compare_csv(result(), out);
  EXPECT_EQ(out.str(),
            "variant,seed,metric,value\n"
            "a,5,jct_s.p95,10\na,5,jobs.rejected,0\n"
            "a,6,jct_s.p95,12\na,6,jobs.rejected,1\n"
            "a,7,jct_s.p95,14\na,7,jobs.rejected,2\n"
            "bb,5,jct_s.p95,10\nbb,5,jobs.rejected,\n"
            "bb,6,jct_s.p95,\nbb,6,jobs.rejected,\n"
            "bb,7,jct_s.p95,14\nbb,7,jobs.rejected,\n");
}

TEST(CompareReport, JsonPerVariantPerMetric) {
  const auto j = compare_to_json(result());
  const auto& b = j["variants"][1]["metrics"]["jct_s.p95"];
  EXPECT_TRUE(b["mean"].is_null());
  EXPECT_TRUE(b["ci95_half_width"].is_null());
  EXPECT_EQ(b["n"], 2);
  EXPECT_EQ(b["values"], nlohmann::json::parse("[10.0, null, 14.0]"));
  EXPECT_DOUBLE_EQ(j["variants"][0]["metrics"]["jct_s.p95"]["ci95_half_width"].get<double>(),
                   4.968);
  EXPECT_EQ(j["confidence"]["degrees_of_freedom"], 2);
  EXPECT_EQ(j["metrics"][1]["name"], "jobs.rejected");
}

// Seeds that changed nothing: the tables give each value once, marked, and the footer and the
// paired header say why; compare.json keeps the zero intervals as numbers.
TEST(CompareReport, SeedsThatChangedNothingPrintValuesWithoutIntervals) {
  CompareResult r = result();
  r.variants[0].cells = {cell({12.0, 12.0, 12.0}, 12.0, 0.0), cell({2.0, 2.0, 2.0}, 2.0, 0.0)};
  r.variants[1].cells = {cell({15.0, 15.0, 15.0}, 15.0, 0.0),
                         cell({std::nullopt, std::nullopt, std::nullopt}, std::nullopt,
                              std::nullopt)};
  std::ostringstream out;
  print_compare_table(r, out);
  const std::string t = out.str();
  EXPECT_NE(t.find("metric                        a                bb\n"
                   "JCT p95 (s)    12.0 (all seeds)  15.0 (all seeds)\n"
                   "jobs rejected     2 (all seeds)               n/a\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("(all seeds): the one value all 3 seeds gave"), std::string::npos) << t;
  EXPECT_EQ(t.find("Student t"), std::string::npos) << t;
  // bb - a: +3.0 in every seed; no jobs.rejected difference (bb has none).
  EXPECT_NE(t.find("in each seed; the same difference in every seed, so no interval):"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("+3.0 (all seeds)"), std::string::npos) << t;
  EXPECT_NE(t.find("warning: the 3 seeds gave identical results"), std::string::npos) << t;
  const nlohmann::json j = compare_to_json(r);
  EXPECT_EQ(j["variants"][0]["metrics"]["jct_s.p95"]["ci95_half_width"], 0.0);
  EXPECT_EQ(j["variants"][0]["metrics"]["jct_s.p95"]["mean"], 12.0);
  // One seed differing anywhere brings the intervals back everywhere.
  r.variants[1].cells[0] = cell({15.0, 16.0, 15.0}, 15.333, 1.434);
  std::ostringstream varied;
  print_compare_table(r, varied);
  EXPECT_EQ(varied.str().find("(all seeds)"), std::string::npos) << varied.str();
  EXPECT_NE(varied.str().find("12.0 ± 0.0"), std::string::npos) << varied.str();
}

}  // namespace
}  // namespace gpumux
