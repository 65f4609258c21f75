#include "models/sharing_registry.h"

#include "models/exclusive_model.h"
#include "models/fractional/fractional_model.h"
#include "models/mig/mig_hybrid_model.h"
#include "models/mig/mig_model.h"
#include "models/mps/mps_model.h"
#include "models/timeslice/timeslice_model.h"

namespace gpumux {

std::vector<SharingModelInfo> sharing_models() {
  return {
      {"exclusive", "one job per GPU at full speed; the baseline for savings"},
      {"fractional",
       "Kubernetes-style fractional GPUs: per-job compute share (gpu_milli, sums to <= 1000 per "
       "GPU) and memory quota (memory_limit_mib, sums to <= device memory), enforced by a limiter "
       "(strict or work_conserving) on top of time-slicing; out of memory only past one's quota"},
      {"mig",
       "MIG: isolated instances from a static layout (scenario, per-index mig-parted file) or "
       "repartitioned among candidates; one job per instance, held while it runs; roofline rate; "
       "Kubernetes mixed/single strategies; GPUs without MIG stay whole",
       R"({"layout": ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]})"},
      {"mig+mps",
       "MPS inside MIG instances: one MPS server per instance shares it among jobs (inner MPS "
       "rates and admission on the instance), instances isolated, faults stay in their instance",
       R"({"layout": ["3g.20gb", "3g.20gb"], "inner": {"admission": "peak"}})"},
      {"mig+timeslice",
       "time-slicing inside MIG instances: jobs of one instance take turns (inner timeslice "
       "rates and admission on the instance), instances isolated",
       R"({"layout": ["3g.20gb", "3g.20gb"], "inner": {"admission": "memory"}})"},
      {"mps",
       "MPS: concurrent kernels share SMs (active-thread caps, contention term), no switches; "
       "memory not isolated: out of memory fails the asking client, a fatal fault tears down "
       "every client of the server"},
      {"timeslice",
       "time-slicing (the default for processes sharing a GPU): one context at a time, "
       "context-switch cost, ping-pong with short kernels; admission by memory or replicas"},
  };
}

std::unique_ptr<SharingModel> make_sharing_model(const std::string& name, JsonObject& params,
                                                 const std::string& where) {
  if (name == "exclusive") {
    params.finish();
    return std::make_unique<ExclusiveModel>();
  }
  if (name == "fractional") return std::make_unique<FractionalModel>(params);
  if (name == "timeslice") return std::make_unique<TimeSliceModel>(params);
  if (name == "mig") return std::make_unique<MigModel>(params);
  if (name == "mps") return std::make_unique<MpsModel>(params);
  if (name == "mig+mps") {
    return std::make_unique<MigHybridModel>(name, params, [](JsonObject& p) {
      return std::unique_ptr<SharingModel>(std::make_unique<MpsModel>(p));
    });
  }
  if (name == "mig+timeslice") {
    return std::make_unique<MigHybridModel>(name, params, [](JsonObject& p) {
      return std::unique_ptr<SharingModel>(std::make_unique<TimeSliceModel>(p));
    });
  }
  std::string valid;
  for (const auto& m : sharing_models()) valid += (valid.empty() ? "" : ", ") + m.name;
  throw InputError(where, "model", "unknown sharing model '" + name + "' (valid: " + valid + ")");
}

}  // namespace gpumux
