#include "sim/placement/callback_placement.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "sim/base/input_error.h"
#include "sim/placement/topology_placement.h"

namespace gpumux {

namespace {

class CallbackPlacement final : public TopologyPlacement {
 public:
  CallbackPlacement(std::string name, PlacementChooser choose)
      : name_(std::move(name)), choose_(std::move(choose)) {}

  std::string_view name() const override { return name_; }

  bool place(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
             const JobSpec& job, std::vector<GpuIndex>& out) override {
    bool empty_only = false;
    bool all_devices_ok = true;
    if (!begin(cluster, model, job, out, empty_only, all_devices_ok)) return false;
    list_candidates(cluster, model, views, job, empty_only);
    if (candidates_list_.size() < static_cast<std::size_t>(job.gpus)) return false;
    if (!choose_(job, candidates_list_, out)) {
      out.clear();
      return false;
    }
    check_pick(cluster, job, out);
    return true;
  }

 private:
  // Every GPU that admits the job now, by index (the topology policies' checks).
  void list_candidates(const Cluster& cluster, const SharingModel& model, GpuViewBuilder& views,
                       const JobSpec& job, bool empty_only) {
    candidates_list_.clear();
    const Topology& topo = cluster.topology();
    for (GpuIndex g = 0; g < static_cast<GpuIndex>(cluster.gpu_count()); ++g) {
      const GpuState& gpu = cluster.gpu(g);
      if (empty_only) {
        if (!gpu.free() || !device_admits_empty(cluster, gpu)) continue;
      } else if (!admits(cluster, model, views, g, job)) {
        continue;
      }
      candidates_list_.push_back(
          PlacementCandidate{g, gpu.node, topo.rack_of_node(gpu.node), gpu.index_in_node,
                             static_cast<int>(gpu.residents.size()), gpu.memory_used.mib(),
                             cluster.device_of(g).memory.mib()});
    }
  }

  bool device_admits_empty(const Cluster& cluster, const GpuState& gpu) const {
    return gpu.device >= 0 && static_cast<std::size_t>(gpu.device) < cluster.devices().size() &&
           device_ok_[static_cast<std::size_t>(gpu.device)] != 0;
  }

  // The function's pick: job.gpus distinct listed GPUs, within each node's free cores.
  void check_pick(const Cluster& cluster, const JobSpec& job, std::vector<GpuIndex>& out) const {
    const std::string where = "placement policy '" + name_ + "'";
    const std::string about = " for job '" + job.id + "'";
    if (out.size() != static_cast<std::size_t>(job.gpus)) {
      const std::size_t got = out.size();
      out.clear();
      throw InputError(where, "",
                       "picked " + std::to_string(got) + " GPUs" + about + ", which asks for " +
                           std::to_string(job.gpus));
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
      const GpuIndex g = out[i];
      const bool listed =
          std::binary_search(candidates_list_.begin(), candidates_list_.end(), g,
                             [](const auto& a, const auto& b) { return gpu_of(a) < gpu_of(b); });
      const bool twice = std::find(out.begin(), out.begin() + static_cast<long>(i), g) !=
                         out.begin() + static_cast<long>(i);
      if (!listed || twice) {
        out.clear();
        throw InputError(where, "",
                         "picked GPU " + std::to_string(g) + about +
                             (twice ? " twice" : ", which is not among the GPUs that admit it"));
      }
    }
    if (job_cpu_ == 0) return;
    for (const GpuIndex g : out) {
      const NodeIndex node = cluster.gpu(g).node;
      const auto on_node = std::count_if(
          out.begin(), out.end(), [&](GpuIndex other) { return cluster.gpu(other).node == node; });
      if (on_node > within_cpus(cluster, node, static_cast<int>(on_node))) {
        out.clear();
        throw InputError(where, "",
                         "picked " + std::to_string(on_node) + " GPUs of node " +
                             std::to_string(node) + about + ", whose free CPU cores hold fewer");
      }
    }
  }

  static GpuIndex gpu_of(const PlacementCandidate& c) { return c.gpu; }
  static GpuIndex gpu_of(GpuIndex g) { return g; }

  // Never asked: place() does not use the topology policies' gang machinery.
  std::optional<std::size_t> choose(const std::vector<int>& /*counts*/, int /*n*/) const override {
    return std::nullopt;
  }

  std::string name_;
  PlacementChooser choose_;
  std::vector<PlacementCandidate> candidates_list_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_callback_placement(std::string name,
                                                         PlacementChooser choose) {
  return std::make_unique<CallbackPlacement>(std::move(name), std::move(choose));
}

}  // namespace gpumux
