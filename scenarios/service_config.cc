#include "scenarios/service_config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "scenarios/llm_endpoint_config.h"
#include "sim/base/input_error.h"
#include "traces/io/csv_reader.h"
#include "traces/fields/service_fields.h"
#include "traces/io/text_input.h"

namespace gpumux {

namespace {

namespace fs = std::filesystem;

constexpr double kMaxMs = 1e9;
constexpr double kMaxRate = 1e9;
constexpr double kMaxSeconds = 1e12;
const double kBuiltinBatchCost = ServiceSpec{}.batch_cost;  // one place: sim/core/service.h

std::shared_ptr<const RateSeries> parse_series(JsonObject& r) {
  auto series = std::make_shared<RateSeries>();
  const auto& points = r.raw("points");
  const std::string where = r.where("points");
  if (!points.is_array() || points.empty()) {
    throw InputError(
        where, "points",
        "expected a non-empty array of [t_s, rate_per_s], got " + describe_json(points));
  }
  bool any_positive = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const std::string at = where + "/" + std::to_string(i);
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
      throw InputError(at, "points", "expected [t_s, rate_per_s], got " + describe_json(p));
    }
    const double t = p[0].get<double>();
    const double rate = p[1].get<double>();
    if (i == 0 && t != 0.0) throw InputError(at, "points", "the first point must be at t_s 0");
    if (i > 0 && !(t > series->points.back().first)) {
      throw InputError(at, "points", "t_s must increase strictly from point to point");
    }
    if (!(t >= 0 && t <= kMaxSeconds)) throw InputError(at, "points", "t_s out of range");
    if (!(rate >= 0 && rate <= kMaxRate)) {
      throw InputError(at, "points", "rate_per_s must be in [0, 1e9], got " + describe_json(p[1]));
    }
    any_positive = any_positive || rate > 0;
    series->points.emplace_back(t, rate);
  }
  series->repeat_s = r.optional_number("repeat_s", 0.0, 0.0, kMaxSeconds);
  if (series->repeat_s > 0) {
    if (!(series->repeat_s > series->points.back().first)) {
      throw InputError(r.where("repeat_s"), "repeat_s", "must exceed the last point's t_s");
    }
    if (!any_positive) {
      throw InputError(where, "points", "a repeating series needs a rate above 0 somewhere");
    }
  }
  r.finish();
  return series;
}

std::shared_ptr<const std::vector<double>> read_request_times(const std::string& path,
                                                              const std::string& where) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(where, "request_times", "request-time file not found: " + path);
  }
  TextInput in(path);  // plain, or gzip for a path ending in ".gz"
  auto times = std::make_shared<std::vector<double>>();
  std::string line;
  std::size_t number = 0;
  while (in.next_line(line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    const std::string at = path + ":" + std::to_string(number);
    const double t = parse_number_cell(std::string_view(line).substr(first, last - first + 1), at,
                                       "request_times", 0.0, kMaxSeconds);
    if (!times->empty() && t < times->back()) {
      throw InputError(at, "request_times", "request times must be sorted (non-decreasing)");
    }
    times->push_back(t);
  }
  return times;
}

double optional_or_nan(JsonObject& o, const char* key, double min, double max) {
  if (!o.has(key)) {
    o.allow(key);
    return std::nan("");
  }
  return o.required_number(key, min, max);
}

