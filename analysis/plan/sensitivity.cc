#include "analysis/plan/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>

#include "analysis/output/number_text.h"
#include "scenarios/scenario.h"
#include "sim/base/decimal_text.h"
#include "sim/base/input_error.h"
#include "traces/fields/job_fields.h"

namespace gpumux {

namespace {

// z of the standard normal's 95th percentile: the lognormal's ends are median x exp(-/+ z s).
constexpr double kZ95 = 1.6448536269514722;

bool is_text_field(JobField f) {
  return f == JobField::kKind || f == JobField::kMigProfile || f == JobField::kTenant ||
         f == JobField::kId;
}

double parse_number(const std::string& text, bool& ok) {
  const std::optional<double> x = finite_number_text(text);
  ok = x.has_value();
  return x.value_or(0.0);
}

// The ends of a distribution's description (traces/fields/distribution.h), clamped by its
// min/max; nothing for a constant or a form without numbers.
std::optional<std::pair<double, double>> distribution_ends(const nlohmann::json& d) {
  if (!d.is_object()) return std::nullopt;
  std::optional<std::pair<double, double>> ends;
  if (d.contains("uniform") && d["uniform"].is_array() && d["uniform"].size() == 2) {
    ends = {{d["uniform"][0].get<double>(), d["uniform"][1].get<double>()}};
  } else if (d.contains("lognormal") && d["lognormal"].is_object()) {
    const double median = d["lognormal"].value("median", 0.0);
    const double sigma = d["lognormal"].value("sigma", 0.0);
    ends = {{median * std::exp(-kZ95 * sigma), median * std::exp(kZ95 * sigma)}};
  } else if (d.contains("exponential") && d["exponential"].is_object()) {
    const double mean = d["exponential"].value("mean", 0.0);
    ends = {{-mean * std::log(0.95), -mean * std::log(0.05)}};
  } else if (d.contains("choice") && d["choice"].is_array() && !d["choice"].empty()) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& v : d["choice"]) {
      if (!v.is_number()) return std::nullopt;
      lo = std::min(lo, v.get<double>());
      hi = std::max(hi, v.get<double>());
    }
    ends = {{lo, hi}};
  }
  if (!ends) return std::nullopt;
  if (d.contains("min") && d["min"].is_number()) {
    ends->first = std::max(ends->first, d["min"].get<double>());
    ends->second = std::max(ends->second, d["min"].get<double>());
  }
  if (d.contains("max") && d["max"].is_number()) {
    ends->first = std::min(ends->first, d["max"].get<double>());
    ends->second = std::min(ends->second, d["max"].get<double>());
  }
  return ends;
}

// The request of one end: the field's default held at `value`, no curve.
PlanRequest end_request(const PlanRequest& request, const std::string& field, double value) {
  PlanRequest r = request;
  r.sets.push_back("trace.defaults." + field + "=" + nlohmann::json(value).dump());
  r.curve_from_nodes = 0;
  r.curve_to_nodes = 0;
  return r;
}

std::vector<EndAnswer> answers_of(const PlanResult& r) {
  std::vector<EndAnswer> out;
  for (const auto& m : r.models) {
    EndAnswer a;
    if (m.met) {
      a.nodes = m.answer->nodes;
      a.gpus = m.answer->gpus;
      a.placement = m.placement;
    }
    out.push_back(a);
  }
  return out;
}

EndAnswer planned_answer(const PlanModelResult& m) {
  EndAnswer a;
  if (m.met) {
    a.nodes = m.answer->nodes;
    a.gpus = m.answer->gpus;
    a.placement = m.placement;
  }
  return a;
}

std::string answer_text(const EndAnswer& a) {
  return a.nodes > 0 ? std::to_string(a.nodes) : std::string("not met");
}

nlohmann::json end_json(const EndAnswer& a) {
  if (a.nodes == 0) return {{"nodes", nullptr}, {"gpus", nullptr}, {"placement", nullptr}};
  return {{"nodes", a.nodes}, {"gpus", a.gpus}, {"placement", a.placement}};
}

// The smallest and largest answer (nodes) over the plan and both ends; {0, 0} when none met,
// and the largest 0 (unbounded) when some end did not meet.
std::pair<int, int> node_range(const EndAnswer& planned, const EndAnswer& low,
                               const EndAnswer& high) {
  int lo = 0, hi = 0;
  bool unmet = false;
  for (const EndAnswer* a : {&planned, &low, &high}) {
    if (a->nodes == 0) {
      unmet = true;
      continue;
    }
    lo = lo == 0 ? a->nodes : std::min(lo, a->nodes);
    hi = std::max(hi, a->nodes);
  }
  return {lo, unmet ? 0 : hi};
}

