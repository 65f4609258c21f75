#include "scenarios/scenario.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "models/device_registry.h"
#include "models/sharing_registry.h"
#include "sim/base/closest_names.h"
#include "sim/base/json_depth.h"
#include "sim/base/json_fields.h"
#include "sim/placement/fgd/pod_types.h"
#include "sim/placement/placement_registry.h"
#include "traces/formats/openb_node_list.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"
#include "traces/io/csv_reader.h"

namespace gpumux {

namespace fs = std::filesystem;

std::size_t Scenario::gpu_count() const {
  std::size_t n = 0;
  for (const auto& node : nodes) n += node.gpus;
  return n;
}

namespace {

constexpr int kDefaultNodesPerRack = 8;
// The most CPU cores a node may declare (far above any machine; keeps amounts in range).
constexpr double kMaxNodeCpus = 1e6;

std::string resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

// Devices used by the cluster, in first-use order; returns the index of `name`.
int device_index(Scenario& s, const DeviceRegistry& registry, const std::string& name,
                 const std::string& where) {
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    if (s.devices[i].name == name) return static_cast<int>(i);
  }
  s.devices.push_back(registry.get(name, where));
  return static_cast<int>(s.devices.size() - 1);
}

std::string too_many_gpus(std::int64_t total) {
  return "the cluster would have more than " + std::to_string(kMaxClusterGpus) + " GPUs (" +
         std::to_string(total) + " up to here), the most a run supports (docs/limits.md)";
}

void parse_node_groups(Scenario& s, const DeviceRegistry& registry, JsonObject& cluster,
                       nlohmann::json& echo) {
  const auto& groups = cluster.raw("node_groups");
  if (!groups.is_array() || groups.empty()) {
    throw InputError(cluster.where("node_groups"), "node_groups",
                     "expected a non-empty array of node groups");
  }
  int rack = 0;
  std::int64_t total_gpus = 0;
  echo["node_groups"] = nlohmann::json::array();
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    JsonObject g(groups[gi], cluster.file(),
                 cluster.pointer("node_groups") + "/" + std::to_string(gi));
    const std::string name = g.optional_string("name", "group" + std::to_string(gi));
    const int nodes = static_cast<int>(g.required_int("nodes", 1, 1'000'000));
    const int gpus = static_cast<int>(g.required_int("gpus_per_node", 1, 64));
    const std::string device = g.required_string("device");
    const int dev = device_index(s, registry, device, g.where("device"));
    const bool nvlink = g.optional_bool("nvlink", true);
    const int per_rack =
        static_cast<int>(g.optional_int("nodes_per_rack", kDefaultNodesPerRack, 1, 1'000'000));
    std::optional<double> cpus;
    if (g.has("cpus")) {
      cpus = g.required_number("cpus", 0.0, kMaxNodeCpus);
    } else {
      g.allow("cpus");
    }
    g.finish();
    total_gpus += std::int64_t{nodes} * gpus;
    if (total_gpus > kMaxClusterGpus) {
      throw InputError(g.where("nodes"), "nodes", too_many_gpus(total_gpus));
    }
    for (int n = 0; n < nodes; ++n) {
      s.nodes.push_back(
          NodeSpec{name + "-" + std::to_string(n), dev, gpus, rack + n / per_rack, nvlink, cpus});
    }
    rack += (nodes + per_rack - 1) / per_rack;
    echo["node_groups"].push_back({{"name", name},
                                   {"nodes", nodes},
                                   {"gpus_per_node", gpus},
                                   {"device", device},
                                   {"nvlink", nvlink},
                                   {"nodes_per_rack", per_rack}});
    if (cpus) echo["node_groups"].back()["cpus"] = *cpus;
  }
}

