// What every probe run (overlap measurements, trace replays) sets up around its children: the
// GPU they all see, a private empty MPS pipe folder that keeps non-MPS children off any
// daemon already serving the machine, and the device query, made in a child because the
// parent never initialises CUDA (it is not fork-safe).
#pragma once

#include <string>

#include "calibrate/probe/child_processes.h"
#include "calibrate/probe/gpu_backend.h"

namespace gpumux::calibration {

// CUDA_VISIBLE_DEVICES for the children: the `device`-th entry of the inherited variable when
// it is set, else the index itself, so that every child (and an MPS daemon) sees the chosen
// GPU as device 0. Throws InputError naming --device when the variable has no such entry.
std::string visible_device_entry(int device);

// Creates the --out folder (and its parents). Throws InputError naming --out when it cannot.
void create_out_folder(const std::string& dir);

// A fresh empty folder in /tmp, removed (with anything in it) with the object.
class EmptyPipeFolder {
 public:
  EmptyPipeFolder();  // throws std::runtime_error when /tmp refuses
  ~EmptyPipeFolder();
  EmptyPipeFolder(const EmptyPipeFolder&) = delete;
  EmptyPipeFolder& operator=(const EmptyPipeFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A note when an MPS daemon already serves the inherited (or default) pipe folder, else "".
std::string foreign_mps_daemon_note();

// Queries device 0 in a child with `env`. Returns false with `why` set when the child gave
// no usable answer (no GPU, a crash, the timeout).
bool query_device_in_child(GpuBackend& backend, const EnvVars& env, double timeout_s,
                           DeviceInfo& device, std::string& why);

}  // namespace gpumux::calibration