std::string range_text(const VaryRange& v) {
  return v.field + " " + number_text(v.low) + "-" + number_text(v.high);
}

}  // namespace

std::vector<VaryRange> parse_vary(const std::vector<std::string>& texts) {
  std::vector<VaryRange> out;
  for (const auto& text : texts) {
    const std::string where = "--vary " + text;
    const auto eq = text.find('=');
    const auto colon = text.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || colon == std::string::npos || eq == 0) {
      throw InputError(where, "vary", "expected FIELD=LO:HI, e.g. sm_util=0.05:1");
    }
    VaryRange v;
    v.field = text.substr(0, eq);
    v.source = "--vary";
    JobField field{};
    if (!find_job_field(v.field, field) || is_text_field(field)) {
      throw InputError(where, v.field,
                       "is not a numeric trace field (e.g. sm_util, memory_mib, mem_bw_util; "
                       "docs/trace-formats.md lists them)");
    }
    if (job_field_info(field).required) {
      throw InputError(where, v.field, "is a required trace field: it is never defaulted");
    }
    bool ok_low = false, ok_high = false;
    v.low = parse_number(text.substr(eq + 1, colon - eq - 1), ok_low);
    v.high = parse_number(text.substr(colon + 1), ok_high);
    if (!ok_low || !ok_high) {
      throw InputError(where, v.field, "LO and HI must be numbers, e.g. sm_util=0.05:1");
    }
    if (v.low > v.high) throw InputError(where, v.field, "LO must not exceed HI");
    for (const auto& seen : out) {
      if (seen.field == v.field) throw InputError(where, v.field, "is varied twice");
    }
    out.push_back(v);
  }
  return out;
}

std::vector<VaryRange> sensitivity_ranges(const nlohmann::json& defaulted_fields,
                                          const std::vector<VaryRange>& asked) {
  std::vector<VaryRange> out = asked;
  if (!defaulted_fields.is_object()) return out;
  for (const auto& [field, use] : defaulted_fields.items()) {
    const bool taken = std::any_of(out.begin(), out.end(), [&name = field](const VaryRange& v) {
      return v.field == name;  // a named capture: clang 14 captures no structured binding
    });
    if (taken || !use.contains("value")) continue;
    if (const auto ends = distribution_ends(use["value"]); ends && ends->first < ends->second) {
      out.push_back({field, ends->first, ends->second, "the default's distribution"});
    }
  }
  return out;
}

PlanSensitivity run_sensitivity(const PlanRequest& request, const PlanResult& plan,
                                const std::vector<VaryRange>& asked, std::ostream* progress) {
  const nlohmann::json defaulted =
      plan.defaulted_fields.is_object() ? plan.defaulted_fields : nlohmann::json::object();
  for (const auto& v : asked) {
    if (plan.defaulted_fields.is_null()) {
      throw InputError("--vary " + v.field, v.field,
                       "a generated trace fills no field from defaults: vary the generator's "
                       "distribution with --set instead");
    }
    if (!defaulted.contains(v.field)) {
      throw InputError("--vary " + v.field + "=" + number_text(v.low) + ":" + number_text(v.high),
                       v.field,
                       "the trace gives this field on every row (no row uses a default), so "
                       "varying its default changes nothing");
    }
  }
  PlanSensitivity s;
  for (const auto& range : sensitivity_ranges(defaulted, asked)) {
    FieldSensitivity f;
    f.range = range;
    for (const bool high : {false, true}) {
      const double value = high ? range.high : range.low;
      if (progress) {
        *progress << "[gpumux plan] sensitivity: " << range.field << " = " << number_text(value)
                  << " (" << (high ? "high" : "low") << " end)\n"
                  << std::flush;
      }
      const PlanResult end = run_plan(end_request(request, range.field, value), progress);
      (high ? f.high : f.low) = answers_of(end);
      f.runs += end.runs;
    }
    s.runs += f.runs;
    for (std::size_t m = 0; m < plan.models.size(); ++m) {
      const EndAnswer planned = planned_answer(plan.models[m]);
      const int step = plan.unit_nodes;
      for (const EndAnswer* end : {&f.low[m], &f.high[m]}) {
        const bool moved = (end->nodes == 0) != (planned.nodes == 0) ||
                           std::abs(end->nodes - planned.nodes) > step;
        if (!moved) continue;
        s.warnings.push_back(plan.models[m].model + ": " + answer_text(planned) +
                             " nodes as planned, " + answer_text(*end) + " with " + range.field +
                             " = " + number_text(end == &f.low[m] ? range.low : range.high) +
                             ": the assumption moves the answer by more than one size step (" +
                             std::to_string(step) + (step == 1 ? " node)" : " nodes)"));
      }
    }
    s.fields.push_back(std::move(f));
  }
  for (const auto& [field, use] : defaulted.items()) {
    JobField id{};
    if (!find_job_field(field, id) || is_text_field(id) || id == JobField::kGpuMilli) continue;
    if (!use.contains("value") || !use["value"].is_number()) continue;
    const bool varied =
        std::any_of(s.fields.begin(), s.fields.end(),
                    [&name = field](const FieldSensitivity& f) { return f.range.field == name; });
    if (!varied) s.not_varied.push_back(field + "=" + number_text(use["value"].get<double>()));
  }
  return s;
}

