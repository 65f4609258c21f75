// MigModel's re-split in place (`regrow`, "Re-split in place" in mig_model.h): when a job has
// finished on a MIG GPU, whether its residents finish sooner in total in another layout or in
// other instances of their own (or, by MISO's rule, run at a lower mean slowdown), and where
// each goes. MISO (SoCC'22) re-splits a GPU this way
// whenever a job ends, so that the jobs left grow into the room it freed; its static baseline
// moves a job into a larger instance its GPU frees. Kept apart from mig_model.cc (admission,
// slots, rates) and mig_repartition.cc (making room for a queued job), which never call it.
#include <algorithm>
#include <cstddef>
#include <limits>

#include "models/mig/measured_speed.h"
#include "models/mig/mig_model.h"

namespace gpumux {

namespace {
constexpr double kNever = std::numeric_limits<double>::infinity();
}  // namespace

bool MigModel::plan_resplit(const GpuView& gpu, std::span<const double> work_left_us,
                            const JobSpec* incoming, Resplit& out) const {
  const std::size_t n = gpu.residents.size();
  if (!params_.regrow || n == 0 || gpu.resident_slot.size() != n || work_left_us.size() != n) {
    return false;
  }
  const DeviceProfile& d = gpu.device;
  const Resolved& now_in = resolve(d, gpu.layout);
  if (!now_in.layout.mig_enabled) return false;  // a whole GPU holds one job: nothing to grow
  // After a job ended: a GPU whose instances are all held again (a waiting job took the one
  // freed) keeps its residents where they are.
  if (incoming == nullptr && n >= now_in.layout.instances.size()) return false;
  if (incoming != nullptr && incoming->gpus != 1) return false;
  // The jobs to place: the residents, then the incoming job (row n), which has not started.
  const std::size_t jobs = n + (incoming != nullptr ? 1 : 0);
  const auto job_at = [&](std::size_t k) -> const JobSpec& {
    return k < n ? *gpu.residents[k] : *incoming;
  };
  const auto work_at = [&](std::size_t k) {
    return k < n ? work_left_us[k] : static_cast<double>(incoming->runtime.us());
  };
  const double move_us =
      static_cast<double>((params_.regrow_checkpoint + params_.regrow_restart).us());
  const double remake_us = static_cast<double>(params_.reconfiguration_delay.us());
  const int layouts = params_.source == MigLayoutSource::kCandidates ? layout_count(d) : 1;
  // Each job's rate per profile of the device, computed when first needed: the layouts share
  // profiles, and a rate may come from the catalogue or the speed model.
  const std::size_t profiles = d.mig_profiles.size();
  regrow_rate_.assign(jobs * profiles, -1.0);
  const auto rate = [&](std::size_t k, int profile) {
    double& r = regrow_rate_[k * profiles + static_cast<std::size_t>(profile)];
    if (r < 0.0) {
      r = mig_job_rate(job_at(k), d, d.mig_profiles[static_cast<std::size_t>(profile)],
                       params_.speed);
    }
    return r;
  };
  // What a job in an instance of `profile` costs: its time left there (time_left), or its
  // slowdown there (mean_slowdown, MISO's rule: the sum stands for the mean, the job count being
  // fixed; what a job has left and what moving costs are not weighed).
  const bool by_slowdown = params_.regrow_objective == MigRegrowObjective::kMeanSlowdown;
  const bool layouts_change = params_.source == MigLayoutSource::kCandidates;
  const auto cost = [&](std::size_t k, int profile) {
    return by_slowdown ? 1.0 / rate(k, profile) : work_at(k) / rate(k, profile);
  };
  // One instance per job: always for an incoming job (as MISO, so that its instance is the one
  // left free), and after a job ended under MISO's rule where layouts may change (MISO re-splits
  // a GPU into as many instances as it has jobs left).
  const bool one_per_job = incoming != nullptr || (by_slowdown && layouts_change);
  // The total to beat. After a job ended: the residents' cost as things are, less the least gain
  // worth a move (MISO's rule with changing layouts keeps nothing: the current layout has an
  // instance too many). For an incoming job nothing is kept: the best layout that holds everyone
  // wins.
  double chosen_total = kNever;
  if (incoming == nullptr && !one_per_job) {
    double staying = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const auto slot = static_cast<std::size_t>(gpu.resident_slot[k]);
      staying += cost(k, now_in.profile[slot]);
    }
    chosen_total = staying - (by_slowdown ? kRegrowMinSlowdownGain : kRegrowMinGain);
  }
  int chosen = -1;
  for (int l = 0; l < layouts; ++l) {
    const int layout = params_.source == MigLayoutSource::kCandidates ? l : gpu.layout;
    const Resolved& r = resolve(d, layout);
    const std::size_t m = r.layout.instances.size();
    if (!r.layout.mig_enabled || m < jobs || (one_per_job && m != jobs)) continue;
    const bool same = layout == gpu.layout;
    // In a new layout every resident moves (its instances are made anew); in its own layout a
    // resident that keeps its instance pays nothing. The incoming job pays no move.
    const double pause = move_us + (same ? 0.0 : remake_us);
    regrow_cost_.assign(jobs * m, kNever);
    regrow_floor_.assign(jobs + 1, 0.0);
    regrow_profile_.assign(m, 0);
    for (std::size_t i = 0; i < m; ++i) {
      const bool held = same && std::find(gpu.resident_slot.begin(), gpu.resident_slot.end(),
                                          static_cast<int>(i)) != gpu.resident_slot.end();
      // Instances of one profile are interchangeable for a mover, unless a resident holds one.
      regrow_profile_[i] = held ? -1 : r.profile[i];
    }
    for (std::size_t k = 0; k < jobs; ++k) {
      double cheapest = kNever;
      for (std::size_t i = 0; i < m; ++i) {
        const MigProfile& p = instance_profile_of(d, r, static_cast<int>(i));
        if (!fits(d, p, job_at(k))) continue;
        const bool stays = k < n && same && gpu.resident_slot[k] == static_cast<int>(i);
        const double t =
            cost(k, r.profile[i]) + (stays || k >= n || by_slowdown ? 0.0 : pause);
        regrow_cost_[k * m + i] = t;
        cheapest = std::min(cheapest, t);
      }
      regrow_floor_[k] = cheapest;
    }
    for (std::size_t k = jobs; k-- > 0;) regrow_floor_[k] += regrow_floor_[k + 1];
    if (!(regrow_floor_[0] < chosen_total)) continue;  // cannot beat what is kept
    regrow_instances_ = m;
    regrow_used_.assign(m, 0);
    regrow_path_.assign(jobs, -1);
    regrow_best_total_ = chosen_total;
    regrow_best_.clear();
    search_regrow(0, 0.0);
    if (regrow_best_.empty()) continue;
    chosen = layout;
    chosen_total = regrow_best_total_;
    out.slots.assign(regrow_best_.begin(), regrow_best_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  if (chosen < 0) return false;
  const bool same = chosen == gpu.layout;
  out.moved.resize(n);
  bool any = false;
  for (std::size_t k = 0; k < n; ++k) {
    out.moved[k] = !same || out.slots[k] != gpu.resident_slot[k] ? 1 : 0;
    any = any || out.moved[k] != 0;
  }
  if (!any) return false;  // nothing to do (an incoming job would have had a free instance)
  out.layout = chosen;
  out.checkpoint = params_.regrow_checkpoint;
  out.unavailable = same ? Time::zero() : params_.reconfiguration_delay;
  out.pause = params_.regrow_checkpoint + params_.regrow_restart + out.unavailable;
  return true;
}

void MigModel::search_regrow(std::size_t k, double spent) const {
  const std::size_t n = regrow_path_.size(), m = regrow_instances_;
  if (k == n) {
    // Strictly better only: the first assignment found of an equal total stays.
    if (spent < regrow_best_total_) {
      regrow_best_total_ = spent;
      regrow_best_.assign(regrow_path_.begin(), regrow_path_.end());
    }
    return;
  }
  for (std::size_t i = 0; i < m; ++i) {
    const double t = regrow_cost_[k * m + i];
    if (regrow_used_[i] != 0 || t == kNever) continue;
    if (!(spent + t + regrow_floor_[k + 1] < regrow_best_total_)) continue;  // bound
    // An interchangeable instance after an untaken one of the same profile repeats a branch.
    bool repeat = false;
    if (regrow_profile_[i] >= 0) {
      for (std::size_t j = 0; j < i && !repeat; ++j) {
        repeat = regrow_used_[j] == 0 && regrow_profile_[j] == regrow_profile_[i];
      }
    }
    if (repeat) continue;
    regrow_used_[i] = 1;
    regrow_path_[k] = static_cast<int>(i);
    search_regrow(k + 1, spent + t);
    regrow_used_[i] = 0;
  }
}

}  // namespace gpumux
