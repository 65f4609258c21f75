#include "sim/scheduling/greedy_queue.h"

#include <algorithm>
#include <climits>

#include "sim/base/sorted_merge.h"

namespace gpumux {

namespace {
// The largest gang that can still start by GPU count: exact for models that need empty GPUs,
// unbounded for the others (a GPU with a resident may still admit a job).
long largest_gang(bool needs_empty_gpus, const Cluster& cluster) {
  return needs_empty_gpus ? static_cast<long>(cluster.empty_gpus_total()) : LONG_MAX;
}
// No GPU job can start and no CPU-only job waits: CPU-only jobs need no GPU, so a pass with
// none empty still looks at them.
bool nothing_can_start(long largest, const JobStarter& starter) {
  return largest <= 0 && starter.cpu_only_queued() == 0;
}
}  // namespace

void GreedyQueue::enqueue(JobSlot job, const JobTable& jobs, const JobStarter& starter) {
  QueueEntry entry = make_queue_entry(job, jobs, order_);
  if (starter.pooled()) {
    pool_queue_.push(pool_request(jobs[job].spec), std::move(entry));
  } else if (starter.by_kind()) {
    const auto [it, added] = by_kind_.try_emplace(starter.kind_of(jobs[job].spec));
    if (added) {
      it->second.gpus = jobs[job].spec.gpus;
      kinds_.push_back(&it->second);
    }
    it->second.entries.insert(std::move(entry));
  } else {
    by_gpus_[jobs[job].spec.gpus].insert(std::move(entry));
  }
}

void GreedyQueue::requeue(JobSlot job, const JobTable& jobs, const JobStarter& starter) {
  enqueue(job, jobs, starter);
}

void GreedyQueue::front(std::size_t n, std::vector<JobSlot>& out, const JobStarter& starter) const {
  out.clear();
  if (starter.pooled()) {
    pool_queue_.front(n, out);
    return;
  }
  // A merge of the per-size sets (sorted_merge.h).
  std::vector<std::pair<std::set<QueueEntry>::const_iterator, std::set<QueueEntry>::const_iterator>>
      at;
  for (const auto& [gpus, bucket] : by_gpus_) at.emplace_back(bucket.begin(), bucket.end());
  for (const KindGroup* g : kinds_) at.emplace_back(g->entries.begin(), g->entries.end());
  merge_front(
      std::move(at), n, [](const QueueEntry& e) { return e.slot; }, out);
}

bool GreedyQueue::head(JobSlot& out, const JobStarter& starter) const {
  if (starter.pooled()) return pool_queue_.head(out);
  // The earliest of the per-size sets' first entries.
  const QueueEntry* best = nullptr;
  for (const auto& [gpus, bucket] : by_gpus_) {
    if (!bucket.empty() && (best == nullptr || *bucket.begin() < *best)) best = &*bucket.begin();
  }
  for (const KindGroup* g : kinds_) {
    const auto& bucket = g->entries;
    if (!bucket.empty() && (best == nullptr || *bucket.begin() < *best)) best = &*bucket.begin();
  }
  if (best == nullptr) return false;
  out = best->slot;
  return true;
}

void GreedyQueue::schedule(const SchedulePass& pass, JobStarter& starter) {
  if (starter.pooled()) {
    pool_queue_.start_fitting(pass.cluster,
                              [&](JobSlot slot) { starter.launch_pooled(slot, pass.launcher); });
    return;
  }
  if (starter.by_kind()) {
    schedule_by_kind(pass, starter);
    return;
  }
  if (starter.queued() == 0) return;
  const Cluster& cluster = pass.cluster;
  const bool needs_empty_gpus = pass.model.requires_empty_gpu();
  long most = largest_gang(needs_empty_gpus, cluster);
  if (nothing_can_start(most, starter)) return;
  GpuViewBuilder views(cluster, pass.jobs);
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
    const JobSpec& spec = pass.jobs[candidate].spec;
    if (!starter.place_now(cluster, pass.model, views, spec)) {
      ++c.at;
      continue;
    }
    c.at = c.bucket->erase(c.at);
    starter.launch(candidate, spec, pass.launcher);
    most = largest_gang(needs_empty_gpus, cluster);
    if (nothing_can_start(most, starter)) return;
  }
}

void GreedyQueue::schedule_by_kind(const SchedulePass& pass, JobStarter& starter) {
  if (starter.queued() == 0) return;
  const Cluster& cluster = pass.cluster;
  const bool needs_empty_gpus = pass.model.requires_empty_gpu();
  long most = largest_gang(needs_empty_gpus, cluster);
  if (nothing_can_start(most, starter)) return;
  GpuViewBuilder views(cluster, pass.jobs);
  bool started_any = false;
  while (true) {
    // Each kind that may fit now offers its earliest job after the last start: the plain pass
    // would reach those in this order, and every job between them is of a kind that does not fit.
    candidates_.clear();
    for (KindGroup* g : kinds_) {
      if (g->entries.empty() || g->gpus > most) continue;
      if (starter.surely_refused(cluster, pass.model, views,
                                 pass.jobs[g->entries.begin()->slot].spec)) {
        continue;
      }
      const auto at = started_any ? g->entries.upper_bound(last_started_) : g->entries.begin();
      if (at != g->entries.end()) candidates_.push_back(Candidate{at, g});
    }
    std::sort(candidates_.begin(), candidates_.end(),
              [](const Candidate& a, const Candidate& b) { return *a.at < *b.at; });
    bool started = false;
    for (const Candidate& c : candidates_) {
      const JobSlot candidate = c.at->slot;
      const JobSpec& spec = pass.jobs[candidate].spec;
      if (!starter.place_now(cluster, pass.model, views, spec)) continue;
      last_started_ = *c.at;
      c.group->entries.erase(c.at);
      starter.launch(candidate, spec, pass.launcher);
      started = started_any = true;
      break;
    }
    if (!started) return;
    most = largest_gang(needs_empty_gpus, cluster);
    if (nothing_can_start(most, starter)) return;
  }
}

}  // namespace gpumux