nlohmann::json sensitivity_to_json(const PlanSensitivity& s, const PlanResult& plan) {
  nlohmann::json fields = nlohmann::json::array();
  for (const auto& f : s.fields) {
    nlohmann::json answers = nlohmann::json::array();
    for (std::size_t m = 0; m < plan.models.size(); ++m) {
      const EndAnswer planned = planned_answer(plan.models[m]);
      const auto [lo, hi] = node_range(planned, f.low[m], f.high[m]);
      answers.push_back(
          {{"model", plan.models[m].model},
           {"nodes", planned.nodes ? nlohmann::json(planned.nodes) : nlohmann::json(nullptr)},
           {"low", end_json(f.low[m])},
           {"high", end_json(f.high[m])},
           {"range_nodes",
            {lo ? nlohmann::json(lo) : nlohmann::json(nullptr),
             hi ? nlohmann::json(hi) : nlohmann::json(nullptr)}}});
    }
    const auto* use =
        plan.defaulted_fields.is_object() && plan.defaulted_fields.contains(f.range.field)
            ? &plan.defaulted_fields[f.range.field]
            : nullptr;
    fields.push_back({{"field", f.range.field},
                      {"source", f.range.source},
                      {"low", f.range.low},
                      {"high", f.range.high},
                      {"default", use ? use->value("value", nlohmann::json()) : nlohmann::json()},
                      {"rows", use ? use->value("rows", nlohmann::json()) : nlohmann::json()},
                      {"runs", f.runs},
                      {"answers", answers}});
  }
  return {
      {"fields", fields}, {"warnings", s.warnings}, {"not_varied", s.not_varied}, {"runs", s.runs}};
}

void print_sensitivity(const PlanSensitivity& s, const PlanResult& plan, std::ostream& out) {
  if (s.fields.empty() && s.not_varied.empty()) return;
  out << "\nSensitivity (nodes per model with each defaulted field held at the ends of its "
         "range; the plan re-solved at each)\n";
  if (!s.fields.empty()) {
    out << std::left << std::setw(24) << "field = value" << std::right;
    for (const auto& m : plan.models) out << std::setw(12) << m.model;
    out << "\n";
  }
  for (const auto& f : s.fields) {
    const auto row = [&](const std::string& label, const auto& answer_of) {
      out << std::left << std::setw(24) << label << std::right;
      for (std::size_t m = 0; m < plan.models.size(); ++m) {
        out << std::setw(12) << answer_text(answer_of(m));
      }
      out << "\n";
    };
    row(f.range.field + " = " + number_text(f.range.low), [&](std::size_t m) { return f.low[m]; });
    row("  as planned", [&](std::size_t m) { return planned_answer(plan.models[m]); });
    row(f.range.field + " = " + number_text(f.range.high),
        [&](std::size_t m) { return f.high[m]; });
  }
  for (const auto& f : s.fields) {
    out << "  range      " << range_text(f.range) << " (" << f.range.source << "):";
    for (std::size_t m = 0; m < plan.models.size(); ++m) {
      const EndAnswer planned = planned_answer(plan.models[m]);
      const auto [lo, hi] = node_range(planned, f.low[m], f.high[m]);
      out << (m ? "; " : " ") << plan.models[m].model << " " << answer_text(planned);
      if (lo == 0) continue;
      out << " (" << lo << "-" << (hi ? std::to_string(hi) : std::string("not met")) << ")";
    }
    out << "\n";
  }
  if (!s.fields.empty()) out << "  runs       " << s.runs << " more runs for the sensitivity\n";
  if (!s.not_varied.empty()) {
    out << "  not varied ";
    for (std::size_t i = 0; i < s.not_varied.size(); ++i) {
      out << (i ? ", " : "") << s.not_varied[i];
    }
    out << " (constant defaults; --vary FIELD=LO:HI re-solves at a range)\n";
  }
  for (const auto& w : s.warnings) out << "WARNING    " << w << "\n";
}

}  // namespace gpumux