// A nodes CSV: native columns `name,gpus,device[,rack][,nvlink][,cpus]`, or the Alibaba openb
// node list `sn,cpu_milli,memory_mib,gpu,model` (traces/formats/openb_node_list.h; nodes without
// GPUs are counted and left out; cpu_milli / 1000 is the node's CPU cores). A ".gz" path is
// decompressed on the fly (the CSV reader's TextInput).
void parse_nodes_csv(Scenario& s, const DeviceRegistry& registry, const std::string& path) {
  CsvReader reader(path);
  std::vector<std::string> header, row;
  if (!reader.next(header)) throw InputError(path + ":1", "", "empty nodes file: no header");
  std::int64_t total_gpus = 0;
  const auto count_gpus = [&](int gpus, const std::string& where, const char* field) {
    total_gpus += gpus;
    if (total_gpus > kMaxClusterGpus) throw InputError(where, field, too_many_gpus(total_gpus));
  };
  if (is_openb_node_header(header)) {
    OpenbNodeReader openb(reader, header);
    OpenbNode node;
    std::size_t index = 0;
    while (openb.next(node)) {
      if (node.gpus == 0) {
        ++s.skipped_node_rows;
        continue;
      }
      const std::string where = reader.where();
      count_gpus(node.gpus, where, "gpu");
      const int dev = device_index(s, registry, node.model, where);
      const int rack = static_cast<int>(index / kDefaultNodesPerRack);
      if (node.cpu_milli > static_cast<std::int64_t>(kMaxNodeCpus) * 1000) {
        throw InputError(where, "cpu_milli",
                         "value " + std::to_string(node.cpu_milli) + " is outside [0, " +
                             std::to_string(static_cast<std::int64_t>(kMaxNodeCpus) * 1000) + "]");
      }
      // cpu_milli / 1000 is the node's CPU cores. The openb list says nothing about NVLink.
      const double cpus = static_cast<double>(node.cpu_milli) / 1000.0;
      s.nodes.push_back(NodeSpec{std::move(node.name), dev, node.gpus, rack, false, cpus});
      ++index;
    }
    if (s.nodes.empty()) throw InputError(path, "", "no node with GPUs in the nodes file");
    return;
  }
  std::map<std::string, int, std::less<>> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = static_cast<int>(i);
  for (const char* c : {"name", "gpus", "device"}) {
    if (!col.count(c)) {
      throw InputError(
          reader.where(), c,
          "required column is missing (expected name,gpus,device[,rack][,nvlink][,cpus] or "
          "the openb node list sn,cpu_milli,memory_mib,gpu,model)");
    }
  }
  std::map<std::string, int, std::less<>> racks;
  std::size_t index = 0;
  while (reader.next(row)) {
    const std::string where = reader.where();
    if (row.size() != header.size()) {
      throw InputError(where, "",
                       "expected " + std::to_string(header.size()) + " fields, got " +
                           std::to_string(row.size()));
    }
    const int gpus = static_cast<int>(parse_int_cell(row[col["gpus"]], where, "gpus", 0, 64));
    if (gpus == 0) {
      ++s.skipped_node_rows;
      continue;
    }
    count_gpus(gpus, where, "gpus");
    const int dev = device_index(s, registry, row[col["device"]], where);
    int rack = static_cast<int>(index / kDefaultNodesPerRack);
    if (col.count("rack")) {
      auto [it, inserted] = racks.emplace(row[col["rack"]], static_cast<int>(racks.size()));
      rack = it->second;
    }
    bool nvlink = true;
    if (col.count("nvlink")) {
      const std::string& v = row[col["nvlink"]];
      if (v != "true" && v != "false" && v != "1" && v != "0") {
        throw InputError(where, "nvlink", "expected true/false, got '" + v + "'");
      }
      nvlink = v == "true" || v == "1";
    }
    std::optional<double> cpus;
    if (col.count("cpus")) {
      cpus = parse_number_cell(row[col["cpus"]], where, "cpus", 0.0, kMaxNodeCpus);
    }
    s.nodes.push_back(NodeSpec{row[col["name"]], dev, gpus, rack, nvlink, cpus});
    ++index;
  }
  if (s.nodes.empty()) throw InputError(path, "", "no node with GPUs in the nodes file");
}

