#include "traces/fields/memory_profile_library.h"

#include <filesystem>
#include <stdexcept>

namespace gpumux {

namespace {

// A period is 0 (none) or at least kMinProfilePeriodS: every period brings two memory events
// per job, so a tiny one (1e-5 s) would ask for ~10^8 events of a day-long job.
constexpr double kMinProfilePeriodS = 1.0;

void require_bounded_period(JsonObject& p, const char* key, double period_s) {
  if (period_s > 0 && period_s < kMinProfilePeriodS) {
    throw InputError(p.where(key), key,
                     "must be 0 (not periodic) or at least 1 s (each period costs two events per "
                     "job; docs/limits.md)");
  }
}

constexpr double kMaxSeconds = 1e9;

std::vector<MemoryProfile::Step> parametric_steps(double ramp_s, double steady, double period_s,
                                                  double spike_s, double& repeat_from_us,
                                                  double& period_us) {
  std::vector<MemoryProfile::Step> steps;
  if (ramp_s > 0) {
    for (int i = 0; i < 4; ++i) steps.push_back({ramp_s * 1e6 * i / 4.0, steady * (i + 1) / 5.0});
  }
  steps.push_back({ramp_s * 1e6, steady});
  repeat_from_us = ramp_s * 1e6;
  period_us = 0.0;
  if (period_s > 0 && spike_s > 0) {
    steps.push_back({(ramp_s + period_s - spike_s) * 1e6, 1.0});
    period_us = period_s * 1e6;
  }
  return steps;
}

}  // namespace

std::shared_ptr<const MemoryProfile> parse_memory_profile(JsonObject& p) {
  const std::string name = p.required_string("name");
  std::vector<MemoryProfile::Step> steps;
  double repeat_from_us = 0.0, period_us = 0.0;
  if (p.has("steps")) {
    const auto& list = p.raw("steps");
    if (!list.is_array() || list.empty()) {
      throw InputError(p.where("steps"), "steps",
                       "expected a non-empty array of [seconds, fraction]");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      const auto& s = list[i];
      if (!s.is_array() || s.size() != 2 || !s[0].is_number() || !s[1].is_number()) {
        throw InputError(p.where("steps") + "/" + std::to_string(i), "steps",
                         "expected [seconds, fraction], got " + describe_json(s));
      }
      steps.push_back({s[0].get<double>() * 1e6, s[1].get<double>()});
    }
    repeat_from_us = p.optional_number("repeat_from_s", 0.0, 0.0, kMaxSeconds) * 1e6;
    period_us = p.optional_number("period_s", 0.0, 0.0, kMaxSeconds) * 1e6;
    require_bounded_period(p, "period_s", period_us / 1e6);
    for (const char* k : {"ramp_s", "steady_fraction", "spike_period_s", "spike_s", "stats"}) {
      p.allow(k);
    }
  } else {
    const double ramp_s = p.optional_number("ramp_s", 0.0, 0.0, kMaxSeconds);
    const double steady = p.required_number("steady_fraction", 0.0, 1.0);
    const double period_s = p.optional_number("spike_period_s", 0.0, 0.0, kMaxSeconds);
    const double spike_s = p.optional_number("spike_s", 0.0, 0.0, kMaxSeconds);
    require_bounded_period(p, "spike_period_s", period_s);
    if (period_s > 0 && !(spike_s > 0 && spike_s < period_s)) {
      throw InputError(p.where("spike_s"), "spike_s",
                       "must be > 0 and shorter than spike_period_s");
    }
    steps = parametric_steps(ramp_s, steady, period_s, spike_s, repeat_from_us, period_us);
    for (const char* k : {"steps", "repeat_from_s", "period_s", "stats"}) p.allow(k);
  }
  p.finish();
  try {
    return std::make_shared<const MemoryProfile>(name, std::move(steps), repeat_from_us, period_us);
  } catch (const std::invalid_argument& e) {
    throw InputError(p.where(), "steps", e.what());
  }
}

MemoryProfileConfig parse_memory_profiles(JsonObject& o, const std::string& base_dir) {
  MemoryProfileConfig c;
  c.fraction_of_jobs = o.optional_number("fraction_of_jobs", 1.0, 0.0, 1.0);
  nlohmann::json names = nlohmann::json::array();
  auto add_list = [&](const nlohmann::json& list, const std::string& file,
                      const std::string& pointer) {
    if (!list.is_array()) throw InputError(file + "#" + pointer, "profiles", "expected an array");
    for (std::size_t i = 0; i < list.size(); ++i) {
      JsonObject p(list[i], file, pointer + "/" + std::to_string(i));
      c.profiles.push_back(parse_memory_profile(p));
      names.push_back(c.profiles.back()->name());
    }
  };
  if (o.has("library")) {
    const std::string given = o.required_string("library");
    std::string path = given;
    if (!base_dir.empty() && !std::filesystem::path(given).is_absolute()) {
      path = (std::filesystem::path(base_dir) / given).lexically_normal().string();
    }
    const nlohmann::json library = read_json_file(path);
    JsonObject root(library, path, "");
    root.allow("source");
    root.allow("method");
    add_list(root.raw("profiles"), path, "/profiles");
    root.finish();
    c.echo["library"] = given;
    c.library_path = path;
    if (library.contains("source")) c.echo["library_source"] = library["source"];
  } else {
    o.allow("library");
  }
  if (o.has("profiles")) {
    add_list(o.raw("profiles"), o.file(), o.pointer("profiles"));
  } else {
    o.allow("profiles");
  }
  o.finish();
  if (c.profiles.empty()) {
    throw InputError(o.where(), "profiles", "give a 'library' file or 'profiles' (none found)");
  }
  c.echo["fraction_of_jobs"] = c.fraction_of_jobs;
  c.echo["profiles"] = names.size();
  c.echo["assignment"] = "uniform over the profiles, seeded";
  return c;
}

bool ProfileAssigningSource::next(JobSpec& job) {
  if (!inner_.next(job)) return false;
  job.memory_profile.reset();
  if (config_.fraction_of_jobs > 0.0 &&
      std::bernoulli_distribution(config_.fraction_of_jobs)(rng_)) {
    const auto i = std::uniform_int_distribution<std::size_t>(0, config_.profiles.size() - 1)(rng_);
    job.memory_profile = config_.profiles[i];
  }
  return true;
}

}  // namespace gpumux
