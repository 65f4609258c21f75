#include "traces/formats/generator.h"

#include <cmath>

#include "sim/base/input_error.h"

namespace gpumux {

namespace {

Distribution field(JsonObject& o, const char* key, const nlohmann::json& fallback, double lo,
                   double hi) {
  const nlohmann::json& v = o.has(key) ? o.raw(key) : fallback;
  if (!o.has(key)) o.allow(key);
  return Distribution::parse(v, o.file(), o.pointer(key), key, lo, hi);
}

}  // namespace

GeneratorSpec GeneratorSpec::parse(JsonObject& o) {
  GeneratorSpec s;
  s.jobs = static_cast<std::uint64_t>(o.optional_int("jobs", 1000, 1, kMaxGeneratedJobs));
  s.where = o.where("arrival");
  if (o.has("arrival")) {
    JsonObject a = o.object("arrival");
    s.process = a.optional_string("process", "poisson");
    if (s.process != "poisson" && s.process != "bursty") {
      throw InputError(a.where("process"), "process",
                       "expected 'poisson' or 'bursty', got '" + s.process + "'");
    }
    s.rate_per_hour = a.optional_number("rate_per_hour", s.rate_per_hour, 1e-9, 1e12);
    s.where = a.where("rate_per_hour");
    s.burst_factor = a.optional_number("burst_factor", s.burst_factor, 1.0, 1e6);
    s.burst_fraction = a.optional_number("burst_fraction", s.burst_fraction, 1e-6, 1.0 - 1e-6);
    s.mean_burst_s = a.optional_number("mean_burst_s", s.mean_burst_s, 1e-3, kMaxInputSeconds);
    a.finish();
  } else {
    o.allow("arrival");
  }
  s.runtime_s = field(
      o, "runtime_s",
      {{"lognormal", {{"median", 1800}, {"sigma", 1.5}}}, {"min", 10}, {"max", 604800}}, 0.0,
      kMaxInputSeconds);
  s.gpus = field(o, "gpus", {{"choice", {1, 2, 4, 8}}, {"weights", {0.7, 0.1, 0.1, 0.1}}}, 1, 1e6);
  // A job takes whole GPUs: a constant or a choice must say so (1.5 used to become 2-GPU
  // jobs); a continuous distribution is rounded to the nearest whole count (documented).
  for (double v : s.gpus.discrete_values()) {
    if (v != std::floor(v)) {
      throw InputError(o.where("gpus"), "gpus",
                       "a job takes whole GPUs: expected whole numbers, got " +
                           nlohmann::json(v).dump() +
                           " (a continuous distribution is rounded to the nearest count)");
    }
  }
  s.sm_util = field(o, "sm_util", {{"uniform", {0.1, 1.0}}}, 1e-6, 1.0);
  s.sm_share = field(o, "sm_share", {{"uniform", {0.2, 1.0}}}, 1e-6, 1.0);
  s.memory_mib = field(o, "memory_mib",
                       {{"choice", {2048, 4096, 8192, 16384, 24576, 32768}},
                        {"weights", {0.2, 0.25, 0.25, 0.15, 0.1, 0.05}}},
                       0.0, 1e9);
  s.kernel_us = field(o, "kernel_us",
                      {{"lognormal", {{"median", 500}, {"sigma", 1.0}}}, {"min", 5}}, 1.0, 1e9);
  // Durations in seconds have the bound of every time in a trace (docs/limits.md).
  s.checkpoint_s = field(o, "checkpoint_s", 0, 0.0, kMaxInputSeconds);
  s.inference_fraction = o.optional_number("inference_fraction", 0.0, 0.0, 1.0);
  o.finish();
  return s;
}

nlohmann::json GeneratorSpec::to_json() const {
  return {{"jobs", jobs},
          {"arrival",
           {{"process", process},
            {"rate_per_hour", rate_per_hour},
            {"burst_factor", burst_factor},
            {"burst_fraction", burst_fraction},
            {"mean_burst_s", mean_burst_s}}},
          {"runtime_s", runtime_s.to_json()},
          {"gpus", gpus.to_json()},
          {"sm_util", sm_util.to_json()},
          {"sm_share", sm_share.to_json()},
          {"memory_mib", memory_mib.to_json()},
          {"kernel_us", kernel_us.to_json()},
          {"checkpoint_s", checkpoint_s.to_json()},
          {"inference_fraction", inference_fraction}};
}

GeneratedJobs::GeneratedJobs(GeneratorSpec spec, std::uint64_t seed)
    : spec_(std::move(spec)), rng_(seed) {}

double GeneratedJobs::next_gap_s() {
  const double mean_rate_s = spec_.rate_per_hour / 3600.0;
  if (spec_.process == "poisson") {
    return std::exponential_distribution<double>(mean_rate_s)(rng_);
  }
  // Two-state MMPP; memorylessness lets us redraw the gap at every state change.
  const double f = spec_.burst_fraction;
  const double calm_rate = mean_rate_s / (f * spec_.burst_factor + (1.0 - f));
  const double burst_rate = calm_rate * spec_.burst_factor;
  const double mean_calm_s = spec_.mean_burst_s * (1.0 - f) / f;
  double gap = 0.0;
  for (;;) {
    if (state_left_s_ <= 0.0) {
      in_burst_ = state_drawn_ ? !in_burst_ : std::bernoulli_distribution(f)(rng_);
      state_drawn_ = true;
      const double mean = in_burst_ ? spec_.mean_burst_s : mean_calm_s;
      state_left_s_ = std::exponential_distribution<double>(1.0 / mean)(rng_);
    }
    const double rate = in_burst_ ? burst_rate : calm_rate;
    const double candidate = std::exponential_distribution<double>(rate)(rng_);
    if (candidate <= state_left_s_) {
      state_left_s_ -= candidate;
      return gap + candidate;
    }
    gap += state_left_s_;
    state_left_s_ = 0.0;
  }
}

bool GeneratedJobs::next(JobSpec& job) {
  if (emitted_ >= spec_.jobs) return false;
  if (emitted_ > 0) now_s_ += next_gap_s();
  if (!(now_s_ <= kMaxInputSeconds)) {  // a tiny rate_per_hour: gaps of ~1e12 s and more
    throw InputError(spec_.where, "rate_per_hour",
                     "job " + std::to_string(emitted_) + " would arrive after " +
                         std::to_string(static_cast<long long>(kMaxInputSeconds)) +
                         " s (the limit on times); raise rate_per_hour or lower jobs");
  }
  job.id = "g" + std::to_string(emitted_);
  job.submit = Time::from_seconds(std::round(now_s_ * 1e6) / 1e6);
  job.gpus = static_cast<int>(std::lround(spec_.gpus.draw(rng_)));
  job.runtime = Time::from_seconds(std::max(1e-6, spec_.runtime_s.draw(rng_)));
  job.sm_util = spec_.sm_util.draw(rng_);
  job.sm_share = spec_.sm_share.draw(rng_);
  job.memory = MemoryMiB(std::llround(spec_.memory_mib.draw(rng_)));
  job.kind = std::bernoulli_distribution(spec_.inference_fraction)(rng_) ? JobKind::kInference
                                                                         : JobKind::kTraining;
  job.kernel_length =
      Time::from_us(std::max<std::int64_t>(1, std::llround(spec_.kernel_us.draw(rng_))));
  job.checkpoint_interval = Time::from_seconds(spec_.checkpoint_s.draw(rng_));
  job.memory_limit = MemoryMiB(0);
  job.mig_profile.clear();
  job.tenant.clear();
  job.priority = 0;
  ++emitted_;
  return true;
}

}  // namespace gpumux
