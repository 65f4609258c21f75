// Bad service input: each case must fail with an InputError naming the place and the field.
#include <gtest/gtest.h>

#include "sim/base/input_error.h"
#include "tests/services/services_support.h"

namespace gpumux {
namespace {

using testing::scenario_json;
using testing::write_case;

// Expects the run (load + run) to throw an InputError whose text contains every `needle`.
void expect_error(const std::string& trace, const std::string& extra,
                  std::initializer_list<std::string> needles,
                  std::initializer_list<std::pair<std::string, std::string>> more = {}) {
  const auto dir = write_case(
      "bad",
      {{"trace.csv", trace},
       {"scenario.json", scenario_json("A100-40GB", 1, R"({"model": "exclusive"})", extra)}});
  for (const auto& [file, text] : more) std::ofstream(dir / file) << text;
  try {
    testing::run_case(dir);
    ADD_FAILURE() << "no error for " << trace << extra;
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const auto& n : needles) EXPECT_NE(what.find(n), std::string::npos) << what;
  }
  testing::fs::remove_all(dir);
}

const std::string kInference = "id,submit_s,gpus,runtime_s,kind\ninf,0,1,10,inference\n";

TEST(ServicesInput, NegativeRateInTheTrace) {
  expect_error(
      "id,submit_s,gpus,runtime_s,kind,request_rate_per_s,service_ms\n"
      "a,0,1,10,inference,-3,5\n",
      "", {"trace.csv:2", "request_rate_per_s"});
}

TEST(ServicesInput, ServiceColumnsOnATrainingRow) {
  expect_error("id,submit_s,gpus,runtime_s,kind,service_ms\na,0,1,10,training,5\n", "",
               {"trace.csv:2", "kind"});
}

TEST(ServicesInput, ServiceWithoutServiceTime) {
  expect_error("id,submit_s,gpus,runtime_s,kind,request_rate_per_s\na,0,1,10,inference,3\n", "",
               {"job 'a'", "service_ms"});
}

TEST(ServicesInput, ServiceWithoutArrivals) {
  expect_error("id,submit_s,gpus,runtime_s,kind,service_ms\na,0,1,10,inference,3\n", "",
               {"job 'a'", "request_rate_per_s"});
}

TEST(ServicesInput, UnknownKeyInTheSection) {
  expect_error(kInference, R"(, "services": {"default": {"service_ms": 5, "rate": 3}})",
               {"#/services/default", "rate"});
}

TEST(ServicesInput, UnknownMode) {
  expect_error(kInference, R"(, "services": {"mode": "fluid"})", {"#/services/mode", "mode"});
}

TEST(ServicesInput, UnknownTimeSlicingView) {
  expect_error(kInference, R"(, "services": {"time_slicing": "analytic"})",
               {"#/services/time_slicing", "time_slicing", "'slices' or 'fluid'"});
}

TEST(ServicesInput, UnknownMpsView) {
  expect_error(kInference, R"(, "services": {"mps": "slices"})",
               {"#/services/mps", "mps", "'blocks' or 'fluid'"});
}

TEST(ServicesInput, NegativeRateInTheScenario) {
  expect_error(kInference, R"(, "services": {"default": {"request_rate_per_s": -1}})",
               {"#/services/default/request_rate_per_s", "request_rate_per_s"});
}

TEST(ServicesInput, TwoArrivalProcesses) {
  expect_error(kInference,
               R"(, "services": {"default": {"request_rate_per_s": 1, "request_times": "t.txt"}})",
               {"#/services/default", "at most one"}, {{"t.txt", "1\n"}});
}

TEST(ServicesInput, MissingRequestTimesFile) {
  expect_error(kInference, R"(, "services": {"default": {"request_times": "absent.txt"}})",
               {"#/services/default/request_times", "not found"});
}

TEST(ServicesInput, UnsortedRequestTimes) {
  expect_error(kInference, R"(, "services": {"default": {"request_times": "t.txt"}})",
               {"t.txt:3", "request_times"}, {{"t.txt", "1\n3\n2\n"}});
}

TEST(ServicesInput, BadRateSeries) {
  expect_error(kInference,
               R"(, "services": {"default": {"rate_series": {"points": [[0, 1], [0, 2]]}}})",
               {"#/services/default/rate_series/points/1", "increase"});
  expect_error(
      kInference,
      R"(, "services": {"default": {"rate_series": {"points": [[0, 0]], "repeat_s": 10}}})",
      {"rate_series/points", "above 0"});
  expect_error(kInference, R"(, "services": {"default": {"rate_series": {"points": [[0, -1]]}}})",
               {"rate_series/points/0", "rate_per_s"});
}

TEST(ServicesInput, ByIdOnATrainingJob) {
  expect_error("id,submit_s,gpus,runtime_s,kind\nt,0,1,10,training\n",
               R"(, "services": {"by_id": {"t": {"request_rate_per_s": 1, "service_ms": 1}}})",
               {"#/services/by_id/t", "not of kind inference"});
}

TEST(ServicesInput, ZeroMaxBatch) {
  expect_error(
      "id,submit_s,gpus,runtime_s,kind,request_rate_per_s,service_ms,max_batch\n"
      "a,0,1,10,inference,1,5,0\n",
      "", {"trace.csv:2", "max_batch"});
}

TEST(ServicesInput, MpsThreadPercentageOutOfRange) {
  for (const char* bad : {"0", "101", "\"half\""}) {
    expect_error(kInference,
                 std::string(R"(, "services": {"by_id": {"inf": {"request_rate_per_s": 1, )"
                             R"("service_ms": 1, "mps_active_thread_percentage": )") +
                     bad + "}}}",
                 {"#/services/by_id/inf", "mps_active_thread_percentage"});
  }
}

}  // namespace
}  // namespace gpumux