// The default device of a pool: the pool never asks a device anything (every job runs at full
// speed), it only names the GPUs in per-GPU outputs.
constexpr const char* kDefaultPoolDevice = "V100M32";

void parse_pool(Scenario& s, const DeviceRegistry& registry, JsonObject& cluster,
                nlohmann::json& echo) {
  JsonObject p = cluster.object("pool");
  PoolSpec pool;
  pool.gpus = static_cast<int>(p.required_int("gpus", 1, 10'000'000));
  pool.cpus_per_gpu = p.required_number("cpus_per_gpu", 0.0, 1e6);
  const std::string device = p.optional_string("device", kDefaultPoolDevice);
  const int dev = device_index(s, registry, device, p.where("device"));
  p.finish();
  // No NVLink mesh: nobody is placed on the pool's GPUs, and a mesh of thousands of GPUs would
  // be millions of topology links.
  s.nodes.push_back(NodeSpec{"pool", dev, pool.gpus, 0, false, std::nullopt});
  s.pool = pool;
  const PoolAmount capacity = pool_capacity(pool);
  echo["pool"] = {{"gpus", pool.gpus},
                  {"cpus_per_gpu", pool.cpus_per_gpu},
                  {"cpus", static_cast<double>(capacity.cpu) / 100.0},
                  {"device", device}};
}

void parse_cluster(Scenario& s, JsonObject& cluster, const std::string& base_dir) {
  DeviceRegistry registry = DeviceRegistry::with_builtins();
  nlohmann::json echo = nlohmann::json::object();
  if (cluster.has("devices")) {
    const auto& devices = cluster.raw("devices");
    if (!devices.is_array()) {
      throw InputError(cluster.where("devices"), "devices", "expected an array of device profiles");
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
      JsonObject d(devices[i], cluster.file(),
                   cluster.pointer("devices") + "/" + std::to_string(i));
      registry.define(d);
    }
  } else {
    cluster.allow("devices");
  }
  const bool groups = cluster.has("node_groups");
  const bool csv = cluster.has("nodes_csv");
  const bool pool = cluster.has("pool");
  if (static_cast<int>(groups) + static_cast<int>(csv) + static_cast<int>(pool) != 1) {
    throw InputError(cluster.where(), pool ? "pool" : "node_groups",
                     "give exactly one of 'node_groups', 'nodes_csv' or 'pool'");
  }
  if (pool) {
    parse_pool(s, registry, cluster, echo);
    cluster.allow("node_groups");
    cluster.allow("nodes_csv");
  } else if (groups) {
    cluster.allow("pool");
    parse_node_groups(s, registry, cluster, echo);
    cluster.allow("nodes_csv");
  } else {
    const std::string file = cluster.required_string("nodes_csv");
    parse_nodes_csv(s, registry, resolve_path(base_dir, file));
    echo["nodes_csv"] = file;
    echo["nodes"] = s.nodes.size();
    echo["skipped_node_rows_without_gpus"] = s.skipped_node_rows;
    cluster.allow("node_groups");
    cluster.allow("pool");
  }
  cluster.finish();
  echo["total_gpus"] = s.gpu_count();
  echo["devices"] = nlohmann::json::array();
  for (const auto& d : s.devices) echo["devices"].push_back(device_to_json(d));
  s.resolved["cluster"] = echo;
}

// A declared parameter's value as summary.json echoes it: a number, true / false for a switch,
// the chosen name for a choice.
nlohmann::json parameter_value(const ModelParameter& p) {
  switch (p.kind) {
    case ModelParameter::Kind::kSwitch:
      return p.value != 0.0;
    case ModelParameter::Kind::kChoice:
      return p.choice;
    case ModelParameter::Kind::kNumber:
      break;
  }
  return p.value;
}

