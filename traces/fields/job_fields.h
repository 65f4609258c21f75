// The native trace fields: names, units, ranges, and how a missing one is filled.
//
// A trace that lacks a field (no column, or an empty cell) gets a value from the scenario's
// `trace.defaults` (a constant or a distribution), or else from the built-in default listed
// here. Every use of a default is counted and reported; required fields have no default.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>

#include "sim/base/json_fields.h"
#include "sim/base/rng.h"
#include "sim/core/job.h"
#include "traces/fields/distribution.h"

namespace gpumux {

enum class JobField : std::uint8_t {
  kId,
  kSubmit,
  kGpus,
  kRuntime,
  kSmUtil,
  kSmShare,
  kMemory,
  kKind,
  kMigProfile,
  kTenant,
  kPriority,
  kKernel,
  kCheckpoint,
  kMemoryLimit,
  kCpus,
  kGpuMilli,
  kMemBwUtil,
};
inline constexpr std::size_t kJobFieldCount = 17;

struct JobFieldInfo {
  JobField field;
  std::string_view name;  // column / JSON key in the native format
  std::string_view unit;
  bool required;
  std::string_view builtin_default;  // text of the built-in default; empty when required
  std::string_view description;
};

std::span<const JobFieldInfo> job_fields();
const JobFieldInfo& job_field_info(JobField field);
// The field a native column name denotes, or false.
bool find_job_field(std::string_view name, JobField& out);

// Parses a text cell into `job`. Throws InputError at `where` naming the field.
void set_job_field(JobSpec& job, JobField field, std::string_view text, const std::string& where);

// Values for fields a trace lacks, with where each came from.
class TraceDefaults {
 public:
  TraceDefaults();  // the built-in defaults
  // Reads the scenario's trace.defaults object (keys are native field names).
  void override_from(JsonObject& defaults);

  // Fills a missing field. Precondition: the field is not required.
  void fill(JobSpec& job, JobField field, Rng& rng) const;
  // Fills every field marked in job.defaulted_fields, in field order: the draws a trace reader
  // makes for one row, in the order it makes them, so that replaying parsed rows through this
  // with the reader's seed gives the reader's jobs (analysis/run/trace_cache.h).
  void fill_marked(JobSpec& job, Rng& rng) const;
  std::string source(JobField field) const { return source_[static_cast<int>(field)]; }
  nlohmann::json value_json(JobField field) const;

 private:
  // Works out what fill() needs from numeric_ and text_ once, after either changes.
  void settle();
  // A numeric field's default as stored: drawn, clamped to the field's range, whole for GPUs.
  double numeric_value(JobField field, Rng& rng) const;

  std::array<Distribution, kJobFieldCount> numeric_;
  std::array<std::string, kJobFieldCount> text_;
  std::array<std::string, kJobFieldCount> source_;
  // Set by settle(): the kind parsed, and each constant numeric default's stored value.
  JobKind kind_ = JobKind::kTraining;
  std::array<bool, kJobFieldCount> is_constant_{};
  std::array<double, kJobFieldCount> constant_{};
  // Each constant numeric default stored into its field once: fill() copies the member instead
  // of converting the value again for every row (the same stored value).
  JobSpec constant_job_;
};

// Counts of default uses per field, reported in the run summary.
struct DefaultUse {
  std::array<std::uint64_t, kJobFieldCount> rows{};
};

}  // namespace gpumux
