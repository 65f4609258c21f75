#include "sim/state/topology.h"

#include <gtest/gtest.h>

namespace gpumux {
namespace {

TEST(Topology, DerivesNodesAndRacksFromTheGraph) {
  // rack 0: node 0 (4 GPUs, NVLink), node 1 (2 GPUs, PCIe only); rack 1: node 2 (2 GPUs).
  const std::vector<TopologyNode> nodes = {{0, 4, true}, {0, 2, false}, {1, 2, true}};
  Topology t(nodes);
  ASSERT_EQ(t.gpu_count(), 8u);
  EXPECT_EQ(t.node_count(), 3u);
  EXPECT_EQ(t.rack_count(), 2u);
  EXPECT_EQ(t.node_of(0), 0u);
  EXPECT_EQ(t.node_of(3), 0u);
  EXPECT_EQ(t.node_of(4), 1u);
  EXPECT_EQ(t.node_of(7), 2u);
  EXPECT_EQ(t.first_gpu(1), 4u);
  EXPECT_EQ(t.rack_of_node(1), 0);
  EXPECT_EQ(t.rack_of_node(2), 1);
  EXPECT_EQ(t.nodes_in_rack(0), (std::vector<NodeIndex>{0, 1}));
}

TEST(Topology, LinkKindsFollowTheHierarchy) {
  const std::vector<TopologyNode> nodes = {{0, 4, true}, {0, 2, false}, {1, 2, true}};
  Topology t(nodes);
  EXPECT_EQ(t.link_between(0, 0), LinkKind::kSameGpu);
  EXPECT_EQ(t.link_between(0, 3), LinkKind::kNvlink);
  EXPECT_EQ(t.link_between(4, 5), LinkKind::kPcie);
  EXPECT_EQ(t.link_between(0, 4), LinkKind::kRackNetwork);
  EXPECT_EQ(t.link_between(0, 6), LinkKind::kClusterNetwork);
  const std::vector<GpuIndex> in_node = {0, 1, 2};
  const std::vector<GpuIndex> across_racks = {0, 1, 7};
  EXPECT_EQ(t.group_span(in_node), LinkKind::kNvlink);
  EXPECT_EQ(t.group_span(across_racks), LinkKind::kClusterNetwork);
  EXPECT_EQ(link_kind_name(LinkKind::kPcie), "pcie");
}

}  // namespace
}  // namespace gpumux
