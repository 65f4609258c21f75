#include "analysis/plan/deploy_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "analysis/plan/device_plugin_config.h"
#include "models/device_registry.h"
#include "models/mig/mig_model.h"
#include "models/mig/mig_parted.h"
#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const DeviceProfile& device(const std::string& name) {
  static const DeviceRegistry r = DeviceRegistry::with_builtins();
  return r.get(name, "test");
}

DeployAnswer answer(const std::string& model, json params,
                    const std::string& device_name = "A100-80GB", int gpus_per_node = 8,
                    int nodes = 3) {
  return DeployAnswer{
      model, std::move(params), {{"gpu", device(device_name), gpus_per_node, nodes}}};
}

const DeployFile* find_file(const DeployFiles& f, const std::string& name) {
  for (const DeployFile& file : f.files) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

// Writes the answer's files, reads the device plugin file (and the mig-parted config of the
// device, when written) back with gpumux's readers and maps them to a model.
DeployedModel round_trip(const DeployFiles& files, const DeviceProfile& d,
                         std::optional<MigPartedConfig>* mig_out = nullptr) {
  const DeployFile* plugin = find_file(files, device_plugin_file_name(d));
  EXPECT_NE(plugin, nullptr);
  if (plugin == nullptr) return {};
  const DevicePluginConfig config = parse_device_plugin_config(plugin->text, plugin->name);
  std::optional<MigPartedConfig> mig;
  if (const DeployFile* parted = find_file(files, kMigPartedFileName)) {
    mig = parse_mig_parted(parted->text, parted->name, mig_config_name(d));
  }
  DeployedModel back = model_from_deploy(config, mig ? &*mig : nullptr);
  if (mig_out != nullptr) *mig_out = mig;
  return back;
}

bool mentions(const DeployFiles& f, const std::string& text) {
  for (const DeployFile& file : f.files) {
    if (file.text.find(text) != std::string::npos) return true;
  }
  return false;
}

bool noted(const DeployFiles& f, const std::string& text) {
  return std::any_of(f.notes.begin(), f.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

// The layout the mig model gives GPU `index` of `d` under `params`.
MigDeviceLayout model_layout(const json& params, const DeviceProfile& d, int index) {
  json p = params;
  p.erase("inner");  // a hybrid's layout is its mig part's
  JsonObject o(p, "test", "");
  const MigModel model(o);
  return model.layout_at(d, model.initial_layout(d, index));
}

TEST(DeployConfig, TimeSliceReplicasRoundTrip) {
  const json params = {{"admission", "replicas"}, {"replicas", 3}};
  const DeployFiles f = deploy_files(answer("timeslice", params));
  ASSERT_EQ(f.files.size(), 1u);
  EXPECT_EQ(f.files[0].name, "device-plugin-A100-80GB.yaml");
  EXPECT_NE(f.files[0].text.find("timeSlicing:"), std::string::npos);
  EXPECT_NE(f.files[0].text.find("replicas: 3"), std::string::npos);
  EXPECT_NE(f.files[0].text.find("renameByDefault: false"), std::string::npos);
  const DeployedModel back = round_trip(f, device("A100-80GB"));
  EXPECT_EQ(back.model, "timeslice");
  EXPECT_EQ(back.params, params);
}

TEST(DeployConfig, TimeSliceMemoryAdmissionTakesMaxJobsAndSaysWhatIsLost) {
  // Default admission is memory with at most max_jobs_per_gpu (8) jobs: the count deployed.
  const DeployFiles f =
      deploy_files(answer("timeslice", {{"max_jobs_per_gpu", 5}, {"time_slice_us", 2000}}));
  const DeployedModel back = round_trip(f, device("A100-80GB"));
  EXPECT_EQ(back.model, "timeslice");
  EXPECT_EQ(back.params, json({{"admission", "replicas"}, {"replicas", 5}}));
  EXPECT_TRUE(mentions(f, "# gpumux simulated admission=memory"));
  EXPECT_TRUE(mentions(f, "# gpumux simulated time_slice_us=2000; the device plugin has no"));
  EXPECT_TRUE(noted(f, "compute-policy --set-timeslice"));

  const DeployedModel defaults =
      round_trip(deploy_files(answer("timeslice", json::object())), device("A100-80GB"));
  EXPECT_EQ(defaults.params, json({{"admission", "replicas"}, {"replicas", 8}}));
}

TEST(DeployConfig, MpsReplicasRoundTrip) {
  const json params = {{"admission", "replicas"}, {"replicas", 4}};
  const DeployFiles f = deploy_files(answer("mps", params));
  ASSERT_EQ(f.files.size(), 1u);
  EXPECT_NE(f.files[0].text.find("sharing:\n  mps:"), std::string::npos);
  const DeployedModel back = round_trip(f, device("A100-80GB"));
  EXPECT_EQ(back.model, "mps");
  EXPECT_EQ(back.params, params);
  // The plugin's per-replica limits are stated: 1/4 of 80 GB and 25% of the SMs.
  EXPECT_TRUE(noted(f, "25% of the SMs"));
  // MPS keeps the plugin's failRequestsGreaterThanOne default (true): said on the way back too.
  EXPECT_TRUE(std::any_of(back.notes.begin(), back.notes.end(), [](const std::string& n) {
    return n.find("failRequestsGreaterThanOne is true") != std::string::npos;
  }));
}

TEST(DeployConfig, MpsPeakAdmissionDeploysTheClientLimit) {
  const DeployFiles f = deploy_files(answer("mps", json::object(), "T4", 4, 2));
  const DeployedModel back = round_trip(f, device("T4"));
  EXPECT_EQ(back.model, "mps");
  EXPECT_EQ(back.params["replicas"], device("T4").mps_client_limit);
  EXPECT_TRUE(mentions(f, "# gpumux simulated admission=peak"));
  EXPECT_TRUE(noted(f, "\"admission\": \"replicas\""));
}

TEST(DeployConfig, MpsThreadPercentageBelowTheReplicaShareIsAPodSetting) {
  const DeployFiles f = deploy_files(answer(
      "mps", {{"admission", "replicas"}, {"replicas", 2}, {"active_thread_percentage", 30}}));
  EXPECT_TRUE(noted(f, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30"));
}

TEST(DeployConfig, ExclusiveWritesAConfigWithoutSharing) {
  const DeployFiles f = deploy_files(answer("exclusive", json::object()));
  ASSERT_EQ(f.files.size(), 1u);
  EXPECT_EQ(f.files[0].text.find("\nsharing:"), std::string::npos);
  EXPECT_NE(f.files[0].text.find("migStrategy: none"), std::string::npos);
  const DevicePluginConfig c = parse_device_plugin_config(f.files[0].text, f.files[0].name);
  EXPECT_EQ(c.sharing, PluginSharing::kNone);
  const DeployedModel back = model_from_deploy(c, nullptr);
  EXPECT_EQ(back.model, "exclusive");
  EXPECT_EQ(back.params, json::object());
}

TEST(DeployConfig, FractionalHasNoNvidiaConfig) {
  const DeployFiles f = deploy_files(answer("fractional", json::object()));
  EXPECT_TRUE(f.files.empty());
  EXPECT_TRUE(noted(f, "no config written"));
}

TEST(DeployConfig, MigLayoutRoundTripGivesTheSameLayout) {
  const json params = {{"layout", {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"}},
                       {"strategy", "mixed"}};
  const DeviceProfile& d = device("A100-80GB");
  const DeployFiles f = deploy_files(answer("mig", params));
  ASSERT_EQ(f.files.size(), 2u);
  EXPECT_EQ(f.files[1].name, "mig-parted.yaml");
  EXPECT_NE(f.files[0].text.find("migStrategy: mixed"), std::string::npos);
  std::optional<MigPartedConfig> mig;
  const DeployedModel back = round_trip(f, d, &mig);
  ASSERT_TRUE(mig.has_value());
  EXPECT_EQ(back.model, "mig");
  EXPECT_EQ(back.params, params);
  const std::vector<MigDeviceLayout> read = mig_parted_layouts(*mig, d, 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(read[i], model_layout(params, d, i)) << "GPU " << i;
}

TEST(DeployConfig, MigAutoStrategyDeploysMixedAndSaysSo) {
  const json params = {{"layout", {"3g.40gb", "3g.40gb"}}, {"compute_aware", true}};
  const DeployFiles f = deploy_files(answer("mig", params));
  EXPECT_TRUE(mentions(f, "# gpumux simulated strategy=\"auto\""));
  EXPECT_TRUE(mentions(f, "# gpumux simulated compute_aware=true"));
  const DeployedModel back = round_trip(f, device("A100-80GB"));
  EXPECT_EQ(back.params["strategy"], "mixed");
  EXPECT_EQ(back.params["layout"], params["layout"]);
}

TEST(DeployConfig, MigPartedPerIndexLayoutsRoundTrip) {
  const fs::path dir =
      fs::temp_directory_path() / ("gpumux_deploy_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string source = (dir / "source.yaml").string();
  std::ofstream(source) << "version: v1\nmig-configs:\n  half:\n"
                           "    - devices: [0, 1]\n      mig-enabled: true\n"
                           "      mig-devices: {\"1g.10gb\": 7}\n"
                           "    - devices: [2, 3]\n      mig-enabled: false\n";
  const json params = {{"mig_parted", source}, {"config", "half"}};
  const DeviceProfile& d = device("A100-80GB");
  const DeployFiles f = deploy_files(answer("mig", params, "A100-80GB", 4, 1));
  std::optional<MigPartedConfig> mig;
  const DeployedModel back = round_trip(f, d, &mig);
  ASSERT_TRUE(mig.has_value());
  EXPECT_EQ(back.model, "mig");
  EXPECT_EQ(back.params["config"], mig_config_name(d));
  const std::vector<MigDeviceLayout> read = mig_parted_layouts(*mig, d, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(read[i], model_layout(params, d, i)) << "GPU " << i;
  EXPECT_TRUE(read[0].mig_enabled);
  EXPECT_FALSE(read[3].mig_enabled);
  fs::remove_all(dir);
}

TEST(DeployConfig, MigCandidatesAreOneConfigEachAndRepartitioningIsNoted) {
  const json params = {{"layouts", {{"7g.80gb"}, {"3g.40gb", "3g.40gb"}, json::array()}}};
  const DeviceProfile& d = device("A100-80GB");
  const DeployFiles f = deploy_files(answer("mig", params));
  EXPECT_TRUE(noted(f, "repartitioning"));
  const DeployFile* parted = find_file(f, kMigPartedFileName);
  ASSERT_NE(parted, nullptr);
  json p = params;
  JsonObject o(p, "test", "");
  const MigModel model(o);
  for (int k = 0; k < 3; ++k) {
    const MigPartedConfig c = parse_mig_parted(parted->text, parted->name, mig_config_name(d, k));
    EXPECT_EQ(mig_parted_layouts(c, d, 8)[0], model.layout_at(d, k)) << "candidate " << k;
  }
}

TEST(DeployConfig, MigTimeSliceSharesEachInstanceProfile) {
  const json params = {{"layout", {"3g.40gb", "3g.40gb"}},
                       {"strategy", "mixed"},
                       {"inner", {{"admission", "replicas"}, {"replicas", 2}}}};
  const DeviceProfile& d = device("A100-80GB");
  const DeployFiles f = deploy_files(answer("mig+timeslice", params));
  EXPECT_TRUE(mentions(f, "- name: nvidia.com/mig-3g.40gb\n        replicas: 2"));
  std::optional<MigPartedConfig> mig;
  const DeployedModel back = round_trip(f, d, &mig);
  EXPECT_EQ(back.model, "mig+timeslice");
  EXPECT_EQ(back.params, params);
  EXPECT_EQ(mig_parted_layouts(*mig, d, 8)[0], model_layout(params, d, 0));
}

TEST(DeployConfig, MigMpsKeepsTheLayoutAndSaysThePluginCannotShareInstances) {
  const json params = {{"layout", {"3g.40gb", "3g.40gb"}}, {"strategy", "mixed"}};
  const DeviceProfile& d = device("A100-80GB");
  const DeployFiles f = deploy_files(answer("mig+mps", params));
  EXPECT_TRUE(noted(f, "sharing.mps does not support MIG"));
  std::optional<MigPartedConfig> mig;
  const DeployedModel back = round_trip(f, d, &mig);
  // The plugin config shares nothing: read back, the node is plain mig with that layout.
  EXPECT_EQ(back.model, "mig");
  EXPECT_EQ(back.params, params);
}

TEST(DeployConfig, SeveralDeviceTypesGetOneFileEach) {
  DeployAnswer a{"timeslice",
                 {{"admission", "replicas"}, {"replicas", 2}},
                 {{"big", device("A100-80GB"), 8, 2}, {"small", device("T4"), 4, 3}}};
  const DeployFiles f = deploy_files(a);
  ASSERT_EQ(f.files.size(), 2u);
  EXPECT_EQ(f.files[0].name, "device-plugin-A100-80GB.yaml");
  EXPECT_EQ(f.files[1].name, "device-plugin-T4.yaml");
  EXPECT_NE(f.files[1].text.find("3 nodes x 4 T4 (group small, 12 GPUs)"), std::string::npos);
}

TEST(DeployConfig, BadParamsAreTheModelsErrors) {
  EXPECT_THROW(deploy_files(answer("timeslice", {{"replica", 2}})), InputError);
  EXPECT_THROW(deploy_files(answer("no-such-model", json::object())), InputError);
  EXPECT_THROW(deploy_files(DeployAnswer{"exclusive", json::object(), {}}), InputError);
}

// The reader's errors name the file, line and column.
std::string reader_error(const std::string& text) {
  try {
    parse_device_plugin_config(text, "dp.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DevicePluginConfig, ReadsTheReadmeExample) {
  const DevicePluginConfig c = parse_device_plugin_config(
      "version: v1\nsharing:\n  timeSlicing:\n    renameByDefault: true\n"
      "    resources:\n    - name: nvidia.com/gpu\n      replicas: 10\n",
      "dp.yaml");
  EXPECT_EQ(c.sharing, PluginSharing::kTimeSlicing);
  EXPECT_TRUE(c.rename_by_default);
  EXPECT_FALSE(c.fails_multi_replica_requests());
  ASSERT_EQ(c.resources.size(), 1u);
  EXPECT_EQ(c.resources[0].replicas, 10);
  EXPECT_EQ(c.resources[0].where, "dp.yaml:6:7");
  EXPECT_EQ(c.mig_strategy, "none");
  // A missing version is v1, as in the plugin; other flags are accepted.
  const DevicePluginConfig m = parse_device_plugin_config(
      "flags:\n  migStrategy: mixed\n  failOnInitError: true\n"
      "sharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n",
      "dp.yaml");
  EXPECT_EQ(m.sharing, PluginSharing::kMps);
  EXPECT_EQ(m.mig_strategy, "mixed");
  EXPECT_TRUE(m.fails_multi_replica_requests());
}

TEST(DevicePluginConfig, BadInputNamesFileLineAndField) {
  EXPECT_EQ(reader_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                         "    - name: nvidia.com/gpu\n      replica: 4\n"),
            "dp.yaml:6:7: field 'sharing.timeSlicing.resources[0].replica': unexpected field "
            "(valid: name, rename, devices, replicas)");
  EXPECT_EQ(reader_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                         "    - name: nvidia.com/gpu\n"),
            "dp.yaml:5:7: field 'sharing.timeSlicing.resources[0].replicas': missing required "
            "field");
  EXPECT_EQ(reader_error("version: v2\n"), "dp.yaml:1:10: field 'version': expected v1, got 'v2'");
  EXPECT_EQ(reader_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                         "    - name: nvidia.com/gpu\n      replicas: 0\n"),
            "dp.yaml:6:17: field 'sharing.timeSlicing.resources[0].replicas': expected an integer "
            "in [1, 1000000], got '0'");
  EXPECT_EQ(reader_error("version: v1\nshare: {}\n"),
            "dp.yaml:2:1: field 'share': unexpected field (valid: version, flags, sharing, "
            "resources, imex)");
  EXPECT_EQ(reader_error("flags:\n  migStrategy: all\n"),
            "dp.yaml:2:16: field 'flags.migStrategy': expected none, single or mixed, got 'all'");
  EXPECT_NE(reader_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                         "    - {name: nvidia.com/gpu, replicas: 2}\n  mps:\n    resources:\n"
                         "    - {name: nvidia.com/gpu, replicas: 2}\n")
                .find("dp.yaml:7:5: field 'sharing': timeSlicing and mps are mutually exclusive"),
            std::string::npos);
  EXPECT_NE(reader_error("version: v1\nsharing:\n  timeSlicing: {}\n")
                .find("field 'sharing.timeSlicing.resources': missing required field"),
            std::string::npos);
  EXPECT_NE(reader_error("version: [v1\n").find("dp.yaml:"), std::string::npos);
}

// yaml-cpp keeps both entries of a repeated key: the last replicas silently won.
TEST(DevicePluginConfig, RepeatedKeysAreErrors) {
  EXPECT_EQ(reader_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                         "    - name: nvidia.com/gpu\n      replicas: 4\n      replicas: 8\n"),
            "dp.yaml:7:7: field 'sharing.timeSlicing.resources[0].replicas': 'replicas' is given "
            "twice in one mapping; give it once");
  EXPECT_NE(reader_error("version: v1\nflags:\n  migStrategy: none\n  migStrategy: mixed\n")
                .find("dp.yaml:4:3: field 'flags.migStrategy': 'migStrategy' is given twice"),
            std::string::npos);
  EXPECT_NE(reader_error("version: v1\nsharing:\n  timeSlicing:\n    resources:\n"
                         "    - {name: nvidia.com/gpu, replicas: 2}\n  timeSlicing:\n"
                         "    resources:\n    - {name: nvidia.com/gpu, replicas: 3}\n")
                .find("dp.yaml:6:3: field 'sharing.timeSlicing': 'timeSlicing' is given twice"),
            std::string::npos);
}

TEST(DevicePluginConfig, WhatNoModelSimulatesIsAnError) {
  const auto map = [](const std::string& text) {
    return model_from_deploy(parse_device_plugin_config(text, "dp.yaml"), nullptr);
  };
  EXPECT_THROW(map("sharing:\n  timeSlicing:\n    resources:\n"
                   "    - {name: nvidia.com/gpu, replicas: 2, devices: [0, 1]}\n"),
               InputError);
  EXPECT_THROW(map("sharing:\n  timeSlicing:\n    resources:\n"
                   "    - {name: example.com/fpga, replicas: 2}\n"),
               InputError);
  EXPECT_THROW(map("flags: {migStrategy: mixed}\nsharing:\n  timeSlicing:\n    resources:\n"
                   "    - {name: nvidia.com/mig-1g.10gb, replicas: 2}\n"),
               InputError);
}

TEST(DevicePluginConfig, ReadsAWrittenFileFromDisk) {
  const fs::path path =
      fs::temp_directory_path() / ("gpumux_dp_" + std::to_string(::getpid()) + ".yaml");
  const DeployFiles f =
      deploy_files(answer("timeslice", {{"admission", "replicas"}, {"replicas", 6}}));
  std::ofstream(path) << f.files[0].text;
  const DevicePluginConfig c = read_device_plugin_config(path.string());
  EXPECT_EQ(c.resources.at(0).replicas, 6);
  fs::remove(path);
  EXPECT_THROW(read_device_plugin_config(path.string()), InputError);
}

}  // namespace
}  // namespace gpumux
