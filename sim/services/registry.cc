// The table of service engines (registry.h). Each entry: name, one line, the keys of the
// `services` object it reads, and its factory.
#include "sim/services/registry.h"

#include <nlohmann/json.hpp>

#include "sim/base/input_error.h"
#include "sim/llm/llm_replica.h"

namespace gpumux {

namespace {

// ---- Declared parameters ----

constexpr std::string_view kTimeSlicingNames[] = {"slices", "fluid"};
constexpr ChoiceSpec kTimeSlicingSpec{
    "time_slicing", kTimeSlicingNames, 0, "default",
    "on a time-sliced GPU with other residents, requests wait for the other contexts' slices "
    "(slices, docs/services.md \"Requests under time-slicing\") or progress at the fluid rate "
    "(fluid: cheaper, the analytic engine's view)"};
constexpr std::string_view kMpsNames[] = {"blocks", "fluid"};
constexpr ChoiceSpec kMpsSpec{
    "mps", kMpsNames, 0, "default",
    "on an MPS GPU with block allocation, requests wait for SMs (blocks, docs/services.md "
    "\"Requests under MPS\") or progress at the fluid rate (fluid)"};

// ---- request: every request ----

class RequestEngine final : public ServiceEngine {
 public:
  RequestEngine(bool slices, bool blocks) : slices_(slices), blocks_(blocks) {}
  std::string_view name() const override { return "request"; }
  std::unique_ptr<ServiceReplica> make_replica(const ServiceSpec& spec, double origin_us,
                                               std::uint64_t seed) const override {
    if (spec.llm) return std::make_unique<LlmReplica>(spec, origin_us, seed);
    return std::make_unique<RequestLevelReplica>(spec, origin_us, seed);
  }
  ServiceGpuContext seen(const ServiceGpuContext& context) const override {
    ServiceGpuContext used = context;
    if (!slices_) used.slices = nullptr;
    if (!blocks_) used.blocks = nullptr;
    return used;
  }
  bool simulates_each_request() const override { return true; }

 private:
  bool slices_;
  bool blocks_;
};

std::unique_ptr<ServiceEngine> make_request_engine(JsonObject& services) {
  const ChoiceSetting slicing = read(services, kTimeSlicingSpec);
  const ChoiceSetting mps = read(services, kMpsSpec);
  return std::make_unique<RequestEngine>(slicing.name == "slices", mps.name == "blocks");
}

// ---- analytic: M/D/1 per interval of constant rate ----

class AnalyticEngine final : public ServiceEngine {
 public:
  std::string_view name() const override { return "analytic"; }
  std::unique_ptr<ServiceReplica> make_replica(const ServiceSpec& spec, double origin_us,
                                               std::uint64_t seed) const override {
    // An LLM endpoint has no steady-state formula here: it is simulated iteration by iteration
    // whatever the mode (docs/llm-serving.md).
    if (spec.llm) return std::make_unique<LlmReplica>(spec, origin_us, seed);
    return std::make_unique<AnalyticReplica>(spec, origin_us, seed);
  }
  bool simulates_each_request() const override { return false; }
};

std::unique_ptr<ServiceEngine> make_analytic_engine(JsonObject& services) {
  // The request engine's keys are accepted and checked (a scenario switches engines by `mode`
  // alone); the analytic engine keeps the fluid rate whatever they say.
  read(services, kTimeSlicingSpec);
  read(services, kMpsSpec);
  return std::make_unique<AnalyticEngine>();
}

}  // namespace

const Registry<ServiceEngineInfo>& service_engines() {
  static const Registry<ServiceEngineInfo> table(
      "service engine",
      {
          {"request",
           "every request simulated: FIFO queue, batches, timeouts; on shared GPUs the slice or "
           "block schedule",
           {kTimeSlicingSpec, kMpsSpec},
           make_request_engine},
          {"analytic",
           "M/D/1 in steady state per interval of constant rate (cheap; keeps the fluid rate; "
           "time_slicing and mps are accepted and change nothing)",
           {kTimeSlicingSpec, kMpsSpec},
           make_analytic_engine},
      });
  return table;
}

std::shared_ptr<const ServiceEngine> default_service_engine() {
  static const std::shared_ptr<const ServiceEngine> engine = [] {
    const nlohmann::json none = nlohmann::json::object();
    JsonObject services(none, "", "/services");
    return std::shared_ptr<const ServiceEngine>(service_engines().entries().front().make(services));
  }();
  return engine;
}

std::vector<ModelParameter> default_parameters(const ServiceEngineInfo& engine) {
  std::vector<ModelParameter> out;
  const nlohmann::json none = nlohmann::json::object();
  for (const EngineParameterSpec& spec : engine.parameters) {
    JsonObject empty(none, "", "");
    std::visit([&](const auto& s) { out.push_back(declare(s, read(empty, s))); }, spec);
  }
  return out;
}

}  // namespace gpumux