ServiceFields parse_fields(JsonObject& o, const std::string& base_dir, std::vector<InputFile>& files,
                           const std::vector<DeviceProfile>& devices, nlohmann::json& echo) {
  ServiceFields f;
  f.spec = empty_service_row();
  f.spec->max_queue = -1;
  f.where = o.where();
  if (o.has("class")) {
    f.spec->service_class = o.required_string("class");
    if (f.spec->service_class.empty() ||
        f.spec->service_class.find_first_of(" \t") != std::string::npos) {
      throw InputError(o.where("class"), "class",
                       "a class is one word that `for class:NAME` selects, e.g. \"chat\"");
    }
    echo["class"] = f.spec->service_class;
  } else {
    o.allow("class");
  }
  if (o.has("llm")) {
    JsonObject llm = o.object("llm");
    nlohmann::json llm_echo = nlohmann::json::object();
    f.spec->llm = parse_llm_endpoint(llm, base_dir, devices, llm_echo, files);
    echo["llm"] = std::move(llm_echo);
    for (const char* key : {"request_rate_per_s", "rate_series", "request_times", "service_ms",
                            "max_batch", "batch_cost", "gpu_busy_share"}) {
      if (o.has(key)) {
        throw InputError(o.where(key), key,
                         "an LLM endpoint takes its arrivals from llm.load and its service "
                         "times from its engine: drop this field");
      }
    }
  } else {
    o.allow("llm");
  }
  int arrivals = 0;
  if (o.has("request_rate_per_s")) {
    f.spec->arrival = ArrivalKind::kPoisson;
    f.spec->rate_per_s = o.required_number("request_rate_per_s", 0.0, kMaxRate);
    echo["request_rate_per_s"] = f.spec->rate_per_s;
    ++arrivals;
  } else {
    o.allow("request_rate_per_s");
  }
  if (o.has("rate_series")) {
    JsonObject r = o.object("rate_series");
    f.spec->arrival = ArrivalKind::kSeries;
    f.spec->series = parse_series(r);
    echo["rate_series"] = {{"points", f.spec->series->points},
                           {"repeat_s", f.spec->series->repeat_s}};
    ++arrivals;
  } else {
    o.allow("rate_series");
  }
  if (o.has("request_times")) {
    const std::string file = o.required_string("request_times");
    const std::string path = input_path(files, input_role(o.where("request_times")), file, base_dir);
    f.spec->arrival = ArrivalKind::kTrace;
    f.spec->times_s = read_request_times(path, o.where("request_times"));
    echo["request_times"] = {{"file", file}, {"requests", f.spec->times_s->size()}};
    ++arrivals;
  } else {
    o.allow("request_times");
  }
  if (arrivals > 1) {
    throw InputError(o.where(), "request_rate_per_s",
                     "give at most one of request_rate_per_s, rate_series, request_times");
  }
  f.arrival_given = arrivals == 1;
  f.spec->service_ms = optional_or_nan(o, "service_ms", 1e-6, kMaxMs);
  f.spec->slo_ms = optional_or_nan(o, "slo_ms", 1e-6, kMaxMs);
  f.spec->timeout_ms = optional_or_nan(o, "timeout_ms", 1e-6, kMaxMs);
  f.spec->batch_cost = optional_or_nan(o, "batch_cost", 0.0, 10.0);
  f.spec->gpu_busy_share = optional_or_nan(o, "gpu_busy_share", 1e-6, 1.0);
  f.spec->max_batch = static_cast<int>(o.optional_int("max_batch", 0, 1, 1000000));
  f.spec->max_queue = static_cast<int>(o.optional_int("max_queue", -1, 1, 1000000000));
  if (o.has("mps_active_thread_percentage")) {
    if (f.spec->llm) {
      throw InputError(o.where("mps_active_thread_percentage"), "mps_active_thread_percentage",
                       "an LLM endpoint's MPS share is llm.sharing.mps_active_thread_percentage");
    }
    const double percent = o.required_number("mps_active_thread_percentage", 1.0, 100.0);
    f.spec->mps_thread_fraction = percent / 100.0;
    echo["mps_active_thread_percentage"] = o.raw("mps_active_thread_percentage");
  } else {
    f.spec->mps_thread_fraction = std::nan("");
    o.allow("mps_active_thread_percentage");
  }
  for (const char* key : {"service_ms", "slo_ms", "timeout_ms", "batch_cost", "gpu_busy_share"}) {
    if (o.has(key)) echo[key] = o.raw(key);
  }
  if (f.spec->max_batch > 0) echo["max_batch"] = f.spec->max_batch;
  if (f.spec->max_queue > 0) echo["max_queue"] = f.spec->max_queue;
  o.finish();
  return f;
}

