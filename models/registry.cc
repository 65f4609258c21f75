#include "models/registry.h"

#include "models/exclusive_model.h"
#include "models/fractional/fractional_model.h"
#include "models/mig/mig_hybrid_model.h"
#include "models/mig/mig_model.h"
#include "models/mps/mps_model.h"
#include "models/timeslice/timeslice_model.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

template <typename Model>
std::unique_ptr<SharingModel> build(JsonObject& params) {
  return std::make_unique<Model>(params);
}

// MIG instances each shared by an inner model (mig+mps, mig+timeslice).
template <typename Inner>
std::unique_ptr<SharingModel> build_hybrid(const std::string& name, JsonObject& params) {
  return std::make_unique<MigHybridModel>(name, params, [](JsonObject& p) {
    return std::unique_ptr<SharingModel>(std::make_unique<Inner>(p));
  });
}

// The path-valued parameters of the models that read them.
constexpr PathSpec kCalibration{"calibration",
                                "a calibration file (`gpumux calibrate fit`) whose fitted values "
                                "replace the defaults"};
constexpr PathSpec kMigParted{"mig_parted", "a mig-parted config file naming the GPUs' layouts"};

}  // namespace

const Registry<SharingModelInfo>& sharing_models() {
  static const Registry<SharingModelInfo> table(
      "sharing model",
      {
          {"exclusive",
           "one job per GPU at full speed; the baseline for savings",
           "{}",
           [](JsonObject& params) -> std::unique_ptr<SharingModel> {
             params.finish();
             return std::make_unique<ExclusiveModel>();
           },
           {},
           {.device_sharing = DeviceSharing::kNone,
            .savings_baseline = true,
            .runs_on_pool = true}},
          {"fractional",
           "Kubernetes-style fractional GPUs: per-job compute share (gpu_milli, sums to <= 1000 "
           "per "
           "GPU) and memory quota (memory_limit_mib, sums to <= device memory), enforced by a "
           "limiter "
           "(strict or work_conserving) on top of time-slicing; out of memory only past one's "
           "quota",
           "{}",
           build<FractionalModel>,
           {},
           {.device_sharing = DeviceSharing::kNoEquivalent}},
          {"mig",
           "MIG: isolated instances from a static layout (scenario, per-index mig-parted file) or "
           "repartitioned among candidates; one job per instance, held while it runs; job speeds "
           "from the fitted duty-cycle model (measured ones from a workload catalogue; or the "
           "roofline); Kubernetes mixed/single strategies; GPUs without MIG stay whole",
           R"({"layout": ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]})",
           build<MigModel>,
           {kCalibration, kMigParted},
           {.device_sharing = DeviceSharing::kNone,
            .mig_instances = true,
            .fits_mig_speeds = true}},
          {"mig+mps",
           "MPS inside MIG instances: one MPS server per instance shares it among jobs (inner MPS "
           "rates and admission on the instance), instances isolated, faults stay in their "
           "instance",
           R"({"layout": ["3g.20gb", "3g.20gb"], "inner": {"admission": "peak"}})",
           [](JsonObject& params) { return build_hybrid<MpsModel>("mig+mps", params); },
           {kCalibration, kMigParted},
           {.device_sharing = DeviceSharing::kMps, .mig_instances = true}},
          {"mig+timeslice",
           "time-slicing inside MIG instances: jobs of one instance take turns (inner timeslice "
           "rates and admission on the instance), instances isolated",
           R"({"layout": ["3g.20gb", "3g.20gb"], "inner": {"admission": "memory"}})",
           [](JsonObject& params) { return build_hybrid<TimeSliceModel>("mig+timeslice", params); },
           {kCalibration, kMigParted},
           {.device_sharing = DeviceSharing::kTimeSlicing, .mig_instances = true}},
          {"mps",
           "MPS: concurrent kernels share SMs (active-thread caps, contention term), no switches; "
           "memory not isolated: out of memory fails the asking client, a fatal fault tears down "
           "every client of the server",
           "{}",
           build<MpsModel>,
           {kCalibration},
           {.device_sharing = DeviceSharing::kMps,
            .contention_form = ContentionForm::kConcurrent,
            .thread_cap_parameter = "active_thread_percentage"}},
          {"timeslice",
           "time-slicing (the default for processes sharing a GPU): one context at a time, "
           "context-switch cost, ping-pong with short kernels; admission by memory or replicas",
           "{}",
           build<TimeSliceModel>,
           {kCalibration},
           {.device_sharing = DeviceSharing::kTimeSlicing,
            .contention_form = ContentionForm::kTimeSlicing}},
      });
  return table;
}

std::unique_ptr<SharingModel> make_sharing_model(const std::string& name, JsonObject& params,
                                                 const std::string& where) {
  return sharing_models().get(name, where, "model").make(params);
}

SharingCapabilities capabilities_of(std::string_view name) {
  const SharingModelInfo* m = sharing_models().find(name);
  return m != nullptr ? m->capabilities : SharingCapabilities{};
}

const std::string& savings_baseline_model() {
  static const std::string name = [] {
    for (const auto& m : sharing_models()) {
      if (m.capabilities.savings_baseline) return m.name;
    }
    return std::string();
  }();
  return name;
}

std::vector<std::string> contention_model_names() {
  std::vector<std::string> names;
  for (const auto& m : sharing_models()) {
    if (m.capabilities.contention_form != ContentionForm::kNone) names.push_back(m.name);
  }
  return names;
}

const SharingModelInfo& contention_model(const std::string& name, const std::string& where,
                                         const std::string& field) {
  const SharingModelInfo& m = sharing_models().get(name, where, field);
  if (m.capabilities.contention_form == ContentionForm::kNone) {
    std::string valid;
    for (const std::string& n : contention_model_names()) valid += (valid.empty() ? "" : ", ") + n;
    throw InputError(where, field,
                     "'" + name + "' is not fitted on sharing measurements; valid: " + valid);
  }
  return m;
}

const SharingModelInfo* first_model_of(ContentionForm form) {
  for (const auto& m : sharing_models()) {
    if (m.capabilities.contention_form == form) return &m;
  }
  return nullptr;
}

const std::string& mig_speeds_model() {
  static const std::string name = [] {
    for (const auto& m : sharing_models()) {
      if (m.capabilities.fits_mig_speeds) return m.name;
    }
    return std::string();
  }();
  return name;
}

const SharingModelInfo* model_deployed_as(DeviceSharing sharing, bool mig_instances) {
  for (const auto& m : sharing_models()) {
    if (m.capabilities.device_sharing == sharing && m.capabilities.mig_instances == mig_instances) {
      return &m;
    }
  }
  return nullptr;
}

}  // namespace gpumux