void parse_sharing(Scenario& s, JsonObject& root, const std::string& base_dir) {
  std::string model = "exclusive";
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json echo_params = params;  // as written: paths stay relative in the summary
  std::string params_pointer = "/sharing/params";
  if (root.has("sharing")) {
    JsonObject sharing = root.object("sharing");
    model = sharing.optional_string("model", model);
    if (sharing.has("params")) {
      params = sharing.raw("params");
      echo_params = params;
      // A calibration file is relative to the scenario, like every other path.
      // Files named in the params are relative to the scenario, like every other path.
      for (const char* key : {"calibration", "mig_parted"}) {
        if (params.is_object() && params.contains(key) && params[key].is_string()) {
          params[key] = resolve_path(base_dir, params[key].get<std::string>());
        }
      }
    } else {
      sharing.allow("params");
    }
    JsonObject p(params, root.file(), params_pointer);
    s.model = make_sharing_model(model, p, sharing.where("model"));
    sharing.finish();
  } else {
    root.allow("sharing");
    JsonObject p(params, root.file(), params_pointer);
    s.model = make_sharing_model(model, p, root.where("sharing"));
  }
  if (s.pool && s.model->name() != "exclusive") {
    throw InputError(root.has("sharing") ? root.where("sharing") + "/model" : root.where("sharing"),
                     "model",
                     "a pooled cluster (cluster.pool) runs every job at full speed on its share "
                     "of the pool: sharing.model must be 'exclusive' (the default), got '" +
                         model + "'");
  }
  for (const auto& device : s.devices) s.model->check_device(device);
  std::vector<int> gpus_per_node(s.devices.size(), 0);
  for (const NodeSpec& n : s.nodes) {
    auto& most = gpus_per_node[static_cast<std::size_t>(n.device)];
    most = std::max(most, n.gpus);
  }
  s.model->check_cluster(s.devices, gpus_per_node);
  nlohmann::json declared = nlohmann::json::array();
  for (const auto& p : s.model->parameters()) {
    declared.push_back({{"name", p.name},
                        {"value", parameter_value(p)},
                        {"unit", p.unit},
                        {"source", p.source},
                        {"description", p.description}});
  }
  s.resolved["sharing"] = {{"model", model}, {"params", echo_params}, {"parameters", declared}};
}

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

