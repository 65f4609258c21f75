// Placement through the cluster's indexes against plain references that count every node from
// scratch: spread through the load order (Cluster::nodes_by_load, sim/state/node_load_order.h), kept
// in step with residents and memory; first-fit and best-fit for jobs asking for node CPUs
// through the empty-GPU and room indexes, capped by each node's free cores.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sim/placement/registry.h"
#include "sim/state/job_table.h"
#include "tests/sim/test_support.h"

namespace gpumux {
namespace {

// Admission by the room the test sets (Cluster::set_room), as a model with a room bound would
// give it. `decides`: whether the model says so (room_decides_admission; placement then counts
// by rooms alone) or leaves placement to ask admits per GPU. `empty_only`: exclusive GPUs.
class TestModel : public SharingModel, public RoomBound {
 public:
  TestModel(bool decides, bool empty_only) : decides_(decides), empty_only_(empty_only) {}
  std::string_view name() const override { return "test"; }
  bool admits(const GpuView& gpu, const JobSpec&) const override {
    return !empty_only_ || gpu.residents.empty();
  }
  void compute_rates(const GpuView&, std::span<double> rates, GpuLoad&) const override {
    std::fill(rates.begin(), rates.end(), 1.0);
  }
  bool requires_empty_gpu() const override { return empty_only_; }
  const RoomBound* room_bound() const override { return empty_only_ ? nullptr : this; }
  double gpu_room(const GpuView&) const override { return kUnboundedRoom; }  // the test sets it
  double job_need(const JobSpec& job) const override {
    return static_cast<double>(job.memory.mib());
  }
  bool room_decides_admission() const override { return decides_ && !empty_only_; }
  std::vector<ModelParameter> parameters() const override { return {}; }

 private:
  bool decides_;
  bool empty_only_;
};

std::vector<NodeSpec> random_nodes(std::mt19937_64& rng, bool cpus) {
  const int nodes = std::uniform_int_distribution<int>(1, 30)(rng);
  const int per_rack = std::uniform_int_distribution<int>(1, 6)(rng);
  std::vector<NodeSpec> specs;
  for (int n = 0; n < nodes; ++n) {
    NodeSpec s{"n" + std::to_string(n), 0, std::uniform_int_distribution<int>(1, 8)(rng),
               n / per_rack, true};
    if (cpus) s.cpus = static_cast<double>(rng() % 5) * 16.0;  // 0 .. 64 cores
    specs.push_back(s);
  }
  return specs;
}

// A cluster in motion: residents come and go, their memory changes, rooms and availability
// change.
struct Motion {
  Cluster& cluster;
  JobTable& jobs;
  std::mt19937_64& rng;
  std::vector<std::vector<std::pair<JobSlot, MemoryMiB>>> held;
  std::vector<std::pair<GpuIndex, std::int64_t>> cores;  // CPU hundredths taken, by GPU

  Motion(Cluster& c, JobTable& j, std::mt19937_64& r)
      : cluster(c), jobs(j), rng(r), held(c.gpu_count()) {}

