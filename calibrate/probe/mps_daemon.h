// A private MPS control daemon: its own pipe and log folders in a fresh temp folder, so it
// serves only the probe's own clients and never talks to a daemon someone else runs.
//
// start() runs `nvidia-cuda-mps-control -d` with CUDA_MPS_PIPE_DIRECTORY and
// CUDA_MPS_LOG_DIRECTORY set; stop() sends `quit` to it with the same variables and waits
// for its control pipe to go away. The destructor stops a daemon that is still up, so error
// paths quit it too; signal paths must call stop() (see probe_main.cc).
#pragma once

#include <string>

#include "calibrate/probe/child_processes.h"

namespace gpumux::calibration {

class MpsDaemon {
 public:
  // `control` is the program to run (found on PATH when it has no slash); stop() waits up
  // to `quit_wait_s` for the daemon to go.
  explicit MpsDaemon(std::string control = "nvidia-cuda-mps-control", double quit_wait_s = 10)
      : control_(std::move(control)), quit_wait_s_(quit_wait_s) {}
  ~MpsDaemon();
  MpsDaemon(const MpsDaemon&) = delete;
  MpsDaemon& operator=(const MpsDaemon&) = delete;

  // Returns an empty string on success, else why it could not start (nothing is left
  // running then). The daemon sees only `visible_device` (its CUDA_VISIBLE_DEVICES: an
  // index, a UUID or a MIG UUID), so its clients see that GPU as device 0.
  std::string start(const std::string& visible_device);
  // Quits the daemon (idempotent). Copies its logs into `log_copy_dir` when not empty.
  // Returns an empty string when it is gone, else what went wrong.
  std::string stop(const std::string& log_copy_dir = "");

  bool running() const { return running_; }
  const std::string& pipe_dir() const { return pipe_dir_; }
  // Variables a client needs to reach this daemon. CUDA_VISIBLE_DEVICES is removed (empty
  // value, see EnvVars): the daemon already limits what its clients see.
  EnvVars client_env() const;

 private:
  int run_control(const std::string& stdin_text, double timeout_s, std::string* output) const;

  std::string control_;
  double quit_wait_s_;
  std::string root_;  // temp folder holding pipe/ and log/
  std::string pipe_dir_;
  std::string log_dir_;
  std::string device_;
  bool running_ = false;
};

}  // namespace gpumux::calibration
