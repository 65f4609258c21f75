#include "models/device_registry.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "models/builtin_devices.h"

namespace gpumux {

namespace {

constexpr std::int64_t kMaxMemoryMiB = std::int64_t{1} << 30;  // 1 PiB: catches unit mix-ups

MigProfile parse_mig_profile(JsonObject& p, int memory_slices, int compute_slices,
                             MemoryMiB device_memory) {
  MigProfile m;
  m.name = p.required_string("name");
  m.compute_slices = static_cast<int>(p.required_int("compute_slices", 1, compute_slices));
  m.memory_slices = static_cast<int>(p.required_int("memory_slices", 1, memory_slices));
  m.memory = MemoryMiB(p.required_int("memory_mib", 1, device_memory.mib()));
  m.sms = static_cast<int>(p.required_int("sms", 1, 100000));
  m.max_count = static_cast<int>(p.required_int("max_count", 1, memory_slices));
  const auto& offsets = p.raw("start_offsets");
  if (!offsets.is_array() || offsets.empty()) {
    throw InputError(p.where("start_offsets"), "start_offsets",
                     "expected a non-empty array of memory-slice offsets");
  }
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const auto& o = offsets[i];
    if (!o.is_number_integer() || o.get<int>() < 0 ||
        o.get<int>() + m.memory_slices > memory_slices) {
      throw InputError(p.where("start_offsets") + "/" + std::to_string(i), "start_offsets",
                       "expected an offset in [0, " +
                           std::to_string(memory_slices - m.memory_slices) + "], got " +
                           describe_json(o));
    }
    m.start_offsets.push_back(o.get<int>());
  }
  p.finish();
  return m;
}

}  // namespace

DeviceRegistry DeviceRegistry::with_builtins() {
  DeviceRegistry r;
  const auto list = builtin_devices_json();
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonObject o(list[i], "<built-in devices>", "/" + std::to_string(i));
    r.define(o);
  }
  return r;
}

void DeviceRegistry::define(JsonObject& spec) {
  const std::string name = spec.required_string("name");
  if (name.empty()) {
    throw InputError(spec.where("name"), "name", "must be non-empty (it names the device)");
  }
  auto existing = devices_.find(name);
  const bool is_new = existing == devices_.end();
  DeviceProfile d = is_new ? DeviceProfile{} : existing->second;
  d.name = name;
  if (is_new) {
    d.memory = MemoryMiB(spec.required_int("memory_mib", 1, kMaxMemoryMiB));
    d.sms = static_cast<int>(spec.required_int("sms", 1, 100000));
  } else {
    d.memory = MemoryMiB(spec.optional_int("memory_mib", d.memory.mib(), 1, kMaxMemoryMiB));
    d.sms = static_cast<int>(spec.optional_int("sms", d.sms, 1, 100000));
  }
  const bool new_architecture = spec.has("architecture");
  d.architecture = spec.optional_string("architecture", is_new ? "unknown" : d.architecture);
  const bool pre_volta =
      d.architecture == "pascal" || d.architecture == "maxwell" || d.architecture == "kepler";
  // The MPS client limit follows the architecture (docs/gpu-facts.md "MPS") unless given.
  const int derived_limit =
      (is_new || new_architecture) ? (pre_volta ? 16 : 48) : d.mps_client_limit;
  d.mps_client_limit =
      static_cast<int>(spec.optional_int("mps_client_limit", derived_limit, 1, 1024));
  d.memory_bandwidth_gbps =
      spec.optional_number("memory_bandwidth_gbps", d.memory_bandwidth_gbps, 0.0, 1e6);
  d.peak_tflops_16bit = spec.optional_number("peak_tflops_16bit", d.peak_tflops_16bit, 0.0, 1e6);
  d.source = spec.optional_string("source", is_new ? "scenario" : d.source + "; overridden");
  if (spec.has("mig")) {
    JsonObject mig = spec.object("mig");
    d.mig_memory_slices = static_cast<int>(mig.required_int("memory_slices", 1, 64));
    d.mig_compute_slices = static_cast<int>(mig.required_int("compute_slices", 1, 64));
    d.mig_profiles.clear();
    const auto& profiles = mig.raw("profiles");
    if (!profiles.is_array()) {
      throw InputError(mig.where("profiles"), "profiles", "expected an array of MIG profiles");
    }
    for (std::size_t i = 0; i < profiles.size(); ++i) {
      JsonObject p(profiles[i], spec.file(), mig.pointer("profiles") + "/" + std::to_string(i));
      d.mig_profiles.push_back(
          parse_mig_profile(p, d.mig_memory_slices, d.mig_compute_slices, d.memory));
    }
    mig.finish();
  } else {
    spec.allow("mig");
  }
  spec.finish();
  devices_[name] = std::move(d);
}

const DeviceProfile& DeviceRegistry::get(const std::string& name, const std::string& where) const {
  auto it = devices_.find(name);
  if (it == devices_.end()) {
    std::string valid;
    for (const auto& [n, d] : devices_) valid += (valid.empty() ? "" : ", ") + n;
    throw InputError(where, "device", "unknown device '" + name + "' (known: " + valid + ")");
  }
  return it->second;
}

std::vector<std::string> DeviceRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [n, d] : devices_) out.push_back(n);
  return out;
}

nlohmann::json device_to_json(const DeviceProfile& d) {
  nlohmann::json j = {{"name", d.name},
                      {"memory_mib", d.memory.mib()},
                      {"sms", d.sms},
                      {"architecture", d.architecture},
                      {"mps_client_limit", d.mps_client_limit},
                      {"memory_bandwidth_gbps", d.memory_bandwidth_gbps},
                      {"peak_tflops_16bit", d.peak_tflops_16bit},
                      {"source", d.source}};
  if (d.supports_mig()) {
    nlohmann::json profiles = nlohmann::json::array();
    for (const auto& p : d.mig_profiles) {
      profiles.push_back({{"name", p.name},
                          {"compute_slices", p.compute_slices},
                          {"memory_slices", p.memory_slices},
                          {"memory_mib", p.memory.mib()},
                          {"sms", p.sms},
                          {"max_count", p.max_count},
                          {"start_offsets", p.start_offsets}});
    }
    j["mig"] = {{"memory_slices", d.mig_memory_slices},
                {"compute_slices", d.mig_compute_slices},
                {"profiles", profiles}};
  }
  return j;
}

}  // namespace gpumux
