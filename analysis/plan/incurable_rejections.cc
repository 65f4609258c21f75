#include "analysis/plan/incurable_rejections.h"

namespace gpumux {

bool rejected_at_every_size(std::string_view reason) {
  // The engine's reasons that depend on the device types and layouts only (sim/engine/engine.cc
  // Engine::unplaceable_reason); tests/analysis/plan_test.cc runs each kind through the planner.
  for (std::string_view prefix :
       {"no GPU of the cluster admits it", "CPU-only job (0 GPUs)", "gang size below 1"}) {
    if (reason.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

std::uint64_t incurable_jobs(const std::vector<RejectionCount>& counts) {
  std::uint64_t n = 0;
  for (const RejectionCount& c : counts) n += rejected_at_every_size(c.reason) ? c.jobs : 0;
  return n;
}

std::string incurable_text(const std::vector<RejectionCount>& counts,
                           const LayoutCapacity& capacity) {
  const std::uint64_t total = incurable_jobs(counts);
  if (total == 0) return "";
  std::string out =
      std::to_string(total) + (total == 1 ? " job" : " jobs") + " rejected at every size:";
  bool first = true;
  for (const RejectionCount& c : counts) {
    if (!rejected_at_every_size(c.reason)) continue;
    out += (first ? " " : "; ") + std::to_string(c.jobs) + " " + c.reason;
    first = false;
    if (c.reason.rfind("no GPU of the cluster admits it", 0) != 0) continue;
    const std::string where = capacity.name.empty() ? std::string("the largest GPU")
                              : capacity.whole_gpus
                                  ? "the largest whole GPU or instance of layout " + capacity.name
                                  : "the largest instance of layout " + capacity.name;
    out += " (needs up to " + std::to_string(c.most_memory.mib()) + " MiB per GPU; " + where +
           " holds " + std::to_string(capacity.largest.mib()) + " MiB";
    // Memory that fits points at the other cause: the profile the jobs ask for by name.
    if (c.profile_requests > 0) {
      out += "; " + std::to_string(c.profile_requests) + " of them request MIG profile " +
             c.profile + (c.profile_requests == c.jobs ? "" : " or others") +
             " by name, which the layout must hold";
    }
    if (c.most_gpus > 1 && !capacity.whole_gpus) {
      out += "; gangs of up to " + std::to_string(c.most_gpus) +
             " GPUs, and no GPU is whole (a gang never spans MIG instances)";
    }
    out += ")";
  }
  return out;
}

}  // namespace gpumux