  void step() {
    const GpuIndex g = static_cast<GpuIndex>(rng() % cluster.gpu_count());
    auto& on = held[g];
    switch (rng() % (cluster.tracks_cpus() ? 8 : 6)) {
      case 6: {  // cores taken on the GPU's node (by a job the test does not place)
        const std::int64_t cpu = static_cast<std::int64_t>(rng() % 4 + 1) * 400;
        if (cluster.cpu_free(cluster.gpu(g).node) >= cpu) {
          cluster.take_cpus(std::span<const GpuIndex>(&g, 1), cpu);
          cores.emplace_back(g, cpu);
        }
        break;
      }
      case 7:
        if (!cores.empty()) {
          const std::size_t i = rng() % cores.size();
          cluster.give_cpus(std::span<const GpuIndex>(&cores[i].first, 1), cores[i].second);
          cores.erase(cores.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      case 0:
      case 1:
        if (cluster.gpu(g).available) {
          const MemoryMiB m(static_cast<std::int64_t>(rng() % 4) * 1024);
          const JobSlot slot = jobs.acquire();
          jobs[slot].current_memory = m;
          cluster.add_resident(g, slot, m);
          on.emplace_back(slot, m);
        }
        break;
      case 2:
        if (!on.empty()) {
          const std::size_t i = rng() % on.size();
          cluster.remove_resident(g, on[i].first, on[i].second);
          jobs.release(on[i].first);
          on.erase(on.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      case 3:
        if (!on.empty()) {
          auto& [slot, memory] = on[rng() % on.size()];
          const MemoryMiB after(static_cast<std::int64_t>(rng() % 4) * 1024);
          cluster.change_memory(g, memory, after);
          memory = after;
          jobs[slot].current_memory = after;
        }
        break;
      case 4:
        cluster.set_room(g, static_cast<double>(rng() % 6) * 1000.0 - 1000.0);
        break;
      default:
        if (rng() % 4 == 0) cluster.set_available(g, !cluster.gpu(g).available);
        break;
    }
  }
};

// Load of a node from scratch: residents over its GPUs, free MiB over its GPUs.
std::pair<std::int64_t, std::int64_t> load_of(const Cluster& c, NodeIndex node) {
  std::int64_t residents = 0, free_mib = 0;
  const GpuIndex first = c.topology().first_gpu(node);
  for (int i = 0; i < c.node(node).gpus; ++i) {
    residents += static_cast<std::int64_t>(c.gpu(first + i).residents.size());
    free_mib += (c.device_of(first + i).memory - c.gpu(first + i).memory_used).mib();
  }
  return {residents, free_mib};
}

std::vector<NodeIndex> plain_load_order(const Cluster& c) {
  std::vector<std::tuple<std::int64_t, std::int64_t, NodeIndex>> keys;
  for (NodeIndex n = 0; n < c.node_count(); ++n) {
    const auto [residents, free_mib] = load_of(c, n);
    keys.emplace_back(residents, -free_mib, n);
  }
  std::sort(keys.begin(), keys.end());
  std::vector<NodeIndex> out;
  for (const auto& k : keys) out.push_back(std::get<2>(k));
  return out;
}

TEST(SpreadIndex, TheLoadOrderStaysInStepWithResidentsAndMemory) {
  std::mt19937_64 rng(7);
  int nodes_compared = 0, with_empty = 0;
  for (int round = 0; round < 100; ++round) {
    Cluster cluster({testing::test_device()}, random_nodes(rng, false));
    JobTable jobs;
    Motion motion(cluster, jobs, rng);
    for (int k = 0; k < 20; ++k) motion.step();  // some load before the order is first asked
    for (int check = 0; check < 30; ++check) {
      for (int k = 0; k < 10; ++k) motion.step();
      std::vector<NodeIndex> kept;
      cluster.nodes_by_load().visit([&](NodeIndex n) {
        kept.push_back(n);
        return true;
      });
      ASSERT_EQ(kept, plain_load_order(cluster)) << "round " << round << " check " << check;
      for (NodeIndex n = 0; n < cluster.node_count(); ++n) {
        const auto [residents, free_mib] = load_of(cluster, n);
        ASSERT_EQ(cluster.nodes_by_load().residents(n), residents);
        ASSERT_EQ(cluster.nodes_by_load().free_mib(n), free_mib);
      }
      // Split by empty GPUs (asked from the 10th check on, so that it is built mid-run).
      if (check >= 10) {
        const std::vector<NodeIndex> plain = plain_load_order(cluster);
        for (int n = 1; n <= 8; ++n) {
          std::optional<NodeIndex> want;
          for (NodeIndex node : plain) {
            if (cluster.empty_gpus(node) >= n) {
              want = node;
              break;
            }
          }
          ASSERT_EQ(cluster.least_loaded_node_with_empty(n), want)
              << "round " << round << " check " << check << " n " << n;
          with_empty += want.has_value();
        }
      }
      nodes_compared += static_cast<int>(kept.size());
    }
  }
  EXPECT_GT(nodes_compared, 20000);
  EXPECT_GT(with_empty, 3000);
}

TEST(SpreadIndex, AWalkStopsWhereVisitSaysSo) {
  Cluster cluster = testing::make_cluster(5, 2);
  cluster.add_resident(0, 0, MemoryMiB(1024));  // node 0 is the most loaded
  std::vector<NodeIndex> seen;
  cluster.nodes_by_load().visit([&](NodeIndex n) {
    seen.push_back(n);
    return seen.size() < 3;
  });
  EXPECT_EQ(seen, (std::vector<NodeIndex>{1, 2, 3}));
}

// The policies' choices from scratch (sim/placement/placement.h), counting every node. A GPU is usable
// when empty (empty-GPU admission) or when its open room reaches the job's memory; a node's
// usable GPUs are capped by its free cores when the job asks for node CPUs.
class PlainPlacement {
 public:
  PlainPlacement(const Cluster& c, const JobSpec& job, bool empty_only)
      : c_(c), n_(job.gpus), need_(static_cast<double>(job.memory.mib())),
        empty_only_(empty_only), usable_(c.node_count(), 0) {
    const std::int64_t cpu = c.tracks_cpus() ? job_cpu_hundredths(job) : 0;
    for (NodeIndex node = 0; node < c.node_count(); ++node) {
      const GpuIndex first = c.topology().first_gpu(node);
      std::int64_t k = 0;
      for (int i = 0; i < c.node(node).gpus; ++i) k += usable_gpu(first + i);
      if (cpu > 0 && k > 0) k = std::min(k, c.gpus_within_cpus(node, cpu, n_));
      usable_[node] = static_cast<int>(k);
    }
  }

  // Spread: the least-loaded node that holds the gang; else the rack with the most usable GPUs
  // (ties: lowest), else the whole cluster. Within a node, empty-GPU admission takes free GPUs
  // in index order, other admission the fewest residents, then the most free memory.
  std::optional<std::vector<GpuIndex>> spread() const {
    std::vector<GpuIndex> out;
    for (NodeIndex node : plain_load_order(c_)) {
      if (usable_[node] >= n_) {
        take(node, n_, Within::kLeastLoaded, out);
        return out;
      }
    }
    std::optional<std::size_t> rack;
    const std::vector<int> racks = rack_usable();
    for (std::size_t r = 0; r < racks.size(); ++r) {
      if (racks[r] >= n_ && (!rack || racks[r] > racks[*rack])) rack = r;
    }
    return across_nodes(rack, Within::kLeastLoaded);
  }

  // First-fit: the lowest node (rack) that holds the gang; best-fit: the one with the fewest
  // usable GPUs (ties: lowest), and within a node under shared admission the GPUs carrying the
  // most memory.
  std::optional<std::vector<GpuIndex>> fit(bool best) const {
    auto pick = [&](const std::vector<int>& counts) {
      std::optional<std::size_t> at;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] < n_) continue;
        if (!best) return std::optional<std::size_t>(i);
        if (!at || counts[i] < counts[*at]) at = i;
      }
      return at;
    };
    const Within within = best ? Within::kMostMemory : Within::kIndex;
    if (auto node = pick(usable_)) {
      std::vector<GpuIndex> out;
      take(static_cast<NodeIndex>(*node), n_, within, out);
      return out;
    }
    return across_nodes(pick(rack_usable()), within);
  }

 private:
  enum class Within { kIndex, kLeastLoaded, kMostMemory };

  bool usable_gpu(GpuIndex g) const {
    return empty_only_ ? c_.gpu(g).free() : c_.open_room(g) >= need_;
  }

  std::vector<int> rack_usable() const {
    std::vector<int> racks(c_.topology().rack_count(), 0);
    for (NodeIndex node = 0; node < c_.node_count(); ++node) {
      racks[c_.topology().rack_of_node(node)] += usable_[node];
    }
    return racks;
  }

  void take(NodeIndex node, int count, Within within, std::vector<GpuIndex>& out) const {
    std::vector<GpuIndex> gpus;
    const GpuIndex first = c_.topology().first_gpu(node);
    for (int i = 0; i < c_.node(node).gpus; ++i) {
      if (usable_gpu(first + i)) gpus.push_back(first + i);
    }
    if (!empty_only_ && within == Within::kLeastLoaded) {
      std::sort(gpus.begin(), gpus.end(), [&](GpuIndex a, GpuIndex b) {
        const auto key = [&](GpuIndex g) {
          return std::make_tuple(c_.gpu(g).residents.size(),
                                 -(c_.device_of(g).memory - c_.gpu(g).memory_used).mib(), g);
        };
        return key(a) < key(b);
      });
    }
    if (!empty_only_ && within == Within::kMostMemory) {
      std::stable_sort(gpus.begin(), gpus.end(), [&](GpuIndex a, GpuIndex b) {
        return c_.gpu(a).memory_used > c_.gpu(b).memory_used;
      });
    }
    out.insert(out.end(), gpus.begin(), gpus.begin() + count);
  }

  // A gang no node holds: the rack's nodes (or the whole cluster's), most usable first.
  std::optional<std::vector<GpuIndex>> across_nodes(std::optional<std::size_t> rack,
                                                    Within within) const {
    std::vector<NodeIndex> nodes;
    if (rack) {
      nodes = c_.topology().nodes_in_rack(static_cast<int>(*rack));
    } else {
      for (NodeIndex node = 0; node < c_.node_count(); ++node) nodes.push_back(node);
    }
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](NodeIndex a, NodeIndex b) { return usable_[a] > usable_[b]; });
    std::vector<GpuIndex> out;
    int left = n_;
    for (NodeIndex node : nodes) {
      const int count = std::min(left, usable_[node]);
      if (count == 0) continue;
      take(node, count, within, out);
      left -= count;
      if (left == 0) return out;
    }
    return std::nullopt;
  }

