// The `trace` section: a trace file and its format, or a generator; transforms and defaults.
#include <algorithm>
#include <filesystem>
#include <vector>

#include "models/device_registry.h"
#include "scenarios/sections/sections.h"
#include "sim/base/closest_names.h"
#include "sim/base/json_fields.h"
#include "traces/formats/trace_opening.h"
#include "traces/formats/trace_source.h"

namespace gpumux::scenario_sections {

namespace fs = std::filesystem;

namespace {

// A non-empty array of strings at `key` of `filter`; each element's error names its pointer.
std::vector<std::string> string_list(JsonObject& filter, std::string_view key) {
  const auto& list = filter.raw(key);
  if (!list.is_array() || list.empty()) {
    throw InputError(filter.where(key), std::string(key),
                     "expected a non-empty array of strings, got " + describe_json(list));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) {
      throw InputError(filter.file() + "#" + filter.pointer(key) + "/" + std::to_string(i),
                       std::string(key), "expected a string, got " + describe_json(list[i]));
    }
    out.push_back(list[i].get<std::string>());
  }
  return out;
}

// `trace.filter` (traces/transforms/filter_source.h): {"gpus": {"min": a, "max": b},
// "kind": [...], "tenant": [...]}, every criterion optional. The job model has no role or
// user field: `tenant` is the one owner field a trace row carries.
JobFilter parse_filter(JsonObject& f, nlohmann::json& echo) {
  JobFilter filter;
  if (f.has("gpus")) {
    JsonObject g = f.object("gpus");
    if (g.has("min")) filter.min_gpus = static_cast<int>(g.required_int("min", 0, kMaxClusterGpus));
    if (g.has("max")) filter.max_gpus = static_cast<int>(g.required_int("max", 0, kMaxClusterGpus));
    g.allow("min");
    g.allow("max");
    g.finish();
    if (filter.min_gpus && filter.max_gpus && *filter.min_gpus > *filter.max_gpus) {
      throw InputError(g.where("min"), "min",
                       "min " + std::to_string(*filter.min_gpus) + " is above max " +
                           std::to_string(*filter.max_gpus));
    }
    nlohmann::json gpus = nlohmann::json::object();
    if (filter.min_gpus) gpus["min"] = *filter.min_gpus;
    if (filter.max_gpus) gpus["max"] = *filter.max_gpus;
    echo["gpus"] = gpus;
  } else {
    f.allow("gpus");
  }
  if (f.has("kind")) {
    const auto names = string_list(f, "kind");
    for (std::size_t i = 0; i < names.size(); ++i) {
      bool known = false;
      for (JobKind k : {JobKind::kTraining, JobKind::kInference}) {
        if (names[i] != job_kind_name(k)) continue;
        known = true;
        if (std::find(filter.kinds.begin(), filter.kinds.end(), k) == filter.kinds.end()) {
          filter.kinds.push_back(k);
        }
      }
      if (!known) {
        throw InputError(f.file() + "#" + f.pointer("kind") + "/" + std::to_string(i), "kind",
                         "unknown job kind '" + names[i] + "' (valid: training, inference)");
      }
    }
    echo["kind"] = names;
  } else {
    f.allow("kind");
  }
  if (f.has("tenant")) {
    filter.tenants = string_list(f, "tenant");
    echo["tenant"] = filter.tenants;
  } else {
    f.allow("tenant");
  }
  f.finish();
  return filter;
}

// `trace.resample`: {"method": "bootstrap" | "arrival-order"}.
ResampleMethod parse_resample(JsonObject& r) {
  const std::string method = r.required_string("method");
  r.finish();
  const auto& names = resample_method_names();
  for (ResampleMethod m : {ResampleMethod::kBootstrap, ResampleMethod::kArrivalOrder}) {
    if (method == resample_method_name(m)) return m;
  }
  const auto near = closest_names(method, names, 1);
  throw InputError(r.where("method"), "method",
                   "unknown resampling method '" + method + "'" +
                       (near.empty() ? std::string() : " (did you mean '" + near[0] + "'?)") +
                       "; valid: " + join_names(names));
}

// `trace.catalogue` and `trace.workload_mix`. Catalogue device names may be any built-in device
// or one the scenario defines (its definition wins).
void parse_workloads(Scenario& s, JsonObject& trace, const std::string& base_dir,
                     nlohmann::json& echo) {
  const bool has_mix = trace.has("workload_mix");
  if (!trace.has("catalogue")) {
    trace.allow("catalogue");
    if (has_mix) {
      throw InputError(trace.where("workload_mix"), "workload_mix",
                       "needs trace.catalogue: the workloads it draws are the catalogue's");
    }
    trace.allow("workload_mix");
    return;
  }
  const std::string shown = trace.required_string("catalogue");
  const std::string path = resolve_path(base_dir, shown);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    // Named like trace.file: the scenario's field first, then the path it resolved to.
    throw InputError(trace.where("catalogue"), "catalogue",
                     "workload catalogue not found (or not a file): " + path);
  }
  std::vector<DeviceProfile> devices = s.devices;
  const DeviceRegistry builtins = DeviceRegistry::with_builtins();
  for (const auto& entry : builtins.all()) {
    const std::string& name = entry.first;
    const bool defined = std::any_of(s.devices.begin(), s.devices.end(),
                                     [&](const DeviceProfile& x) { return x.name == name; });
    if (!defined) devices.push_back(entry.second);
  }
  auto catalogue = std::make_shared<WorkloadCatalogue>(read_workload_catalogue(path, devices));
  s.trace.workloads.catalogue = catalogue;
  s.trace.workloads.catalogue_file = shown;
  s.input_files.push_back({"trace.catalogue", shown, path});
  echo["catalogue"] = shown;
  if (!has_mix) {
    trace.allow("workload_mix");
    return;
  }
  JsonObject mix = trace.object("workload_mix");
  nlohmann::json mix_echo = nlohmann::json::object();
  for (const auto& item : trace.raw("workload_mix").items()) {
    const std::string& name = item.key();
    if (!catalogue->find(name)) {
      const auto near = closest_names(name, catalogue->names(), 1);
      throw InputError(mix.where(name), name,
                       "unknown workload '" + name + "' (not in " + shown + ")" +
                           (near.empty() ? std::string() : "; did you mean '" + near[0] + "'?"));
    }
    const double weight = mix.required_number(name, 0.0, 1e12);
    if (weight <= 0.0) {
      throw InputError(mix.where(name), name, "a weight must be above 0, got 0");
    }
    s.trace.workloads.mix.push_back({name, weight});
    mix_echo[name] = weight;
  }
  mix.finish();
  if (s.trace.workloads.mix.empty()) {
    throw InputError(trace.where("workload_mix"), "workload_mix",
                     "expected at least one workload with a weight");
  }
  echo["workload_mix"] = mix_echo;
}

}  // namespace

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
  parse_workloads(s, trace, base_dir, echo);
  const std::string lengths = trace.optional_string("kernel_lengths", "exponential");
  if (lengths != "exponential" && lengths != "fixed") {
    throw InputError(trace.where("kernel_lengths"), "kernel_lengths",
                     "expected 'exponential' or 'fixed', got '" + lengths + "'");
  }
  s.trace.fixed_kernel_lengths = lengths == "fixed";
  if (s.trace.fixed_kernel_lengths) echo["kernel_lengths"] = lengths;
  s.trace.integer_seconds = trace.optional_bool("integer_seconds", false);
  if (s.trace.integer_seconds) echo["integer_seconds"] = true;
  s.trace.load_factor = trace.optional_number("load_factor", 1.0, 1e-3, 1e3);
  if (s.trace.load_factor != 1.0) echo["load_factor"] = s.trace.load_factor;
  if (trace.has("arrival_batches")) {
    JsonObject b = trace.object("arrival_batches");
    s.trace.batch_jobs =
        static_cast<std::uint64_t>(b.required_int("jobs", 1, std::int64_t{1} << 40));
    s.trace.batch_every = Time::from_seconds(
        b.optional_number("every_s", s.trace.batch_every.seconds(), 0.0, kMaxInputSeconds));
    b.finish();
    echo["arrival_batches"] = {{"jobs", s.trace.batch_jobs},
                               {"every_s", s.trace.batch_every.seconds()}};
  } else {
    trace.allow("arrival_batches");
  }
  if (trace.has("filter")) {
    JsonObject f = trace.object("filter");
    nlohmann::json filter_echo = nlohmann::json::object();
    s.trace.filter = parse_filter(f, filter_echo);
    // An empty filter keeps every job: no echo, as if it were not there.
    if (s.trace.filter.active()) echo["filter"] = filter_echo;
  } else {
    trace.allow("filter");
  }
  if (trace.has("inflation")) {
    JsonObject inf = trace.object("inflation");
    s.trace.inflation.load = inf.required_number("load", 1e-6, 100.0);
    // Left out, `jobs` is as many arrivals as the list has and `max_runtime_s` clips nothing;
    // an explicit 0 would silently mean the same, so it is refused pointing to the rule.
    const bool has_jobs = inf.has("jobs");
    const bool has_clip = inf.has("max_runtime_s");
    if (has_jobs && inf.raw("jobs").is_number() && inf.raw("jobs") == 0) {
      throw InputError(inf.where("jobs"), "jobs",
                       "expected at least 1, got 0 (leave 'jobs' out for as many arrivals as "
                       "the list has)");
    }
    if (has_clip && inf.raw("max_runtime_s").is_number() && inf.raw("max_runtime_s") == 0) {
      throw InputError(inf.where("max_runtime_s"), "max_runtime_s",
                       "expected more than 0, got 0 (leave 'max_runtime_s' out to clip no "
                       "runtime)");
    }
    s.trace.inflation.jobs =
        static_cast<std::uint64_t>(inf.optional_int("jobs", 0, 1, std::int64_t{1} << 32));
    s.trace.inflation.max_runtime =
        Time::from_seconds(inf.optional_number("max_runtime_s", 0.0, 0.0, kMaxInputSeconds));
    s.trace.inflation.cluster_gpus =
        static_cast<std::uint64_t>(inf.optional_int("cluster_gpus", 0, 0, std::int64_t{1} << 32));
    inf.finish();
    // The echo holds what was given: an absent `jobs` or clip is not echoed as a 0 that would
    // read as "no arrivals" or "clipped at 0 s" (the summary's trace.inflation gives the
    // arrivals and the clipped runtimes).
    echo["inflation"] = {{"load", s.trace.inflation.load}};
    if (has_jobs) echo["inflation"]["jobs"] = s.trace.inflation.jobs;
    if (has_clip) echo["inflation"]["max_runtime_s"] = s.trace.inflation.max_runtime.seconds();
    if (s.trace.inflation.cluster_gpus > 0) {
      echo["inflation"]["cluster_gpus"] = s.trace.inflation.cluster_gpus;
    }
  } else {
    trace.allow("inflation");
  }
  if (trace.has("resample")) {
    JsonObject r = trace.object("resample");
    s.trace.resample = parse_resample(r);
    // Inflation draws its arrivals with replacement and gives them new submit times already:
    // resampling its list first would draw twice, and its arrival order is already drawn.
    if (s.trace.inflation.load > 0) {
      throw InputError(trace.where("resample"), "resample",
                       "cannot be combined with trace.inflation, which already draws its jobs "
                       "by seed (with replacement, at new arrival times); give one of them");
    }
    echo["resample"] = {{"method", std::string(resample_method_name(s.trace.resample))}};
  } else {
    trace.allow("resample");
  }
  const bool file = trace.has("file");
  const bool generator = trace.has("generator");
  if (file == generator) {
    throw InputError(trace.where(), "file", "give exactly one of 'file' or 'generator'");
  }
  if (file) {
    const std::string path = trace.required_string("file");
    s.trace.format = trace.optional_string("format", "csv");
    trace_formats().get(s.trace.format, trace.where("format"), "format");
    s.trace.path = resolve_path(base_dir, path);
    s.input_files.push_back({"trace.file", path, s.trace.path});
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
