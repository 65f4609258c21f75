#include "sim/state/cluster.h"

#include <gtest/gtest.h>

#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

using testing::make_cluster;

TEST(Cluster, EmptyIndexTracksResidents) {
  Cluster c = make_cluster(3, 4);
  EXPECT_EQ(c.empty_gpus_total(), 12u);
  EXPECT_EQ(c.first_node_with_empty(4), NodeIndex{0});
  c.add_resident(0, 7, MemoryMiB(100));
  EXPECT_EQ(c.empty_gpus(0), 3);
  EXPECT_EQ(c.empty_gpus_total(), 11u);
  EXPECT_EQ(c.first_node_with_empty(4), NodeIndex{1});
  // Tightest: node 0 has 3 empty, the others 4.
  EXPECT_EQ(c.tightest_node_with_empty(1), NodeIndex{0});
  EXPECT_EQ(c.gpu(0).memory_used, MemoryMiB(100));
  // A second job on the same GPU does not change the empty count.
  c.add_resident(0, 8, MemoryMiB(50));
  EXPECT_EQ(c.empty_gpus(0), 3);
  c.remove_resident(0, 7, MemoryMiB(100));
  EXPECT_EQ(c.empty_gpus(0), 3);
  c.remove_resident(0, 8, MemoryMiB(50));
  EXPECT_EQ(c.empty_gpus(0), 4);
  EXPECT_EQ(c.gpu(0).memory_used, MemoryMiB(0));
  EXPECT_EQ(c.empty_gpus_total(), 12u);
}

TEST(Cluster, NoNodeWhenNoneHasEnoughEmpty) {
  Cluster c = make_cluster(2, 2);
  c.add_resident(0, 1, MemoryMiB(0));
  c.add_resident(2, 2, MemoryMiB(0));
  EXPECT_FALSE(c.first_node_with_empty(2).has_value());
  EXPECT_FALSE(c.tightest_node_with_empty(2).has_value());
  EXPECT_EQ(c.first_node_with_empty(1), NodeIndex{0});
}

TEST(Cluster, RemovingAJobThatIsNotThereIsALogicError) {
  Cluster c = make_cluster(1, 2);
  EXPECT_THROW(c.remove_resident(0, 3, MemoryMiB(0)), std::logic_error);
}

TEST(Cluster, ManyNodesCrossBitmapWords) {
  Cluster c = make_cluster(130, 1);
  for (GpuIndex g = 0; g < 129; ++g) c.add_resident(g, g, MemoryMiB(0));
  EXPECT_EQ(c.first_node_with_empty(1), NodeIndex{129});
}

}  // namespace
}  // namespace gpumux
