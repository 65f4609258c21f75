// Request traces of LLM endpoints: both layouts, arrival order, and every bad row named.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdlib>
#include <fstream>

#include "sim/base/input_error.h"
#include "traces/requests/llm_request_trace.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("gpumux_llm_trace_" + name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(LlmRequestTrace, ReadsTheNativeLayout) {
  const auto p = write("native.csv", "arrival_s,prompt_tokens,output_tokens\n0,100,20\n0.5,7,1\n");
  const LlmRequestTrace t = read_llm_request_trace(p.string());
  EXPECT_EQ(t.format, "native");
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(t.rows[1].arrival_s, 0.5);
  EXPECT_EQ(t.rows[1].prompt_tokens, 7);
  EXPECT_EQ(t.rows[1].output_tokens, 1);
  fs::remove(p);
}

TEST(LlmRequestTrace, ReadsAzureTimestampsRelativeToTheFirstRow) {
  const auto p = write("azure.csv",
                       "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                       "2023-11-16 18:15:46.6805900,374,44\n"
                       "2023-11-16 18:15:50.9951690,396,109\n"
                       "2023-11-17 00:00:00,1,1\n");
  const LlmRequestTrace t = read_llm_request_trace(p.string());
  EXPECT_EQ(t.format, "azure-llm");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(t.rows[0].arrival_s, 0.0);
  EXPECT_NEAR(t.rows[1].arrival_s, 4.314579, 1e-6);
  EXPECT_NEAR(t.rows[2].arrival_s, 5.0 * 3600 + 44 * 60 + 13.31941, 1e-5);  // across midnight
  fs::remove(p);
}

fs::path source_root() {
  const char* env = std::getenv("GPUMUX_SOURCE_DIR");
  return env ? fs::path(env) : fs::current_path();
}

TEST(LlmRequestTrace, ReadsTheSharedAzureConversationHour) {
  const fs::path shared = source_root() /
                          "../shared/data/llm-serving/traces/azure-llm-2023/AzureLLMInferenceTrace_conv.csv";
  if (!fs::exists(shared)) GTEST_SKIP() << "no shared data at " << shared;
  const LlmRequestTrace t = read_llm_request_trace(shared.string());
  EXPECT_EQ(t.rows.size(), 19366u);
  EXPECT_NEAR(t.rows.back().arrival_s, 3502.0, 2.0);  // 18:15:46 to 19:14:08
}

void expect_bad(const std::string& text, std::initializer_list<std::string> needles) {
  const auto p = write("bad.csv", text);
  try {
    read_llm_request_trace(p.string());
    ADD_FAILURE() << "no error for " << text;
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& n : needles) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
  fs::remove(p);
}

TEST(LlmRequestTrace, BadRowsAreNamed) {
  expect_bad("id,prompt,output\n1,2,3\n", {"bad.csv:1", "unknown request-trace header"});
  expect_bad("arrival_s,prompt_tokens,output_tokens\n0,-1,5\n", {"bad.csv:2", "prompt_tokens"});
  expect_bad("arrival_s,prompt_tokens,output_tokens\n0,3,2.5\n", {"bad.csv:2", "output_tokens"});
  expect_bad("arrival_s,prompt_tokens,output_tokens\n1,3,2\n0,3,2\n", {"bad.csv:3", "arrival order"});
  expect_bad("arrival_s,prompt_tokens,output_tokens\n1,3\n", {"bad.csv:2", "3 columns"});
  expect_bad("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-13-01 00:00:00,1,1\n",
             {"bad.csv:2", "TIMESTAMP"});
  expect_bad("arrival_s,prompt_tokens,output_tokens\n", {"no rows"});
  expect_bad("", {"empty request trace"});
}

}  // namespace
}  // namespace gpumux
