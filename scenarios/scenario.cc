#include "scenarios/scenario.h"

#include <algorithm>
#include <filesystem>

#include "scenarios/override_source.h"
#include "scenarios/sections/sections.h"
#include "sim/base/json_depth.h"
#include "sim/base/json_fields.h"

namespace gpumux {

namespace fs = std::filesystem;

std::size_t Scenario::gpu_count() const {
  std::size_t n = 0;
  for (const auto& node : nodes) n += node.gpus;
  return n;
}

std::string scenario_sections::resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

Scenario parse_scenario(const nlohmann::json& document, const std::string& file,
                        const std::string& base_dir) {
  Scenario s;
  s.file = file;
  JsonObject root(document, file, "");
  s.name = root.optional_string("name", fs::path(file).stem().string());
  // The name becomes the default output folder out/<name>: it must stay one folder inside out/.
  if (s.name.empty() || s.name == "." || s.name == ".." ||
      s.name.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos) {
    throw InputError(root.where("name"), "name",
                     "must be non-empty, not '.' or '..', and contain no path separator");
  }
  s.description = root.optional_string("description", "");
  s.seed = static_cast<std::uint64_t>(root.optional_int("seed", 1, 0, INT64_MAX));
  s.resolved["name"] = s.name;
  s.resolved["description"] = s.description;
  s.resolved["seed"] = s.seed;
  JsonObject cluster = root.object("cluster");
  scenario_sections::parse_cluster(s, cluster, base_dir);
  scenario_sections::parse_sharing(s, root, base_dir);
  scenario_sections::parse_scheduler(s, root);
  scenario_sections::parse_trace(s, root, base_dir);
  if (root.has("services")) {  // echoed only when given: summaries of other runs stay as they were
    JsonObject services = root.object("services");
    s.services = parse_services(services, base_dir, s.devices, s.input_files);
    s.resolved["services"] = s.services.echo;
  } else {
    root.allow("services");
  }
  scenario_sections::parse_outputs(s, root);
  scenario_sections::parse_faults(s, root);
  scenario_sections::parse_limits(s, root);
  s.expect = parse_expect(root);
  // Echoed only when given: summaries of runs without bounds stay as they were.
  if (!s.expect.empty()) s.resolved["expect"] = expect_echo(s.expect);
  root.finish();
  return s;
}

namespace {

// Refuses an override whose pointer takes an array index past the end by more than one: setting
// it would fill the array with nulls up to that index (10^8 of them for "node_groups/100000000"),
// and the first filler would then be reported instead of the index given. An index equal to the
// array's size appends, as "-" does. A missing or null value that a numeric token addresses
// becomes an empty array (nlohmann's rule), so only index 0 may follow it.
void check_array_indices(const nlohmann::json& document, const std::string& pointer,
                         const std::string& assignment) {
  const nlohmann::json* node = &document;  // nullptr: the value is missing, created by the set
  std::string prefix;
  std::size_t start = 1;  // after the leading '/'
  while (start <= pointer.size()) {
    const auto slash = pointer.find('/', start);
    const std::string token =
        pointer.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    const bool digits =
        !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    const bool array = node == nullptr || node->is_null() ? digits : node->is_array();
    if (array) {
      if (!digits) return;  // "-" appends; anything else is nlohmann's to refuse
      const std::size_t size = node == nullptr || node->is_null() ? 0 : node->size();
      // The index may not fit in 64 bits: its digits are counted first.
      const std::size_t first = std::min(token.find_first_not_of('0'), token.size() - 1);
      const bool huge = token.size() - first > 18;
      const std::size_t index = huge ? 0 : std::stoull(token.substr(first));
      if (huge || index > size) {
        throw InputError("--set " + assignment, pointer.substr(0, slash),
                         "array index " + token + " is past the end of the array at '" +
                             (prefix.empty() ? std::string("/") : prefix) + "' (" +
                             std::to_string(size) + " element" + (size == 1 ? "" : "s") +
                             "); index " + std::to_string(size) + " or '-' appends");
      }
      node = node != nullptr && index < size ? &(*node)[index] : nullptr;
    } else if (node != nullptr && node->is_object()) {
      std::string key = token;  // unescaped as RFC 6901 says: "~1" is '/', then "~0" is '~'
      for (auto at = key.find("~1"); at != std::string::npos; at = key.find("~1", at + 1)) {
        key.replace(at, 2, "/");
      }
      for (auto at = key.find("~0"); at != std::string::npos; at = key.find("~0", at + 1)) {
        key.replace(at, 2, "~");
      }
      const auto it = node->find(key);
      node = it != node->end() ? &*it : nullptr;
    } else if (node != nullptr && !node->is_null()) {
      return;  // a scalar on the way: nlohmann refuses it
    }
    // Otherwise a missing or null value addressed by a key: an object, its members missing.
    prefix += "/" + token;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
}

}  // namespace

void apply_override(nlohmann::json& document, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError("--set " + assignment, "",
                     "expected path=value, e.g. sharing.model=exclusive");
  }
  std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  nlohmann::json value;
  check_json_depth(text, "--set " + path);  // path: the text is too long to repeat
  try {
    value = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    value = text;  // a bare word is a string
  } catch (const nlohmann::json::out_of_range&) {
    throw InputError("--set " + assignment, path, "number out of range (beyond +-1.8e308)");
  }
  path = override_pointer(path);
  check_array_indices(document, path, assignment);
  try {
    document[nlohmann::json::json_pointer(path)] = value;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("--set " + assignment, path, std::string("cannot set: ") + e.what());
  }
}

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  return scenario_from_document(read_json_file(path), path, fs::path(path).parent_path().string(),
                                overrides);
}

Scenario scenario_from_document(nlohmann::json document, const std::string& file,
                                const std::string& base_dir, const ScenarioOverrides& overrides) {
  // Overrides address keys of objects; a document (or an --set result) of another shape is left
  // as it is, for parse_scenario to report.
  if (document.is_object()) {
    for (const auto& a : overrides.sets) apply_override(document, a);
  }
  if (!document.is_object()) return parse_scenario(document, file, base_dir);
  if (overrides.seed) document["seed"] = *overrides.seed;
  if (overrides.out_dir && overrides.out_dir->empty()) {
    throw InputError("--out", "", "expected a folder, got '' (give e.g. --out out/run1)");
  }
  if (overrides.out_dir) {
    nlohmann::json& outputs = document["outputs"];
    if (outputs.is_null()) outputs = nlohmann::json::object();
    if (outputs.is_object()) outputs["dir"] = *overrides.out_dir;
  }
  try {
    return parse_scenario(document, file, base_dir);
  } catch (const InputError& e) {
    throw with_override_source(e, file, overrides.sets);
  }
}

}  // namespace gpumux
