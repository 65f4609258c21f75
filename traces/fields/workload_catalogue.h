// A workload catalogue (docs/workload-catalogue.md): measured facts per named workload and
// device type (full-GPU iteration time, memory, duty cycle, memory-bandwidth utilization, speed
// per MIG profile, speed beside another workload), read strictly from a JSON file.
//
// Every error is an InputError naming the file, the JSON pointer and the field; an unknown device
// or MIG profile name, or a co-location partner that is not a workload of the file, suggests the
// closest known name.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/device.h"
#include "sim/core/workload.h"

namespace gpumux {

// A co-location speed of 0 records a pair that could not run together (Gavel has such pairs).
// The speeds a catalogue may hold: a measured speed is a ratio of rates, and a job sharing or
// slicing a GPU is never modelled faster than alone (speeds above 1 are read, and used as 1).
inline constexpr double kMaxCatalogueSpeed = 2.0;

class WorkloadCatalogue {
 public:
  WorkloadCatalogue() = default;
  explicit WorkloadCatalogue(std::vector<std::shared_ptr<const WorkloadFacts>> workloads);

  // The workload named `name`, or null.
  std::shared_ptr<const WorkloadFacts> find(std::string_view name) const;
  // Every workload name, sorted.
  std::vector<std::string> names() const;
  std::size_t size() const { return workloads_.size(); }
  bool empty() const { return workloads_.empty(); }

 private:
  std::vector<std::shared_ptr<const WorkloadFacts>> workloads_;  // sorted by name
};

// Parses a catalogue document read from `file`. `devices` are the device types a name may
// denote (the built-in ones and the scenario's). Throws InputError.
WorkloadCatalogue parse_workload_catalogue(const nlohmann::json& document, const std::string& file,
                                           std::span<const DeviceProfile> devices);

// Reads and parses the file at `path` (errors name `path`).
WorkloadCatalogue read_workload_catalogue(const std::string& path,
                                          std::span<const DeviceProfile> devices);

}  // namespace gpumux
