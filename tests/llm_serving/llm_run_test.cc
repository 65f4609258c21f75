// LLM endpoints run end to end through the scenario: requests conserved, metrics in range,
// closed loops bounded, runs deterministic (docs/llm-serving.md).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/services/services_support.h"

namespace gpumux {
namespace {

using testing::scenario_json;
using testing::write_case;

nlohmann::json run_llm(const std::string& name, const std::string& device, const std::string& llm,
                       const std::string& trace =
                           "id,submit_s,gpus,runtime_s,kind\nchat,0,1,600,inference\n") {
  const auto dir = write_case(
      name, {{"trace.csv", trace},
             {"scenario.json",
              scenario_json(device, 1, R"({"model": "exclusive"})",
                            R"(, "services": {"by_id": {"chat": {"llm": )" + llm + "}}}")}});
  const nlohmann::json summary = testing::run_case(dir);
  testing::fs::remove_all(dir);
  return summary;
}

void expect_in_range(const nlohmann::json& rq) {
  for (const char* d : {"ttft_ms", "tpot_ms", "itl_ms", "latency_ms"}) {
    for (const char* s : {"p50", "p99", "mean"}) {
      ASSERT_TRUE(rq[d][s].is_number()) << d << "." << s;
      EXPECT_GT(rq[d][s].get<double>(), 0.0) << d << "." << s;
    }
    EXPECT_LE(rq[d]["p50"].get<double>(), rq[d]["p99"].get<double>()) << d;
  }
  // A request's first token comes before its last.
  EXPECT_LE(rq["ttft_ms"]["p50"].get<double>(), rq["latency_ms"]["p99"].get<double>());
  const double use = rq["kv_cache_use"].get<double>();
  EXPECT_GT(use, 0.0);
  EXPECT_LE(use, 1.0);
}

TEST(LlmRun, OpenLoopConservesRequestsAndReportsEveryMetric) {
  const auto summary = run_llm(
      "llm_open", "H100-80GB",
      R"({"model": "Llama-3.1-8B", "load": {"rate_per_s": 4, "prompt_tokens": 500, "output_tokens": 200},
          "ttft_slo_ms": 200, "tpot_slo_ms": 30})");
  const auto& rq = summary["metrics"]["requests"];
  const auto count = rq["count"].get<std::int64_t>();
  EXPECT_GT(count, 2000);  // ~2,400 over 600 s
  EXPECT_EQ(count, rq["served"].get<std::int64_t>() + rq["dropped"].get<std::int64_t>() +
                       rq["unfinished"].get<std::int64_t>());
  EXPECT_EQ(rq["output_tokens"].get<std::int64_t>(), 200 * rq["served"].get<std::int64_t>());
  expect_in_range(rq);
  EXPECT_LE(rq["goodput_per_s"].get<double>(), rq["requests_per_s"].get<double>());
  EXPECT_NEAR(rq["requests_per_s"].get<double>(), 4.0, 0.4);
  const auto& endpoint = rq["services"][0]["llm"];
  EXPECT_EQ(endpoint["model"], "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(endpoint["device"], "H100-80GB");
  // The scenario echoes what the engine resolved, vLLM's serve defaults on a >= 70 GiB device.
  const auto& engine = summary["scenario"]["services"]["by_id"]["chat"]["llm"]["engine"];
  EXPECT_EQ(engine["max_num_batched_tokens"], 8192);
  EXPECT_EQ(engine["max_num_seqs"], 1024);
  EXPECT_GT(engine["kv_cache_blocks"].get<std::int64_t>(), 10000);
}

TEST(LlmRun, ClosedLoopServesExactlyItsMeasuredRequests) {
  const auto summary = run_llm(
      "llm_closed", "A100-40GB",
      R"({"model": "Qwen3-4B", "engine": {"max_model_len": 4096, "max_num_seqs": 32},
          "load": {"clients": 4, "warmup_requests": 8, "requests": 40, "prompt_tokens": 1024, "output_tokens": 64}})");
  const auto& rq = summary["metrics"]["requests"];
  EXPECT_EQ(rq["count"], 40);
  EXPECT_EQ(rq["served"], 40);
  EXPECT_LE(rq["peak_batch"].get<std::int64_t>(), 4);
  expect_in_range(rq);
}

TEST(LlmRun, MoreLoadNeverLowersLatency) {
  const auto at = [](double rate) {
    const auto summary = run_llm(
        "llm_load", "A100-80GB",
        R"({"model": "Llama-3.1-8B", "load": {"rate_per_s": )" + std::to_string(rate) +
            R"(, "prompt_tokens": 1000, "output_tokens": 300}})");
    return summary["metrics"]["requests"];
  };
  const auto light = at(1.0), heavy = at(12.0);
  EXPECT_LT(light["tpot_ms"]["p50"].get<double>(), heavy["tpot_ms"]["p50"].get<double>());
  EXPECT_LT(light["mean_batch"].get<double>(), heavy["mean_batch"].get<double>());
}

TEST(LlmRun, SameScenarioAndSeedGiveTheSameMetrics) {
  const std::string llm =
      R"({"model": "Llama-3.1-8B", "load": {"rate_per_s": 6, "arrival_cv": 2.5, "prompt_tokens": 700, "output_tokens": 150}})";
  const auto a = run_llm("llm_det_a", "H100-80GB", llm);
  const auto b = run_llm("llm_det_b", "H100-80GB", llm);
  EXPECT_EQ(a["metrics"]["requests"].dump(), b["metrics"]["requests"].dump());
}

TEST(LlmRun, OverloadedCachePreemptsAndStillServesEverything) {
  // An RTX 4090's ~41k-token cache under 40 requests of 3,000 + 1,000 tokens at once.
  const auto summary = run_llm(
      "llm_preempt", "RTX4090",
      R"({"model": "Llama-3.1-8B", "engine": {"max_model_len": 8192},
          "load": {"clients": 40, "requests": 40, "prompt_tokens": 3000, "output_tokens": 1000}})",
      "id,submit_s,gpus,runtime_s,kind\nchat,0,1,3600,inference\n");
  const auto& rq = summary["metrics"]["requests"];
  EXPECT_EQ(rq["served"], 40);
  EXPECT_GT(rq["preemptions"].get<std::int64_t>(), 0);
  expect_in_range(rq);
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

