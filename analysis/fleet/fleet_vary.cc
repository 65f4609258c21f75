#include "analysis/fleet/fleet_vary.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <map>

#include "analysis/output/number_text.h"
#include "sim/base/decimal_text.h"
#include "sim/base/input_error.h"

namespace gpumux {

namespace {

// The keys under which the planner writes its own choices.
constexpr const char* kPlannerKeys[] = {"llm.sharing", "llm.engine.gpu_memory_utilization",
                                        "llm.load.round_robin"};

bool dotted_names(const std::string& key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c == '.' && key[i - 1] == '.') return false;
    if (c != '.' && c != '_' && !std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

double bound_of(const std::string& text, const std::string& part, const std::string& where) {
  const std::optional<double> x = finite_number_text(part);
  if (!x) {
    throw InputError(where, text, "'" + part + "' is not a finite number (expected KEY=LO:HI)");
  }
  return *x;
}

// A value as --set writes it: integers without a decimal point (engine settings are integers).
std::string set_value(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string gpus_text(int gpus, bool met) {
  return std::to_string(gpus) + (met ? "" : " (not met)");
}

}  // namespace

std::vector<FleetVary> parse_fleet_vary(const std::vector<std::string>& texts) {
  std::vector<FleetVary> out;
  for (const std::string& text : texts) {
    const std::string where = "--vary " + text;
    const BoundSubject subject = parse_bound_subject(text, where, "vary");
    const std::string& range = subject.metric;
    const auto eq = range.find('=');
    if (eq == std::string::npos) {
      throw InputError(where, "vary", "expected KEY=LO:HI [for SELECTOR]");
    }
    FleetVary v;
    v.text = text;
    v.key = range.substr(0, eq);
    v.endpoints = subject.endpoints;
    if (!dotted_names(v.key)) {
      throw InputError(where, v.key,
                       "expected a setting under services.by_id.<id> as a dotted path, e.g. "
                       "llm.load.rate_scale");
    }
    for (const char* planner : kPlannerKeys) {
      const std::string p = planner;
      if (v.key == p || v.key.rfind(p + ".", 0) == 0) {
        throw InputError(where, v.key,
                         "the fleet planner sets " + p +
                             " itself for every endpoint; vary the "
                             "load or the engine instead");
      }
    }
    const std::string ends = range.substr(eq + 1);
    const auto colon = ends.find(':');
    if (colon == std::string::npos) throw InputError(where, v.key, "expected KEY=LO:HI");
    v.low = bound_of(v.key, ends.substr(0, colon), where);
    v.high = bound_of(v.key, ends.substr(colon + 1), where);
    if (v.low > v.high) throw InputError(where, v.key, "LO must not exceed HI");
    for (const FleetVary& prior : out) {
      const std::string a = prior.endpoints ? prior.endpoints->text() : "";
      const std::string b = v.endpoints ? v.endpoints->text() : "";
      if (prior.key == v.key && a == b) {
        throw InputError(where, v.key, "given twice (" + prior.text + ")");
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<FleetVaryResult> run_fleet_vary(const FleetRequest& request, const FleetResult& plan,
                                            const std::vector<FleetVary>& vary,
                                            std::ostream* progress) {
  // The scenario's endpoints and their classes (replicas carry their parent's).
  std::map<std::string, std::string> class_of;
  if (!plan.answers.empty()) {
    for (const FleetEndpoint& e : plan.answers.front().endpoints) {
      class_of.emplace(e.parent.empty() ? e.id : e.parent, e.service_class);
    }
  }
  std::vector<FleetVaryResult> out;
  for (const FleetVary& v : vary) {
    FleetVaryResult r;
    r.vary = v;
    for (const std::string& id : plan.endpoint_ids) {
      const auto c = class_of.find(id);
      const std::string cls = c == class_of.end() ? "" : c->second;
      if (!v.endpoints || v.endpoints->selects(id, cls)) r.endpoints.push_back(id);
    }
    if (r.endpoints.empty()) {
      throw InputError("--vary " + v.text, v.key,
                       "selects no endpoint of the scenario (" +
                           std::to_string(plan.endpoint_ids.size()) + " endpoints)");
    }
    for (FleetVaryEnd* end : {&r.low, &r.high}) {
      end->value = end == &r.low ? v.low : v.high;
      FleetRequest at = request;
      for (const std::string& id : r.endpoints) {
        at.sets.push_back("services.by_id." + id + "." + v.key + "=" + set_value(end->value));
      }
      if (progress) {
        *progress << "[plan --fleet] --vary " << v.key << " at " << number_text(end->value) << "\n"
                  << std::flush;
      }
      FleetResult solved;
      try {
        solved = run_fleet_plan(at, nullptr);
      } catch (const InputError& e) {
        throw InputError("--vary " + v.text, v.key,
                         "at " + number_text(end->value) + ": " + e.what());
      }
      for (const FleetAnswer& a : solved.answers) {
        end->gpus.push_back(a.gpu_count());
        end->met.push_back(a.met);
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

void print_fleet_vary(const std::vector<FleetVaryResult>& results, const FleetResult& plan,
                      std::ostream& out) {
  for (const FleetVaryResult& r : results) {
    out << "\nvary " << r.vary.key << " " << number_text(r.low.value) << " .. "
        << number_text(r.high.value) << " ("
        << (r.vary.endpoints ? "for " + r.vary.endpoints->text() + ": " : std::string())
        << r.endpoints.size() << " of " << plan.endpoint_ids.size()
        << " endpoints; each end a whole plan)\n";
    const std::string low = "GPUs at " + number_text(r.low.value);
    const std::string high = "GPUs at " + number_text(r.high.value);
    out << "  model        " << std::setw(18) << low << std::setw(18) << "as planned"
        << std::setw(18) << high << "\n";
    for (std::size_t i = 0; i < plan.answers.size(); ++i) {
      const FleetAnswer& a = plan.answers[i];
      out << "  " << std::left << std::setw(11) << a.model << std::right << std::setw(18)
          << (i < r.low.gpus.size() ? gpus_text(r.low.gpus[i], r.low.met[i]) : "-") << std::setw(18)
          << gpus_text(a.gpu_count(), a.met) << std::setw(18)
          << (i < r.high.gpus.size() ? gpus_text(r.high.gpus[i], r.high.met[i]) : "-") << "\n";
    }
  }
}

nlohmann::json fleet_vary_json(const std::vector<FleetVaryResult>& results,
                               const FleetResult& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const FleetVaryResult& r : results) {
    nlohmann::json answers = nlohmann::json::array();
    for (std::size_t i = 0; i < plan.answers.size(); ++i) {
      const FleetAnswer& a = plan.answers[i];
      const auto end = [&](const FleetVaryEnd& e) {
        return i < e.gpus.size() ? nlohmann::json{{"gpus", e.gpus[i]}, {"met", e.met[i]}}
                                 : nlohmann::json(nullptr);
      };
      answers.push_back({{"model", a.model},
                         {"planned", {{"gpus", a.gpu_count()}, {"met", a.met}}},
                         {"low", end(r.low)},
                         {"high", end(r.high)}});
    }
    out.push_back({{"vary", r.vary.text},
                   {"key", r.vary.key},
                   {"low", r.low.value},
                   {"high", r.high.value},
                   {"endpoints", r.endpoints},
                   {"answers", answers}});
  }
  return out;
}

}  // namespace gpumux
