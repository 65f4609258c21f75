#include "traces/fields/workload_catalogue.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/base/closest_names.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace {

// The keys of an object value, sorted (nlohmann::json keeps objects as sorted maps).
std::vector<std::string> keys_of(const nlohmann::json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const auto near = closest_names(name, known, 1);
  std::string text = near.empty() ? "" : " (did you mean '" + near[0] + "'?)";
  return text + "; known: " + join_names(known);
}

// {name: speed} with every speed in (0, kMaxCatalogueSpeed], or [0, ...] when `zero_allowed`;
// `known` the valid names.
std::vector<MeasuredSpeed> speeds(JsonObject& parent, std::string_view key,
                                  const std::vector<std::string>& known, std::string_view what,
                                  bool zero_allowed) {
  JsonObject o = parent.object(key);
  std::vector<MeasuredSpeed> out;
  for (const std::string& name : keys_of(parent.raw(key))) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw InputError(
          o.where(name), name,
          "unknown " + std::string(what) + " '" + name + "'" + did_you_mean(name, known));
    }
    out.push_back({name, o.required_number(name, 0.0, kMaxCatalogueSpeed)});
    if (out.back().speed <= 0.0 && !zero_allowed) {
      throw InputError(o.where(name), name, "a measured speed must be above 0, got 0");
    }
  }
  o.finish();
  return out;
}

WorkloadDeviceFacts device_facts(JsonObject& d, const DeviceProfile& device,
                                 const std::vector<std::string>& workload_names) {
  WorkloadDeviceFacts f;
  f.device = device.name;
  if (d.has("iteration_s")) f.iteration_s = d.required_number("iteration_s", 1e-9, 1e9);
  if (d.has("memory_mib")) {
    f.memory = MemoryMiB(d.required_int("memory_mib", 1, device.memory.mib()));
  }
  if (d.has("sm_util")) {
    f.sm_util = d.required_number("sm_util", 0.0, 1.0);
    if (*f.sm_util <= 0.0) {
      throw InputError(d.where("sm_util"), "sm_util", "a duty cycle must be above 0, got 0");
    }
  }
  if (d.has("mem_bw_util")) f.mem_bw_util = d.required_number("mem_bw_util", 0.0, 1.0);
  if (d.has("mig_speeds")) {
    std::vector<std::string> profiles;
    for (const MigProfile& p : device.mig_profiles) profiles.push_back(p.name);
    if (profiles.empty()) {
      throw InputError(d.where("mig_speeds"), "mig_speeds",
                       "device '" + device.name + "' has no MIG profiles");
    }
    f.mig_speeds = speeds(d, "mig_speeds", profiles, "MIG profile of " + device.name, false);
  }
  if (d.has("colocation")) {
    // 0: the pair could not run together (Gavel records such pairs, e.g. out of memory).
    f.colocation = speeds(d, "colocation", workload_names, "workload", true);
  }
  d.allow("description");
  d.finish();
  return f;
}

}  // namespace

WorkloadCatalogue::WorkloadCatalogue(std::vector<std::shared_ptr<const WorkloadFacts>> workloads)
    : workloads_(std::move(workloads)) {
  std::sort(workloads_.begin(), workloads_.end(),
            [](const auto& a, const auto& b) { return a->name < b->name; });
}

std::shared_ptr<const WorkloadFacts> WorkloadCatalogue::find(std::string_view name) const {
  const auto it = std::lower_bound(workloads_.begin(), workloads_.end(), name,
                                   [](const auto& w, std::string_view n) { return w->name < n; });
  if (it == workloads_.end() || (*it)->name != name) return nullptr;
  return *it;
}

std::vector<std::string> WorkloadCatalogue::names() const {
  std::vector<std::string> out;
  for (const auto& w : workloads_) out.push_back(w->name);
  return out;
}

WorkloadCatalogue parse_workload_catalogue(const nlohmann::json& document, const std::string& file,
                                           std::span<const DeviceProfile> devices) {
  JsonObject root(document, file, "");
  root.allow("description");
  root.allow("sources");  // attribution, free-form: echoed by nobody, read by people
  if (!root.has("workloads")) {
    throw InputError(root.where("workloads"), "workloads", "required field is missing");
  }
  JsonObject all = root.object("workloads");
  root.finish();
  const std::vector<std::string> workload_names = keys_of(root.raw("workloads"));
  if (workload_names.empty()) {
    throw InputError(root.where("workloads"), "workloads", "expected at least one workload");
  }
  std::vector<std::string> device_names;
  for (const DeviceProfile& d : devices) device_names.push_back(d.name);
  std::vector<std::shared_ptr<const WorkloadFacts>> out;
  for (const std::string& name : workload_names) {
    if (name.empty()) throw InputError(all.where(name), "workloads", "empty workload name");
    JsonObject w = all.object(name);
    auto facts = std::make_shared<WorkloadFacts>();
    facts->name = name;
    w.allow("description");
    if (!w.has("devices"))
      throw InputError(w.where("devices"), "devices", "required field is missing");
    JsonObject per_device = w.object("devices");
    for (const std::string& device : keys_of(w.raw("devices"))) {
      const auto it = std::find_if(devices.begin(), devices.end(),
                                   [&](const DeviceProfile& d) { return d.name == device; });
      if (it == devices.end()) {
        throw InputError(per_device.where(device), device,
                         "unknown device '" + device + "'" + did_you_mean(device, device_names));
      }
      JsonObject d = per_device.object(device);
      facts->devices.push_back(device_facts(d, *it, workload_names));
    }
    per_device.finish();
    w.finish();
    out.push_back(std::move(facts));
  }
  all.finish();
  return WorkloadCatalogue(std::move(out));
}

WorkloadCatalogue read_workload_catalogue(const std::string& path,
                                          std::span<const DeviceProfile> devices) {
  return parse_workload_catalogue(read_json_file(path), path, devices);
}

}  // namespace gpumux
