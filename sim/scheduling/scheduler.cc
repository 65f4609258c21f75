#include "sim/scheduling/scheduler.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include "sim/core/job_order.h"
#include "sim/base/sorted_merge.h"

namespace gpumux {

QueuePolicy parse_queue_policy(std::string_view name) {
  if (name == "fifo") return QueuePolicy::kFifo;
  if (name == "fifo-backfill") return QueuePolicy::kFifoBackfill;
  if (name == "greedy") return QueuePolicy::kGreedy;
  throw std::invalid_argument("unknown queue policy '" + std::string(name) + "'");
}

std::string_view queue_policy_name(QueuePolicy policy) {
  switch (policy) {
    case QueuePolicy::kFifo:
      return "fifo";
    case QueuePolicy::kFifoBackfill:
      return "fifo-backfill";
    case QueuePolicy::kGreedy:
      return "greedy";
  }
  return "fifo";
}

std::vector<std::string> queue_policy_names() { return {"fifo", "fifo-backfill", "greedy"}; }

QueueOrder parse_queue_order(std::string_view name) {
  if (name == "arrival") return QueueOrder::kArrival;
  if (name == "shortest") return QueueOrder::kShortest;
  throw std::invalid_argument("unknown queue order '" + std::string(name) + "'");
}

std::string_view queue_order_name(QueueOrder order) {
  return order == QueueOrder::kArrival ? "arrival" : "shortest";
}

std::vector<std::string> queue_order_names() { return {"arrival", "shortest"}; }

Scheduler::Scheduler(QueuePolicy policy, std::unique_ptr<PlacementPolicy> placement,
                     int backfill_depth, QueueOrder order)
    : policy_(policy),
      placement_(std::move(placement)),
      backfill_depth_(backfill_depth),
      order_(order) {
  if (order_ == QueueOrder::kShortest && policy_ != QueuePolicy::kGreedy) {
    throw std::invalid_argument("queue order 'shortest' applies only to the 'greedy' queue");
  }
}

bool Scheduler::Entry::operator<(const Entry& o) const {
  if (primary != o.primary) return primary < o.primary;
  if (submit != o.submit) return submit < o.submit;
  if (const int c = compare_job_ids(id_number, id, o.id_number, o.id); c != 0) return c < 0;
  return slot < o.slot;
}

Scheduler::Entry Scheduler::entry_for(JobSlot job, const JobTable& jobs) const {
  const JobSpec& spec = jobs[job].spec;
  // Shortest first breaks runtime ties by id alone, as the PAI simulator's SJF does.
  const JobIdNumber number(spec.id);
  if (order_ == QueueOrder::kShortest) return Entry{spec.runtime.us(), 0, spec.id, number, job};
  return Entry{0, spec.submit.us(), spec.id, number, job};
}

void Scheduler::set_pooled(bool pooled) {
  if (queued_ != 0) throw std::logic_error("scheduler: set_pooled with jobs queued");
  pooled_ = pooled;
}

void Scheduler::count_in(const JobSpec& spec) {
  ++queued_;
  if (spec.gpus == 0 && !pooled_) ++cpu_only_queued_;
}

bool Scheduler::place_now(const Cluster& cluster, const SharingModel& model,
                          GpuViewBuilder& views, const JobSpec& spec) {
  if (spec.gpus != 0) return placement_->place(cluster, model, views, spec, chosen_);
  chosen_.clear();
  const auto node = placement_->place_cpu_only(cluster, job_cpu_hundredths(spec));
  if (!node) return false;
  chosen_node_ = *node;
  return true;
}

void Scheduler::launch(JobSlot job, const JobSpec& spec, Launcher& launcher) {
  --queued_;
  if (spec.gpus == 0) {
    --cpu_only_queued_;
    launcher.start_on_node(job, chosen_node_);
  } else {
    launcher.start(job, chosen_);
  }
}

void Scheduler::enqueue(JobSlot job, const JobTable& jobs) {
  count_in(jobs[job].spec);
  if (policy_ == QueuePolicy::kGreedy && pooled_) {
    Entry e = entry_for(job, jobs);
    pool_queue_.push(pool_request(jobs[job].spec),
                     PoolQueue::Entry{e.primary, e.submit, std::move(e.id), e.id_number, job});
    return;
  }
  if (policy_ == QueuePolicy::kGreedy) {
    by_gpus_[jobs[job].spec.gpus].insert(entry_for(job, jobs));
  } else {
    queue_.push_back(job);
  }
}

void Scheduler::requeue(JobSlot job, const JobTable& jobs) {
  if (policy_ == QueuePolicy::kGreedy) {
    enqueue(job, jobs);
    return;
  }
  count_in(jobs[job].spec);
  queue_.push_front(job);
}

void Scheduler::front(std::size_t n, std::vector<JobSlot>& out) const {
  out.clear();
  if (policy_ == QueuePolicy::kGreedy && pooled_) {
    pool_queue_.front(n, out);
    return;
  }
  if (policy_ != QueuePolicy::kGreedy) {
    const std::size_t k = std::min(n, queue_.size());
    out.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(k));
    return;
  }
  // A merge of the per-size sets (sorted_merge.h).
  std::vector<std::pair<std::set<Entry>::const_iterator, std::set<Entry>::const_iterator>> at;
  for (const auto& [gpus, bucket] : by_gpus_) at.emplace_back(bucket.begin(), bucket.end());
  merge_front(std::move(at), n, [](const Entry& e) { return e.slot; }, out);
}

