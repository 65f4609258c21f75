// The `scheduler` section: queue policy and order, placement, backfill depth, retries.
#include "scenarios/sections/sections.h"

#include "sim/base/closest_names.h"
#include "sim/base/json_fields.h"
#include "sim/placement/fgd/pod_types.h"
#include "sim/placement/placement_registry.h"
#include "sim/scheduling/queue_policy_table.h"

namespace gpumux::scenario_sections {

namespace {

// The placement name must be known, and a share-aware policy (sim/placement/share_placement.h)
// needs a model that admits fractional jobs and nodes it can mirror.
void check_placement(const Scenario& s, const std::string& where) {
  const bool limits = s.model && s.model->limits_compute_shares();
  const PlacementInfo* info = resolve_placement(s.placement, limits);
  if (!info) {
    throw InputError(where, "placement",
                     "unknown placement policy '" + s.placement +
                         "' (valid: " + placement_names_text() +
                         "; the share-aware ones need a sharing model that admits fractional "
                         "jobs; `gpumux models` says what each does)");
  }
  if (info->needs == PlacementNeeds::kFractionalJobs && !s.model->admits_fractional_jobs()) {
    throw InputError(where, "placement",
                     "placement '" + s.placement +
                         "' places jobs by their share of a GPU "
                         "(gpu_milli) and needs a sharing model that admits fractional jobs "
                         "(fractional, timeslice, mps); sharing model '" +
                         std::string(s.model->name()) + "' gives no GPU to several jobs");
  }
  if (info->share_aware) {
    for (const auto& n : s.nodes) {
      if (n.gpus > packing::kMaxGpusPerNode) {
        throw InputError(where, "placement",
                         "placement '" + s.placement + "' handles nodes of at most " +
                             std::to_string(packing::kMaxGpusPerNode) + " GPUs; node '" + n.name +
                             "' has " + std::to_string(n.gpus));
      }
    }
  }
}

// "'greedy'" (or "'a' or 'b'"): the queue policies that take an order, from their table.
std::string ordered_queues_text() {
  std::string text;
  for (const auto& p : queue_policies()) {
    if (!p.takes_order) continue;
    if (!text.empty()) text += " or ";
    text += "'" + std::string(p.name) + "'";
  }
  return text;
}

}  // namespace

void parse_scheduler(Scenario& s, JsonObject& root) {
  std::string queue = "fifo";
  if (root.has("scheduler")) {
    JsonObject sch = root.object("scheduler");
    queue = sch.optional_string("queue", queue);
    const QueuePolicyInfo* policy = find_queue_policy(queue);
    if (policy == nullptr) {
      throw InputError(
          sch.where("queue"), "queue",
          "unknown queue policy '" + queue + "' (valid: " + join_names(queue_policy_names()) + ")");
    }
    s.queue = queue;
    const std::string order = sch.optional_string("order", "arrival");
    try {
      s.order = parse_queue_order(order);
    } catch (const std::invalid_argument&) {
      throw InputError(
          sch.where("order"), "order",
          "unknown queue order '" + order + "' (valid: " + join_names(queue_order_names()) + ")");
    }
    if (s.order != QueueOrder::kArrival && !policy->takes_order) {
      throw InputError(sch.where("order"), "order",
                       "order '" + order + "' applies only to queue " + ordered_queues_text() +
                           " (queue is '" + queue + "'; the others keep arrival order)");
    }
    s.placement = sch.optional_string("placement", s.placement);
    check_placement(s, sch.where("placement"));
    s.backfill_depth =
        static_cast<int>(sch.optional_int("backfill_depth", s.backfill_depth, 1, 1'000'000));
    s.retry_limit = static_cast<int>(sch.optional_int("retry_limit", s.retry_limit, 0, 1000));
    s.retry_delay =
        Time::from_seconds(sch.optional_number("retry_delay_s", s.retry_delay.seconds(), 0.0, 1e9));
    sch.finish();
  } else {
    root.allow("scheduler");
  }
  s.resolved["scheduler"] = {{"queue", s.queue},
                             {"placement", s.placement},
                             {"backfill_depth", s.backfill_depth},
                             {"retry_limit", s.retry_limit},
                             {"retry_delay_s", s.retry_delay.seconds()}};
  // Only a queue that takes an order echoes it; other runs' summaries stay as they were.
  if (find_queue_policy(s.queue)->takes_order) {
    s.resolved["scheduler"]["order"] = std::string(queue_order_name(s.order));
  }
}

}  // namespace gpumux::scenario_sections
