// Memory-over-progress profiles derived from per-pod GPU memory series (Alibaba GenAI 2026).
//
// Input: two CSV files with a header, columns found by name, any order:
//   memory: `timestamp_anon` [s], `value` [bytes used on the pod's GPU], `container_ip` [pod id]
//   duty:   `value` [GPU duty cycle, percent 0-100], `timestamp_anon` [s], `container_ip`
// Both are read row by row (never whole into memory as text); samples are grouped by pod and
// sorted by time. A malformed row (wrong number of fields, a cell that is not a number or is out
// of range, an empty pod id) throws InputError naming `file:line` and the field. Rows and pods
// that are well formed but cannot be used are skipped and counted by reason (DeriveResult).
//
// The steps, by file: pod_series.cc reads a CSV grouped by pod, pod_profile.cc derives one
// pod's profile, derive.cc runs both files end to end (and the command), profile_library.cc
// writes the library JSON, derive_summary.cc prints the summary.
//
// Output per used pod (see traces/memory_profiles/README.md for the method and its figures):
// a MemoryProfile-compatible step list in seconds since the pod's first sample, fractions of
// the pod's own maximum quantized to `quantum`, at most `max_steps` steps, always reaching 1.0;
// replayed periodically (period = the observed series) from the end of the observed ramp-up
// (or from 0 when the pod was already running when the trace starts); and descriptive stats.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace gpumux {

struct MemoryDeriveOptions {
  std::size_t min_samples = 30;    // pods with fewer memory samples are skipped (>= 2)
  double merge_tolerance = 0.05;   // consecutive samples merge while their range stays below this
  double quantum = 0.01;           // step fractions are rounded to a multiple of this
  std::size_t max_steps = 48;      // further merging (least squared error first) down to this
  double ramp_threshold = 0.9;     // ramp-up ends at the first sample >= this share of the max
  double spike_margin = 0.1;       // a spike: consecutive samples above steady + this margin
  double gap_factor = 5.0;         // an interval longer than this many median intervals is a gap
  double censor_window_s = 120.0;  // a pod whose first sample is this close to the file's first
                                   // timestamp was already running: its start is not observed
};

// One sample after grouping; `t_s` is the file's timestamp.
struct PodSample {
  double t_s = 0.0;
  double value = 0.0;
};

struct MemoryProfileStats {
  std::size_t samples = 0;       // memory samples used (duplicates removed)
  double duration_s = 0.0;       // series length on the profile's time axis (gaps closed)
  double interval_s = 0.0;       // median sampling interval
  std::size_t gaps_closed = 0;   // intervals longer than gap_factor * interval_s shortened
  bool start_observed = false;   // the pod started inside the trace window
  double ramp_s = 0.0;           // profile time of the first sample >= ramp_threshold * max
  double steady_fraction = 0.0;  // median of all samples' fractions
  std::size_t spikes = 0;        // runs of consecutive samples above steady + spike_margin
  double spikes_per_hour = 0.0;  // spikes / (duration_s / 3600)
  double spike_height = 0.0;     // mean over spikes of (highest fraction - steady); 0 if none
  double mean_duty_cycle = 0.0;  // mean of the pod's duty samples / 100, in [0, 1]
  std::size_t duty_samples = 0;
  double max_gib = 0.0;  // the pod's maximum, GiB (2^30 bytes)
};

struct DerivedStep {
  std::int64_t at_s = 0;  // seconds since the pod's first sample (gaps closed)
  double fraction = 0.0;  // of the pod's maximum, a multiple of `quantum` in [0, 1]
};

struct DerivedProfile {
  std::string pod;   // container_ip of the source
  std::string name;  // "genai-pod-NNN", numbered in pod-id order among used pods
  std::vector<DerivedStep> steps;
  std::int64_t repeat_from_s = 0;
  std::int64_t period_s = 0;  // 0: hold the last step
  MemoryProfileStats stats;
};

// Skip reasons (keys of DeriveResult::skipped_pods / skipped_rows).
inline constexpr const char* kSkipTooFewSamples = "fewer than min_samples memory samples";
inline constexpr const char* kSkipNeverAllocates = "memory always 0";
inline constexpr const char* kSkipNoDuty = "no duty-cycle samples";
inline constexpr const char* kSkipDuplicateTimestamp = "duplicate (pod, timestamp) row";

struct DeriveResult {
  MemoryDeriveOptions options;                      // what the profiles were derived with
  std::vector<DerivedProfile> profiles;             // sorted by pod id
  std::size_t pods = 0;                             // distinct pods in the memory file
  std::map<std::string, std::size_t> skipped_pods;  // reason -> pods
  std::map<std::string, std::size_t> skipped_rows;  // reason -> rows (both files)
  std::size_t memory_rows = 0;
  std::size_t duty_rows = 0;
  std::size_t duty_only_pods = 0;  // pods with duty samples but no memory series (not profiled)
  std::size_t comment_lines = 0;   // blank and '#' lines skipped by the CSV reader
};

// Throws std::invalid_argument for options out of their ranges (min_samples >= 2, max_steps >=
// 4, quantum in (0, 0.5], ...). Every function below that takes options checks them first.
void check_derive_options(const MemoryDeriveOptions& options);

// Reads one pod-series CSV (either schema above) grouped by pod, each pod's samples sorted by
// time with duplicate timestamps removed (the first row in file order is kept; the others are
// counted in `duplicates`). `value_max` bounds the `value` column.
std::map<std::string, std::vector<PodSample>> read_pod_series(const std::string& path,
                                                              double value_max, std::size_t& rows,
                                                              std::size_t& duplicates,
                                                              std::size_t& comment_lines);

// Derives one pod's profile from its memory samples (sorted, no duplicate times, max > 0,
// at least 2) and duty samples (values in percent; may be empty). `start_observed` decides the
// repetition point. The name is left empty. Throws std::invalid_argument on broken
// preconditions.
DerivedProfile derive_pod_profile(const std::vector<PodSample>& memory,
                                  const std::vector<PodSample>& duty, bool start_observed,
                                  const MemoryDeriveOptions& options = {});

// Both files end to end.
DeriveResult derive_memory_profiles(const std::string& memory_csv, const std::string& duty_csv,
                                    const MemoryDeriveOptions& options = {});

// The library JSON read by the engine: {"source", "method", "profiles": [{name, steps,
// repeat_from_s, period_s, stats}]}, one profile per line, fixed number formatting. Every
// profile is checked by constructing a gpumux::MemoryProfile from it (std::invalid_argument
// when one breaks its invariants).
void write_profile_library(const DeriveResult& result, std::ostream& out);

// Human-readable summary: pods used and skipped by reason, distributions of the stats.
void print_derive_summary(const DeriveResult& result, std::ostream& out);

// The entry point for the command line: derives, writes `out_json` atomically (AtomicFile:
// temporary file renamed into place, removed on failure or SIGINT/SIGTERM) and prints the summary to `out`. Returns 0 on success, 2 on bad input (the message,
// naming file:line and field, goes to `err`; nothing is written), 1 on an internal error.
int run_derive_memory_profiles(const std::string& memory_csv, const std::string& duty_csv,
                               const std::string& out_json, std::ostream& out, std::ostream& err);

}  // namespace gpumux
