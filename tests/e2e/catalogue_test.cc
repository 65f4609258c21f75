// The registries and the metric catalogue are the only lists: what `gpumux models` and
// `gpumux metrics` print, what the validators accept and what runs write come from one table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "analysis/compare/compare_metrics.h"
#include "analysis/metrics/metric_catalogue.h"
#include "analysis/metrics/output_collectors.h"
#include "analysis/metrics/summary_metrics.h"
#include "apps/registry.h"
#include "models/device_measurements.h"
#include "models/registry.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/registry.h"
#include "sim/scheduling/scheduler.h"
#include "sim/services/registry.h"
#include "tests/e2e/e2e_support.h"
#include "traces/formats/trace_opening.h"

namespace gpumux {
namespace {

using testing::run_cli;

TEST(Catalogue, NamesAreUniqueAndEveryListReadsThem) {
  std::set<std::string> names;
  for (const auto& m : metric_catalogue()) {
    EXPECT_TRUE(names.insert(m.name).second) << "twice: " << m.name;
    EXPECT_FALSE(m.unit.empty()) << m.name;
    EXPECT_FALSE(m.summary.empty()) << m.name;
  }
  for (const auto& a : metric_aliases()) {
    const MetricInfo* m = metric_catalogue().find(a.name);
    ASSERT_NE(m, nullptr) << a.alias;
    EXPECT_NE(m->better, Better::kNeither) << a.alias;
    EXPECT_EQ(metric_catalogue().find(a.alias), nullptr)
        << "an alias is no catalogue name: " << a.alias;
  }
  // compare's rows are catalogue metrics of summary.json.
  for (const auto& row : compare_metrics(true, true, true)) {
    const MetricInfo* m = metric_catalogue().find(row.name);
    ASSERT_NE(m, nullptr) << row.name;
    EXPECT_FALSE(m->derived) << row.name;
  }
  // expect's names are the catalogue's paths in summary.json.
  std::size_t paths = 0;
  for (const auto& m : metric_catalogue()) paths += m.derived ? 0 : 1;
  EXPECT_EQ(metric_names().size(), paths);
  for (const auto& n : metric_names()) EXPECT_TRUE(is_known_metric(n)) << n;
}

// Whether `name` is a metric of an optional family of the collector table.
bool optional_family(const std::string& name) {
  for (const auto& info : output_collectors()) {
    if (!info.name.empty() && name.rfind(std::string(info.name) + ".", 0) == 0) return true;
  }
  return false;
}

TEST(Catalogue, EveryMetricOfAPlainRunIsInItsSummary) {
  const auto dir = testing::temp_dir("catalogue_summary");
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto r = run_cli({"run", q, "--out", (dir / "out").string(), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
  for (const auto& m : metric_catalogue()) {
    // The optional families (output_collectors.h) only some runs have: slots, shares, requests.
    // metrics.by_kind only in runs of two kinds of job or more: the next test.
    if (m.derived || optional_family(m.name) || m.name.rfind("by_kind.", 0) == 0) continue;
    EXPECT_TRUE(summary.contains(nlohmann::json::json_pointer(metric_pointer(m.name))))
        << m.name << " is not in the quickstart's summary.json";
  }
}

TEST(Catalogue, EveryPerKindMetricIsInAMixedRunsSummary) {
  const auto mixed = (testing::source_dir() / "scenarios/examples/plan_mixed.json").string();
  const auto r = run_cli({"run", mixed, "--no-outputs", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  int checked = 0;
  for (const auto& m : metric_catalogue()) {
    if (m.name.rfind("by_kind.*.", 0) != 0) continue;
    for (const char* kind : {"training", "services"}) {
      const std::string name = "by_kind." + std::string(kind) + m.name.substr(9);
      EXPECT_TRUE(summary.contains(nlohmann::json::json_pointer(metric_pointer(name))))
          << name << " is not in plan_mixed's summary.json";
      EXPECT_EQ(metric_catalogue().find(name), &m) << name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * (2 + 3 * 7));  // arrived, finished, three distributions of 7
}

TEST(Catalogue, MetricsCommandPrintsEveryName) {
  const auto r = run_cli({"metrics"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& m : metric_catalogue()) {
    EXPECT_NE(r.out.find("  " + m.name + "  [" + m.unit + "]"), std::string::npos) << m.name;
  }
  for (const auto& a : metric_aliases()) {
    EXPECT_NE(r.out.find(" " + a.alias + "=" + a.name), std::string::npos) << a.alias;
  }
}

TEST(Catalogue, PlanTakesCatalogueNamesAndAliasesWithTheSameAnswer) {
  const auto q = (testing::source_dir() / "scenarios/examples/quickstart.json").string();
  const auto dotted =
      run_cli({"plan", q, "--models", "exclusive", "--objective", "queueing_delay_s.p95<=60",
               "--objective", "jct_s.p95<=1e9", "--format", "json", "--threads", "1"});
  const auto alias =
      run_cli({"plan", q, "--models", "exclusive", "--objective", "queue_p95_s<=60", "--objective",
               "jct_p95_s<=1e9", "--format", "json", "--threads", "1"});
  ASSERT_EQ(dotted.code, 0) << dotted.err;
  ASSERT_EQ(alias.code, 0) << alias.err;
  EXPECT_EQ(dotted.out, alias.out);
  const auto j = nlohmann::json::parse(dotted.out);
  EXPECT_TRUE(j["models"][0]["at_answer"]["objectives"].contains("jct_s.p95<=1000000000"))
      << j["models"][0]["at_answer"]["objectives"].dump();
}

TEST(Registry, ModelsNameListsTheDeclaredParameters) {
  const auto r = run_cli({"models", "timeslice"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("  switch_cost_us = 50.0 us\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source: default"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("context-switch time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("      accepts: [0, 1e+06] us\n"), std::string::npos) << r.out;
  // The H200's measured value comes from the device table, with its source.
  for (const auto& m : device_measurements_of("timeslice")) {
    EXPECT_NE(r.out.find("  " + std::string(m.parameter) + "@" + std::string(m.device) + " = "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(std::string(m.source)), std::string::npos) << r.out;
  }
  // Every model of the table builds from its example and prints.
  for (const auto& m : sharing_models()) {
    const auto one = run_cli({"models", m.name});
    EXPECT_EQ(one.code, 0) << m.name << ": " << one.err;
    EXPECT_EQ(one.out.rfind(m.name + ": " + m.summary, 0), 0u) << one.out;
  }
  // An unknown name: exit 2 and the valid names from the same table.
  const auto bad = run_cli({"models", "warp"});
  EXPECT_EQ(bad.code, 2);
  for (const auto& m : sharing_models()) {
    EXPECT_NE(bad.err.find(m.name), std::string::npos) << m.name << " missing in: " << bad.err;
  }
  // The listing and the scenario validator's error list come from the same table.
  const auto list = run_cli({"models"});
  for (const auto& m : sharing_models()) {
    EXPECT_NE(list.out.find("  " + m.name + "  " + m.summary), std::string::npos) << m.name;
  }
}

// The service engines are listed from their table, and `gpumux models NAME` prints an engine's
// declared parameters at their defaults.
TEST(Registry, ServiceEngineTableIsListedWithItsParameters) {
  const auto list = run_cli({"models"});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("service engines (services.mode"), std::string::npos) << list.out;
  for (const auto& e : service_engines()) {
    const std::string name(e.name);
    EXPECT_NE(list.out.find("  " + name + "  " + std::string(e.summary)), std::string::npos)
        << name;
    const auto one = run_cli({"models", name});
    ASSERT_EQ(one.code, 0) << name << ": " << one.err;
    EXPECT_EQ(one.out.rfind(name + ": service engine", 0), 0u) << one.out;
  }
  const auto request = run_cli({"models", "request"});
  EXPECT_NE(request.out.find("  time_slicing = slices\n"), std::string::npos) << request.out;
  EXPECT_NE(request.out.find("      accepts: one of 'blocks' or 'fluid'\n"), std::string::npos)
      << request.out;
}

// `gpumux models NAME` shows any entry's parameters: queue and placement policies too (read
// from an empty scheduler.params: their defaults).
TEST(Registry, ModelsNameShowsQueueAndPlacementEntries) {
  for (const auto& q : queue_policies()) {
    const std::string name(q.name);
    const auto r = run_cli({"models", name});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out.rfind(name + ": " + std::string(q.summary) + "\nqueue policy (scheduler.queue)\n",
                          0),
              0u)
        << r.out;
  }
  for (const auto& p : placement_policies()) {
    const std::string name(p.name);
    const auto r = run_cli({"models", name});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("placement policy (scheduler.placement)\n"), std::string::npos) << r.out;
  }
  // An unknown name lists every family's names.
  const auto bad = run_cli({"models", "fifo-bakfill"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("or a queue policy: fifo, fifo-backfill, greedy"), std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("did you mean 'fifo-backfill'?"), std::string::npos) << bad.err;
}

// MIG's settings come from the same declarations: the hand-read layout says what it takes too.
TEST(Registry, ModelsMigListsWhatEachParameterAccepts) {
  for (const char* name : {"mig", "mig+mps", "mig+timeslice"}) {
    const auto r = run_cli({"models", name});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("  strategy = auto\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("      accepts: one of 'auto', 'mixed' or 'single'\n"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("      accepts: layout: a list of MIG profile names"), std::string::npos)
        << r.out;
  }
}

// The validator's message for a scenario with this `scheduler` section under `model`, empty
// when it is valid.
std::string scheduler_error(const std::string& scheduler, const std::string& model) {
  const auto dir = testing::temp_dir("catalogue_scheduler");
  testing::write_file(dir / "trace.csv", "id,submit_s,gpus,runtime_s\n1,0,1,60\n");
  testing::write_file(dir / "s.json", R"({"name": "p", "cluster": {"node_groups": [{"nodes": 1,
    "gpus_per_node": 2, "device": "A100-40GB"}]}, "trace": {"file": "trace.csv"},
    "sharing": {"model": ")" + model + R"("}, "scheduler": )" +
                                          scheduler + "}");
  const auto r = run_cli({"validate", (dir / "s.json").string()});
  return r.code == 0 ? "" : r.err;
}

// A scenario naming `placement` (and `model`): the validator's message, empty when it is valid.
std::string scenario_error(const std::string& placement, const std::string& model) {
  return scheduler_error(R"({"placement": ")" + placement + R"("})", model);
}

TEST(Registry, PlacementTableIsTheOnlyListOfPlacementNames) {
  const auto listing = run_cli({"models"});
  const std::string unknown = scenario_error("random-fit", "timeslice");
  ASSERT_NE(unknown.find("unknown placement policy 'random-fit'"), std::string::npos) << unknown;
  for (const auto& p : placement_policies()) {
    const std::string name(p.name);
    EXPECT_NE(listing.out.find("  " + name + "  " + std::string(p.summary)), std::string::npos)
        << name;
    EXPECT_NE(unknown.find(name), std::string::npos) << name << " missing in: " << unknown;
    // Every entry is valid under a model that admits fractional jobs; the share-aware ones only
    // there.
    EXPECT_EQ(scenario_error(name, "timeslice"), "") << name;
    const std::string under_mig = scenario_error(name, "exclusive");
    if (p.needs == PlacementNeeds::kFractionalJobs) {
      EXPECT_NE(under_mig.find("needs a sharing model that admits fractional jobs"),
                std::string::npos)
          << name << ": " << under_mig;
    } else {
      EXPECT_EQ(under_mig, "") << name;
    }
  }
  // best-fit is the topology policy, and the FGD study's under a model limiting shares.
  EXPECT_FALSE(resolve_placement("best-fit", false)->share_aware);
  EXPECT_TRUE(resolve_placement("best-fit", true)->share_aware);
  EXPECT_EQ(resolve_placement("warp", false), nullptr);
}

TEST(Registry, QueuePolicyTableIsTheOnlyListOfQueueNames) {
  const auto listing = run_cli({"models"});
  const std::string unknown = scheduler_error(R"({"queue": "lifo"})", "exclusive");
  ASSERT_NE(unknown.find("unknown queue policy 'lifo' (valid: "), std::string::npos) << unknown;
  int ordered = 0;
  for (const auto& q : queue_policies()) {
    const std::string name(q.name);
    EXPECT_NE(listing.out.find("  " + name + "  " + std::string(q.summary)), std::string::npos)
        << name;
    EXPECT_NE(unknown.find(name), std::string::npos) << name << " missing in: " << unknown;
    EXPECT_EQ(scheduler_error(R"({"queue": ")" + name + R"("})", "exclusive"), "") << name;
    // scheduler.order is accepted exactly where the entry says it applies.
    const std::string with_order =
        scheduler_error(R"({"queue": ")" + name + R"(", "order": "shortest"})", "exclusive");
    if (q.takes_order) {
      ++ordered;
      EXPECT_EQ(with_order, "") << name;
    } else {
      EXPECT_NE(with_order.find("order 'shortest' applies only to queue 'greedy'"),
                std::string::npos)
          << name << ": " << with_order;
    }
    // The Scheduler builds every entry by its name.
    EXPECT_EQ(Scheduler(name, make_placement_policy("first-fit"), 64).policy_name(), name);
  }
  EXPECT_EQ(ordered, 1);  // greedy alone sorts its queue
  EXPECT_EQ(queue_policies().find("lifo"), nullptr);
  EXPECT_THROW(Scheduler("lifo", make_placement_policy("first-fit"), 64), std::invalid_argument);
  EXPECT_THROW(Scheduler("fifo", make_placement_policy("first-fit"), 64, QueueOrder::kShortest),
               std::invalid_argument);
}

TEST(Registry, CommandTableIsTheOnlyListOfCommands) {
  const auto help = run_cli({"--help"});
  ASSERT_EQ(help.code, 0) << help.err;
  const auto unknown = run_cli({"frobnicate"});
  EXPECT_EQ(unknown.code, 2);
  std::string names;
  for (const auto& command : commands()) {
    const std::string name(command.name);
    names += (names.empty() ? "" : ", ") + name;
    EXPECT_NE(help.out.find(name), std::string::npos) << name;
    // Every entry is a command the line parses (its own --help exits 0).
    const auto own = run_cli({name, "--help"});
    EXPECT_EQ(own.code, 0) << name << ": " << own.err;
    EXPECT_NE(own.out.find(std::string(command.summary)), std::string::npos) << name;
  }
  // The unknown-command error lists the table, in its order, and nothing else.
  EXPECT_NE(unknown.err.find("commands: " + names + " (gpumux --help)"), std::string::npos)
      << unknown.err;
}

// Every family of the collector table is in the catalogue, and a run where it applies writes
// it under summary.json "metrics": the table is the only list of them.
TEST(Registry, CollectorTableIsTheOnlyListOfMetricFamilies) {
  std::set<std::string> written;
  for (const char* scenario :
       {"scenarios/regression/fractional_fgd.json", "scenarios/examples/inference_a100_mig.json"}) {
    const auto dir = testing::temp_dir("catalogue_collectors");
    const auto path = (testing::source_dir() / scenario).string();
    const auto r = run_cli({"run", path, "--out", (dir / "out").string(), "--quiet"});
    ASSERT_EQ(r.code, 0) << scenario << ": " << r.err;
    const auto summary = nlohmann::json::parse(testing::read_file(dir / "out" / "summary.json"));
    for (const auto& info : output_collectors()) {
      if (summary["metrics"].contains(std::string(info.name)))
        written.insert(std::string(info.name));
    }
  }
  for (const auto& info : output_collectors()) {
    if (info.name.empty()) continue;  // an observer without a family of its own
    const std::string key(info.name);
    EXPECT_TRUE(written.count(key)) << key << " was written by neither run";
    int named = 0;
    for (const auto& m : metric_catalogue()) named += m.name.rfind(key + ".", 0) == 0 ? 1 : 0;
    EXPECT_GT(named, 0) << key << " has no metric in the catalogue";
  }
}

// The validator's message for a scenario whose `sharing` and `trace` sections are these, empty
// when it is valid.
std::string sections_error(const std::string& sharing, const std::string& trace) {
  const auto dir = testing::temp_dir("catalogue_sections");
  testing::write_file(dir / "trace.csv", "id,submit_s,gpus,runtime_s\n1,0,1,60\n");
  testing::write_file(dir / "s.json", R"({"name": "p", "cluster": {"node_groups": [{"nodes": 1,
    "gpus_per_node": 2, "device": "A100-40GB"}]}, "sharing": )" +
                                          sharing + R"(, "trace": )" + trace + "}");
  const auto r = run_cli({"validate", (dir / "s.json").string()});
  return r.code == 0 ? "" : r.err;
}

TEST(Registry, ValidatorErrorsListTheSharingModelAndTraceFormatTables) {
  const std::string model = sections_error(R"({"model": "warp"})", R"({"file": "trace.csv"})");
  ASSERT_NE(model.find("unknown sharing model 'warp' (valid: "), std::string::npos) << model;
  for (const auto& m : sharing_models()) {
    EXPECT_NE(model.find(m.name), std::string::npos) << m.name << " missing in: " << model;
  }
  const std::string format =
      sections_error(R"({"model": "exclusive"})", R"({"file": "trace.csv", "format": "parquet"})");
  ASSERT_NE(format.find("unknown trace format 'parquet' (valid: "), std::string::npos) << format;
  const auto listing = run_cli({"models"});
  for (const auto& f : trace_formats()) {
    const std::string name(f.name);
    EXPECT_NE(format.find(name), std::string::npos) << name << " missing in: " << format;
    EXPECT_NE(listing.out.find("  " + name + "  " + std::string(f.summary)), std::string::npos)
        << name;
  }
}

}  // namespace
}  // namespace gpumux