TEST(LlmRun, TimeseriesAccountsForEveryOutputToken) {
  const auto dir = testing::write_case(
      "llm_series",
      {{"trace.csv", "id,submit_s,gpus,runtime_s,kind\nchat,0,1,600,inference\n"},
       {"scenario.json",
        testing::scenario_json(
            "H100-80GB", 1, R"({"model": "exclusive"})",
            R"(, "outputs": {"timeseries_interval_s": 30}, "services": {"by_id": {"chat": {"llm":
               {"model": "Llama-3.1-8B", "load": {"rate_per_s": 3, "prompt_tokens": 400, "output_tokens": 120}}}}})")}});
  Scenario s = load_scenario((dir / "scenario.json").string());
  s.outputs.dir = (dir / "out").string();
  RunOptions options;
  const nlohmann::json summary = run_scenario(s, options).summary;
  std::ifstream in(dir / "out" / "llm_timeseries.csv");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "time_s,endpoint,busy,running,waiting,kv_cache_use,output_tokens_per_s");
  double tokens = 0;
  int rows = 0;
  while (std::getline(in, line)) {
    ++rows;
    const auto last = line.rfind(',');
    tokens += std::stod(line.substr(last + 1)) * 30.0;
    // busy and KV use are shares of the interval and of the cache.
    std::stringstream cells(line);
    std::string cell;
    std::vector<std::string> c;
    while (std::getline(cells, cell, ',')) c.push_back(cell);
    ASSERT_EQ(c.size(), 7u) << line;
    EXPECT_GE(std::stod(c[2]), 0.0);
    EXPECT_LE(std::stod(c[2]), 1.0 + 1e-9);
    EXPECT_LE(std::stod(c[5]), 1.0);
  }
  EXPECT_EQ(rows, 20);  // 600 s in 30 s intervals
  const auto& rq = summary["metrics"]["requests"];
  // Tokens of requests still in flight at the end were produced too.
  EXPECT_GE(tokens + 1e-6, rq["output_tokens"].get<double>());
  EXPECT_LE(tokens, rq["output_tokens"].get<double>() + 120.0 * rq["unfinished"].get<double>() + 1e-6);
  testing::fs::remove_all(dir);
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

std::string example(const std::string& name) {
  const char* d = std::getenv("GPUMUX_SOURCE_DIR");
  return ((d ? testing::fs::path(d) : testing::fs::current_path()) / "scenarios/examples" / name)
      .string();
}

TEST(LlmRun, EveryFileTheEndpointReadsIsAnInputOfTheRun) {
  // Recorded for provenance and for the sweeps' digests: a file edited between two shards of a
  // sweep is noticed (docs/sweeps.md).
  const Scenario s = load_scenario(
      example("llm_chat_h100.json"), {});
  bool trace = false;
  for (const InputFile& f : s.input_files) {
    trace = trace || (f.role == "services.by_id.chat.llm.load.trace" &&
                      f.shown == "../../traces/samples/azure_llm_conv_1h.csv.gz");
  }
  EXPECT_TRUE(trace);
  const Scenario tp = load_scenario(
      example("llm_70b_tp2_a100.json"), {});
  bool lengths = false;
  for (const InputFile& f : tp.input_files) {
    lengths = lengths || f.role == "services.by_id.chat-70b.llm.load.token_lengths";
  }
  EXPECT_TRUE(lengths);
}

}  // namespace
}  // namespace gpumux
