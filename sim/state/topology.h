// The cluster's physical topology as a graph: cluster - racks - nodes - GPUs, with the kind of
// link on every edge (NVLink from each GPU to its node's NVSwitch when the node has one, PCIe
// from GPU and NVSwitch to node, network from node to rack and rack to cluster).
//
// Gang placement uses it to prefer the tightest group of GPUs: one node before one rack before
// the whole cluster. The graph is the source of truth while the topology is built: the per-GPU
// node/rack arrays are derived from it once (breadth-first from the cluster root), and only
// they are kept, so that placement's hot path reads arrays. The graph lives in topology.cc:
// Boost.Graph's headers cost every file that includes this one about 4 s of compile time.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace gpumux {

using GpuIndex = std::uint32_t;
using NodeIndex = std::uint32_t;

// Ordered from tightest to widest.
enum class LinkKind : std::uint8_t { kSameGpu, kNvlink, kPcie, kRackNetwork, kClusterNetwork };

std::string_view link_kind_name(LinkKind kind);

struct TopologyNode {
  int rack = 0;
  int gpu_count = 0;
  bool nvlink = false;  // GPUs of this node are all connected by NVLink (NVSwitch)
};

class Topology {
 public:
  // Nodes in order; GPUs are numbered node by node. Racks are 0..max(rack).
  explicit Topology(std::span<const TopologyNode> nodes);

  std::size_t gpu_count() const { return gpu_node_.size(); }
  std::size_t node_count() const { return node_first_gpu_.size(); }
  std::size_t rack_count() const { return rack_nodes_.size(); }
  NodeIndex node_of(GpuIndex gpu) const { return gpu_node_[gpu]; }
  int rack_of_node(NodeIndex node) const { return node_rack_[node]; }
  GpuIndex first_gpu(NodeIndex node) const { return node_first_gpu_[node]; }
  const std::vector<NodeIndex>& nodes_in_rack(int rack) const { return rack_nodes_[rack]; }

  // The kind of the widest link on the path between two GPUs (derived from the graph).
  LinkKind link_between(GpuIndex a, GpuIndex b) const;
  // The widest link any two GPUs of the group must cross (kSameGpu for a single GPU).
  LinkKind group_span(std::span<const GpuIndex> gpus) const;

 private:
  std::vector<NodeIndex> gpu_node_;
  std::vector<int> node_rack_;
  std::vector<std::uint8_t> node_nvlink_;  // the node has an NVSwitch linking all its GPUs
  std::vector<GpuIndex> node_first_gpu_;
  std::vector<std::vector<NodeIndex>> rack_nodes_;
};

}  // namespace gpumux
