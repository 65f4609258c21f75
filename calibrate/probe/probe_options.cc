#include "calibrate/probe/probe_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

#include "sim/base/input_error.h"

namespace gpumux::calibration {
namespace {

constexpr const char* kDescription =
    "gpumux-probe: measures how kernels of several processes overlap on one NVIDIA GPU, for\n"
    "gpumux's calibration (gpumux calibrate overlap fit MEAS.csv -o CAL.json).\n"
    "\n"
    "Each measured process loops: launch a compute-bound spin kernel of kernel_us on\n"
    "sm_share x SMs blocks (one 1024-thread block per SM), wait for it, busy-wait\n"
    "kernel_us*(1-duty)/duty on the CPU. Sets of 2 and 3 such processes start together;\n"
    "speed = kernels/s together / kernels/s alone (same mode and MPS cap). Modes:\n"
    "  timeslice  the GPU's current compute mode, no MPS (contexts take turns)\n"
    "  mps        a private MPS control daemon the probe starts and always quits, also\n"
    "             with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE caps (--atp)\n"
    "It also times single kernels against their SM footprint (solo.csv) and, unless\n"
    "--no-containment, checks what an oversized allocation and an illegal-address fault\n"
    "in one process do to its neighbour. It never changes MIG mode, clocks or compute mode\n"
    "and never resets the GPU.\n"
    "\n"
    "Writes into --out: overlap.csv (mode,set,member,device,sm_share,kernel_us,duty,\n"
    "alone_duty,active_thread_pct,speed), solo.csv, probe.json (device, versions, command\n"
    "line, skipped items, containment results).\n"
    "\n"
    "Items that would not finish within --budget-s are skipped and listed in probe.json.\n"
    "Try first: gpumux-probe --dry-run   (prints the plan, needs no GPU)";

template <typename T>
void check_each(const std::vector<T>& values, const std::string& option, T low, T high,
                bool low_open) {
  for (const T& v : values) {
    const bool below = low_open ? !(v > low) : !(v >= low);
    if (below || !(v <= high)) {
      std::ostringstream what;
      what << "value " << v << " outside " << (low_open ? "(" : "[") << low << ", " << high << "]";
      throw InputError("command line", option, what.str());
    }
  }
}

template <typename T>
void sort_unique(std::vector<T>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace

ParsedCommandLine parse_probe_command_line(int argc, const char* const* argv) {
  ParsedCommandLine parsed;
  ProbeOptions& o = parsed.options;
  CLI::App app{kDescription, "gpumux-probe"};
  app.add_option("--out", o.out_dir, "output folder (default out/calibration)");
  app.add_option("--device", o.device, "CUDA device index (default 0)");
  app.add_option("--budget-s", o.budget_s,
                 "wall-clock budget in seconds; items that would not fit are skipped "
                 "(default 300)");
  app.add_flag("--quick", o.quick,
               "small plan: kernel_us 20,2000, sm_share 0.5,1, duty 1, atp 50, window 0.3 s");
  app.add_option("--kernel-us", o.kernel_us, "kernel lengths in us (default 20,200,2000)")
      ->delimiter(',');
  app.add_option("--sm-share", o.sm_share, "SM shares in (0,1] (default 0.25,0.5,1)")
      ->delimiter(',');
  app.add_option("--duty", o.duty, "nominal duties in (0,1] (default 0.5,1)")->delimiter(',');
  app.add_option("--atp", o.active_thread_pct,
                 "MPS active-thread caps in % besides 100 (default 50; 'none' for none)")
      ->delimiter(',');
  app.add_option("--modes", o.modes, "modes to measure: timeslice,mps (default both)")
      ->delimiter(',');
  app.add_option("--mixed-pairs", o.mixed_pairs, "mixed pairs per mode (default 6)");
  app.add_option("--mixed-triples", o.mixed_triples, "mixed triples per mode (default 3)");
  app.add_option("--warmup-s", o.warmup_s, "looping before each counted window (default 0.2)");
  app.add_option("--window-s", o.window_s, "counted window in seconds (default 0.5)");
  bool no_containment = false;
  app.add_flag("--no-containment", no_containment, "skip the memory and fault tests");
  app.add_flag("--dry-run", o.dry_run, "print the plan and its time estimate; no GPU needed");
  app.add_option("--assume-sms", o.assume_sms, "SM count --dry-run plans for (default 132)");
  app.add_option("--seed", o.seed, "seed that picks the mixed sets (default 1)");
  app.footer("Exit codes: 0 ok, 2 bad command line, 1 no usable GPU or internal error.");

  for (int i = 0; i < argc; ++i) {
    if (i > 0) o.command_line += ' ';
    o.command_line += argv[i];
  }
  // "--atp none" measures no cap; CLI11 would reject the word for an int list.
  std::vector<std::string> args(argv, argv + argc);
  bool atp_none = false;
  for (size_t i = 1; i + 1 < args.size(); ++i) {
    if (args[i] == "--atp" && args[i + 1] == "none") {
      atp_none = true;
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      break;
    }
  }
  std::vector<const char*> argv2;
  for (const auto& a : args) argv2.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv2.size()), argv2.data());
  } catch (const CLI::CallForHelp&) {
    parsed.help = true;
    parsed.help_text = app.help();
    return parsed;
  } catch (const CLI::ParseError& e) {
    throw InputError("command line", "", e.what());
  }
  o.containment = !no_containment;

