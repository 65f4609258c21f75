#include "calibrate/probe/probe_environment.h"

#include <stdlib.h>  // mkdtemp

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "calibrate/probe/child_payload.h"
#include "sim/base/input_error.h"

namespace gpumux::calibration {

namespace fs = std::filesystem;
using nlohmann::json;

std::string visible_device_entry(int device) {
  const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
  if (cvd == nullptr || *cvd == '\0') return std::to_string(device);
  std::vector<std::string> entries;
  std::stringstream ss(cvd);
  for (std::string e; std::getline(ss, e, ',');) entries.push_back(e);
  if (device < 0 || device >= static_cast<int>(entries.size())) {
    throw InputError(
        "command line", "--device",
        "device " + std::to_string(device) + " is not among CUDA_VISIBLE_DEVICES=" + cvd);
  }
  return entries[static_cast<size_t>(device)];
}

void create_out_folder(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw InputError("command line", "--out",
                     "cannot create folder '" + dir + "': " + ec.message());
  }
}

EmptyPipeFolder::EmptyPipeFolder() {
  std::string templ = "/tmp/gpumux-nomps-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    throw std::runtime_error("cannot create a temp folder in /tmp");
  }
  path_ = templ;
}

EmptyPipeFolder::~EmptyPipeFolder() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string foreign_mps_daemon_note() {
  const char* inherited_pipe = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  const std::string foreign_pipe = inherited_pipe ? inherited_pipe : "/tmp/nvidia-mps";
  if (!fs::exists(fs::path(foreign_pipe) / "control")) return "";
  return "an MPS daemon already serves " + foreign_pipe +
         "; the probe's processes stay off it (private pipe folders)";
}

bool query_device_in_child(GpuBackend& backend, const EnvVars& env, double timeout_s, DeviceInfo& d,
                           std::string& why) {
  const ChildResult q = run_child(
      env,
      [&] {
        const DeviceInfo i = backend.query_device(0);
        return json{{"name", i.cuda_name},
                    {"pci", i.pci_bus_id},
                    {"total", i.total_memory_bytes},
                    {"free", i.free_memory_bytes},
                    {"sms", i.sm_count},
                    {"ccmaj", i.cc_major},
                    {"ccmin", i.cc_minor},
                    {"mode", i.compute_mode},
                    {"tps", i.max_threads_per_sm},
                    {"smem_sm", i.shared_memory_per_sm},
                    {"smem_optin", i.shared_memory_per_block_optin},
                    {"clk", i.sm_clock_khz},
                    {"memclk", i.memory_clock_khz},
                    {"drvapi", i.driver_api_version},
                    {"rt", i.runtime_version},
                    {"drv", i.driver_version},
                    {"nvclk", i.nvml_sm_clock_mhz},
                    {"nvmax", i.nvml_max_sm_clock_mhz}}
            .dump();
      },
      timeout_s);
  const json dj = parse_payload(q);
  if (!dj.is_object()) {
    why = child_failure(q);
    return false;
  }
  d.cuda_name = dj["name"];
  d.pci_bus_id = dj["pci"];
  d.total_memory_bytes = dj["total"];
  d.free_memory_bytes = dj["free"];
  d.sm_count = dj["sms"];
  d.cc_major = dj["ccmaj"];
  d.cc_minor = dj["ccmin"];
  d.compute_mode = dj["mode"];
  d.max_threads_per_sm = dj["tps"];
  d.shared_memory_per_sm = dj["smem_sm"];
  d.shared_memory_per_block_optin = dj["smem_optin"];
  d.sm_clock_khz = dj["clk"];
  d.memory_clock_khz = dj["memclk"];
  d.driver_api_version = dj["drvapi"];
  d.runtime_version = dj["rt"];
  d.driver_version = dj["drv"];
  d.nvml_sm_clock_mhz = dj["nvclk"];
  d.nvml_max_sm_clock_mhz = dj["nvmax"];
  return true;
}

}  // namespace gpumux::calibration
