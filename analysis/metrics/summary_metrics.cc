#include "analysis/metrics/summary_metrics.h"

#include "analysis/metrics/metric_catalogue.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

#include "sim/base/input_error.h"
#include "sim/base/json_fields.h"


namespace gpumux {

namespace {

// Splits `name` into summary keys along `pattern`: dots separate keys, except inside the part a
// `*` matches (a profile name such as "1g.10gb" keeps its dots). Empty when it does not match.
std::vector<std::string> keys_along(const std::string& pattern, const std::string& name) {
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
      const auto dot = s.find('.', start);
      out.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) return out;
      start = dot + 1;
    }
  };
  const auto star = pattern.find('*');
  if (star == std::string::npos) return pattern == name ? split(name) : std::vector<std::string>{};
  const std::string prefix = pattern.substr(0, star);
  const std::string suffix = pattern.substr(star + 1);
  if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return {};
  }
  std::vector<std::string> keys = split(prefix.substr(0, prefix.size() - 1));
  keys.push_back(name.substr(prefix.size(), name.size() - prefix.size() - suffix.size()));
  for (auto& k : split(suffix.substr(1))) keys.push_back(k);
  return keys;
}

std::vector<std::string> keys_of(const std::string& name) {
  for (const auto& pattern : metric_names()) {
    auto keys = keys_along(pattern, name);
    if (!keys.empty()) return keys;
  }
  return {};
}

}  // namespace

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& m : metric_catalogue()) {
      if (!m.derived) n.push_back(m.name);
    }
    return n;
  }();
  return names;
}

bool is_known_metric(const std::string& name) { return !keys_of(name).empty(); }

std::string metric_pointer(const std::string& name) {
  std::string pointer = "/metrics";
  for (const auto& key : keys_of(name)) {
    pointer += '/';
    for (char c : key) pointer += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  }
  return pointer;
}

MetricValue read_metric(const nlohmann::json& summary, const std::string& name) {
  const std::vector<std::string> keys = keys_of(name);
  if (keys.empty()) return {std::nullopt, "unknown metric"};
  const nlohmann::json* at = summary.contains("metrics") ? &summary.at("metrics") : nullptr;
  for (std::size_t i = 0; at && i < keys.size(); ++i) {
    if (!at->is_object() || !at->contains(keys[i])) {
      if (i == 0 && keys[0] == "slots") {
        return {std::nullopt,
                "this run has no slot metrics (only models that split GPUs into slots, such as "
                "mig, have them)"};
      }
      if (i == 0 && keys[0] == "shares") {
        return {std::nullopt,
                "this run has no GPU-share metrics (only models that limit compute shares, such "
                "as fractional, or share-aware placement have them)"};
      }
      if (i == 0 && keys[0] == "requests") {
        return {std::nullopt, "this run has no inference services"};
      }
      if (i == 0 && keys[0] == "by_kind") {
        return {std::nullopt,
                "this run has one kind of job (metrics.by_kind needs two kinds or more: "
                "training, inference, services)"};
      }
      if (i == 1 && keys[0] == "by_kind") {
        return {std::nullopt, "no job of kind '" + keys[1] + "' arrived in this run"};
      }
      if (i == 0 && keys[0] == "queued_by_reason") {
        return {std::nullopt, "this run's summary predates the queued_by_reason metrics"};
      }
      if (i == 2 && keys[1] == "profiles") {
        return {std::nullopt, "no instance of profile '" + keys[2] + "' in this run"};
      }
      return {std::nullopt, "not in this run's summary (" + metric_pointer(name) + ")"};
    }
    at = &(*at)[keys[i]];
  }
  if (!at) return {std::nullopt, "the summary has no metrics"};
  // Why a null is n/a: the empty set it summarises (the catalogue says which).
  if (at->is_null()) return {std::nullopt, metric_catalogue().find(name)->null_meaning};
  if (!at->is_number()) return {std::nullopt, "not a number: " + at->dump()};
  return {at->get<double>(), ""};
}

std::vector<std::string> summary_metric_names(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  for (const std::string& pattern : metric_names()) {
    const auto star = pattern.find('*');
    if (star == std::string::npos) {
      out.push_back(pattern);
      continue;
    }
    const std::string prefix = pattern.substr(0, star);  // "slots.profiles."
    std::string pointer = "/metrics";
    for (std::size_t s = 0, dot; (dot = prefix.find('.', s)) != std::string::npos; s = dot + 1) {
      pointer += "/" + prefix.substr(s, dot - s);
    }
    std::set<std::string> keys;
    for (const nlohmann::json* doc : {&a, &b}) {
      const auto p = nlohmann::json::json_pointer(pointer);
      if (doc->is_object() && doc->contains(p) && (*doc)[p].is_object()) {
        for (const auto& [k, v] : (*doc)[p].items()) keys.insert(k);
      }
    }
    for (const auto& k : keys) out.push_back(prefix + k + pattern.substr(star + 1));
  }
  return out;
}

void check_summary_metric_types(const nlohmann::json& summary, const std::string& file,
                                const std::vector<std::string>& names) {
  for (const auto& name : names) {
    // "/metrics/jct_s/p95": the steps after /metrics, each escaped as a JSON pointer's token.
    const std::string pointer = metric_pointer(name);
    std::vector<std::string> tokens;
    for (std::size_t pos = 0; pos < pointer.size();) {
      const std::size_t next = std::min(pointer.find('/', pos + 1), pointer.size());
      tokens.push_back(pointer.substr(pos + 1, next - pos - 1));
      pos = next;
    }
    const nlohmann::json* at = &summary;
    std::string prefix;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (!at->is_object()) {
        throw InputError(file + "#" + prefix, "",
                         "expected an object of metrics, got " + describe_json(*at));
      }
      const std::string key = nlohmann::json::json_pointer("/" + tokens[i]).back();
      if (!at->contains(key)) break;  // a metric this run does not have: n/a
      at = &(*at)[key];
      prefix += "/" + tokens[i];
      if (i + 1 == tokens.size() && !at->is_number() && !at->is_null()) {
        throw InputError(file + "#" + prefix, "",
                         "expected a number or null, got " + describe_json(*at));
      }
    }
  }
}

}  // namespace gpumux
