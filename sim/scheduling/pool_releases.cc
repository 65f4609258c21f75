#include "sim/scheduling/pool_releases.h"

namespace gpumux {

void PoolReleases::add(JobSlot slot, const ActiveJob& job) {
  entries_.insert(Entry{job.expected_finish, slot, job.version, pool_request(job.spec)});
}

void PoolReleases::drop_finished(Time now, const JobTable& jobs) {
  while (!entries_.empty() && entries_.begin()->finish <= now && !entries_.begin()->live(jobs)) {
    entries_.erase(entries_.begin());
  }
}

PoolReservation PoolReleases::reserve(const PoolAmount& need, const PoolAmount& free_now,
                                      const JobTable& jobs) {
  PoolAmount free = free_now;
  PoolReservation r;
  auto enough = [&] { return free.gpu >= need.gpu && free.cpu >= need.cpu; };
  auto settle = [&](Time when) {
    r.shadow = when;
    r.extra = PoolAmount{free.gpu - need.gpu, free.cpu - need.cpu};
  };
  if (enough()) {
    settle(Time::zero());
    return r;
  }
  auto it = entries_.begin();
  while (it != entries_.end()) {
    const Time when = it->finish;
    while (it != entries_.end() && it->finish == when) {
      if (!it->live(jobs)) {
        it = entries_.erase(it);
        continue;
      }
      free.gpu += it->amount.gpu;
      free.cpu += it->amount.cpu;
      ++it;
    }
    if (enough()) {
      settle(when);
      return r;
    }
  }
  return r;  // never enough: no backfill job may delay it beyond infinity, so all may start
}

}  // namespace gpumux