double first_given(std::initializer_list<const ServiceSpec*> layers, double ServiceSpec::*field,
                   double fallback) {
  for (const ServiceSpec* l : layers) {
    if (l && !std::isnan(l->*field)) return l->*field;
  }
  return fallback;
}

int first_given_int(std::initializer_list<const ServiceSpec*> layers, int ServiceSpec::*field,
                    int not_given, int fallback) {
  for (const ServiceSpec* l : layers) {
    if (l && l->*field != not_given) return l->*field;
  }
  return fallback;
}

}  // namespace

ServicesConfig parse_services(JsonObject& o, const std::string& base_dir,
                              const std::vector<DeviceProfile>& devices,
                              std::vector<InputFile>& files) {
  ServicesConfig c;
  c.given = true;
  const std::string mode =
      o.optional_string("mode", std::string(service_engines().entries().front().name));
  const ServiceEngineInfo& engine = service_engines().get(mode, o.where("mode"), "mode");
  c.echo["mode"] = mode;
  c.engine = engine.make(o);
  // The engine's keys the scenario gives, as it gives them (each checked by the engine).
  for (const EngineParameterSpec& spec : engine.parameters) {
    const std::string_view key =
        std::visit([](const auto& declared) { return declared.key; }, spec);
    if (o.has(key)) c.echo[std::string(key)] = o.raw(key);
  }
  if (o.has("default")) {
    JsonObject d = o.object("default");
    nlohmann::json echo = nlohmann::json::object();
    c.defaults = std::make_shared<ServiceFields>(parse_fields(d, base_dir, files, devices, echo));
    c.echo["default"] = echo;
  } else {
    o.allow("default");
  }
  if (o.has("by_id")) {
    JsonObject by_id = o.object("by_id");
    nlohmann::json echo = nlohmann::json::object();
    for (const auto& [id, value] : o.raw("by_id").items()) {
      JsonObject entry = by_id.object(id);
      c.by_id.emplace(id, parse_fields(entry, base_dir, files, devices, echo[id]));
    }
    by_id.finish();
    c.echo["by_id"] = echo;
  } else {
    o.allow("by_id");
  }
  c.echo["builtin"] = {{"batch_cost", kBuiltinBatchCost}, {"max_batch", 1}};
  o.finish();
  return c;
}

bool has_llm_endpoint(const ServicesConfig& services) {
  if (services.defaults && services.defaults->spec->llm) return true;
  for (const auto& [id, fields] : services.by_id) {
    if (fields.spec->llm) return true;
  }
  return false;
}

ServiceAssigningSource::ServiceAssigningSource(JobSource& inner, const ServicesConfig& config,
                                               std::string trace_label)
    : inner_(inner), config_(config), trace_label_(std::move(trace_label)) {}

