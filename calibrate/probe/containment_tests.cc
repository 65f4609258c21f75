// The probe's containment tests: does one member's failure reach its neighbours? Memory (a
// member asks for more than is free: does a victim's loop go on?) and fatal faults (a member
// launches a bad kernel: under MPS every client of the server is torn down). Kept apart from
// probe_runner.cc, which runs the overlap measurements and writes the outputs.
#include <nlohmann/json.hpp>

#include "calibrate/probe/child_payload.h"
#include "calibrate/probe/probe_runner.h"

namespace gpumux::calibration {

namespace {

using nlohmann::json;

// Containment timing, seconds after the common start.
constexpr double kMemoryAttemptAt = 1.0;  // the hog asks for more than is free
constexpr double kMemoryEnd = 2.2;
constexpr double kFaultAt = 0.5;  // the faulting member launches its bad kernel
constexpr double kFaultEndTimeslice = 2.5;
constexpr double kFaultEndMps = 9.0;  // MPS teardown took ~5 s on an H200

}  // namespace

void ProbeRunner::run_memory_test(const PlanItem& item) {
  const int sms = std::max(1, report_.device.sm_count);
  const MemberSpec victim{std::max(1, sms / 4), 200, 0.5};
  const std::vector<EnvVars> envs(2, child_env(item.mode, 100));
  const SetRun run = run_child_set(
      envs,
      [&](int member, StartGate& gate) {
        backend_.prepare(0);
        const double start = gate.ready_and_wait();
        if (start < 0) return std::string("{}");
        if (member == 0) {
          return victim_counts(victim, start, start + kMemoryAttemptAt, 0.1, start + kMemoryEnd);
        }
        sleep_until(start + kMemoryAttemptAt);
        const uint64_t free_bytes = backend_.free_memory_bytes();
        const uint64_t request = free_bytes + (uint64_t{1} << 30);
        const std::string error = backend_.try_allocate(request);
        const double now = monotonic_s();
        const LoopCount after =
            backend_.run_loop(spec_of(victim), {now, now, start + kMemoryEnd, start + kMemoryEnd});
        return json{{"free_bytes", free_bytes},
                    {"request_bytes", request},
                    {"error", error},
                    {"after", count_json(after)}}
            .dump();
      },
      ready_timeout(), kMemoryEnd + 10.0);
  const json v = parse_payload(run.children[0]);
  const json h = parse_payload(run.children[1]);
  json result = {{"test", "memory"},
                 {"mode", item.mode},
                 {"description",
                  "member 1 asks for 1 GiB more than is free while member 0 "
                  "loops 200 us kernels on a quarter of the SMs"}};
  if (!v.is_object() || !v.contains("after") || !h.is_object() || !h.contains("error")) {
    result["error"] = "member 0: " + child_failure(run.children[0]) +
                      "; member 1: " + child_failure(run.children[1]);
    report_.errors.push_back(item.name + ": " + result["error"].get<std::string>());
  } else {
    const LoopCount after = count_from(v["after"]);
    const LoopCount hog_after = count_from(h["after"]);
    result["asker_free_bytes"] = h["free_bytes"];
    result["asker_request_bytes"] = h["request_bytes"];
    result["asker_error"] = h["error"];
    result["asker_ran_on"] = hog_after.error.empty() && hog_after.kernels_in_window > 0;
    result["other_error"] = after.error;
    result["other_kernels_before"] = count_from(v["before"]).kernels_in_window;
    result["other_kernels_after"] = after.kernels_in_window;
    result["other_ran_on"] = after.error.empty() && after.kernels_in_window > 0;
    log_ << "  memory (" << item.mode << "): asker error '" << h["error"].get<std::string>()
         << "', other ran on: " << (result["other_ran_on"].get<bool>() ? "yes" : "no") << "\n";
  }
  report_.containment.push_back(result);
}

void ProbeRunner::run_fault_test(const PlanItem& item) {
  const int sms = std::max(1, report_.device.sm_count);
  const MemberSpec victim{std::max(1, sms / 4), 200, 0.5};
  const double end = item.mode == "mps" ? kFaultEndMps : kFaultEndTimeslice;
  const std::vector<EnvVars> envs(2, child_env(item.mode, 100));
  const SetRun run = run_child_set(
      envs,
      [&](int member, StartGate& gate) {
        backend_.prepare(0);
        const double start = gate.ready_and_wait();
        if (start < 0) return std::string("{}");
        if (member == 0) {
          return victim_counts(victim, start, start + kFaultAt, 0.2, start + end);
        }
        sleep_until(start + kFaultAt);
        const std::string error = backend_.launch_faulting_kernel();
        return json{{"error", error}}.dump();
      },
      ready_timeout(), end + 15.0);
  const double fault_s = run.start_s + kFaultAt;
  const ChildResult& vc = run.children[0];
  const ChildResult& fc = run.children[1];
  const json v = parse_payload(vc);
  const json f = parse_payload(fc);
  json result = {{"test", "fault"},
                 {"mode", item.mode},
                 {"description",
                  "member 1 launches a kernel that writes to an illegal "
                  "address while member 0 loops 200 us kernels on a quarter of "
                  "the SMs"}};
  result["faulting_error"] =
      f.is_object() && f.contains("error") ? f["error"].get<std::string>() : child_failure(fc);
  result["faulting_exit_after_fault_s"] = run.start_s >= 0 ? fc.exit_s - fault_s : -1.0;
  result["other_exit_after_fault_s"] = run.start_s >= 0 ? vc.exit_s - fault_s : -1.0;
  if (!v.is_object() || !v.contains("after")) {
    result["other_survived"] = false;
    result["other_error"] = child_failure(vc);
  } else {
    const LoopCount after = count_from(v["after"]);
    result["other_error"] = after.error;
    result["other_error_after_fault_s"] = after.error_at_s >= 0 ? after.error_at_s - fault_s : -1.0;
    result["other_kernels_before"] = count_from(v["before"]).kernels_in_window;
    result["other_kernels_after"] = after.kernels_in_window;
    result["other_survived"] = after.error.empty() && after.kernels_in_window > 0;
  }
  log_ << "  fault (" << item.mode << "): faulting member got '"
       << result["faulting_error"].get<std::string>()
       << "', other survived: " << (result["other_survived"].get<bool>() ? "yes" : "no") << "\n";
  report_.containment.push_back(result);
}

}  // namespace gpumux::calibration
