// The order of a queue that sorts its jobs (the greedy queue, sim/scheduling/greedy_queue.h) and
// the key it sorts by.
//
// `arrival` sorts by submit time, then job id (compare_job_ids); `shortest` by runtime alone
// (JobSpec::runtime), then job id: the PAI 2020 simulator's SJF key, duration then id, in
// which submit time plays no part. The slot only breaks exact ties (two jobs of one id).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/job_order.h"
#include "sim/state/job_table.h"

namespace gpumux {

enum class QueueOrder { kArrival, kShortest };

// Throws std::invalid_argument for an unknown name; valid: queue_order_names().
QueueOrder parse_queue_order(std::string_view name);
std::string_view queue_order_name(QueueOrder order);
std::vector<std::string> queue_order_names();

// A sorted queue's entry; ordered by (primary, submit, id, slot).
struct QueueEntry {
  std::int64_t primary = 0;  // runtime in us under kShortest, else 0
  std::int64_t submit = 0;   // us; 0 under kShortest
  std::string id;
  JobIdNumber id_number;  // id's key (sim/core/job_order.h), computed once
  JobSlot slot = 0;
  bool operator<(const QueueEntry& o) const;
};

// The entry of the job in `slot` (which must hold it) under `order`.
QueueEntry make_queue_entry(JobSlot slot, const JobTable& jobs, QueueOrder order);

}  // namespace gpumux
