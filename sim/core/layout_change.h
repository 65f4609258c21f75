// A sharing model's requests to change a GPU's layout (MIG repartitioning): change it once the
// GPU is empty (Reconfiguration, possibly moving its residents off: MigrationPlan) or re-split
// it in place (Resplit). Asked through the LayoutChanges facet (sim/core/sharing_facets.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/base/units.h"

namespace gpumux {

// Queued jobs behind the head that LayoutChanges::plan_reconfiguration is shown.
inline constexpr std::size_t kReconfigurationLookahead = 64;

// How a reconfiguration empties its GPU when the model moves residents off it instead of
// waiting for them to finish (checkpoint-restart migration, sim/engine/engine_migration.cc). Each
// running resident that is not a service and would take longer to finish than to be moved
// (time left at its current rate > checkpoint_time + restart_time, or lost work + restart_time
// without a checkpoint) leaves the GPU and returns to the queue with its progress:
// - checkpoint = true: it stops progressing, spends `checkpoint_time` writing a checkpoint (its
//   instance stays held), then leaves with all its work kept;
// - checkpoint = false: it leaves at once and keeps only the work up to its last checkpoint
//   (JobSpec::checkpoint_interval, or an earlier migration's checkpoint); the rest is lost.
// Wherever it starts again, it spends `restart_time` restoring before it progresses.
struct MigrationPlan {
  bool enabled = false;  // false: drain (wait for every resident to finish)
  bool checkpoint = true;
  Time checkpoint_time;  // wall time per resident to write its checkpoint
  Time restart_time;     // wall time per restart to restore it
};

// A model's request to change one GPU's layout (see LayoutChanges::plan_reconfiguration).
struct Reconfiguration {
  std::uint32_t gpu = 0;
  int layout = 0;
  Time delay;  // time the change takes once the GPU is empty (e.g. longer when a reset is needed)
  MigrationPlan migration;  // residents moved off instead of drained (default: drained)
};

// A model's request to re-split a GPU in place (LayoutChanges::plan_resplit): its residents stay
// on it, each in the slot given here; a moved resident is checkpointed and restarted there and
// makes no progress for `pause`. The scratch vectors keep their storage between requests.
struct Resplit {
  int layout = 0;                   // the GPU's layout afterwards (may be its current one)
  std::vector<int> slots;           // per resident, in GpuView order: its slot afterwards
  std::vector<std::uint8_t> moved;  // per resident: nonzero when it is checkpointed and restarted
  Time pause;                       // wall time a moved resident makes no progress
  Time checkpoint;                  // of which writing its checkpoint (reported as migrations')
  // Wall time the GPU takes no new job while its instances are made (a changed layout); the
  // engine counts it as a reconfiguration in flight.
  Time unavailable;
};

}  // namespace gpumux
