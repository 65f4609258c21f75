// The `trace` section: a trace file and its format, or a generator; transforms (each block read
// through its entry of traces/transforms/registry.h) and defaults.
#include <algorithm>
#include <filesystem>
#include <vector>

#include "scenarios/sections/sections.h"
#include "sim/base/closest_names.h"
#include "sim/base/json_fields.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"
#include "traces/transforms/registry.h"

namespace gpumux::scenario_sections {

namespace fs = std::filesystem;

void parse_trace(Scenario& s, JsonObject& root, const std::string& base_dir) {
  JsonObject trace = root.object("trace");
  nlohmann::json echo = nlohmann::json::object();
  if (trace.has("defaults")) {
    JsonObject d = trace.object("defaults");
    s.trace.defaults.override_from(d);
  } else {
    trace.allow("defaults");
  }
  if (trace.has("memory_profiles")) {
    JsonObject m = trace.object("memory_profiles");
    s.trace.memory_profiles = parse_memory_profiles(m, base_dir);
    if (!s.trace.memory_profiles.library_path.empty()) {
      s.input_files.push_back({"trace.memory_profiles.library",
                               s.trace.memory_profiles.echo["library"].get<std::string>(),
                               s.trace.memory_profiles.library_path});
    }
    echo["memory_profiles"] = s.trace.memory_profiles.echo;
  } else {
    trace.allow("memory_profiles");
  }
  // The transforms' blocks, each through its entry of the table (traces/transforms/registry.h).
  TransformParseInputs transform_inputs{s, trace, base_dir, echo};
  for (const TraceTransformInfo& transform : trace_transforms()) {
    if (transform.parse) transform.parse(transform_inputs);
  }
  check_trace_transforms(s, trace);
  const bool file = trace.has("file");
  const bool generator = trace.has("generator");
  if (file == generator) {
    throw InputError(trace.where(), "file", "give exactly one of 'file' or 'generator'");
  }
  if (file) {
    const std::string path = trace.required_string("file");
    s.trace.format = trace.optional_string("format", "csv");
    trace_formats().get(s.trace.format, trace.where("format"), "format");
    s.trace.path = input_path(s.input_files, "trace.file", path, base_dir);
    std::error_code ec;
    const bool exists = fs::exists(s.trace.path, ec);  // a file, or a folder of tables (pai2020)
    if (ec) {
      throw InputError(trace.where("file"), "file",
                       "cannot read the trace file " + s.trace.path + ": " + ec.message());
    }
    if (!exists) {
      throw InputError(trace.where("file"), "file", "trace file not found: " + s.trace.path);
    }
    echo["file"] = path;
    echo["format"] = s.trace.format;
    trace.allow("generator");
  } else {
    JsonObject g = trace.object("generator");
    s.trace.generated = true;
    s.trace.generator = GeneratorSpec::parse(g);
    echo["generator"] = s.trace.generator.to_json();
    trace.allow("file");
    trace.allow("format");
  }
  trace.finish();
  nlohmann::json defaults = nlohmann::json::object();
  for (const auto& f : job_fields()) {
    if (f.required) continue;
    defaults[std::string(f.name)] = {{"value", s.trace.defaults.value_json(f.field)},
                                     {"source", s.trace.defaults.source(f.field)}};
  }
  echo["defaults"] = defaults;
  s.resolved["trace"] = echo;
}

}  // namespace gpumux::scenario_sections
