#include "sim/state/cluster.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace gpumux {

namespace {

std::vector<TopologyNode> topology_nodes(const std::vector<NodeSpec>& nodes) {
  std::vector<TopologyNode> out;
  out.reserve(nodes.size());
  for (const auto& n : nodes) out.push_back(TopologyNode{n.rack, n.gpus, n.nvlink});
  return out;
}

constexpr std::size_t kResidentReserve = 8;

// The capacity of a node without CPUs, in hundredths: more than any job asks (traces bound
// JobSpec::cpus at 10^9 cores, 10^11 hundredths), small enough that capacity x gang (a gang is
// at most kMaxClusterGpus < 2^21) stays within 64 bits.
constexpr std::int64_t kUntrackedCpu = std::int64_t{1} << 40;
// The most cores a node may declare (the same bound, so that products stay in range).
constexpr double kMaxNodeCpus = 1e9;

}  // namespace

std::int64_t job_cpu_hundredths(const JobSpec& job) { return round_half_even(100.0 * job.cpus); }

Cluster::Cluster(std::vector<DeviceProfile> devices, std::vector<NodeSpec> nodes,
                 std::optional<PoolSpec> pool)
    : devices_(std::move(devices)), nodes_(std::move(nodes)), topology_(topology_nodes(nodes_)) {
  if (pool) {
    if (nodes_.size() != 1 || nodes_[0].gpus != pool->gpus || pool->gpus < 1 ||
        !(pool->cpus_per_gpu >= 0.0)) {
      throw std::logic_error("cluster: a pool is one node of pool.gpus GPUs");
    }
    pooled_ = true;
    pool_capacity_ = gpumux::pool_capacity(*pool);
    pool_free_ = pool_capacity_;
  }
  gpus_.resize(topology_.gpu_count());
  changes_.reset(nodes_.size());
  open_room_.assign(gpus_.size(), kUnboundedRoom);  // available, room unbounded (GpuState's)
  empty_per_node_.resize(nodes_.size());
  while (room_leaves_ < nodes_.size()) room_leaves_ *= 2;
  room_tree_.assign(2 * room_leaves_, -std::numeric_limits<double>::infinity());
  // A node without GPUs has no room for a GPU job (node_room -infinity, as with none available).
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    if (nodes_[n].gpus > 0) room_tree_[room_leaves_ + n] = kUnboundedRoom;
  }
  for (std::size_t i = room_leaves_ - 1; i >= 1; --i) {
    room_tree_[i] = std::max(room_tree_[2 * i], room_tree_[2 * i + 1]);
  }
  for (const auto& n : nodes_) max_gpus_per_node_ = std::max(max_gpus_per_node_, n.gpus);
  {
    std::vector<int> gpus_per_node;
    std::vector<GpuIndex> first_gpu;
    std::vector<int> rack_of_node;
    for (NodeIndex n = 0; n < nodes_.size(); ++n) {
      gpus_per_node.push_back(nodes_[n].gpus);
      first_gpu.push_back(topology_.first_gpu(n));
      rack_of_node.push_back(topology_.rack_of_node(n));
    }
    room_classes_.reset(std::move(gpus_per_node), std::move(first_gpu), std::move(rack_of_node));
  }
  for (const auto& n : nodes_) tracks_cpus_ = tracks_cpus_ || (!pooled_ && n.cpus.has_value());
  if (tracks_cpus_) {
    cpu_capacity_.resize(nodes_.size());
    max_cpus_with_gpus_.assign(max_gpus_per_node_ + 1, -1);
    gpus_on_node_.assign(nodes_.size(), 0);
    for (NodeIndex n = 0; n < nodes_.size(); ++n) {
      const auto& cpus = nodes_[n].cpus;
      if (cpus && !(*cpus >= 0.0 && *cpus <= kMaxNodeCpus)) {
        throw std::logic_error("cluster: node CPUs out of range");
      }
      cpu_capacity_[n] = cpus ? round_half_even(100.0 * *cpus) : kUntrackedCpu;
      for (int k = 0; k <= nodes_[n].gpus; ++k) {
        max_cpus_with_gpus_[k] = std::max(max_cpus_with_gpus_[k], cpu_capacity_[n]);
      }
    }
    cpu_free_ = cpu_capacity_;
    while (cpu_leaves_ < nodes_.size()) cpu_leaves_ *= 2;
    cpu_tree_.assign(2 * cpu_leaves_, -1);
    for (NodeIndex n = 0; n < nodes_.size(); ++n) {
      if (!nodes_[n].cpus) continue;
      cpu_tree_[cpu_leaves_ + n] = cpu_capacity_[n];
      most_declared_capacity_ = std::max(most_declared_capacity_, cpu_capacity_[n]);
    }
    for (std::size_t i = cpu_leaves_ - 1; i >= 1; --i) {
      cpu_tree_[i] = std::max(cpu_tree_[2 * i], cpu_tree_[2 * i + 1]);
    }
  }
  empty_per_rack_.assign(topology_.rack_count(), 0);
  empty_buckets_.reset(nodes_.size(), max_gpus_per_node_);
  for (NodeIndex n = 0; n < nodes_.size(); ++n) {
    if (nodes_[n].gpus > 0 &&
        (nodes_[n].device < 0 || static_cast<std::size_t>(nodes_[n].device) >= devices_.size())) {
      throw std::logic_error("cluster: node device index out of range");
    }
    empty_per_node_[n] = nodes_[n].gpus;
    empty_per_rack_[static_cast<std::size_t>(topology_.rack_of_node(n))] += nodes_[n].gpus;
    empty_total_ += nodes_[n].gpus;
    empty_buckets_.add(n, nodes_[n].gpus);
    for (int i = 0; i < nodes_[n].gpus; ++i) {
      GpuState& g = gpus_[topology_.first_gpu(n) + i];
      g.node = n;
      g.device = nodes_[n].device;
      g.residents.reserve(kResidentReserve);
      g.rates.reserve(kResidentReserve);
      g.slots.reserve(kResidentReserve);
      g.asked.reserve(kResidentReserve);
      g.index_in_node = i;
    }
  }
}