  const Cluster& c_;
  int n_;
  double need_;
  bool empty_only_;
  std::vector<int> usable_;
};

struct Case {
  const char* name;
  bool decides;
  bool empty_only;
  bool cpus;
};

TEST(SpreadIndex, PlacementChoosesAsRankingEveryNodeDoes) {
  const Case cases[] = {{"room decides", true, false, false},
                        {"room bounds, admits asked", false, false, false},
                        {"empty GPUs", false, true, false},
                        {"room decides, node CPUs", true, false, true},
                        {"empty GPUs, node CPUs", false, true, true}};
  std::mt19937_64 rng(43);
  for (const Case& c : cases) {
    const TestModel model(c.decides, c.empty_only);
    int placed_count = 0, single_node = 0, refused = 0;
    for (int round = 0; round < 60; ++round) {
      Cluster cluster({testing::test_device()}, random_nodes(rng, c.cpus));
      JobTable jobs;
      GpuViewBuilder views(cluster, jobs);
      Motion motion(cluster, jobs, rng);
      auto spread = make_placement_policy("spread");
      for (int step = 0; step < 40; ++step) {
        for (int k = 0; k < 6; ++k) motion.step();
        JobSpec j = testing::job("j", 0, std::uniform_int_distribution<int>(1, 12)(rng), 1);
        j.memory = MemoryMiB(static_cast<std::int64_t>(rng() % 5) * 1000);
        if (c.cpus) j.cpus = static_cast<double>(rng() % 4) * 4.0;  // 0 .. 12 cores
        std::vector<GpuIndex> got;
        const bool placed = spread->place(cluster, model, views, j, got);
        const auto want = PlainPlacement(cluster, j, c.empty_only).spread();
        ASSERT_EQ(placed, want.has_value()) << c.name << " round " << round << " step " << step;
        if (!placed) {
          ++refused;
          continue;
        }
        ASSERT_EQ(got, *want) << c.name << " round " << round << " step " << step;
        ++placed_count;
        single_node += cluster.gpu(got.front()).node == cluster.gpu(got.back()).node;
      }
    }
    // Every path is exercised: one node, across nodes, and no room at all.
    EXPECT_GT(single_node, 300) << c.name;
    EXPECT_GT(placed_count - single_node, 50) << c.name;
    EXPECT_GT(refused, 50) << c.name;
  }
}

TEST(CpuPlacementIndex, FirstAndBestFitChooseAsCountingEveryNodeDoes) {
  const Case cases[] = {{"room decides, node CPUs", true, false, true},
                        {"empty GPUs, node CPUs", false, true, true},
                        {"room bounds, admits asked, node CPUs", false, false, true}};
  std::mt19937_64 rng(47);
  for (const Case& c : cases) {
    for (const bool best : {false, true}) {
      const TestModel model(c.decides, c.empty_only);
      int placed_count = 0, single_node = 0, refused = 0, cores_bound = 0;
      for (int round = 0; round < 60; ++round) {
        Cluster cluster({testing::test_device()}, random_nodes(rng, c.cpus));
        JobTable jobs;
        GpuViewBuilder views(cluster, jobs);
        Motion motion(cluster, jobs, rng);
        auto policy = make_placement_policy(best ? "best-fit" : "first-fit");
        for (int step = 0; step < 40; ++step) {
          for (int k = 0; k < 6; ++k) motion.step();
          JobSpec j = testing::job("j", 0, std::uniform_int_distribution<int>(1, 12)(rng), 1);
          j.memory = MemoryMiB(static_cast<std::int64_t>(rng() % 5) * 1000);
          j.cpus = static_cast<double>(rng() % 4) * 4.0;  // 0 .. 12 cores
          std::vector<GpuIndex> got;
          const bool placed = policy->place(cluster, model, views, j, got);
          const auto want = PlainPlacement(cluster, j, c.empty_only).fit(best);
          ASSERT_EQ(placed, want.has_value())
              << c.name << (best ? " best-fit" : " first-fit") << " round " << round;
          // Cores decided: the job fits by GPUs alone somewhere it does not fit with its cores.
          JobSpec no_cores = j;
          no_cores.cpus = 0.0;
          const auto by_gpus = PlainPlacement(cluster, no_cores, c.empty_only).fit(best);
          cores_bound += by_gpus.has_value() && (!want || *want != *by_gpus);
          if (!placed) {
            ++refused;
            continue;
          }
          ASSERT_EQ(got, *want) << c.name << (best ? " best-fit" : " first-fit") << " round "
                                << round << " step " << step;
          ++placed_count;
          single_node += cluster.gpu(got.front()).node == cluster.gpu(got.back()).node;
        }
      }
      EXPECT_GT(single_node, 300) << c.name;
      EXPECT_GT(placed_count - single_node, 50) << c.name;
      EXPECT_GT(refused, 50) << c.name;
      EXPECT_GT(cores_bound, 100) << c.name;  // the cores changed the answer this often
    }
  }
}

}  // namespace
}  // namespace gpumux
