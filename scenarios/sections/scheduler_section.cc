// The `scheduler` section: queue policy and order, placement, backfill depth, retries.
#include "scenarios/sections/sections.h"
#include "sim/base/closest_names.h"
#include "sim/base/json_fields.h"
#include "sim/placement/fgd/pod_types.h"
#include "sim/placement/registry.h"
#include "sim/scheduling/registry.h"

namespace gpumux::scenario_sections {

namespace {

// The placement entry `name` denotes under the scenario's model; its name must be known, and a
// share-aware policy (sim/placement/share_placement.h) needs a model that admits fractional
// jobs and nodes it can mirror.
const PlacementInfo& resolved_placement(const Scenario& s, const std::string& name,
                                        const std::string& where) {
  const bool limits = s.model && s.model->limits_compute_shares();
  const PlacementInfo* info = resolve_placement(name, limits);
  if (!info) {
    throw InputError(where, "placement",
                     placement_policies().unknown_message(
                         name,
                         "the share-aware ones need a sharing model that admits fractional "
                         "jobs; `gpumux models` says what each does"));
  }
  if (info->needs == PlacementNeeds::kFractionalJobs && !s.model->admits_fractional_jobs()) {
    throw InputError(where, "placement",
                     "placement '" + name +
                         "' places jobs by their share of a GPU "
                         "(gpu_milli) and needs a sharing model that admits fractional jobs "
                         "(fractional, timeslice, mps); sharing model '" +
                         std::string(s.model->name()) + "' gives no GPU to several jobs");
  }
  if (info->share_aware) {
    for (const auto& n : s.nodes) {
      if (n.gpus > packing::kMaxGpusPerNode) {
        throw InputError(where, "placement",
                         "placement '" + name + "' handles nodes of at most " +
                             std::to_string(packing::kMaxGpusPerNode) + " GPUs; node '" + n.name +
                             "' has " + std::to_string(n.gpus));
      }
    }
  }
  return *info;
}

// The declared parameters' echo, as the sharing section echoes a model's.
nlohmann::json declared_echo(const ParameterSet& params) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : params.declared()) {
    nlohmann::json value = p.value;
    if (p.kind == ModelParameter::Kind::kSwitch) value = p.value != 0.0;
    if (p.kind == ModelParameter::Kind::kChoice) value = p.choice;
    out.push_back({{"name", p.name},
                   {"value", value},
                   {"unit", p.unit},
                   {"source", p.source},
                   {"description", p.description}});
  }
  return out;
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
  std::string placement = "first-fit";
  nlohmann::json params = nlohmann::json::object();
  bool params_given = false;
  if (root.has("scheduler")) {
    JsonObject sch = root.object("scheduler");
    const std::string queue = sch.optional_string("queue", "fifo");
    s.queue = &queue_policies().get(queue, sch.where("queue"), "queue");
    const std::string order = sch.optional_string("order", "arrival");
    try {
      s.order = parse_queue_order(order);
    } catch (const std::invalid_argument&) {
      throw InputError(
          sch.where("order"), "order",
          "unknown queue order '" + order + "' (valid: " + join_names(queue_order_names()) + ")");
    }
    if (s.order != QueueOrder::kArrival && !s.queue->takes_order) {
      throw InputError(sch.where("order"), "order",
                       "order '" + order + "' applies only to queue " + ordered_queues_text() +
                           " (queue is '" + queue + "'; the others keep arrival order)");
    }
    placement = sch.optional_string("placement", placement);
    s.placement = &resolved_placement(s, placement, sch.where("placement"));
    s.backfill_depth =
        static_cast<int>(sch.optional_int("backfill_depth", s.backfill_depth, 1, 1'000'000));
    s.retry_limit = static_cast<int>(sch.optional_int("retry_limit", s.retry_limit, 0, 1000));
    s.retry_delay =
        Time::from_seconds(sch.optional_number("retry_delay_s", s.retry_delay.seconds(), 0.0, 1e9));
    // The chosen policies' own parameters, read as models read sharing.params: each marks its
    // keys, and a key neither declares is an error.
    params_given = sch.has("params");
    if (params_given) params = sch.raw("params");
    JsonObject p(params, root.file(), "/scheduler/params");
    s.queue_params = read_queue_params(*s.queue, p);
    s.placement_params = read_placement_params(*s.placement, p);
    p.finish();
    sch.finish();
  } else {
    root.allow("scheduler");
    s.placement = &resolved_placement(s, placement, root.where("scheduler") + "/placement");
  }
  s.resolved["scheduler"] = {{"queue", std::string(s.queue->name)},
                             {"placement", placement},
                             {"backfill_depth", s.backfill_depth},
                             {"retry_limit", s.retry_limit},
                             {"retry_delay_s", s.retry_delay.seconds()}};
  // Only a queue that takes an order echoes it; other runs' summaries stay as they were.
  if (s.queue->takes_order) {
    s.resolved["scheduler"]["order"] = std::string(queue_order_name(s.order));
  }
  // scheduler.params only when the scenario gives it: other runs' summaries stay as they were.
  if (params_given) {
    nlohmann::json declared = declared_echo(s.queue_params);
    for (auto& p : declared_echo(s.placement_params)) declared.push_back(std::move(p));
    s.resolved["scheduler"]["params"] = params;
    s.resolved["scheduler"]["parameters"] = std::move(declared);
  }
}

}  // namespace gpumux::scenario_sections
