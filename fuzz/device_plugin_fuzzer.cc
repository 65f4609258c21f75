// NVIDIA device plugin configs as gpumux reads deployable answers back
// (analysis/plan/device_plugin_config.h): the config is parsed, mapped to a model
// (model_from_deploy) and that model's files written again for nodes of 8 A100-80GB.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "analysis/plan/deploy_config.h"
#include "analysis/plan/device_plugin_config.h"
#include "fuzz/fuzz_support.h"
#include "models/device_registry.h"
#include "sim/base/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpumux;
  static const DeviceRegistry devices = DeviceRegistry::with_builtins();
  try {
    const DevicePluginConfig config = parse_device_plugin_config(
        std::string_view(reinterpret_cast<const char*>(data), size), "device-plugin.yaml");
    const DeployedModel model = model_from_deploy(config, nullptr);
    deploy_files(
        DeployAnswer{model.model, model.params, {{"a", devices.get("A100-80GB", "fuzz"), 8, 1}}});
  } catch (const InputError&) {
    // the expected answer to bad input
  } catch (const std::exception& e) {
    fuzz::finding(std::string("not an InputError: ") + e.what());
  }
  return 0;
}