void Cluster::pool_take(const PoolAmount& amount) {
  if (!pooled_ || !pool_fits(amount)) throw std::logic_error("cluster: pool amount does not fit");
  pool_free_.gpu -= amount.gpu;
  pool_free_.cpu -= amount.cpu;
}

void Cluster::pool_give(const PoolAmount& amount) {
  pool_free_.gpu += amount.gpu;
  pool_free_.cpu += amount.cpu;
  if (!pooled_ || pool_free_.gpu > pool_capacity_.gpu || pool_free_.cpu > pool_capacity_.cpu) {
    throw std::logic_error("cluster: pool given back more than it holds");
  }
}

namespace {

// floor(cores x gang / cpu): both at most 2^40 hundredths and gang < 2^21, so no overflow.
std::int64_t gpus_for(std::int64_t cores, std::int64_t cpu, int gang) {
  return cores * gang / cpu;
}

}  // namespace

std::int64_t Cluster::gpus_within_cpus(NodeIndex n, std::int64_t cpu, int gang) const {
  return gpus_for(cpu_free_[n], cpu, gang);
}

bool Cluster::cpus_could_fit(std::int64_t cpu, int gang) const {
  if (!tracks_cpus_ || cpu <= 0) return true;
  // One node holding the whole gang: the common answer, from the table.
  if (gang <= max_gpus_per_node_ && cpu <= max_cpus_with_gpus_[std::max(gang, 0)]) return true;
  if (gang <= 0) return false;
  // Spread over nodes: each node takes as many GPUs as its cores allow.
  std::int64_t gpus = 0;
  for (NodeIndex n = 0; n < nodes_.size() && gpus < gang; ++n) {
    gpus += std::min<std::int64_t>(nodes_[n].gpus, gpus_for(cpu_capacity_[n], cpu, gang));
  }
  return gpus >= gang;
}

void Cluster::change_cpus(std::span<const GpuIndex> gpus, std::int64_t cpu, int sign) {
  const auto gang = static_cast<std::int64_t>(gpus.size());
  if (gang == 0 || cpu <= 0) return;
  for (GpuIndex g : gpus) ++gpus_on_node_[gpus_[g].node];
  for (GpuIndex g : gpus) {
    const NodeIndex n = gpus_[g].node;
    const std::int64_t k = gpus_on_node_[n];
    if (k == 0) continue;  // this node's share is already counted
    gpus_on_node_[n] = 0;
    // ceil(cpu x k / gang): the node's share of the job's cores.
    const std::int64_t share = (cpu * k + gang - 1) / gang;
    set_cpu_free(n, cpu_free_[n] - sign * share);
  }
}

