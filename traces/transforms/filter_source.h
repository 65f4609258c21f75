// `trace.filter`: only the jobs matching every given criterion go on to the run; the others
// are counted by the first criterion they fail, never dropped silently.
//
// Applied right after the trace is read (or generated), before every other transform:
// inflation, load factor, whole seconds and arrival batches see the trace as if it held only
// the matching rows (inflation re-samples the kept jobs and its load is theirs; load_factor
// compresses towards the first kept arrival; batches rank kept jobs only). A filtered job is
// not a skipped row: skip counts stay those of the reader (malformed or unusable rows).
//
// Removing jobs keeps a non-decreasing stream non-decreasing, so the output is ordered too.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/job_source.h"
#include "traces/fields/job_fields.h"

namespace gpumux {

// The criteria, in the order a job is tested against them (a job failing several is counted
// under the first).
enum class FilterCriterion : std::uint8_t { kGpus, kKind, kTenant };
inline constexpr std::size_t kFilterCriterionCount = 3;

// The scenario key of a criterion ("gpus", "kind", "tenant").
std::string_view filter_criterion_name(FilterCriterion criterion);

struct JobFilter {
  // GPUs requested per job, inclusive bounds; absent: unbounded on that side.
  std::optional<int> min_gpus;
  std::optional<int> max_gpus;
  std::vector<JobKind> kinds;        // empty: every kind
  std::vector<std::string> tenants;  // empty: every tenant; "" matches jobs without a tenant
  // Whether any criterion is given (an inactive filter keeps every job and is never applied).
  bool active() const;
  // Whether the criterion is given.
  bool uses(FilterCriterion criterion) const;
  // The first criterion `job` fails, or nullopt when it matches them all.
  std::optional<FilterCriterion> first_failed(const JobSpec& job) const;
};

class FilteringSource : public JobSource {
 public:
  // `trace` names the trace in errors (its file, or the scenario's generator pointer).
  FilteringSource(JobSource& inner, JobFilter filter, std::string trace)
      : inner_(inner), filter_(std::move(filter)), trace_(std::move(trace)) {}
  // Throws InputError naming `trace` at the end of a stream that gave jobs but kept none: a
  // run of no jobs measures nothing. (A stream that gave none at all is left to the caller's
  // empty-trace check, which names the reader's skip counts.)
  bool next(JobSpec& job) override;
  std::uint64_t skipped_rows() const override { return inner_.skipped_rows(); }

  std::uint64_t read() const { return kept_ + removed_; }
  std::uint64_t kept() const { return kept_; }
  std::uint64_t removed() const { return removed_; }
  std::uint64_t removed_by(FilterCriterion c) const { return by_[static_cast<std::size_t>(c)]; }
  // Per trace field, removed jobs whose value came from a default (JobSpec::defaulted_fields):
  // the reader's default counts minus these are the kept jobs' counts.
  const DefaultUse& removed_defaults() const { return removed_defaults_; }
  // {"jobs": removed, "by_criterion": {name: removed by it}} over the criteria the filter uses,
  // for the run summary. Complete once next() has returned false.
  nlohmann::json summary() const;

 private:
  JobSource& inner_;
  JobFilter filter_;
  std::string trace_;
  std::uint64_t kept_ = 0;
  std::uint64_t removed_ = 0;
  std::array<std::uint64_t, kFilterCriterionCount> by_{};
  DefaultUse removed_defaults_;
};

// "3,218": counts in messages, grouped by thousands.
std::string grouped_count(std::uint64_t n);

}  // namespace gpumux
