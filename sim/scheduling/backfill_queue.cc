#include "sim/scheduling/backfill_queue.h"

#include <algorithm>

namespace gpumux {

void BackfillQueue::schedule(const SchedulePass& pass, JobStarter& starter) {
  if (starter.pooled()) {
    schedule_pooled(pass, starter);
    return;
  }
  GpuViewBuilder views(pass.cluster, pass.jobs);
  start_heads(pass, views, starter);
  if (queue_.size() < 2) return;
  // With no GPU empty only CPU-only jobs could start.
  if (pass.model.requires_empty_gpu() && pass.cluster.empty_gpus_total() == 0 &&
      starter.cpu_only_queued() == 0) {
    return;
  }
  backfill(pass, views, starter);
}

void BackfillQueue::backfill(const SchedulePass& pass, GpuViewBuilder& views, JobStarter& starter) {
  const Cluster& cluster = pass.cluster;
  const ActiveJob& head = pass.jobs[queue_.front()];
  Reservation reservation;
  bool reserved = false;
  // A head asking for node cores is reserved for by GPUs and cores (sim/state/core_reservation.h).
  const bool cores = cluster.tracks_cpus() && job_cpu_hundredths(head.spec) > 0;
  // Under models that need empty GPUs a gang larger than the empty count cannot fit: skipped
  // without asking the placement policy, and the pass ends when no GPU is empty. The
  // reservation test comes before placement too (both must pass; placement is the costly one).
  // The reservation is still computed before any backfill start of the pass.
  const bool count_bound = pass.model.requires_empty_gpu();
  const std::size_t depth = std::min<std::size_t>(queue_.size(), backfill_depth_ + 1);
  for (std::size_t i = 1; i < depth && i < queue_.size();) {
    const JobSlot candidate = queue_[i];
    const JobSpec& spec = pass.jobs[candidate].spec;
    if (count_bound) {
      const auto empty = static_cast<long>(cluster.empty_gpus_total());
      if (empty == 0 && starter.cpu_only_queued() == 0) break;
      if (spec.gpus > empty) {
        ++i;
        continue;
      }
    }
    if (!reserved) {
      if (cores) {
        reservation.shadow = core_reservation_.reserve(head.spec, cluster, pass.jobs, pass.running);
      } else {
        reservation = reserve_for(head, cluster, pass.jobs, pass.running);
      }
      reserved = true;
    }
    const bool ends_before_shadow = pass.now + spec.runtime <= reservation.shadow;
    if (cores) {
      // A job running past the shadow time must surely leave the head its GPUs and cores
      // (a bound, before the costly placement); once placed, where it went is counted.
      const std::int64_t cpu = job_cpu_hundredths(spec);
      if ((!ends_before_shadow && !core_reservation_.surely_spare(spec.gpus, cpu)) ||
          !starter.place_now(cluster, pass.model, views, spec)) {
        ++i;
        continue;
      }
      if (!ends_before_shadow) core_reservation_.hold(starter.chosen(), starter.chosen_node(), cpu);
    } else {
      // The head needs no cores: only GPUs can be spare (a CPU-only job always is).
      const bool spare = spec.gpus <= reservation.extra_gpus;
      if ((!ends_before_shadow && !spare) || !starter.place_now(cluster, pass.model, views, spec)) {
        ++i;
        continue;
      }
      if (!ends_before_shadow) reservation.extra_gpus -= spec.gpus;
    }
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    starter.launch(candidate, spec, pass.launcher);
  }
}

BackfillQueue::Reservation BackfillQueue::reserve_for(const ActiveJob& head, const Cluster& cluster,
                                                      const JobTable& jobs,
                                                      const std::vector<JobSlot>& running) {
  // Counts whole empty GPUs: exact for exclusive placement, an estimate under sharing models.
  long empty = static_cast<long>(cluster.empty_gpus_total());
  Reservation r;
  if (empty >= head.spec.gpus) {
    r.shadow = Time::zero();
    r.extra_gpus = empty - head.spec.gpus;
    return r;
  }
  releases_.clear();
  for (JobSlot s : running) {
    if (jobs[s].gpus.empty()) continue;  // a CPU-only job frees no GPU
    releases_.emplace_back(jobs[s].expected_finish, static_cast<int>(jobs[s].gpus.size()));
  }
  // Every release frees at least one GPU, so the answer lies among the `missing` earliest: order
  // only those (a full sort of every running job on every pass dominated shared-GPU runs).
  const auto missing = static_cast<std::size_t>(head.spec.gpus - empty);
  const auto ordered =
      releases_.begin() + static_cast<std::ptrdiff_t>(std::min(missing, releases_.size()));
  std::partial_sort(releases_.begin(), ordered, releases_.end());
  releases_.erase(ordered, releases_.end());
  for (const auto& [when, gpus] : releases_) {
    empty += gpus;
    if (empty >= head.spec.gpus) {
      r.shadow = when;
      r.extra_gpus = empty - head.spec.gpus;
      return r;
    }
  }
  return r;  // never enough: no backfill job may delay it beyond infinity, so all may start
}

namespace {

// Whether the job's pool amount is larger than `free` without rounding it: an amount x more than
// half a hundredth above a whole number F rounds above F. The backfill scan visits every queued
// job; most do not fit, and this saves them the rounding (pool_request).
bool surely_exceeds_free(const JobSpec& job, const PoolAmount& free) {
  const double share = job.gpus == 0 ? 0.0 : job.sm_share;
  return 100.0 * job.gpus * share > static_cast<double>(free.gpu) + 0.5 ||
         100.0 * job.cpus > static_cast<double>(free.cpu) + 0.5;
}

}  // namespace

void BackfillQueue::schedule_pooled(const SchedulePass& pass, JobStarter& starter) {
  const Cluster& cluster = pass.cluster;
  start_pool_heads(pass, starter, &pool_releases_);
  pool_releases_.drop_finished(pass.now, pass.jobs);
  if (queue_.size() < 2) return;
  const PoolAmount need = pool_request(pass.jobs[queue_.front()].spec);
  PoolReservation reservation;
  bool reserved = false;
  const std::size_t depth = std::min<std::size_t>(queue_.size(), backfill_depth_ + 1);
  for (std::size_t i = 1; i < depth && i < queue_.size();) {
    const JobSlot candidate = queue_[i];
    const JobSpec& spec = pass.jobs[candidate].spec;
    if (surely_exceeds_free(spec, cluster.pool_free())) {
      ++i;
      continue;
    }
    const PoolAmount amount = pool_request(spec);
    if (!cluster.pool_fits(amount)) {
      ++i;
      continue;
    }
    if (!reserved) {
      reservation = pool_releases_.reserve(need, cluster.pool_free(), pass.jobs);
      reserved = true;
    }
    const bool ends_before_shadow = pass.now + spec.runtime <= reservation.shadow;
    const bool spare = amount.gpu <= reservation.extra.gpu && amount.cpu <= reservation.extra.cpu;
    if (!ends_before_shadow && !spare) {
      ++i;
      continue;
    }
    if (!ends_before_shadow) {
      reservation.extra.gpu -= amount.gpu;
      reservation.extra.cpu -= amount.cpu;
    }
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    starter.launch_pooled(candidate, pass.launcher);
    pool_releases_.add(candidate, pass.jobs[candidate]);
  }
}

}  // namespace gpumux