void Cluster::set_cpu_free(NodeIndex n, std::int64_t free) {
  changes_.touch(n);
  if (free < 0) throw std::logic_error("cluster: node CPUs taken beyond what is free");
  if (free > cpu_capacity_[n]) {
    throw std::logic_error("cluster: node CPUs given back beyond its capacity");
  }
  cpu_free_[n] = free;
  if (!nodes_[n].cpus) return;  // never a CPU-only job's node: not in the tree
  std::size_t i = cpu_leaves_ + n;
  cpu_tree_[i] = free;
  for (i /= 2; i >= 1; i /= 2) cpu_tree_[i] = std::max(cpu_tree_[2 * i], cpu_tree_[2 * i + 1]);
}

std::optional<NodeIndex> Cluster::first_node_with_cpu(std::int64_t cpu) const {
  if (!tracks_cpus_ || cpu_tree_[1] < cpu) return std::nullopt;
  // Descend to the leftmost leaf with enough: the left child whenever it has it.
  std::size_t i = 1;
  while (i < cpu_leaves_) i = cpu_tree_[2 * i] >= cpu ? 2 * i : 2 * i + 1;
  return static_cast<NodeIndex>(i - cpu_leaves_);
}

std::optional<NodeIndex> Cluster::tightest_node_with_cpu(std::int64_t cpu) const {
  if (!tracks_cpus_ || cpu_tree_[1] < cpu) return std::nullopt;
  std::optional<NodeIndex> best;
  for (NodeIndex n = 0; n < nodes_.size(); ++n) {
    const std::int64_t free = cpu_tree_[cpu_leaves_ + n];  // -1 for nodes without CPUs
    if (free >= cpu && (!best || free < cpu_tree_[cpu_leaves_ + *best])) best = n;
  }
  return best;
}

std::optional<NodeIndex> Cluster::roomiest_node_with_cpu(std::int64_t cpu) const {
  if (!tracks_cpus_ || cpu_tree_[1] < cpu) return std::nullopt;
  // Descend to the leftmost leaf holding the maximum.
  const std::int64_t most = cpu_tree_[1];
  std::size_t i = 1;
  while (i < cpu_leaves_) i = cpu_tree_[2 * i] == most ? 2 * i : 2 * i + 1;
  return static_cast<NodeIndex>(i - cpu_leaves_);
}

void Cluster::take_node_cpus(NodeIndex n, std::int64_t cpu) {
  if (!declares_cpus(n)) throw std::logic_error("cluster: CPU-only job on a node without CPUs");
  set_cpu_free(n, cpu_free_[n] - cpu);
}

void Cluster::give_node_cpus(NodeIndex n, std::int64_t cpu) {
  if (!declares_cpus(n)) throw std::logic_error("cluster: CPU-only job on a node without CPUs");
  set_cpu_free(n, cpu_free_[n] + cpu);
}

void Cluster::take_cpus(std::span<const GpuIndex> gpus, std::int64_t cpu) {
  if (tracks_cpus_) change_cpus(gpus, cpu, +1);
}

void Cluster::give_cpus(std::span<const GpuIndex> gpus, std::int64_t cpu) {
  if (tracks_cpus_) change_cpus(gpus, cpu, -1);
}

void Cluster::count_free(const GpuState& gpu, int delta) {
  const int before = empty_per_node_[gpu.node];
  empty_per_node_[gpu.node] += delta;
  empty_per_rack_[static_cast<std::size_t>(topology_.rack_of_node(gpu.node))] += delta;
  empty_total_ += delta;
  empty_buckets_.move(gpu.node, before, before + delta);
  if (load_order_.split()) load_order_.set_empty(gpu.node, before + delta);
}

void Cluster::add_resident(GpuIndex g, JobSlot job, MemoryMiB memory, int slot) {
  GpuState& gpu = gpus_[g];
  if (!gpu.available) throw std::logic_error("cluster: job placed on an unavailable GPU");
  changes_.touch(gpu.node);
  if (gpu.free()) count_free(gpu, -1);
  gpu.residents.push_back(job);
  gpu.rates.push_back(1.0);
  gpu.slots.push_back(slot);
  gpu.asked.push_back(1);  // a new process allocates its memory
  gpu.memory_used += memory;
  if (load_order_.tracked()) load_order_.change(gpu.node, 1, -memory.mib());
}

void Cluster::resplit(GpuIndex g, int layout, std::span<const int> slots) {
  GpuState& gpu = gpus_[g];
  if (slots.size() != gpu.residents.size()) {
    throw std::logic_error("cluster: a re-split must give every resident a slot");
  }
  changes_.touch(gpu.node);
  gpu.layout = layout;
  std::copy(slots.begin(), slots.end(), gpu.slots.begin());
}

