// Job sources that stream trace files: the native format (CSV or JSON Lines,
// docs/trace-formats.md) and adapters for public traces whose rows map one-to-one onto jobs.
//
// Every row becomes a job or an error: malformed rows throw InputError naming file:line and the
// field; only blank and '#' comment lines are skipped, and they are counted. Rows must be
// sorted by submit time (checked). Fields a trace lacks come from TraceDefaults, counted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/job_source.h"
#include "sim/base/rng.h"
#include "traces/io/id_hash_set.h"
#include "traces/fields/job_fields.h"

namespace gpumux {

struct TraceStats {
  std::uint64_t rows = 0;           // rows turned into jobs
  std::uint64_t skipped_lines = 0;  // blank or comment lines
  DefaultUse defaults;              // per field, rows that used a default
};

// Names a row in error messages: `text` when set, else "path:line", built only for an error
// (a reader need not build it for each row).
struct RowPlace {
  std::string_view path;
  std::uint64_t line = 0;
  const std::string* text = nullptr;
  std::string str() const;
};

class TraceSource : public JobSource {
 public:
  const TraceStats& stats() const { return stats_; }
  std::uint64_t skipped_rows() const override { return stats_.skipped_lines; }
  // Rows read but not turned into jobs, by reason (for the run summary).
  virtual std::map<std::string, std::uint64_t> skip_counts() const {
    std::map<std::string, std::uint64_t> counts;
    if (stats_.skipped_lines > 0) counts["blank or comment lines"] = stats_.skipped_lines;
    return counts;
  }
  // What the loader noticed about the list as a whole, for the run summary (null: nothing),
  // e.g. the openb loader's check whether a pod list is a snapshot. Complete once the source
  // has returned its last job.
  virtual nlohmann::json list_notes() const { return nullptr; }

 protected:
  TraceSource(TraceDefaults defaults, std::uint64_t seed)
      : defaults_(std::move(defaults)), rng_(seed) {}
  // Fills the fields not marked in `present`, checks order; `where` names the row.
  // `id_hash` is id_hash(job.id), for a reader that worked it out earlier (see prefetch_id).
  void complete(JobSpec& job, const std::array<bool, kJobFieldCount>& present,
                const RowPlace& where, std::uint64_t id_hash);
  void complete(JobSpec& job, const std::array<bool, kJobFieldCount>& present,
                const RowPlace& where) {
    complete(job, present, where, id_hash(job.id));
  }
  void complete(JobSpec& job, const std::array<bool, kJobFieldCount>& present,
                const std::string& where) {
    complete(job, present, RowPlace{{}, 0, &where});
  }
  // The hash under which complete() checks a job id for duplicates, and a hint that the job
  // with that id is completed soon (its place in the table is fetched into the cache).
  static std::uint64_t id_hash(const std::string& id) { return std::hash<std::string>{}(id); }
  void prefetch_id(std::uint64_t hash) const { id_hashes_.prefetch(hash); }

  TraceStats stats_;

 private:
  TraceDefaults defaults_;
  Rng rng_;
  Time last_submit_;
  // 64-bit hashes of the ids seen: duplicate ids are errors. Hashes in a flat table keep memory
  // at 11-21 bytes a row on multi-million-row traces; two distinct ids colliding is a ~1e-7
  // event at 10^6 rows.
  IdHashSet id_hashes_;
};

// The native formats, each an entry of the trace-format table (traces/formats/trace_opening.h,
// which opens a format by name). Each opens `path`; a path ending in ".gz" is decompressed on
// the fly (traces/io/text_input.h). `seed` seeds the draws for defaulted fields (a distribution
// in trace.defaults). Throws InputError for a missing file, a bad header or a damaged gzip file.
//   csv       gpumux's native CSV (traces/fields/job_fields.h: one column per field)
//   jsonl     one JSON object per line, the same fields
//   tiresias  the Tiresias simulator's CSV (job_id,num_gpu,submit_time,iterations,model_name,
//             duration,interval)
std::unique_ptr<TraceSource> open_native_csv(const std::string& path,
                                             const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<TraceSource> open_native_jsonl(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed);
std::unique_ptr<TraceSource> open_tiresias_csv(const std::string& path,
                                               const TraceDefaults& defaults, std::uint64_t seed);

}  // namespace gpumux
