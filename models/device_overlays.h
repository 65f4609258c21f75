// A model's parameters as the scenario gives them, plus a copy per device whose measurements
// (models/device_measurements.h) replace some of their defaults. Lookup by device compares the
// name with the few measured devices only and allocates nothing, so it may run in
// compute_rates; its index (0: the scenario's parameters) is a stable key for rate memos.
// apply_measurements (below) makes those copies from a model's measurements.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/device_measurements.h"
#include "models/measured_parameter.h"
#include "sim/core/device.h"

namespace gpumux {

template <class Params>
class DeviceOverlays {
 public:
  DeviceOverlays() = default;
  explicit DeviceOverlays(const Params& base) : base_(base) {}

  const Params& base() const { return base_; }
  // The copy for `device`, made from the base on first use. Call while setting up, before
  // anyone holds a reference.
  Params& on(std::string_view device) {
    const int i = index_of(device);
    if (i > 0) return devices_[static_cast<std::size_t>(i) - 1].params;
    devices_.push_back({device, base_});
    return devices_.back().params;
  }

  // 0 for the base, i + 1 for the i-th measured device.
  int index(const DeviceProfile& device) const { return index_of(device.name); }
  const Params& at(int index) const {
    return index == 0 ? base_ : devices_[static_cast<std::size_t>(index) - 1].params;
  }
  const Params& for_device(const DeviceProfile& device) const { return at(index(device)); }

 private:
  int index_of(std::string_view device) const {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      if (devices_[i].device == device) return static_cast<int>(i) + 1;
    }
    return 0;
  }

  struct OnDevice {
    std::string_view device;  // a name in device_measurements(), which outlives every model
    Params params;
  };
  Params base_;
  std::vector<OnDevice> devices_;
};

// A parameter a device's measurement may replace: its declaration, the field it sets, and
// whether a measurement applies (the scenario left it at its default, and whatever else the
// model asks holds).
template <class Params>
struct MeasuredParameter {
  const NumberSpec& spec;
  double Params::*field;
  bool applies;
};

// Applies `model`'s device measurements (device_measurements_of) to `overlays`: each measured
// value of a parameter that applies replaces it on that device's copy. Returns their echoes
// (declare_measured), in the measurements' order. A measurement of a parameter not listed is a
// logic error: the measurements table names a key the model does not read.
template <class Params>
std::vector<ModelParameter> apply_measurements(
    DeviceOverlays<Params>& overlays, std::string_view model,
    std::initializer_list<MeasuredParameter<Params>> parameters) {
  std::vector<ModelParameter> echoes;
  for (const DeviceMeasurement& m : device_measurements_of(model)) {
    const MeasuredParameter<Params>* found = nullptr;
    for (const MeasuredParameter<Params>& p : parameters) {
      if (p.spec.key == m.parameter) found = &p;
    }
    if (!found) {
      throw std::logic_error("device measurement of unknown " + std::string(model) + " parameter " +
                             std::string(m.parameter));
    }
    if (!found->applies) continue;
    overlays.on(m.device).*(found->field) = m.value;
    echoes.push_back(declare_measured(found->spec, m));
  }
  return echoes;
}

}  // namespace gpumux
