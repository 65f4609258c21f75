// The shared base of the public-trace loaders: per-reason skip counters, a reorder buffer that
// turns an unsorted (or nearly sorted) file into jobs in submit order with bounded memory, and
// the unit conversions every loader needs.
//
// A subclass reads records (rows, or JSON objects) in read_more(); each record either becomes a
// job (add()) or is skipped for a named reason (skip()), never dropped silently. next() pops jobs
// in (submit, read order) and hands them to TraceSource::complete(), which fills defaults in
// output order (so default draws do not depend on the file's order) and rejects duplicate ids.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "traces/formats/trace_source.h"

namespace gpumux {

using PresentFields = std::array<bool, kJobFieldCount>;

class PublicTraceSource : public TraceSource {
 public:
  // Jobs are read ahead until more than `window` are buffered (or the input ends) before the
  // earliest is returned. kWholeFile buffers the whole file: formats not sorted by submit time.
  static constexpr std::size_t kWholeFile = static_cast<std::size_t>(-1);
  // At most this many jobs are held in memory (about 250 bytes each, plus ids longer than 15
  // characters: ~1 GB). A larger unsorted trace is an InputError asking for a sorted or split file.
  static constexpr std::size_t kMaxBufferedJobs = 4'000'000;

  bool next(JobSpec& job) final;

  // Records read but not turned into jobs, by reason (see traces/formats/public/README.md per
  // format).
  const std::map<std::string, std::uint64_t>& skipped_by_reason() const { return skipped_; }
  std::map<std::string, std::uint64_t> skip_counts() const override {
    auto counts = TraceSource::skip_counts();
    for (const auto& [reason, n] : skipped_) counts[reason] += n;
    return counts;
  }
  // Blank and comment lines plus every record skipped for a reason.
  std::uint64_t skipped_rows() const override;
  // Records read so far: jobs returned or buffered, plus records skipped for a reason.
  std::uint64_t records_read() const { return records_; }

 protected:
  // `submit_field` names the trace's column that gives the submit time (for order errors).
  PublicTraceSource(const TraceDefaults& defaults, std::uint64_t seed, std::size_t window,
                    std::string submit_field);

  // Reads at least one more record (calling add() or skip()), or returns false at the end.
  virtual bool read_more() = 0;
  // Called once when read_more() has returned false, before the last jobs are returned.
  virtual void at_end() {}

  // Registers a file that add() can name in `where` (by the returned index).
  std::uint32_t add_file(const std::string& path);
  // Buffers a job read at files[file]:line. Throws InputError when its submit time is earlier
  // than a job already returned (the file is less sorted than the window allows) or earlier
  // than the time origin.
  void add(JobSpec&& job, const PresentFields& present, std::uint32_t file, std::uint64_t line);
  // The same without moving a record: new_job() is a default JobSpec in the buffer for the
  // loader to fill, and add_new() buffers it as add() would. A new_job() not followed by
  // add_new() (the row was skipped) is reset by the next new_job().
  JobSpec& new_job();
  void add_new(const PresentFields& present, std::uint32_t file, std::uint64_t line);
  void skip(const std::string& reason);

  // Submit times are returned relative to this origin (formats with calendar dates start their
  // clock at midnight of the first day). Precondition: no job returned yet.
  void set_time_origin(Time origin) {
    origin_ = origin;
    origin_set_ = true;
  }
  bool has_time_origin() const { return origin_set_; }

 private:
  struct Pending {
    JobSpec job;
    PresentFields present{};
    std::uint32_t file = 0;
    std::uint64_t line = 0;
    std::uint64_t id_hash = 0;  // id_hash(job.id), worked out while the record is in the cache
  };
  // The heap orders small keys, not the records: a record (a JobSpec with its strings) is
  // written once into a slot of pending_ and moved out once, never sifted.
  // How many records ahead next() prefetches once the input is sorted.
  static constexpr std::size_t kPrefetchAhead = 8;
  struct Key {
    Time submit;
    std::uint64_t sequence = 0;
    std::uint32_t slot = 0;
  };
  struct Later {
    bool operator()(const Key& a, const Key& b) const {
      if (a.submit != b.submit) return a.submit > b.submit;
      return a.sequence > b.sequence;
    }
  };

  std::size_t window_;
  std::string submit_field_;
  std::vector<std::string> files_;
  // std::push_heap / pop_heap with Later; once the input has ended, sorted by Later instead
  // (sorted_), so the earliest is at the back.
  std::vector<Key> heap_;
  bool sorted_ = false;
  // Whole-file reading appends the keys in read order (no heap until something is returned):
  // the end's sort is then a stable radix sort on submit (sort_read_order).
  bool in_read_order_ = true;
  static void sort_read_order(std::vector<Key>& keys);
  // The buffered records by slot, in chunks that never move: a vector's growth moved every
  // record buffered so far (a whole-file trace holds them all), a third of add()'s work.
  class Slots {
   public:
    Pending& operator[](std::size_t slot) { return chunks_[slot / kChunk][slot % kChunk]; }
    std::size_t size() const { return size_; }
    // A slot never used before, holding a default Pending.
    std::uint32_t grow() {
      if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<Pending[]>(kChunk));
      return static_cast<std::uint32_t>(size_++);
    }