  if (o.kernel_us.empty())
    o.kernel_us = o.quick ? std::vector<double>{20, 2000} : std::vector<double>{20, 200, 2000};
  if (o.sm_share.empty())
    o.sm_share = o.quick ? std::vector<double>{0.5, 1.0} : std::vector<double>{0.25, 0.5, 1.0};
  if (o.duty.empty()) o.duty = o.quick ? std::vector<double>{1.0} : std::vector<double>{0.5, 1.0};
  if (o.active_thread_pct.empty() && !atp_none) o.active_thread_pct = {50};
  if (o.modes.empty()) o.modes = {"timeslice", "mps"};
  if (o.quick) {
    if (app.count("--window-s") == 0) o.window_s = 0.3;
    if (app.count("--mixed-pairs") == 0) o.mixed_pairs = 2;
    if (app.count("--mixed-triples") == 0) o.mixed_triples = 1;
  }
  sort_unique(o.kernel_us);
  sort_unique(o.sm_share);
  sort_unique(o.duty);
  sort_unique(o.active_thread_pct);

  check_each(o.kernel_us, "--kernel-us", 1.0, 1e6, false);
  check_each(o.sm_share, "--sm-share", 0.0, 1.0, true);
  check_each(o.duty, "--duty", 0.0, 1.0, true);
  check_each(o.active_thread_pct, "--atp", 1, 99, false);
  check_each(std::vector<double>{o.budget_s}, "--budget-s", 0.0, 86400.0, true);
  check_each(std::vector<double>{o.window_s}, "--window-s", 0.0, 3600.0, true);
  check_each(std::vector<double>{o.warmup_s}, "--warmup-s", 0.0, 3600.0, false);
  check_each(std::vector<int>{o.device}, "--device", 0, 1023, false);
  check_each(std::vector<int>{o.mixed_pairs}, "--mixed-pairs", 0, 1000, false);
  check_each(std::vector<int>{o.mixed_triples}, "--mixed-triples", 0, 1000, false);
  check_each(std::vector<int>{o.assume_sms}, "--assume-sms", 1, 100000, false);
  for (const std::string& m : o.modes) {
    if (m != "timeslice" && m != "mps") {
      throw InputError("command line", "--modes",
                       "unknown mode '" + m + "' (expected timeslice or mps)");
    }
  }
  sort_unique(o.modes);
  std::reverse(o.modes.begin(), o.modes.end());  // timeslice first: no daemon needed
  if (o.out_dir.empty()) throw InputError("command line", "--out", "empty folder name");
  return parsed;
}

}  // namespace gpumux::calibration
