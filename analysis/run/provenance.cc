#include "analysis/run/provenance.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

#include "analysis/run/build_info.h"
#include "sim/base/input_error.h"
#include "sim/base/sha256.h"

namespace gpumux {
namespace {

namespace fs = std::filesystem;

struct Digest {
  std::uintmax_t bytes = 0;
  std::string sha256;
};

using DigestKey = std::tuple<std::string, std::uintmax_t, fs::file_time_type::rep>;

Digest digest_of(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      if (e.is_regular_file()) names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    Sha256 list;
    Digest d;
    for (const std::string& n : names) {
      const std::string file = (fs::path(path) / n).string();
      d.bytes += fs::file_size(file, ec);
      list.update(n + " " + sha256_of_file(file) + "\n");
    }
    d.sha256 = list.hex_digest();
    return d;
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw InputError(path, "", "cannot read the file to record its digest: " + ec.message());
  const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
  static std::mutex mutex;
  static std::map<DigestKey, Digest> cache;
  const DigestKey key{fs::absolute(path).lexically_normal().string(), size, mtime};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  Digest d{size, sha256_of_file(path)};
  const std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, d);
  return d;
}

}  // namespace

nlohmann::json build_json() {
  nlohmann::json build = {{"version", GPUMUX_VERSION}};
  if (const std::string_view git = build_git_describe(); !git.empty()) {
    build["git"] = std::string(git);
  }
  return build;
}

nlohmann::json input_file_json(const InputFile& file) {
  const Digest d = digest_of(file.path);
  return {{"role", file.role}, {"file", file.shown}, {"bytes", d.bytes}, {"sha256", d.sha256}};
}

nlohmann::json input_files_json(const Scenario& scenario) {
  nlohmann::json inputs = nlohmann::json::array();
  for (const InputFile& f : scenario.input_files) inputs.push_back(input_file_json(f));
  return inputs;
}

nlohmann::json provenance_json(const Scenario& scenario) {
  return {{"build", build_json()}, {"inputs", input_files_json(scenario)}};
}

void add_provenance_inputs(nlohmann::json& provenance, const Scenario& scenario) {
  nlohmann::json& inputs = provenance["inputs"];
  for (nlohmann::json& entry : input_files_json(scenario)) {
    const bool listed = std::any_of(inputs.begin(), inputs.end(), [&](const nlohmann::json& e) {
      return e["role"] == entry["role"] && e["file"] == entry["file"];
    });
    if (!listed) inputs.push_back(std::move(entry));
  }
}

}  // namespace gpumux
