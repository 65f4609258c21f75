#include "traces/transforms/transform_blocks.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "models/device_registry.h"
#include "scenarios/sections/sections.h"
#include "sim/base/closest_names.h"

namespace gpumux {

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
  const std::string path = input_path(s.input_files, "trace.catalogue", shown, base_dir);
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

void parse_filter_block(TransformParseInputs& in) {
  if (!in.trace.has("filter")) {
    in.trace.allow("filter");
    return;
  }
  JsonObject f = in.trace.object("filter");
  nlohmann::json filter_echo = nlohmann::json::object();
  in.scenario.trace.filter = parse_filter(f, filter_echo);
  // An empty filter keeps every job: no echo, as if it were not there.
  if (in.scenario.trace.filter.active()) in.echo["filter"] = filter_echo;
}

void parse_workloads_block(TransformParseInputs& in) {
  parse_workloads(in.scenario, in.trace, in.base_dir, in.echo);
}

void parse_resample_block(TransformParseInputs& in) {
  if (!in.trace.has("resample")) {
    in.trace.allow("resample");
    return;
  }
  JsonObject r = in.trace.object("resample");
  in.scenario.trace.resample = parse_resample(r);
  in.echo["resample"] = {{"method", std::string(resample_method_name(in.scenario.trace.resample))}};
}

void parse_inflation_block(TransformParseInputs& in) {
  if (!in.trace.has("inflation")) {
    in.trace.allow("inflation");
    return;
  }
  InflationConfig& inflation = in.scenario.trace.inflation;
  JsonObject inf = in.trace.object("inflation");
  inflation.load = inf.required_number("load", 1e-6, 100.0);
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
  inflation.jobs =
      static_cast<std::uint64_t>(inf.optional_int("jobs", 0, 1, std::int64_t{1} << 32));
  inflation.max_runtime =
      Time::from_seconds(inf.optional_number("max_runtime_s", 0.0, 0.0, kMaxInputSeconds));
  inflation.cluster_gpus =
      static_cast<std::uint64_t>(inf.optional_int("cluster_gpus", 0, 0, std::int64_t{1} << 32));
  inf.finish();
  // The echo holds what was given: an absent `jobs` or clip is not echoed as a 0 that would
  // read as "no arrivals" or "clipped at 0 s" (the summary's trace.inflation gives the
  // arrivals and the clipped runtimes).
  nlohmann::json& echo = in.echo["inflation"];
  echo = {{"load", inflation.load}};
  if (has_jobs) echo["jobs"] = inflation.jobs;
  if (has_clip) echo["max_runtime_s"] = inflation.max_runtime.seconds();
  if (inflation.cluster_gpus > 0) echo["cluster_gpus"] = inflation.cluster_gpus;
}

void parse_arrival_batches_block(TransformParseInputs& in) {
  if (!in.trace.has("arrival_batches")) {
    in.trace.allow("arrival_batches");
    return;
  }
  TraceConfig& t = in.scenario.trace;
  JsonObject b = in.trace.object("arrival_batches");
  t.batch_jobs = static_cast<std::uint64_t>(b.required_int("jobs", 1, std::int64_t{1} << 40));
  t.batch_every = Time::from_seconds(
      b.optional_number("every_s", t.batch_every.seconds(), 0.0, kMaxInputSeconds));
  b.finish();
  in.echo["arrival_batches"] = {{"jobs", t.batch_jobs}, {"every_s", t.batch_every.seconds()}};
}

}  // namespace gpumux
