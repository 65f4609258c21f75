// A declared parameter's echo (ModelParameter) and the set of them an entry of a family's table
// read from its params object (ParameterSet): sharing models from `sharing.params`, placement and
// queue policies from `scheduler.params`. The specs that read and declare them are
// sim/base/parameter_spec.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpumux {

// A parameter, declared by its model or policy with its value, unit and where the value came from,
// so that every report can state its assumptions. A switch or a choice among names is echoed in
// words (`true`, `pack`), never as the number `value` keeps for it.
struct ModelParameter {
  enum class Kind : std::uint8_t {
    kNumber,  // `value` in `unit`
    kSwitch,  // on or off: `value` 1 or 0; echoed as true / false
    kChoice,  // one of a few names: `value` the name's index; echoed as `choice`
  };

  ModelParameter() = default;
  // A number.
  ModelParameter(std::string name_, double value_, std::string unit_, std::string source_,
                 std::string description_)
      : name(std::move(name_)),
        value(value_),
        unit(std::move(unit_)),
        source(std::move(source_)),
        description(std::move(description_)) {}
  static ModelParameter on_off(std::string name_, bool on, std::string source_,
                               std::string description_) {
    ModelParameter p(std::move(name_), on ? 1.0 : 0.0, "", std::move(source_),
                     std::move(description_));
    p.kind = Kind::kSwitch;
    return p;
  }
  // `index` is the chosen name's position among the alternatives (kept in `value`).
  static ModelParameter chosen(std::string name_, int index, std::string_view choice_,
                               std::string source_, std::string description_) {
    ModelParameter p(std::move(name_), static_cast<double>(index), "", std::move(source_),
                     std::move(description_));
    p.kind = Kind::kChoice;
    p.choice = choice_;
    return p;
  }

  std::string name;
  double value = 0.0;
  std::string unit;    // empty for a switch or a choice
  std::string source;  // "default (docs/gpu-facts.md ...)", "scenario", "calibration FILE"...
  std::string description;
  Kind kind = Kind::kNumber;
  std::string choice;  // the chosen name (kChoice)
  // What the parameter accepts, e.g. "[0, 1e+06] us" or "one of 'memory' or 'replicas'", for
  // `gpumux models NAME`; empty when the model does not say. Not part of the outputs' echo.
  std::string accepts;
};

// The parameters an entry read from its params object, in the order it declared them: their
// echo for outputs and `gpumux models NAME`, and their values for its factory.
class ParameterSet {
 public:
  void add(ModelParameter parameter) { declared_.push_back(std::move(parameter)); }
  const std::vector<ModelParameter>& declared() const { return declared_; }
  bool empty() const { return declared_.empty(); }
  // The parameter named `name`, or nullptr when the entry declared none of that name.
  const ModelParameter* find(std::string_view name) const {
    for (const ModelParameter& p : declared_) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }

 private:
  std::vector<ModelParameter> declared_;
};

}  // namespace gpumux
