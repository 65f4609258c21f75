// `gpumux devices`: the built-in device profiles, as a table or as JSON.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "apps/command_options.h"
#include "apps/exit_codes.h"
#include "models/device_registry.h"

namespace gpumux {

namespace {

struct DevicesArgs {
  bool as_json = false;
};

int run_devices(const DevicesArgs& a, std::ostream& out, std::ostream&) {
  const DeviceRegistry registry = DeviceRegistry::with_builtins();
  if (a.as_json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [name, d] : registry.all()) list.push_back(device_to_json(d));
    out << list.dump(2) << "\n";
    return kExitOk;
  }
  out << "name          memory_mib  SMs  arch       MPS clients  MIG profiles   GB/s  "
         "16-bit TFLOPS\n";
  for (const auto& [name, d] : registry.all()) {
    char line[200];
    // A 16-bit peak of 0 is not known (the anonymised trace GPUs).
    char peak[32] = "-";
    if (d.peak_tflops_16bit > 0) std::snprintf(peak, sizeof peak, "%.1f", d.peak_tflops_16bit);
    std::snprintf(line, sizeof line, "%-13s %10lld %4d  %-10s %11d  %12zu %6.0f  %13s\n",
                  name.c_str(), static_cast<long long>(d.memory.mib()), d.sms,
                  d.architecture.c_str(), d.mps_client_limit, d.mig_profiles.size(),
                  d.memory_bandwidth_gbps, peak);
    out << line;
  }
  out << "(sources per device: gpumux devices --json)\n";
  return kExitOk;
}

}  // namespace

void configure_devices_command(CLI::App& devices, CommandContext& ctx) {
  auto a = std::make_shared<DevicesArgs>();
  devices.add_flag("--json", a->as_json, "print full profiles (MIG tables, sources) as JSON");
  set_action(devices, ctx, a, run_devices);
}

}  // namespace gpumux