void Cluster::mark_asked(GpuIndex g, JobSlot job) {
  GpuState& gpu = gpus_[g];
  const auto it = std::find(gpu.residents.begin(), gpu.residents.end(), job);
  if (it == gpu.residents.end()) throw std::logic_error("cluster: job is not on this GPU");
  changes_.touch(gpu.node);
  gpu.asked[static_cast<std::size_t>(it - gpu.residents.begin())] = 1;
}

void Cluster::set_available(GpuIndex g, bool available) {
  GpuState& gpu = gpus_[g];
  if (gpu.available == available) return;
  changes_.touch(gpu.node);
  const bool was_free = gpu.free();
  gpu.available = available;
  if (available) {
    --unavailable_total_;
  } else {
    ++unavailable_total_;
  }
  set_open_room(g, available ? gpu.room : std::numeric_limits<double>::quiet_NaN());
  if (was_free != gpu.free()) count_free(gpu, gpu.free() ? 1 : -1);
  update_node_room(gpu.node);
}

void Cluster::set_room(GpuIndex g, double room) {
  GpuState& gpu = gpus_[g];
  if (gpu.room == room) return;
  changes_.touch(gpu.node);
  gpu.room = room;
  if (gpu.available) set_open_room(g, room);
  update_node_room(gpu.node);
}

void Cluster::set_open_room(GpuIndex g, double open) {
  room_classes_.on_room_changed(gpus_[g].node, open_room_[g], open);
  open_room_[g] = open;
}

void Cluster::update_node_room(NodeIndex n) {
  double most = -std::numeric_limits<double>::infinity();
  const GpuIndex first = topology_.first_gpu(n);
  for (int i = 0; i < nodes_[n].gpus; ++i) {
    const GpuState& gpu = gpus_[first + static_cast<GpuIndex>(i)];
    if (gpu.available) most = std::max(most, gpu.room);
  }
  std::size_t i = room_leaves_ + n;
  if (room_tree_[i] == most) return;
  room_tree_[i] = most;
  for (i /= 2; i >= 1; i /= 2) room_tree_[i] = std::max(room_tree_[2 * i], room_tree_[2 * i + 1]);
}

void Cluster::remove_resident(GpuIndex g, JobSlot job, MemoryMiB memory) {
  GpuState& gpu = gpus_[g];
  auto it = std::find(gpu.residents.begin(), gpu.residents.end(), job);
  if (it == gpu.residents.end()) throw std::logic_error("cluster: job is not on this GPU");
  changes_.touch(gpu.node);
  gpu.rates.erase(gpu.rates.begin() + (it - gpu.residents.begin()));
  gpu.slots.erase(gpu.slots.begin() + (it - gpu.residents.begin()));
  gpu.asked.erase(gpu.asked.begin() + (it - gpu.residents.begin()));
  gpu.residents.erase(it);
  gpu.memory_used -= memory;
  if (load_order_.tracked()) load_order_.change(gpu.node, -1, memory.mib());
  if (gpu.residents.empty()) {
    if (gpu.available) count_free(gpu, +1);
    gpu.load = GpuLoad{};
  }
}

void Cluster::track_loads() const {
  std::vector<std::int64_t> residents(nodes_.size(), 0), free_mib(nodes_.size(), 0);
  for (const GpuState& gpu : gpus_) {
    residents[gpu.node] += static_cast<std::int64_t>(gpu.residents.size());
    free_mib[gpu.node] += (devices_[gpu.device].memory - gpu.memory_used).mib();
  }
  load_order_.reset(std::move(residents), std::move(free_mib));
}

const NodeLoadOrder& Cluster::nodes_by_load() const {
  if (!load_order_.tracked()) track_loads();
  if (!load_order_.ordered()) load_order_.keep_order();
  return load_order_;
}

std::optional<NodeIndex> Cluster::least_loaded_node_with_empty(int n) const {
  if (!load_order_.tracked()) track_loads();
  if (!load_order_.split()) load_order_.split_by_empty(empty_per_node_, max_gpus_per_node_);
  return load_order_.least_loaded_with_empty(n);
}

std::optional<NodeIndex> Cluster::first_node_with_empty(int n) const {
  return empty_buckets_.first_with_at_least(n);
}

std::optional<NodeIndex> Cluster::tightest_node_with_empty(int n) const {
  return empty_buckets_.tightest_with_at_least(n);
}

}  // namespace gpumux
