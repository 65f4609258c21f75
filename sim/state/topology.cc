#include "sim/state/topology.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <stdexcept>

namespace gpumux {

std::string_view link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::kSameGpu:
      return "same-gpu";
    case LinkKind::kNvlink:
      return "nvlink";
    case LinkKind::kPcie:
      return "pcie";
    case LinkKind::kRackNetwork:
      return "rack-network";
    case LinkKind::kClusterNetwork:
      return "cluster-network";
  }
  return "unknown";
}

namespace {

struct VertexInfo {
  enum class Kind : std::uint8_t { kCluster, kRack, kNode, kNvSwitch, kGpu } kind;
  std::uint32_t index;
};
using Graph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo, LinkKind>;
using Vertex = Graph::vertex_descriptor;

// Records each vertex's BFS parent: the tree edge that first reached it.
template <typename Vertex>
class ParentRecorder : public boost::default_bfs_visitor {
 public:
  explicit ParentRecorder(std::vector<Vertex>& parent) : parent_(parent) {}
  template <typename Edge, typename Graph>
  void tree_edge(Edge e, const Graph& g) const {
    parent_[boost::target(e, g)] = boost::source(e, g);
  }

 private:
  std::vector<Vertex>& parent_;
};

}  // namespace

Topology::Topology(std::span<const TopologyNode> nodes) {
  int racks = 0;
  for (const auto& n : nodes) racks = std::max(racks, n.rack + 1);
  Graph graph;
  std::vector<Vertex> gpu_vertex;

  const Vertex root = boost::add_vertex(VertexInfo{VertexInfo::Kind::kCluster, 0}, graph);
  std::vector<Vertex> rack_vertex;
  for (int r = 0; r < racks; ++r) {
    rack_vertex.push_back(boost::add_vertex(
        VertexInfo{VertexInfo::Kind::kRack, static_cast<std::uint32_t>(r)}, graph));
    boost::add_edge(root, rack_vertex.back(), LinkKind::kClusterNetwork, graph);
  }
  std::uint32_t next_gpu = 0;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    const Vertex node = boost::add_vertex(VertexInfo{VertexInfo::Kind::kNode, n}, graph);
    boost::add_edge(rack_vertex[nodes[n].rack], node, LinkKind::kRackNetwork, graph);
    Vertex nvswitch = node;
    if (nodes[n].nvlink) {
      nvswitch = boost::add_vertex(VertexInfo{VertexInfo::Kind::kNvSwitch, n}, graph);
      boost::add_edge(node, nvswitch, LinkKind::kPcie, graph);
    }
    for (int g = 0; g < nodes[n].gpu_count; ++g) {
      const Vertex gpu = boost::add_vertex(VertexInfo{VertexInfo::Kind::kGpu, next_gpu++}, graph);
      boost::add_edge(node, gpu, LinkKind::kPcie, graph);
      // NVLink through the node's NVSwitch: one edge per GPU, not one per pair (a full mesh of
      // a 64-GPU node is 2,016 edges; on a million nodes, tens of GB).
      if (nodes[n].nvlink) boost::add_edge(nvswitch, gpu, LinkKind::kNvlink, graph);
      gpu_vertex.push_back(gpu);
    }
  }

  // Derive GPU -> node -> rack from the graph: BFS from the root reaches every GPU first
  // through its node (distance 3) before through its NVSwitch (distance 4).
  std::vector<Vertex> parent(boost::num_vertices(graph), root);
  boost::breadth_first_search(graph, root, boost::visitor(ParentRecorder<Vertex>(parent)));
  gpu_node_.resize(gpu_vertex.size());
  node_rack_.resize(nodes.size());
  node_first_gpu_.assign(nodes.size(), 0);
  rack_nodes_.assign(racks, {});
  for (std::size_t g = 0; g < gpu_vertex.size(); ++g) {
    const VertexInfo& node = graph[parent[gpu_vertex[g]]];
    if (node.kind != VertexInfo::Kind::kNode)
      throw std::logic_error("topology: GPU not under node");
    gpu_node_[g] = node.index;
  }
  node_nvlink_.assign(nodes.size(), 0);
  for (auto v : boost::make_iterator_range(boost::vertices(graph))) {
    if (graph[v].kind == VertexInfo::Kind::kNvSwitch) node_nvlink_[graph[parent[v]].index] = 1;
    if (graph[v].kind != VertexInfo::Kind::kNode) continue;
    const VertexInfo& rack = graph[parent[v]];
    node_rack_[graph[v].index] = static_cast<int>(rack.index);
  }
  for (std::size_t g = gpu_vertex.size(); g-- > 0;) node_first_gpu_[gpu_node_[g]] = g;
  for (NodeIndex n = 0; n < nodes.size(); ++n) rack_nodes_[node_rack_[n]].push_back(n);
}

LinkKind Topology::link_between(GpuIndex a, GpuIndex b) const {
  if (a == b) return LinkKind::kSameGpu;
  if (gpu_node_[a] == gpu_node_[b]) {
    return node_nvlink_[gpu_node_[a]] ? LinkKind::kNvlink : LinkKind::kPcie;
  }
  if (node_rack_[gpu_node_[a]] == node_rack_[gpu_node_[b]]) return LinkKind::kRackNetwork;
  return LinkKind::kClusterNetwork;
}

LinkKind Topology::group_span(std::span<const GpuIndex> gpus) const {
  LinkKind widest = LinkKind::kSameGpu;
  // Pairwise: gangs are tens of GPUs at most, and this runs once per started job.
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      widest = std::max(widest, link_between(gpus[i], gpus[j]));
      if (widest == LinkKind::kClusterNetwork) return widest;
    }
  }
  return widest;
}

}  // namespace gpumux
