// How the scenario's `trace` section spells the transforms with a block of their own
// (docs/scenario-format.md "trace"): each reads its keys strictly (an unknown key, a wrong type
// or an impossible value is an InputError naming its JSON pointer), fills scenario.trace and
// writes what was given, defaults filled in, to the echo. An absent block is allowed and leaves
// the transform off. The table of transforms (registry.h) names these as its entries' parsers.
#pragma once

#include "traces/transforms/registry.h"

namespace gpumux {

// `trace.filter`: {"gpus": {"min": a, "max": b}, "kind": [...], "tenant": [...]}.
void parse_filter_block(TransformParseInputs& in);

// `trace.catalogue` and `trace.workload_mix`.
void parse_workloads_block(TransformParseInputs& in);

// `trace.resample`: {"method": "bootstrap" | "arrival-order"}.
void parse_resample_block(TransformParseInputs& in);

// `trace.inflation`: {"load", "jobs", "max_runtime_s", "cluster_gpus"}.
void parse_inflation_block(TransformParseInputs& in);

// `trace.arrival_batches`: {"jobs", "every_s"}.
void parse_arrival_batches_block(TransformParseInputs& in);

}  // namespace gpumux
