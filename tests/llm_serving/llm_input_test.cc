// Bad LLM-endpoint input: each case fails with an InputError naming the place and the field,
// before anything runs (docs/llm-serving.md "Scenario").
#include <gtest/gtest.h>

#include "sim/base/input_error.h"
#include "tests/services/services_support.h"

namespace gpumux {
namespace {

using testing::scenario_json;
using testing::write_case;

const std::string kEndpoint = "id,submit_s,gpus,runtime_s,kind\nchat,0,1,60,inference\n";

std::string llm_services(const std::string& llm) {
  return R"(, "services": {"by_id": {"chat": {"llm": )" + llm + "}}}";
}

void expect_error(const std::string& device, const std::string& llm,
                  std::initializer_list<std::string> needles,
                  std::initializer_list<std::pair<std::string, std::string>> more = {},
                  const std::string& trace = kEndpoint) {
  const auto dir = write_case(
      "llm_bad", {{"trace.csv", trace},
                  {"scenario.json", scenario_json(device, 1, R"({"model": "exclusive"})",
                                                  llm_services(llm))}});
  for (const auto& [file, text] : more) std::ofstream(dir / file) << text;
  try {
    testing::run_case(dir);
    ADD_FAILURE() << "no error for " << llm;
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& n : needles) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
  testing::fs::remove_all(dir);
}

const std::string kLoad = R"("load": {"rate_per_s": 2, "prompt_tokens": 100, "output_tokens": 50})";

TEST(LlmInput, UnknownModelNamesTheClosest) {
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8", )" + kLoad + "}",
               {"#/services/by_id/chat/llm", "model", "Llama-3.1-8B"});
}

TEST(LlmInput, WeightsLargerThanTheEngineMemory) {
  expect_error("A100-40GB", R"({"model": "Llama-2-70b-hf", )" + kLoad + "}",
               {"model", "do not fit", "A100-40GB"});
}

TEST(LlmInput, NoRoomForOneKvBlock) {
  // Llama-3.1-8B's 15 GiB of weights fit 0.66 x 24 GiB of an A10, but the runtime reserve
  // (about 1.1 GiB) leaves nothing for the cache.
  expect_error("A10", R"({"model": "Llama-3.1-8B", "engine": {"gpu_memory_utilization": 0.66}, )" +
                          kLoad + "}",
               {"gpu_memory_utilization", "no room for one KV-cache block"});
}

TEST(LlmInput, BatchedTokensBelowOneBlock) {
  expect_error("H100-80GB",
               R"({"model": "Llama-3.1-8B", "engine": {"max_num_batched_tokens": 8, "max_num_seqs": 4}, )" +
                   kLoad + "}",
               {"#/services/by_id/chat/llm/engine", "max_num_batched_tokens", "block"});
}

TEST(LlmInput, MemoryUtilizationOutsideZeroOne) {
  expect_error("H100-80GB",
               R"({"model": "Llama-3.1-8B", "engine": {"gpu_memory_utilization": 0}, )" + kLoad + "}",
               {"gpu_memory_utilization", "(0, 1]"});
  expect_error("H100-80GB",
               R"({"model": "Llama-3.1-8B", "engine": {"gpu_memory_utilization": 1.2}, )" + kLoad + "}",
               {"gpu_memory_utilization"});
}

TEST(LlmInput, ContextLongerThanTheCacheIsRefusedAsVllmDoes) {
  expect_error("RTX4090", R"({"model": "Llama-3.1-8B", )" + kLoad + "}",
               {"max_model_len", "131072", "KV cache holds"});
}

TEST(LlmInput, ClosedLoopWithoutClients) {
  expect_error("H100-80GB",
               R"({"model": "Llama-3.1-8B", "load": {"clients": 0, "prompt_tokens": 10, "output_tokens": 5}})",
               {"clients"});
}

TEST(LlmInput, LoadWithoutTokens) {
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", "load": {"rate_per_s": 3}})",
               {"#/services/by_id/chat/llm/load", "prompt_tokens"});
}

TEST(LlmInput, TwoLoadKinds) {
  expect_error("H100-80GB",
               R"({"model": "Llama-3.1-8B", "load": {"rate_per_s": 3, "clients": 2, "prompt_tokens": 1, "output_tokens": 1}})",
               {"only one of trace, rate_per_s and clients"});
}

TEST(LlmInput, NonPositiveTokenCountInATraceRow) {
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", "load": {"trace": "req.csv"}})",
               {"req.csv:3", "output_tokens"},
               {{"req.csv", "arrival_s,prompt_tokens,output_tokens\n0,10,5\n1,10,0\n"}});
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", "load": {"trace": "req.csv"}})",
               {"req.csv:2", "prompt_tokens"},
               {{"req.csv", "arrival_s,prompt_tokens,output_tokens\n0,ten,5\n"}});
}

TEST(LlmInput, MissingTraceFile) {
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", "load": {"trace": "nowhere.csv"}})",
               {"nowhere.csv"});
}

TEST(LlmInput, ServiceTimeFieldsBesideAnLlmBlock) {
  const auto dir = write_case(
      "llm_bad_fields",
      {{"trace.csv", kEndpoint},
       {"scenario.json",
        scenario_json("H100-80GB", 1, R"({"model": "exclusive"})",
                      R"(, "services": {"by_id": {"chat": {"service_ms": 5, "llm": {"model": "Llama-3.1-8B", )" +
                          kLoad + "}}}}")}});
  EXPECT_THROW(testing::run_case(dir), InputError);
  testing::fs::remove_all(dir);
}

TEST(LlmInput, EndpointOnTwoGpusWithoutTensorParallelism) {
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", )" + kLoad + "}",
               {"gpus", "tensor_parallel GPUs (1)", "asks for 2"}, {},
               "id,submit_s,gpus,runtime_s,kind\nchat,0,2,60,inference\n");
}

TEST(LlmInput, TensorParallelDegreeMustSplitTheModel) {
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", "tensor_parallel": 3, )" + kLoad + "}",
               {"tensor_parallel", "expected 1, 2, 4 or 8"});
  expect_error("H100-80GB", R"({"model": "Llama-3.1-8B", "tensor_parallel": 16, )" + kLoad + "}",
               {"tensor_parallel"});
  // No tensor parallelism across MIG instances (no NCCL between them).
  expect_error("A100-80GB",
               R"({"model": "Llama-3.1-8B", "tensor_parallel": 2, "sharing": {"mig_profile": "3g.40gb"}, )" +
                   kLoad + "}",
               {"tensor_parallel", "MIG"}, {},
               "id,submit_s,gpus,runtime_s,kind\nchat,0,2,60,inference\n");
}

}  // namespace
}  // namespace gpumux