void parse_trace(Scenario& s, JsonObject& root, const std::string& base_dir) {
  JsonObject trace = root.object("trace");
  nlohmann::json echo = nlohmann::json::object();
  if (trace.has("defaults")) {
    JsonObject d = trace.object("defaults");
    s.trace.defaults.override_from(d);
  } else {
    trace.allow("defaults");
  }
  if (trace.has("memory_profiles")) {
    JsonObject m = trace.object("memory_profiles");
    s.trace.memory_profiles = parse_memory_profiles(m, base_dir);
    echo["memory_profiles"] = s.trace.memory_profiles.echo;
  } else {
    trace.allow("memory_profiles");
  }
  const std::string lengths = trace.optional_string("kernel_lengths", "exponential");
  if (lengths != "exponential" && lengths != "fixed") {
    throw InputError(trace.where("kernel_lengths"), "kernel_lengths",
                     "expected 'exponential' or 'fixed', got '" + lengths + "'");
  }
  s.trace.fixed_kernel_lengths = lengths == "fixed";
  if (s.trace.fixed_kernel_lengths) echo["kernel_lengths"] = lengths;
  s.trace.integer_seconds = trace.optional_bool("integer_seconds", false);
  if (s.trace.integer_seconds) echo["integer_seconds"] = true;
  if (trace.has("arrival_batches")) {
    JsonObject b = trace.object("arrival_batches");
    s.trace.batch_jobs =
        static_cast<std::uint64_t>(b.required_int("jobs", 1, std::int64_t{1} << 40));
    s.trace.batch_every = Time::from_seconds(
        b.optional_number("every_s", s.trace.batch_every.seconds(), 0.0, kMaxInputSeconds));
    b.finish();
    echo["arrival_batches"] = {{"jobs", s.trace.batch_jobs},
                               {"every_s", s.trace.batch_every.seconds()}};
  } else {
    trace.allow("arrival_batches");
  }
  if (trace.has("inflation")) {
    JsonObject inf = trace.object("inflation");
    s.trace.inflation.load = inf.required_number("load", 1e-6, 100.0);
    s.trace.inflation.jobs =
        static_cast<std::uint64_t>(inf.optional_int("jobs", 0, 0, std::int64_t{1} << 32));
    s.trace.inflation.max_runtime =
        Time::from_seconds(inf.optional_number("max_runtime_s", 0.0, 0.0, kMaxInputSeconds));
    inf.finish();
    echo["inflation"] = {{"load", s.trace.inflation.load},
                         {"jobs", s.trace.inflation.jobs},
                         {"max_runtime_s", s.trace.inflation.max_runtime.seconds()}};
  } else {
    trace.allow("inflation");
  }
  const bool file = trace.has("file");
  const bool generator = trace.has("generator");
  if (file == generator) {
    throw InputError(trace.where(), "file", "give exactly one of 'file' or 'generator'");
  }
  if (file) {
    const std::string path = trace.required_string("file");
    s.trace.format = trace.optional_string("format", "csv");
    const auto formats = all_trace_format_names();
    if (std::find(formats.begin(), formats.end(), s.trace.format) == formats.end()) {
      throw InputError(
          trace.where("format"), "format",
          "unknown trace format '" + s.trace.format + "' (valid: " + join_names(formats) + ")");
    }
    s.trace.path = resolve_path(base_dir, path);
    if (!fs::exists(s.trace.path)) {  // a file, or a folder of tables (pai2020)
      throw InputError(trace.where("file"), "file", "trace file not found: " + s.trace.path);
    }
    echo["file"] = path;
    echo["format"] = s.trace.format;
    trace.allow("generator");
  } else {
    JsonObject g = trace.object("generator");
    s.trace.generated = true;
    s.trace.generator = GeneratorSpec::parse(g);
    echo["generator"] = s.trace.generator.to_json();
    trace.allow("file");
    trace.allow("format");
  }
  trace.finish();
  nlohmann::json defaults = nlohmann::json::object();
  for (const auto& f : job_fields()) {
    if (f.required) continue;
    defaults[std::string(f.name)] = {{"value", s.trace.defaults.value_json(f.field)},
                                     {"source", s.trace.defaults.source(f.field)}};
  }
  echo["defaults"] = defaults;
  s.resolved["trace"] = echo;
}

void parse_outputs(Scenario& s, JsonObject& root) {
  s.outputs.dir = "out/" + s.name;
  if (root.has("outputs")) {
    JsonObject o = root.object("outputs");
    s.outputs.dir = o.optional_string("dir", s.outputs.dir);
    s.outputs.timeseries_interval =
        Time::from_seconds(o.optional_number("timeseries_interval_s", 60.0, 1e-3, 1e9));
    s.outputs.jobs_csv = o.optional_bool("jobs_csv", true);
    s.outputs.timeseries_csv = o.optional_bool("timeseries_csv", true);
    s.outputs.exact_percentiles = o.optional_bool("exact_percentiles", false);
    o.finish();
  } else {
    root.allow("outputs");
  }
  // The output folder is left out: summary.json lives in it, and the same run written to two
  // folders must give byte-identical files.
  s.resolved["outputs"] = {{"timeseries_interval_s", s.outputs.timeseries_interval.seconds()},
                           {"jobs_csv", s.outputs.jobs_csv},
                           {"timeseries_csv", s.outputs.timeseries_csv}};
  // Echoed when asked for: summaries of runs that leave it at its default stay as they were.
  if (s.outputs.exact_percentiles) s.resolved["outputs"]["exact_percentiles"] = true;
}

void parse_faults(Scenario& s, JsonObject& root) {
  if (root.has("faults")) {
    JsonObject f = root.object("faults");
    s.fatal_faults_per_gpu_hour = f.optional_number("fatal_per_gpu_hour", 0.0, 0.0, 1e6);
    f.finish();
  } else {
    root.allow("faults");
  }
  s.resolved["faults"] = {{"fatal_per_gpu_hour", s.fatal_faults_per_gpu_hour}};
}