std::shared_ptr<const ServiceSpec> ServiceAssigningSource::resolve(
    const JobSpec& job, const ServiceSpec* row, const ServiceFields* by_id) const {
  const ServiceSpec* id_layer = by_id ? by_id->spec.get() : nullptr;
  const ServiceSpec* default_layer = config_.defaults ? config_.defaults->spec.get() : nullptr;
  const std::string where = trace_label_ + " job '" + job.id + "'";
  auto s = std::make_shared<ServiceSpec>();
  // An LLM endpoint (by_id's, else the default's): its load and engine replace arrivals and
  // service times; the SLO, timeout and queue fields still apply.
  const ServiceSpec* llm_layer =
      id_layer && id_layer->llm ? id_layer : (!by_id && default_layer && default_layer->llm ? default_layer : nullptr);
  // The class: by_id's, else the default's.
  const std::string* service_class = id_layer && !id_layer->service_class.empty()
                                         ? &id_layer->service_class
                                     : default_layer ? &default_layer->service_class
                                                     : nullptr;
  if (llm_layer) {
    s->llm = llm_layer->llm;
    if (service_class) s->service_class = *service_class;
    s->service_ms = 0.0;
    const std::initializer_list<const ServiceSpec*> layers = {id_layer, default_layer};
    s->slo_ms = first_given(layers, &ServiceSpec::slo_ms, 0.0);
    s->timeout_ms = 0.0;
    return s;
  }
  if (by_id && by_id->arrival_given) {
    *s = *id_layer;
  } else if (row && !std::isnan(row->rate_per_s)) {
    s->arrival = ArrivalKind::kPoisson;
    s->rate_per_s = row->rate_per_s;
  } else if (config_.defaults && config_.defaults->arrival_given) {
    *s = *default_layer;
  } else {
    throw InputError(where, "request_rate_per_s",
                     "a service needs request arrivals: a request_rate_per_s column, or "
                     "services.default / services.by_id with request_rate_per_s, rate_series "
                     "or request_times");
  }
  const std::initializer_list<const ServiceSpec*> layers = {id_layer, row, default_layer};
  s->service_ms = first_given(layers, &ServiceSpec::service_ms, std::nan(""));
  if (std::isnan(s->service_ms)) {
    throw InputError(where, "service_ms",
                     "a service needs a per-request service time: a service_ms column or "
                     "services.default / services.by_id service_ms");
  }
  s->slo_ms = first_given(layers, &ServiceSpec::slo_ms, 0.0);
  s->timeout_ms = first_given(layers, &ServiceSpec::timeout_ms, 0.0);
  s->batch_cost = first_given(layers, &ServiceSpec::batch_cost, kBuiltinBatchCost);
  s->gpu_busy_share = first_given({id_layer, default_layer}, &ServiceSpec::gpu_busy_share, 1.0);
  s->max_batch = first_given_int(layers, &ServiceSpec::max_batch, 0, 1);
  s->max_queue = first_given_int({id_layer, default_layer}, &ServiceSpec::max_queue, -1, 0);
  s->mps_thread_fraction =
      first_given({id_layer, default_layer}, &ServiceSpec::mps_thread_fraction, 0.0);
  if (service_class) s->service_class = *service_class;
  return s;
}

namespace {

// Request-level mode simulates every request, and a waiting one holds memory: a service may
// expect at most this many arrivals in its lifetime (docs/limits.md), fewer without a queue
// limit (an overloaded service's queue then grows with them).
constexpr double kMaxRequestsPerService = 1e9;
constexpr double kMaxRequestsUnboundedQueue = 1e8;

// Expected arrivals over the job's lifetime, an upper bound for a rate series (its peak rate).
double expected_requests(const JobSpec& job, const ServiceSpec& s) {
  const double lifetime_s = static_cast<double>(job.runtime.us()) / 1e6;
  switch (s.arrival) {
    case ArrivalKind::kPoisson:
      return s.rate_per_s * lifetime_s;
    case ArrivalKind::kSeries: {
      double peak = 0.0;
      for (const auto& [t, rate] : s.series->points) peak = std::max(peak, rate);
      return peak * lifetime_s;
    }
    case ArrivalKind::kTrace:
      return static_cast<double>(s.times_s->size());  // already read: bounded by the file
  }
  return 0.0;
}

}  // namespace

void ServiceAssigningSource::check_request_budget(const JobSpec& job) const {
  if (job.service->llm) {
    // An LLM endpoint simulates iterations and holds only the requests in its engine (a closed
    // loop's clients, or a trace already read): its own check is the engine's memory.
    const int tp = job.service->llm->tensor_parallel;
    if (job.gpus != tp) {
      throw InputError(trace_label_ + " job '" + job.id + "'", "gpus",
                       "an LLM endpoint runs on llm.tensor_parallel GPUs (" + std::to_string(tp) +
                           "); its trace row asks for " + std::to_string(job.gpus));
    }
    return;
  }
  if (!config_.engine->simulates_each_request() || job.service->arrival == ArrivalKind::kTrace) {
    return;
  }
  const double expected = expected_requests(job, *job.service);
  const bool bounded = job.service->max_queue > 0;
  const double limit = bounded ? kMaxRequestsPerService : kMaxRequestsUnboundedQueue;
  if (!(expected <= limit)) {
    char text[400];
    std::snprintf(text, sizeof text,
                  "about %.3g requests over its %.0f s lifetime (request rate x runtime_s): "
                  "request-level mode simulates each one and allows at most %.0e per service "
                  "%s; use \"services\": {\"mode\": \"analytic\"}, a lower rate%s",
                  expected, static_cast<double>(job.runtime.us()) / 1e6, limit,
                  bounded ? "" : "without max_queue (waiting requests hold memory)",
                  bounded ? "" : " or a max_queue");
    throw InputError(trace_label_ + " job '" + job.id + "'", "request_rate_per_s", text);
  }
}

