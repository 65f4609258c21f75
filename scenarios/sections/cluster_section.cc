// The `cluster` section: node groups or a nodes CSV, their devices, racks and CPUs.
#include "scenarios/sections/sections.h"

#include <algorithm>
#include <map>

#include "models/device_registry.h"
#include "sim/base/closest_names.h"
#include "sim/base/json_fields.h"
#include "traces/formats/openb_node_list.h"
#include "traces/io/csv_reader.h"

namespace gpumux::scenario_sections {

namespace {

constexpr int kDefaultNodesPerRack = 8;
// The most CPU cores a node may declare (far above any machine; keeps amounts in range).
constexpr double kMaxNodeCpus = 1e6;

// Devices used by the cluster, in first-use order; returns the index of `name`.
int device_index(Scenario& s, const DeviceRegistry& registry, const std::string& name,
                 const std::string& where) {
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    if (s.devices[i].name == name) return static_cast<int>(i);
  }
  s.devices.push_back(registry.get(name, where));
  return static_cast<int>(s.devices.size() - 1);
}

// What a CPU pool's echo names as its device when none is given.
constexpr const char* kNoDevice = "none";

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
    const int gpus = static_cast<int>(g.required_int("gpus_per_node", 0, 64));
    std::optional<double> cpus;
    if (g.has("cpus")) {
      cpus = g.required_number("cpus", 0.0, kMaxNodeCpus);
    } else {
      g.allow("cpus");
    }
    // A group without GPUs is a CPU pool: nodes of cores alone, for CPU-only jobs.
    const bool cpu_pool = gpus == 0;
    if (cpu_pool && !(cpus && *cpus > 0.0)) {
      throw InputError(g.where("gpus_per_node"), "gpus_per_node",
                       "a node group without GPUs is a CPU pool for CPU-only jobs and needs "
                       "'cpus' > 0 (CPU cores per node)");
    }
    // A CPU pool's device names no GPU: checked when given, never one of the cluster's devices.
    std::string device = kNoDevice;
    int dev = kNoDeviceIndex;
    if (!cpu_pool) {
      device = g.required_string("device");
      dev = device_index(s, registry, device, g.where("device"));
    } else if (g.has("device")) {
      device = g.required_string("device");
      registry.get(device, g.where("device"));
    }
    const bool nvlink = g.optional_bool("nvlink", true);
    const int per_rack =
        static_cast<int>(g.optional_int("nodes_per_rack", kDefaultNodesPerRack, 1, 1'000'000));
    g.allow("device");
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
  // Every column must be known, and given once: a misspelt one ("cpu" for "cpus") would
  // otherwise be ignored and its values lost without a word.
  const std::vector<std::string> known = {"name", "gpus", "device", "rack", "nvlink", "cpus"};
  std::map<std::string, int, std::less<>> col;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string& c = header[i];
    if (std::find(known.begin(), known.end(), c) == known.end()) {
      const auto near = closest_names(c, known, 1);
      throw InputError(path + ":1", c,
                       "unknown column" +
                           (near.empty() ? std::string() : " (did you mean '" + near[0] + "'?)") +
                           "; the columns are " + join_names(known) +
                           " (or the openb node list sn,cpu_milli,memory_mib,gpu,model)");
    }
    if (!col.emplace(c, static_cast<int>(i)).second) {
      throw InputError(path + ":1", c, "column given twice");
    }
  }
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

}  // namespace

void parse_cluster(Scenario& s, JsonObject& cluster, const std::string& base_dir) {
  DeviceRegistry registry = DeviceRegistry::with_builtins();
  nlohmann::json echo = nlohmann::json::object();
  if (cluster.has("devices")) {
    const auto& devices = cluster.raw("devices");
    if (!devices.is_array()) {
      throw InputError(cluster.where("devices"), "devices", "expected an array of device profiles");
    }
    // A second entry of one name would silently replace the first: refused, naming the second.
    std::map<std::string, std::size_t, std::less<>> defined;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      JsonObject d(devices[i], cluster.file(),
                   cluster.pointer("devices") + "/" + std::to_string(i));
      if (d.has("name") && d.raw("name").is_string()) {
        const std::string name = d.raw("name").get<std::string>();
        const auto [first, inserted] = defined.emplace(name, i);
        if (!inserted) {
          throw InputError(d.where("name"), "name",
                           "a second device named '" + name + "' (the first is " +
                               cluster.pointer("devices") + "/" + std::to_string(first->second) +
                               "); give each device once");
        }
      }
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
    parse_nodes_csv(s, registry, input_path(s.input_files, "cluster.nodes_csv", file, base_dir));
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

}  // namespace gpumux::scenario_sections