void Scheduler::schedule_greedy(const Cluster& cluster, const SharingModel& model, JobTable& jobs,
                                Launcher& launcher) {
  if (queued_ == 0) return;
  const bool count_bound = model.requires_empty_gpu();
  // The largest gang that can fit by count: exact for models that need empty GPUs.
  auto bound = [&] {
    return count_bound ? static_cast<long>(cluster.empty_gpus_total()) : LONG_MAX;
  };
  long most = bound();
  // CPU-only jobs (size 0) need no GPU: a pass with none empty still looks at them.
  if (most <= 0 && cpu_only_queued_ == 0) return;
  GpuViewBuilder views(cluster, jobs);
  cursors_.clear();
  for (auto& [gpus, bucket] : by_gpus_) {
    if (gpus > most) break;  // the map is ordered by size
    if (!bucket.empty()) cursors_.push_back(Cursor{&bucket, bucket.begin(), gpus});
  }
  while (true) {
    // The earliest job, in queue order, among the sizes that can still fit.
    std::size_t best = cursors_.size();
    for (std::size_t i = 0; i < cursors_.size(); ++i) {
      const Cursor& c = cursors_[i];
      if (c.gpus > most || c.at == c.bucket->end()) continue;
      if (best == cursors_.size() || *c.at < *cursors_[best].at) best = i;
    }
    if (best == cursors_.size()) return;
    Cursor& c = cursors_[best];
    const JobSlot candidate = c.at->slot;
    const JobSpec& spec = jobs[candidate].spec;
    if (!place_now(cluster, model, views, spec)) {
      ++c.at;
      continue;
    }
    c.at = c.bucket->erase(c.at);
    launch(candidate, spec, launcher);
    most = bound();
    if (most <= 0 && cpu_only_queued_ == 0) return;
  }
}