namespace {

// The endpoint job's demands are its engine's: it takes its memory at start and keeps it (vLLM's
// gpu_memory_utilization); its limit is the MPS pinned limit or the memory cap; on MIG it asks
// for its instance's profile.
void apply_llm_endpoint(JobSpec& job, const LlmEndpointSpec& llm) {
  job.memory = MemoryMiB(llm.engine_memory_mib);
  job.memory_profile.reset();
  const std::int64_t limit = llm.sharing.pinned_memory_limit_mib > 0
                                 ? llm.sharing.pinned_memory_limit_mib
                                 : llm.sharing.memory_cap_mib;
  if (limit > 0) job.memory_limit = MemoryMiB(limit);
  if (!llm.sharing.mig_profile.empty()) job.mig_profile = llm.sharing.mig_profile;
}

}  // namespace

void ServiceAssigningSource::count_overrides(const ServiceSpec& row, const ServiceFields* by_id) {
  if (!config_.defaults) return;
  const ServiceSpec& d = *config_.defaults->spec;
  const ServiceSpec* id = by_id ? by_id->spec.get() : nullptr;
  // A row's value counts where the default has one and by_id (which wins over both) has none.
  auto count = [&](const char* field, double ServiceSpec::*f) {
    if (!std::isnan(row.*f) && !std::isnan(d.*f) && !(id && !std::isnan(id->*f))) {
      ++defaults_overridden_[field];
    }
  };
  count("service_ms", &ServiceSpec::service_ms);
  count("slo_ms", &ServiceSpec::slo_ms);
  count("timeout_ms", &ServiceSpec::timeout_ms);
  count("batch_cost", &ServiceSpec::batch_cost);
  if (row.max_batch > 0 && d.max_batch > 0 && !(id && id->max_batch > 0)) {
    ++defaults_overridden_["max_batch"];
  }
  if (!std::isnan(row.rate_per_s) && config_.defaults->arrival_given &&
      !(by_id && by_id->arrival_given)) {
    ++defaults_overridden_["request_rate_per_s"];
  }
}

bool ServiceAssigningSource::next(JobSpec& job) {
  // Sources other than the native ones never touch `service`: clear what a recycled job slot
  // left there, so that a non-null value after next() is always this row's columns.
  job.service.reset();
  if (!inner_.next(job)) return false;
  const ServiceFields* by_id = nullptr;
  if (!config_.by_id.empty()) {
    const auto it = config_.by_id.find(job.id);
    if (it != config_.by_id.end()) {
      if (job.kind != JobKind::kInference) {
        throw InputError(it->second.where, job.id,
                         "services.by_id names a job that is not of kind inference");
      }
      by_id = &it->second;
    }
  }
  if (!job.service && !by_id) {
    if (config_.defaults && job.kind == JobKind::kInference) {
      if (!default_spec_) default_spec_ = resolve(job, nullptr, nullptr);
      job.service = default_spec_;
      check_request_budget(job);
      if (job.service->llm) apply_llm_endpoint(job, *job.service->llm);
    }
    return true;
  }
  if (job.service) count_overrides(*job.service, by_id);
  job.service = resolve(job, job.service.get(), by_id);
  check_request_budget(job);
  if (job.service->llm) apply_llm_endpoint(job, *job.service->llm);
  return true;
}

}  // namespace gpumux
