#include "calibrate/probe/replay_options.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <set>

#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

constexpr const char* kDescription =
    "gpumux-probe replay: runs a small trace for real on one NVIDIA GPU and records how each\n"
    "job ended and when, for `gpumux calibrate replay check`.\n"
    "\n"
    "Each job of the trace (native format, one GPU each) becomes a process, forked before any\n"
    "CUDA call, that creates its context --lead-s before its submit_s, allocates memory_mib at\n"
    "submit_s, then loops a compute-bound spin kernel of kernel_us on round(sm_share x SMs)\n"
    "blocks (one 1024-thread block per SM) with a CPU gap of kernel_us*(1-sm_util)/sm_util,\n"
    "until it has run as many kernels as its loop completes alone in runtime_s (measured\n"
    "first, alone, in the same mode). Modes:\n"
    "  timeslice  the GPU's current compute mode, no MPS (contexts take turns)\n"
    "  mps        a private MPS control daemon the probe starts and always quits\n"
    "--fault JOB@S makes JOB launch a kernel that writes to an illegal address S seconds after\n"
    "its start (under MPS it tears down every client). It never changes MIG mode, clocks or\n"
    "compute mode and never resets the GPU.\n"
    "\n"
    "Writes into --out: replay.csv (mode,job,device,submit_s,ready_s,start_s,end_s,jct_s,\n"
    "outcome,error,kernels_done,kernels_planned,alone_kernels_per_s,fault_after_s) and\n"
    "replay.json (device, versions, command line, alone rates, times, notes).\n"
    "Try first: gpumux-probe replay TRACE.csv --dry-run   (needs no GPU)";

ReplayFault parse_fault(const std::string& text) {
  const auto at = text.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == text.size()) {
    throw InputError("command line", "--fault", "'" + text + "': expected JOB@SECONDS");
  }
  ReplayFault f;
  f.job = text.substr(0, at);
  try {
    std::size_t used = 0;
    f.after_s = std::stod(text.substr(at + 1), &used);
    if (used != text.size() - at - 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw InputError("command line", "--fault",
                     "'" + text + "': '" + text.substr(at + 1) + "' is not a number of seconds");
  }
  if (!(f.after_s >= 0) || !std::isfinite(f.after_s)) {
    throw InputError("command line", "--fault", "'" + text + "': seconds must be >= 0");
  }
  return f;
}

}  // namespace

ParsedReplayCommandLine parse_replay_command_line(int argc, const char* const* argv) {
  ParsedReplayCommandLine parsed;
  ReplayOptions& o = parsed.options;
  CLI::App app{kDescription, "gpumux-probe replay"};
  app.add_option("trace", o.trace, "native trace to replay (one GPU per job)")->required();
  app.add_option("--mode", o.mode, "timeslice (default) or mps")
      ->check(CLI::IsMember({"timeslice", "mps"}));
  app.add_option("--out", o.out_dir, "output folder (default out/replay)");
  app.add_option("--device", o.device, "CUDA device index (default 0)");
  app.add_option("--budget-s", o.budget_s,
                 "wall-clock limit in seconds; jobs still running then are killed and recorded "
                 "as unfinished (default 300)");
  app.add_option("--lead-s", o.lead_s,
                 "create each job's context this long before its submit time (default 2)");
  app.add_option("--alone-s", o.alone_s,
                 "counted window of each distinct loop measured alone (default 0.3)");
  std::vector<std::string> faults;
  app.add_option("--fault", faults, "JOB@SECONDS: JOB faults SECONDS after its start (repeatable)");
  app.add_flag("--dry-run", o.dry_run, "print the jobs' loops and the plan; touch no GPU");
  o.command_line = "gpumux-probe";
  for (int i = 1; i < argc; ++i) o.command_line += std::string(" ") + argv[i];
  try {
    // argv[1] is "replay": parse the rest.
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 2; --i) args.emplace_back(argv[i]);
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    parsed.help = true;
    parsed.help_text = app.help();
    return parsed;
  } catch (const CLI::ParseError& e) {
    throw InputError("command line", "", e.what());
  }
  if (!(o.budget_s > 0) || o.budget_s > 86400) {
    throw InputError("command line", "--budget-s", "expected a value in (0, 86400]");
  }
  if (!(o.lead_s >= 0) || o.lead_s > 60) {
    throw InputError("command line", "--lead-s", "expected a value in [0, 60]");
  }
  if (!(o.alone_s >= 0.01) || o.alone_s > 60) {
    throw InputError("command line", "--alone-s", "expected a value in [0.01, 60]");
  }
  if (o.device < 0) throw InputError("command line", "--device", "must be >= 0");
  std::set<std::string> seen;
  for (const std::string& text : faults) {
    ReplayFault f = parse_fault(text);
    if (!seen.insert(f.job).second) {
      throw InputError("command line", "--fault", "job '" + f.job + "' is given two faults");
    }
    o.faults.push_back(std::move(f));
  }
  return parsed;
}

}  // namespace gpumux::calibration
