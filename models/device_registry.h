// Device profiles by name: the built-in ones plus those a scenario defines or overrides.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "sim/core/device.h"
#include "sim/base/json_fields.h"

namespace gpumux {

class DeviceRegistry {
 public:
  // A registry holding the built-in profiles (models/builtin_devices.cc).
  static DeviceRegistry with_builtins();

  // Defines a device from a JSON object in the device schema (docs/scenario-format.md "Devices"). When `name`
  // already exists, the given fields override it and the rest are kept; a new device must give
  // memory_mib and sms. Throws InputError naming the field.
  void define(JsonObject& spec);

  bool contains(const std::string& name) const { return devices_.count(name) > 0; }
  // Throws InputError at `where` listing the known names when `name` is unknown.
  const DeviceProfile& get(const std::string& name, const std::string& where) const;
  std::vector<std::string> names() const;
  const std::map<std::string, DeviceProfile>& all() const { return devices_; }

 private:
  std::map<std::string, DeviceProfile> devices_;
};

// The profile as JSON in the device schema (for summaries and `gpumux devices`).
nlohmann::json device_to_json(const DeviceProfile& device);

}  // namespace gpumux
