// The `mig` model's settings as read from the scenario's `sharing.params` (the keys are listed in
// models/mig/mig_model.h): where each MIG GPU's layout comes from, how jobs find instances, and
// the repartitioning and migration costs. Reading checks every key against its range, finishes the
// object (an unknown key is an error) and builds the echo of each setting; whether a layout is
// valid on a device is checked later, when the model first meets the device (MigModel::layout_for),
// because only then is the device's MIG table known.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/mig/instance_rate.h"
#include "models/mig/mig_parted.h"
#include "sim/base/json_fields.h"
#include "sim/core/sharing_model.h"

namespace gpumux {

struct CalibrationKeys;

// How jobs find instances (`strategy`):
// - auto: gpumux places a job in the smallest free instance that holds its peak memory (and SMs
//   when compute-aware), or the requested profile when it names one and that profile holds it;
// - mixed (Kubernetes device plugin `mixed`): each instance is a `nvidia.com/mig-<profile>`
//   resource; only a job naming that profile lands on it; a job naming none requests
//   `nvidia.com/gpu` and runs on whole (MIG-off) GPUs only. The scheduler does not see memory:
//   a job larger than its instance is placed anyway and dies of out-of-memory there;
// - single (Kubernetes `single`): every MIG GPU of a node is split into one profile, every
//   instance advertised as `nvidia.com/gpu`; a job naming a profile goes only to GPUs split into
//   that profile (a node selector on the product label), others take any instance or whole GPU,
//   again blind to memory.
enum class MigStrategy : std::uint8_t { kAuto, kMixed, kSingle };

// Where the layouts come from: one `layout` list for every device type, a `layout` object per
// device type, a mig-parted config (`mig_parted` + `config`), or `layouts`, the candidates that
// repartitioning chooses among.
enum class MigLayoutSource : std::uint8_t { kList, kPerDevice, kMigParted, kCandidates };

// How a re-split in place is chosen (`regrow.objective`, mig_regrow.cc): the layout and
// instances that finish the GPU's jobs soonest in total, pauses counted and only for a gain (the
// default), or MISO's rule, the layout with one instance per job and the instances of least mean
// predicted slowdown at every job end, whatever moving costs.
enum class MigRegrowObjective : std::uint8_t { kTimeLeft, kMeanSlowdown };

struct MigParams {
  MigLayoutSource source = MigLayoutSource::kList;
  std::vector<std::string> layout;                                           // kList
  std::vector<std::pair<std::string, std::vector<std::string>>> per_device;  // kPerDevice
  MigPartedConfig mig_parted;                                                // kMigParted
  std::vector<std::vector<std::string>> candidates;  // kCandidates; [] = MIG off
  std::string layout_where;                          // where the layout was given, for errors
  bool compute_aware = false;
  double max_slowdown = 0.0;  // profile-guided sizing bound (x, >= 1); 0: off
  MigStrategy strategy = MigStrategy::kAuto;
  // Repartitioning (kCandidates only; the defaults are declared with the parameters in
  // mig_params.cc): simulated time to re-split an empty GPU, the time instead when MIG mode
  // toggles on Ampere, the time a changed GPU is left alone, and the waiting jobs behind the head
  // a target layout is scored on (at most kReconfigurationLookahead).
  Time reconfiguration_delay;
  Time reset_delay;
  Time hysteresis;
  int lookahead = 0;
  MigrationPlan migration;  // repartition.migration (enabled: move residents, not drain)
  // Re-split in place when a job finishes (`regrow`, any layout source; off without it): the
  // residents left may be checkpointed and restarted in larger instances of their GPU.
  bool regrow = false;
  Time regrow_checkpoint;  // regrow.checkpoint_s
  Time regrow_restart;     // regrow.restart_s
  MigRegrowObjective regrow_objective = MigRegrowObjective::kTimeLeft;  // regrow.objective
  MigSpeedParams speed;     // the job-speed model inside an instance
  // The echo of every setting, for SharingModel::parameters.
  std::vector<ModelParameter> declared;
};

// Reads and finishes `p`. Throws InputError naming the key (or the mig-parted file's line) when
// a value is out of range, a key unknown, or the layout sources or options contradict each other.
MigParams read_mig_params(JsonObject& p);

// The parameters a calibration file's "mig" fit gives (models/calibration_file.h).
const CalibrationKeys& mig_calibration_keys();

// The job-speed model's keys of `p` (`speed_model`, `width_base`, `width_per_bandwidth`, and
// `calibration`, a file from `gpumux calibrate mig-speeds fit` whose values replace the fitted
// defaults): reads them, marks them known and appends their echo to `echo`. Throws InputError
// naming the key or the calibration file's field.
MigSpeedParams read_mig_speed_params(JsonObject& p, std::vector<ModelParameter>& echo);

// Profile names joined with " + ", "(none)" for none: how layouts are echoed and named in errors.
std::string joined_profiles(const std::vector<std::string>& names);

}  // namespace gpumux
