// Rejections no cluster size cures. The planner grows every node group together, so a job the
// engine rejects because no GPU of the cluster could ever hold it (its memory over every GPU and
// instance, a gang where every GPU is split into instances, a CPU-only job with no CPU node) is
// rejected at every size, and rejected_jobs<=0 (always applied) fails at every size: searching
// on would only run the largest sizes for nothing. A gang larger than the cluster, or than the
// GPUs that admit it, is not of that kind: more nodes cure it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/plan/mig_layouts.h"
#include "analysis/run/rejection_tally.h"

namespace gpumux {

// Whether the engine's rejection `reason` (Engine::unplaceable_reason's words) holds at every
// size of the cluster.
bool rejected_at_every_size(std::string_view reason);

// The jobs rejected for such reasons.
std::uint64_t incurable_jobs(const std::vector<RejectionCount>& counts);

// Why, in words: "776 jobs rejected at every size: no GPU ... (needs up to 40960 MiB per GPU;
// the largest instance of layout 3g.40gb + ... holds 40192 MiB)". "" when none is incurable.
std::string incurable_text(const std::vector<RejectionCount>& counts,
                           const LayoutCapacity& capacity);

}  // namespace gpumux
