#include "calibrate/probe/child_payload.h"

#include <chrono>
#include <thread>

#include "calibrate/probe/overlap_math.h"

namespace gpumux::calibration {

using nlohmann::json;

nlohmann::json count_json(const LoopCount& c) {
  return {{"kernels_in_window", c.kernels_in_window},
          {"kernels_total", c.kernels_total},
          {"error", c.error},
          {"error_at_s", c.error_at_s}};
}

LoopCount count_from(const nlohmann::json& j) {
  LoopCount c;
  c.kernels_in_window = j.at("kernels_in_window").get<int64_t>();
  c.kernels_total = j.at("kernels_total").get<int64_t>();
  c.error = j.at("error").get<std::string>();
  c.error_at_s = j.at("error_at_s").get<double>();
  return c;
}

LoopSpec spec_of(const MemberSpec& m) {
  return {m.blocks, m.kernel_us, gap_us(m.kernel_us, m.duty)};
}

void sleep_until(double t) {
  const double left = t - monotonic_s();
  if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
}

std::string child_failure(const ChildResult& c) {
  if (c.timed_out) return "timed out and was killed";
  if (!c.error.empty()) return c.error;
  if (c.signal != 0) return "killed by signal " + std::to_string(c.signal);
  if (!c.has_payload)
    return "exited without a result (exit code " + std::to_string(c.exit_code) + ")";
  return "";
}

nlohmann::json parse_payload(const ChildResult& c) {
  if (!c.has_payload) return json();
  try {
    return json::parse(c.payload);
  } catch (const json::exception&) {
    return json();
  }
}

}  // namespace gpumux::calibration
