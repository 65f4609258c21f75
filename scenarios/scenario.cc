#include "scenarios/scenario.h"

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
    s.services = parse_services(services, base_dir);
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
  try {
    document[nlohmann::json::json_pointer(path)] = value;
  } catch (const nlohmann::json::exception& e) {
    throw InputError("--set " + assignment, path, std::string("cannot set: ") + e.what());
  }
}

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  nlohmann::json document = read_json_file(path);
  const std::string base = fs::path(path).parent_path().string();
  // Overrides address keys of objects; a document (or an --set result) of another shape is left
  // as it is, for parse_scenario to report.
  if (document.is_object()) {
    for (const auto& a : overrides.sets) apply_override(document, a);
  }
  if (!document.is_object()) return parse_scenario(document, path, base);
  if (overrides.seed) document["seed"] = *overrides.seed;
  if (overrides.out_dir) {
    nlohmann::json& outputs = document["outputs"];
    if (outputs.is_null()) outputs = nlohmann::json::object();
    if (outputs.is_object()) outputs["dir"] = *overrides.out_dir;
  }
  try {
    return parse_scenario(document, path, base);
  } catch (const InputError& e) {
    throw with_override_source(e, path, overrides.sets);
  }
}

}  // namespace gpumux
