// A sweep file and the runs it expands to (`gpumux sweep`, docs/sweeps.md "Sweeps", docs/sweeps.md).
//
// A sweep file is one JSON object:
//   {"name": "queues",                       // default: the file's stem
//    "description": "free text",
//    "scenarios": ["../examples/quickstart.json"],   // required; relative to the sweep file
//    "sets": ["outputs.timeseries_interval_s=600"],  // overrides for every run, as --set
//    "models": ["exclusive", {"name": "mps", "params": {...}}],  // default: each scenario's own
//    "axes": [{"set": "scheduler.queue", "values": ["fifo", "fifo-backfill"]}],
//    "seeds": 3,                              // count from the scenario's seed, or [1, 7, 9]
//    "run_files": "summary"}                  // or "scenario": the scenario's outputs block
//
// Expansion: runs are numbered 0 .. N-1 by nesting scenario (outermost), model, each axis in
// the order given, then seed (innermost), so a variant's seeds are neighbours, as in `gpumux
// compare`. A run's document is its scenario with, in order: the sweep's sets, the model's
// sharing block (as `compare` chooses params: model_choice.h), the axis values, the seed.
// Every run's scenario is parsed when the sweep is loaded, so bad input fails before any run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/sweep/sweep_inputs.h"

namespace gpumux {

struct SweepAxisValue {
  std::string path;  // as written in the sweep file (dotted or a JSON pointer)
  nlohmann::json value;
};

struct SweepRun {
  std::size_t index = 0;
  // "<scenario name> <model>[ <path>=<value>]...", e.g. "quickstart mps scheduler.queue=fifo":
  // the CSV's variant; a run's variant and seed name it.
  std::string variant;
  std::string scenario_name;
  std::string model;
  std::vector<SweepAxisValue> axes;
  std::uint64_t seed = 0;
  bool services = false;  // the scenario has inference services (more metrics)
  bool llm = false;       // ... and LLM endpoints among them (the token-level metrics too)
  // Some run of the scenario reports the GPU-share metrics (compare_metrics.h reports_shares):
  // the variant's rows hold them, as compare's do.
  bool shares = false;
  // FNV-1a 64 of the run's document: a changed scenario or sweep file is noticed on resume.
  std::string digest;
  // Not part of the plan file: what is needed to run it here.
  std::string scenario_file;
  nlohmann::json document;
};

struct SweepPlan {
  std::string name;
  std::string description;
  std::vector<SweepRun> runs;  // by index
  // The files the runs read and their digests (sweep_inputs.h). A plan written before they
  // were recorded has none: its folder resumes and merges without the check.
  std::vector<SweepInput> inputs;
  bool inputs_recorded = true;
};

// The most runs one sweep may expand to; run folders are named with six digits.
inline constexpr std::size_t kMaxSweepRuns = 1'000'000;

// Reads, expands and validates a sweep file. Throws InputError naming the sweep file and the
// JSON pointer (e.g. "s.json#/axes/0/values/2") of what is wrong; an error of a run's scenario
// also names the run's variant and seed.
SweepPlan load_sweep(const std::string& file);

// The plan as written to DIR/sweep-plan.json: name, description, each run without its
// document, and the inputs. It holds no path, so every process of a sweep writes the same bytes.
nlohmann::json plan_to_json(const SweepPlan& plan);
// Reads a plan written by plan_to_json (its runs have no document). Throws InputError naming
// `file` and the pointer when it is not such a plan.
SweepPlan plan_from_json(const nlohmann::json& json, const std::string& file);

// A value as the variant label shows it: a string without quotes, anything else as JSON text.
std::string axis_value_text(const nlohmann::json& value);

}  // namespace gpumux
