#include "sim/scheduling/queue_entry.h"

#include <stdexcept>

namespace gpumux {

QueueOrder parse_queue_order(std::string_view name) {
  if (name == "arrival") return QueueOrder::kArrival;
  if (name == "shortest") return QueueOrder::kShortest;
  throw std::invalid_argument("unknown queue order '" + std::string(name) + "'");
}

std::string_view queue_order_name(QueueOrder order) {
  return order == QueueOrder::kArrival ? "arrival" : "shortest";
}

std::vector<std::string> queue_order_names() { return {"arrival", "shortest"}; }

bool QueueEntry::operator<(const QueueEntry& o) const {
  if (primary != o.primary) return primary < o.primary;
  if (submit != o.submit) return submit < o.submit;
  if (const int c = compare_job_ids(id_number, id, o.id_number, o.id); c != 0) return c < 0;
  return slot < o.slot;
}

QueueEntry make_queue_entry(JobSlot slot, const JobTable& jobs, QueueOrder order) {
  const JobSpec& spec = jobs[slot].spec;
  const JobIdNumber number(spec.id);
  // Shortest first breaks runtime ties by id alone, as the PAI simulator's SJF does.
  if (order == QueueOrder::kShortest)
    return QueueEntry{spec.runtime.us(), 0, spec.id, number, slot};
  return QueueEntry{0, spec.submit.us(), spec.id, number, slot};
}

}  // namespace gpumux