   private:
    static constexpr std::size_t kChunk = 1024;
    std::vector<std::unique_ptr<Pending[]>> chunks_;
    std::size_t size_ = 0;
  };
  Slots pending_;
  std::vector<std::uint32_t> free_slots_;  // slots of pending_ whose record was returned
  std::uint32_t new_slot_ = 0;             // the slot new_job() handed out
  bool new_slot_open_ = false;             // new_job() handed it out and add_new() has not run
  std::map<std::string, std::uint64_t> skipped_;
  std::uint64_t records_ = 0;
  std::uint64_t sequence_ = 0;
  bool input_done_ = false;
  bool emitted_any_ = false;
  Time last_emitted_;  // absolute (before the origin is subtracted)
  Time origin_;
  bool origin_set_ = false;
};

// --- conversions shared by the loaders ---------------------------------------------------------

// A GPU request per instance that may be fractional (PAI plan_gpu / 100, a gpu_request of 0.5):
// each instance gets ceil(per_instance) GPUs and, when that is not a whole number of GPUs, runs
// on them with sm_share = per_instance / ceil(per_instance).
struct GpuRequest {
  int gpus = 0;
  double sm_share = 1.0;
  bool fractional = false;  // sm_share < 1: the trace fixes sm_share
};
// Precondition: per_instance > 0, instances >= 1. Throws InputError at `where` naming `field`
// when the gang exceeds 10^6 GPUs.
GpuRequest gpu_request(double per_instance, std::int64_t instances, const std::string& where,
                       std::string_view field);
// The same without the error: nullopt when the gang exceeds 10^6 GPUs.
std::optional<GpuRequest> gpu_request_within_limit(double per_instance, std::int64_t instances);

// Fills gpus, gpu_milli (the per-GPU fraction of a fractional request, else 1000) and, for a
// fractional request, sm_share; marks them present. A whole-GPU request
// says nothing about how many SMs the kernels use: sm_share then comes from TraceDefaults.
void set_gpus(JobSpec& job, PresentFields& present, const GpuRequest& request);

inline void mark(PresentFields& present, JobField field) {
  present[static_cast<std::size_t>(field)] = true;
}

// The fields a record gives its job: each setter sets one field of `job` and marks it present
// (the fields left unmarked come from TraceDefaults when the job is returned). Every loader
// fills its job through one, then hands job and present() to add() or add_new().
class JobFields {
 public:
  explicit JobFields(JobSpec& job) : job_(job) {}

  // The id from a cell: InputError at `where` when it is empty or too long (set_job_field).
  void id(std::string_view cell, const std::string& where) {
    set_job_field(job_, JobField::kId, cell, where);
    mark(present_, JobField::kId);
  }
  // An id already checked to be non-empty.
  void id(std::string_view text) {
    job_.id.assign(text);
    mark(present_, JobField::kId);
  }
  // A GPU request (set_gpus), or none: a CPU-only job (gpus 0).
  void gpus(const GpuRequest& request) { set_gpus(job_, present_, request); }
  void no_gpus() { set(&JobSpec::gpus, 0, JobField::kGpus); }
  void cpus(double cores) { set(&JobSpec::cpus, cores, JobField::kCpus); }
  void submit(Time t) { set(&JobSpec::submit, t, JobField::kSubmit); }
  void runtime(Time t) { set(&JobSpec::runtime, t, JobField::kRuntime); }
  void kind(JobKind k) { set(&JobSpec::kind, k, JobField::kKind); }
  void sm_util(double u) { set(&JobSpec::sm_util, u, JobField::kSmUtil); }
  void memory(MemoryMiB m) { set(&JobSpec::memory, m, JobField::kMemory); }
  // The tenant, when the record names one (an empty name gives none).
  void tenant(std::string_view name) {
    if (name.empty()) return;
    job_.tenant.assign(name);
    mark(present_, JobField::kTenant);
  }

  const PresentFields& present() const { return present_; }

 private:
  template <class Field, class Value>
  void set(Field JobSpec::*field, Value value, JobField which) {
    job_.*field = value;
    mark(present_, which);
  }

  JobSpec& job_;
  PresentFields present_{};
};

// Parses "YYYY-MM-DD HH:MM:SS" (no time zone: taken as written) into seconds since 1970-01-01.
// Throws InputError at `where` naming `field`.
std::int64_t parse_datetime_cell(std::string_view text, const std::string& where,
                                 std::string_view field);
// Midnight (00:00:00) of the day holding `seconds_since_epoch`.
std::int64_t start_of_day(std::int64_t seconds_since_epoch);

// A time in seconds from a numeric cell (may be fractional), in [0, 1e12].
double parse_seconds_cell(std::string_view text, const std::string& where, std::string_view field);

// The index of each named column in a CSV header; `required` must all be there (InputError at
// `where` naming the first missing one). Other columns are ignored.
class CsvColumns {
 public:
  CsvColumns(const std::vector<std::string>& header, const std::vector<std::string>& required,
             const std::string& where, const std::string& note_when_missing = "");
  // Index of `name`, or -1 when the header lacks it.
  int find(std::string_view name) const;
  std::size_t width() const { return width_; }

 private:
  std::map<std::string, int, std::less<>> index_;
  std::size_t width_ = 0;
};

// Throws InputError at `where` unless the row has `width` cells.
void check_row_width(const std::vector<std::string>& row, std::size_t width,
                     const std::string& where);
void check_row_width(std::size_t cells, std::size_t width, const std::string& where);

}  // namespace gpumux
