// What the probe runner's children send back, and the runner's timing helpers: the loop
// counts in a child's JSON payload, why a child gave none, a member's kernel loop, and waiting
// for an instant of the monotonic clock (child_processes.h). Shared by the runner
// (probe_runner.cc) and its containment tests (containment_tests.cc).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "calibrate/probe/child_processes.h"
#include "calibrate/probe/gpu_backend.h"
#include "calibrate/probe/measurement_plan.h"

namespace gpumux::calibration {

nlohmann::json count_json(const LoopCount& c);
// Throws nlohmann::json::exception when a field is missing or of another type.
LoopCount count_from(const nlohmann::json& j);
// The kernel loop a plan member runs (its gap from the kernel length and duty cycle).
LoopSpec spec_of(const MemberSpec& m);
// Sleeps until monotonic_s() reaches `t` (returns at once when it has).
void sleep_until(double t);
// Why a child gave no usable payload, in words; "" when it gave one.
std::string child_failure(const ChildResult& c);
// The child's payload parsed, or null when it has none or it is not JSON.
nlohmann::json parse_payload(const ChildResult& c);

}  // namespace gpumux::calibration
