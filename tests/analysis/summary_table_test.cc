// The printed summary of `gpumux run` walks the metric catalogue (analysis/run/summary_table.h):
// each line and row is a catalogue entry's, and a metric's label, digits and n/a meaning are
// fields of its entry.
#include "analysis/run/summary_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/metrics/metric_catalogue.h"
#include "analysis/metrics/metric_format.h"

namespace gpumux {
namespace {

TEST(SummaryTableFromCatalogue, EveryLineHasAPlaceOfItsOwnAndAText) {
  std::set<int> places;
  for (const MetricInfo& m : metric_catalogue()) {
    if (m.summary_place == 0) {
      EXPECT_EQ(m.summary_text, nullptr) << m.name;
      continue;
    }
    EXPECT_TRUE(places.insert(m.summary_place).second) << m.name;
    EXPECT_NE(m.summary_text, nullptr) << m.name;
  }
  EXPECT_GE(places.size(), 10u);
}

TEST(SummaryTableFromCatalogue, DistributionRowsCoverTheJobDistributions) {
  std::vector<std::string> rows;
  for (const MetricInfo& m : metric_catalogue()) {
    if (m.summary_row.empty()) continue;
    if (rows.empty() || rows.back() != m.summary_row) rows.push_back(m.summary_row);
    EXPECT_EQ(m.name.find(".count"), std::string::npos) << m.name;  // counts are no column
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"JCT (s)", "queueing delay (s)", "slowdown (x)",
                                            "sharing slowdown (x)"}));
}

TEST(SummaryTableFromCatalogue, LabelsDigitsAndNullMeaningsAreCatalogueFields) {
  const MetricInfo* jct = metric_catalogue().find("jct_s.p95");
  ASSERT_NE(jct, nullptr);
  EXPECT_EQ(jct->label, "JCT p95 (s)");
  EXPECT_EQ(jct->digits, 1);
  EXPECT_EQ(jct->null_meaning, "no finished jobs");
  EXPECT_EQ(metric_catalogue().find("requests.slo_attainment")->null_meaning,
            "no request with an SLO ended");
  EXPECT_EQ(metric_catalogue().find("requests.latency_ms.p99")->null_meaning, "no request served");
  EXPECT_EQ(metric_catalogue().find("slots.profiles.1g.10gb.occupancy")->null_meaning,
            "no slot time (no slices, instances or jobs over the run)");
  // metric_format reads the catalogue: a metric without digits has no format.
  EXPECT_FALSE(metric_catalogue().find("makespan_s")->digits >= 0);
  EXPECT_FALSE(metric_format("makespan_s").has_value());
  EXPECT_EQ(metric_format("jobs.arrived")->count, true);
}

TEST(SummaryTableFromCatalogue, ALineLeftEmptyIsNotPrinted) {
  // No out-of-memory event: the line is left out.
  nlohmann::json metrics = {
      {"failures", {{"memory_faults", 0}, {"memory_fault_kills", 0}}},
  };
  const MetricInfo* oom = metric_catalogue().find("failures.memory_faults");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->summary_text(metrics), "");
  metrics["failures"] = {{"memory_faults", 3}, {"memory_fault_kills", 5}};
  EXPECT_EQ(oom->summary_text(metrics), "3  (5 kills)");
}

}  // namespace
}  // namespace gpumux