void parse_limits(Scenario& s, JsonObject& root) {
  nlohmann::json echo = nlohmann::json::object();
  if (root.has("limits")) {
    JsonObject l = root.object("limits");
    if (l.has("max_time_s")) {
      const double t = l.required_number("max_time_s", 0.0, 1e12);
      s.horizon = Time::from_seconds(t);
      echo["max_time_s"] = t;
    } else {
      l.allow("max_time_s");
    }
    l.finish();
  } else {
    root.allow("limits");
  }
  if (echo.empty()) echo["max_time_s"] = nullptr;
  s.resolved["limits"] = echo;
}

}  // namespace

Scenario parse_scenario(const nlohmann::json& document, const std::string& file,
                        const std::string& base_dir) {
  Scenario s;
  s.file = file;
  JsonObject root(document, file, "");
  s.name = root.optional_string("name", fs::path(file).stem().string());
  // The name becomes the default output folder out/<name>: it must stay one folder inside out/.
  if (s.name.empty() || s.name == "." || s.name == ".." ||
      s.name.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
    throw InputError(root.where("name"), "name",
                     "must be non-empty, not '.' or '..', and contain no path separator");
  }
  s.description = root.optional_string("description", "");
  s.seed = static_cast<std::uint64_t>(root.optional_int("seed", 1, 0, INT64_MAX));
  s.resolved["name"] = s.name;
  s.resolved["description"] = s.description;
  s.resolved["seed"] = s.seed;
  JsonObject cluster = root.object("cluster");
  parse_cluster(s, cluster, base_dir);
  parse_sharing(s, root, base_dir);
  parse_scheduler(s, root);
  parse_trace(s, root, base_dir);
  if (root.has("services")) {  // echoed only when given: summaries of other runs stay as they were
    JsonObject services = root.object("services");
    s.services = parse_services(services, base_dir);
    s.resolved["services"] = s.services.echo;
  } else {
    root.allow("services");
  }
  parse_outputs(s, root);
  parse_faults(s, root);
  parse_limits(s, root);
  s.expect = parse_expect(root);
  // Echoed only when given: summaries of runs without bounds stay as they were.
  if (!s.expect.empty()) s.resolved["expect"] = expect_echo(s.expect);
  root.finish();
  return s;
}

void apply_override(nlohmann::json& document, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set " + assignment, "",
                     "expected path=value, e.g. sharing.model=exclusive");
  }
  std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value;
  check_json_depth(text, "--set " + path);  // path: the text is too long to repeat
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    value = text;  // a bare word is a string
  } catch (const nlohmann::json::out_of_range&) {
    throw InputError("--set " + assignment, path, "number out of range (beyond +-1.8e308)");
  }
  if (path.front() != '/') {
    std::string pointer;
    std::size_t start = 0;
    while (start <= path.size()) {
      const auto dot = path.find('.', start);
      pointer +=
          "/" + path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    path = pointer;
  }
  try {
    document[nlohmann::json::json_pointer(path)] = value;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("--set " + assignment, path, std::string("cannot set: ") + e.what());
  }
}

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  nlohmann::json document = read_json_file(path);
  const std::string base = fs::path(path).parent_path().string();
  // Overrides address keys of objects; a document (or an --set result) of another shape is left
  // as it is, for parse_scenario to report.
  if (document.is_object()) {
    for (const auto& a : overrides.sets) apply_override(document, a);
  }
  if (!document.is_object()) return parse_scenario(document, path, base);
  if (overrides.seed) document["seed"] = *overrides.seed;
  if (overrides.out_dir) {
    nlohmann::json& outputs = document["outputs"];
    if (outputs.is_null()) outputs = nlohmann::json::object();
    if (outputs.is_object()) outputs["dir"] = *overrides.out_dir;
  }
  return parse_scenario(document, path, base);
}

}  // namespace gpumux
