// LLM endpoints on shared GPUs through the scenario (docs/llm-serving.md "On shared GPUs"):
// which engines start where memory allows, the sharing block's bad input, MIG instances on
// their resources, and engines that share a GPU slowing each other as the physics says.
#include <gtest/gtest.h>

#include "sim/base/input_error.h"
#include "tests/services/services_support.h"

namespace gpumux {
namespace {

using testing::scenario_json;
using testing::write_case;

const std::string kTwo =
    "id,submit_s,gpus,runtime_s,kind\na,0,1,120,inference\nb,0,1,120,inference\n";

std::string endpoint(const std::string& engine, const std::string& sharing,
                     const std::string& model = "Qwen3-4B") {
  return R"({"llm": {"model": ")" + model + R"(", "engine": )" + engine +
         R"(, "sharing": )" + sharing +
         R"(, "load": {"clients": 2, "requests": 20, "prompt_tokens": 512, "output_tokens": 64}}})";
}

std::string two(const std::string& a, const std::string& b) {
  return R"(, "services": {"by_id": {"a": )" + a + R"(, "b": )" + b + "}}";
}

nlohmann::json run(const std::string& device, int gpus, const std::string& sharing,
                   const std::string& services, const std::string& trace = kTwo) {
  const auto dir = write_case("llm_shared", {{"trace.csv", trace},
                                             {"scenario.json", scenario_json(device, gpus, sharing,
                                                                             services)}});
  const nlohmann::json summary = testing::run_case(dir);
  testing::fs::remove_all(dir);
  return summary;
}

std::string error_of(const std::string& device, const std::string& sharing,
                     const std::string& services) {
  try {
    run(device, 1, sharing, services);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kMps = R"({"model": "mps"})";
const std::string kTimeslice = R"({"model": "timeslice"})";

std::int64_t started(const nlohmann::json& summary) {
  std::int64_t n = 0;
  for (const auto& s : summary["metrics"]["requests"]["services"]) n += s["started"].get<bool>() ? 1 : 0;
  return n;
}

TEST(LlmSharedGpu, TwoEnginesAtNinetyPercentNeverShareAGpu) {
  const std::string big = endpoint(R"({"gpu_memory_utilization": 0.9})", "{}");
  for (const std::string& model : {kMps, kTimeslice}) {
    // One GPU: the second cannot start beside the first; it waits until the first's lifetime
    // (120 s) ends.
    const auto one = run("A100-40GB", 1, model, two(big, big));
    EXPECT_DOUBLE_EQ(one["metrics"]["requests"]["start_delay_s"]["max"].get<double>(), 120.0)
        << model;
    // Two GPUs: the second goes to the other one.
    const auto both = run("A100-40GB", 2, model, two(big, big));
    EXPECT_EQ(started(both), 2) << model;
    EXPECT_DOUBLE_EQ(both["metrics"]["requests"]["start_delay_s"]["max"].get<double>(), 0.0)
        << model;
    EXPECT_EQ(both["metrics"]["requests"]["served"].get<std::int64_t>(), 40) << model;
  }
}

TEST(LlmSharedGpu, TwoEnginesAtFortyFivePercentBothStartOnOneGpu) {
  const std::string half = endpoint(R"({"gpu_memory_utilization": 0.45})", "{}");
  for (const std::string& model : {kMps, kTimeslice}) {
    const auto one = run("A100-40GB", 1, model, two(half, half));
    EXPECT_EQ(started(one), 2) << model;
    EXPECT_DOUBLE_EQ(one["metrics"]["requests"]["start_delay_s"]["max"].get<double>(), 0.0)
        << model;
    EXPECT_EQ(one["metrics"]["requests"]["served"].get<std::int64_t>(), 40) << model;
  }
}

double itl_p50(const nlohmann::json& summary) {
  return summary["metrics"]["requests"]["itl_ms"]["p50"].get<double>();
}

TEST(LlmSharedGpu, SharingSlowsEachEngineButServesMoreThanOneAlone) {
  const std::string half = endpoint(R"({"gpu_memory_utilization": 0.45})", "{}");
  const std::string one_endpoint = "id,submit_s,gpus,runtime_s,kind\na,0,1,120,inference\n";
  const auto alone = run("A100-40GB", 1, kMps, R"(, "services": {"by_id": {"a": )" + half + "}}",
                         one_endpoint);
  for (const std::string& model : {kMps, kTimeslice}) {
    const auto shared = run("A100-40GB", 1, model, two(half, half));
    EXPECT_GT(itl_p50(shared), itl_p50(alone)) << model;
    // Two engines together never need more than twice one's inter-token time.
    EXPECT_LT(itl_p50(shared), 2.2 * itl_p50(alone)) << model;
  }
}

TEST(LlmSharedGpu, ThreadPercentageSlowsPrefillUnderMps) {
  const std::string full = endpoint(R"({"gpu_memory_utilization": 0.45})", "{}");
  const std::string capped =
      endpoint(R"({"gpu_memory_utilization": 0.45})", R"({"mps_active_thread_percentage": 25})");
  const auto a = run("A100-40GB", 1, kMps, two(full, full));
  const auto b = run("A100-40GB", 1, kMps, two(capped, capped));
  EXPECT_GT(b["metrics"]["requests"]["ttft_ms"]["p50"].get<double>(),
            a["metrics"]["requests"]["ttft_ms"]["p50"].get<double>());
}

TEST(LlmSharedGpu, MigInstanceRunsOnItsShareAndItsMemory) {
  const std::string one = "id,submit_s,gpus,runtime_s,kind\na,0,1,120,inference\n";
  const std::string mig = R"({"model": "mig", "params": {"layout": ["3g.40gb", "2g.20gb", "1g.10gb"]}})";
  const auto small = run("H100-80GB", 1, mig,
                         R"(, "services": {"by_id": {"a": )" +
                             endpoint("{}", R"({"mig_profile": "1g.10gb"})", "phi-2") + "}}",
                         one);
  const auto large = run("H100-80GB", 1, mig,
                         R"(, "services": {"by_id": {"a": )" +
                             endpoint("{}", R"({"mig_profile": "3g.40gb"})", "phi-2") + "}}",
                         one);
  const auto& s = small["scenario"]["services"]["by_id"]["a"]["llm"];
  EXPECT_EQ(s["sharing"]["memory_from"], "mig_instance");
  EXPECT_EQ(s["sharing"]["instance_sms"], 16);
  EXPECT_DOUBLE_EQ(s["sharing"]["bandwidth_share"].get<double>(), 1.0 / 8.0);
  // vLLM sees a 10 GB GPU: the small-device batch defaults.
  EXPECT_EQ(s["engine"]["max_num_seqs"], 256);
  EXPECT_LE(s["engine"]["engine_memory_mib"].get<std::int64_t>(), 9984);
  // Decode is bandwidth-bound: 1 of 8 memory slices against 4 of 8.
  EXPECT_GT(itl_p50(small), 2.0 * itl_p50(large));
  EXPECT_EQ(small["metrics"]["requests"]["served"].get<std::int64_t>(), 20);
}

TEST(LlmSharedGpu, BadSharingInputIsNamed) {
  const std::string engine = R"({"gpu_memory_utilization": 0.4})";
  const auto one = [&](const std::string& sharing, const std::string& model = "Qwen3-4B") {
    return two(endpoint(engine, sharing, model), endpoint(engine, "{}"));
  };
  std::string e = error_of("A100-40GB", kMps, one(R"({"mps_active_thread_percentage": 0})"));
  EXPECT_NE(e.find("mps_active_thread_percentage"), std::string::npos) << e;
  EXPECT_NE(e.find("#/services/by_id/a/llm/sharing"), std::string::npos) << e;
  e = error_of("A100-40GB", kMps, one(R"({"mps_active_thread_percentage": 120})"));
  EXPECT_NE(e.find("mps_active_thread_percentage"), std::string::npos) << e;
  // A pinned limit below the weights (Qwen3-4B: about 7,700 MiB).
  e = error_of("A100-40GB", kMps, one(R"({"mps_pinned_memory_limit_mib": 4096})"));
  EXPECT_NE(e.find("below"), std::string::npos) << e;
  EXPECT_NE(e.find("weights"), std::string::npos) << e;
  // 0.4 x 40 GiB = 16,384 MiB taken at start, over a 12,000 MiB limit: vLLM fails at start.
  e = error_of("A100-40GB", kMps, one(R"({"mps_pinned_memory_limit_mib": 12000})"));
  EXPECT_NE(e.find("fail at start"), std::string::npos) << e;
  EXPECT_NE(e.find("0.292"), std::string::npos) << e;
  // A MIG profile the device lacks, and one too small for the weights.
  e = error_of("H100-80GB", R"({"model": "mig", "params": {"layout": ["7g.80gb"]}})",
               one(R"({"mig_profile": "1g.5gb"})"));
  EXPECT_NE(e.find("not a MIG profile of H100-80GB"), std::string::npos) << e;
  e = error_of("H100-80GB", R"({"model": "mig", "params": {"layout": ["7g.80gb"]}})",
               one(R"({"mig_profile": "1g.10gb"})", "Qwen3-8B"));
  EXPECT_NE(e.find("do not fit"), std::string::npos) << e;
  EXPECT_NE(e.find("1g.10gb"), std::string::npos) << e;
  // A MIG instance takes no MPS settings.
  e = error_of("H100-80GB", R"({"model": "mig", "params": {"layout": ["7g.80gb"]}})",
               one(R"({"mig_profile": "7g.80gb", "memory_cap_mib": 1000})"));
  EXPECT_NE(e.find("isolated"), std::string::npos) << e;
  // A cap larger than the device.
  e = error_of("A100-40GB", kTimeslice, one(R"({"memory_cap_mib": 50000})"));
  EXPECT_NE(e.find("memory_cap_mib"), std::string::npos) << e;
  // An unknown key.
  e = error_of("A100-40GB", kTimeslice, one(R"({"gpu_fraction": 0.5})"));
  EXPECT_NE(e.find("gpu_fraction"), std::string::npos) << e;
}

TEST(LlmSharedGpu, SharedRunsAreDeterministic) {
  const std::string half = endpoint(R"({"gpu_memory_utilization": 0.45})", "{}");
  for (const std::string& model : {kMps, kTimeslice}) {
    EXPECT_EQ(run("A100-40GB", 1, model, two(half, half)).dump(),
              run("A100-40GB", 1, model, two(half, half)).dump());
  }
}

}  // namespace
}  // namespace gpumux

namespace gpumux {
namespace {

nlohmann::json run_tp(const std::string& sharing, const std::string& trace) {
  const std::string llm =
      R"({"llm": {"model": "Llama-3.1-8B", "tensor_parallel": 2,
          "load": {"clients": 4, "requests": 40, "prompt_tokens": 512, "output_tokens": 64}}})";
  const auto dir = testing::write_case(
      "llm_tp", {{"trace.csv", trace},
                 {"scenario.json",
                  testing::scenario_json("A100-80GB", 2, sharing,
                                         R"(, "services": {"by_id": {"tp": )" + llm + "}}")}});
  const nlohmann::json summary = testing::run_case(dir);
  testing::fs::remove_all(dir);
  return summary;
}

TEST(LlmTensorParallel, TwoGpusServeEverythingAndEchoTheLink) {
  const auto s = run_tp(R"({"model": "exclusive"})",
                        "id,submit_s,gpus,runtime_s,kind\ntp,0,2,600,inference\n");
  const auto& llm = s["scenario"]["services"]["by_id"]["tp"]["llm"];
  EXPECT_EQ(llm["tensor_parallel"], 2);
  EXPECT_EQ(llm["interconnect"]["kind"], "NVLink 3");
  EXPECT_EQ(s["metrics"]["requests"]["served"].get<std::int64_t>(), 40);
}

TEST(LlmTensorParallel, ABusyNeighbourOnOneGpuSlowsAllOfThem) {
  // Under MPS a training job at full duty holds GPU 0 from the start; the TP-2 endpoint then
  // spans GPU 0 and GPU 1, and each of its iterations waits for the slower GPU 0.
  const std::string alone = "id,submit_s,gpus,runtime_s,kind\ntp,0,2,600,inference\n";
  const std::string beside =
      "id,submit_s,gpus,runtime_s,sm_util,memory_mib,kind\n"
      "train,0,1,600,1.0,1024,training\ntp,1,2,600,1.0,1,inference\n";
  const auto a = run_tp(R"({"model": "mps"})", alone);
  const auto b = run_tp(R"({"model": "mps"})", beside);
  EXPECT_GT(b["metrics"]["requests"]["itl_ms"]["p50"].get<double>(),
            1.3 * a["metrics"]["requests"]["itl_ms"]["p50"].get<double>());
}

}  // namespace
}  // namespace gpumux
