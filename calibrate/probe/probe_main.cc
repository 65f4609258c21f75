// gpumux-probe: measures kernel overlap on one NVIDIA GPU, or (`gpumux-probe replay TRACE`)
// replays a small trace on it (see calibrate/probe/README.md).
#include <csignal>
#include <iostream>
#include <string>

#include "calibrate/probe/child_processes.h"
#include "calibrate/probe/cuda_backend.h"
#include "calibrate/probe/probe_options.h"
#include "calibrate/probe/probe_runner.h"
#include "calibrate/probe/replay_runner.h"
#include "sim/base/input_error.h"
#include "sim/base/terminal_text.h"

namespace {

extern "C" void on_signal(int) { gpumux::calibration::request_stop(); }

}  // namespace

int main(int argc, char** argv) {
  using namespace gpumux::calibration;
  try {
    // A signal stops the run between (and inside) measurements; the runner then kills its
    // children, quits its MPS daemon and writes what it has.
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (argc > 1 && std::string(argv[1]) == "replay") {
      const ParsedReplayCommandLine parsed = parse_replay_command_line(argc, argv);
      if (parsed.help) {
        std::cout << parsed.help_text;
        return 0;
      }
      for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
      auto backend = make_cuda_backend();
      ReplayRunner runner(parsed.options, *backend, std::cout);
      return runner.run();
    }
    const ParsedCommandLine parsed = parse_probe_command_line(argc, argv);
    if (parsed.help) {
      std::cout << parsed.help_text;
      return 0;
    }
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
    auto backend = make_cuda_backend();
    ProbeRunner runner(parsed.options, *backend, std::cout);
    return runner.run();
  } catch (const gpumux::InputError& e) {
    std::cerr << "error: " << gpumux::terminal_text(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << gpumux::terminal_text(e.what()) << "\n";
    return 1;
  }
}