void Scheduler::schedule(Time now, const Cluster& cluster, const SharingModel& model,
                         JobTable& jobs, const std::vector<JobSlot>& running, Launcher& launcher) {
  if (policy_ == QueuePolicy::kGreedy && pooled_) {
    pool_queue_.start_fitting(cluster, [&](JobSlot slot) {
      --queued_;
      launcher.start(slot, {});
    });
    return;
  }
  if (policy_ == QueuePolicy::kGreedy) {
    schedule_greedy(cluster, model, jobs, launcher);
    return;
  }
  if (pooled_) {
    schedule_pool_fifo(now, cluster, jobs, launcher);
    return;
  }
  GpuViewBuilder views(cluster, jobs);
  // Start jobs from the head while they fit.
  while (!queue_.empty()) {
    const JobSlot head = queue_.front();
    if (!place_now(cluster, model, views, jobs[head].spec)) break;
    queue_.pop_front();
    launch(head, jobs[head].spec, launcher);
  }
  if (policy_ != QueuePolicy::kFifoBackfill || queue_.size() < 2) return;
  // With no GPU empty only CPU-only jobs could start.
  if (model.requires_empty_gpu() && cluster.empty_gpus_total() == 0 && cpu_only_queued_ == 0) {
    return;
  }

  const ActiveJob& head = jobs[queue_.front()];
  Reservation reservation;
  bool reserved = false;
  // A head asking for node cores is reserved for by GPUs and cores (sim/state/core_reservation.h).
  const bool cores = cluster.tracks_cpus() && job_cpu_hundredths(head.spec) > 0;
  // Under models that need empty GPUs a gang larger than the empty count cannot fit: skipped
  // without asking the placement policy, and the pass ends when no GPU is empty. The
  // reservation test comes before placement too (both must pass; placement is the costly one).
  // The reservation is still computed before any backfill start of the pass, as before.
  const bool count_bound = model.requires_empty_gpu();
  const std::size_t depth = std::min<std::size_t>(queue_.size(), backfill_depth_ + 1);
  for (std::size_t i = 1; i < depth && i < queue_.size();) {
    const JobSlot candidate = queue_[i];
    const JobSpec& spec = jobs[candidate].spec;
    if (count_bound) {
      const auto empty = static_cast<long>(cluster.empty_gpus_total());
      if (empty == 0 && cpu_only_queued_ == 0) break;
      if (spec.gpus > empty) {
        ++i;
        continue;
      }
    }
    if (!reserved) {
      if (cores) {
        reservation.shadow = core_reservation_.reserve(head.spec, cluster, jobs, running);
      } else {
        reservation = reserve_for(head, cluster, jobs, running);
      }
      reserved = true;
    }
    const bool ends_before_shadow = now + spec.runtime <= reservation.shadow;
    if (cores) {
      // A job running past the shadow time must surely leave the head its GPUs and cores
      // (a bound, before the costly placement); once placed, where it went is counted.
      const std::int64_t cpu = job_cpu_hundredths(spec);
      if ((!ends_before_shadow && !core_reservation_.surely_spare(spec.gpus, cpu)) ||
          !place_now(cluster, model, views, spec)) {
        ++i;
        continue;
      }
      if (!ends_before_shadow) core_reservation_.hold(chosen_, chosen_node_, cpu);
    } else {
      // The head needs no cores: only GPUs can be spare (a CPU-only job always is).
      const bool spare = spec.gpus <= reservation.extra_gpus;
      if ((!ends_before_shadow && !spare) || !place_now(cluster, model, views, spec)) {
        ++i;
        continue;
      }
      if (!ends_before_shadow) reservation.extra_gpus -= spec.gpus;
    }
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    launch(candidate, spec, launcher);
  }
}

Scheduler::Reservation Scheduler::reserve_for(const ActiveJob& head, const Cluster& cluster,
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

void Scheduler::start_in_pool(JobSlot job, const JobTable& jobs, Launcher& launcher) {
  --queued_;
  launcher.start(job, {});
  if (policy_ == QueuePolicy::kFifoBackfill) pool_releases_.add(job, jobs[job]);
}

void Scheduler::schedule_pool_fifo(Time now, const Cluster& cluster, JobTable& jobs,
                                   Launcher& launcher) {
  while (!queue_.empty()) {
    const JobSlot head = queue_.front();
    if (!cluster.pool_fits(pool_request(jobs[head].spec))) break;
    queue_.pop_front();
    start_in_pool(head, jobs, launcher);
  }
  if (policy_ != QueuePolicy::kFifoBackfill) return;
  pool_releases_.drop_finished(now, jobs);
  if (queue_.size() < 2) return;
  const PoolAmount need = pool_request(jobs[queue_.front()].spec);
  PoolReservation reservation;
  bool reserved = false;
  const std::size_t depth = std::min<std::size_t>(queue_.size(), backfill_depth_ + 1);
  for (std::size_t i = 1; i < depth && i < queue_.size();) {
    const JobSlot candidate = queue_[i];
    const JobSpec& spec = jobs[candidate].spec;
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
      reservation = pool_releases_.reserve(need, cluster.pool_free(), jobs);
      reserved = true;
    }
    const bool ends_before_shadow = now + spec.runtime <= reservation.shadow;
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
    start_in_pool(candidate, jobs, launcher);
  }
}

}  // namespace gpumux
