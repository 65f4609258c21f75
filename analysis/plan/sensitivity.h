// Sensitivity of a plan to its assumptions (`gpumux plan --vary`, docs/planning.md
// "Sensitivity"): the trace fields a plan fills from defaults decide its answers, so for each
// such field the plan is solved again with the field held at the low and at the high end of
// its range, and the answers are compared per model.
//
// The ranges: every `--vary FIELD=LO:HI` asked for, then every defaulted field whose default is
// a distribution (not already asked for), at the distribution's ends: a uniform's bounds, a
// choice's smallest and largest values, the 5th and 95th percentiles of a lognormal or an
// exponential, each clamped by the distribution's own min/max. A constant default has no range
// of its own and is varied only when asked for. At an end, the field's default becomes that
// constant (`trace.defaults.FIELD=end`): only rows that lack the field change; values the trace
// gives are kept.
//
// Each end is a whole plan of the same request (models, objectives, placements, seeds, load),
// without --curve: its answers, not its curve, are compared. An answer that moves by more than
// one size step from the plan's (or that is met at one end and not at the other) is flagged.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/plan/plan.h"

namespace gpumux {

// One field's range. `low` <= `high`.
struct VaryRange {
  std::string field;  // a numeric trace field (traces/fields/job_fields.h), e.g. sm_util
  double low = 0.0;
  double high = 0.0;
  std::string source;  // "--vary" or "the default's distribution"
};

// Reads `--vary` texts "FIELD=LO:HI". Throws InputError naming the text for a malformed one, an
// unknown or non-numeric field, a required field (it has no default), LO > HI, or a field given
// twice.
std::vector<VaryRange> parse_vary(const std::vector<std::string>& texts);

// The ranges a plan is re-solved at: `asked`, then the defaulted fields of `defaulted_fields`
// (PlanResult::defaulted_fields) whose default is a distribution.
std::vector<VaryRange> sensitivity_ranges(const nlohmann::json& defaulted_fields,
                                          const std::vector<VaryRange>& asked);

// A plan's answer for one model at one end: nodes and GPUs (0 when not met).
struct EndAnswer {
  int nodes = 0;
  int gpus = 0;
  std::string placement;
};

struct FieldSensitivity {
  VaryRange range;
  std::vector<EndAnswer> low;   // per model, in the plan's order
  std::vector<EndAnswer> high;  // per model
  std::size_t runs = 0;         // scenario runs of both ends
};

struct PlanSensitivity {
  std::vector<FieldSensitivity> fields;
  std::vector<std::string> warnings;    // answers that move by more than one size step
  std::vector<std::string> not_varied;  // constant defaults no range was asked for: "f=v"
  std::size_t runs = 0;                 // over every field
};

// Re-solves `request` (whose plan is `plan`) at each end of each range. Throws InputError when
// an asked field is filled from no default in this plan (the trace gives it on every row, so
// varying its default changes nothing), or for an end the field's range refuses.
PlanSensitivity run_sensitivity(const PlanRequest& request, const PlanResult& plan,
                                const std::vector<VaryRange>& asked, std::ostream* progress);

// {"fields": [{field, source, low, high, rows, answers: [{model, nodes, low: {nodes, gpus,
// placement}, high: {...}, range_nodes: [min, max]}]}], "warnings", "not_varied", "runs"};
// nodes null when not met.
nlohmann::json sensitivity_to_json(const PlanSensitivity& s, const PlanResult& plan);

// The table's sensitivity block: per field, each model's answer at the low end, as planned, and
// at the high end, then "mps 9 nodes; 7-14 over sm_util 0.05-1" per model, then the warnings.
void print_sensitivity(const PlanSensitivity& s, const PlanResult& plan, std::ostream& out);

}  // namespace gpumux
