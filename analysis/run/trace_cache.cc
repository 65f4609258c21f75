#include "analysis/run/trace_cache.h"

#include <exception>
#include <vector>

#include "traces/formats/trace_opening.h"

namespace gpumux {

// What one reader produced, whole, its defaulted fields drawn with seed 0 (redrawn per seed).
struct TraceCache::Entry {
  std::once_flag once;
  std::exception_ptr error;
  std::vector<JobSpec> jobs;
  TraceStats stats;
  std::map<std::string, std::uint64_t> skip_counts;
  nlohmann::json list_notes;
};

namespace {

// Replays an entry for one seed: the parsed jobs in order, each with its defaulted fields drawn
// anew from the seed as the reader draws them (TraceDefaults::fill_marked, one stream, row after
// row), then the reader's counts, which no draw changes.
class ReplayedTrace : public TraceSource {
 public:
  ReplayedTrace(std::shared_ptr<const std::vector<JobSpec>> jobs, const TraceStats& stats,
                std::map<std::string, std::uint64_t> skip_counts, nlohmann::json list_notes,
                const TraceDefaults& defaults, std::uint64_t seed)
      : TraceSource(TraceDefaults(), 0),
        jobs_(std::move(jobs)),
        skip_counts_(std::move(skip_counts)),
        list_notes_(std::move(list_notes)),
        defaults_(defaults),
        rng_(seed) {
    stats_ = stats;
  }
  bool next(JobSpec& job) override {
    if (next_ == jobs_->size()) return false;
    job = (*jobs_)[next_++];
    defaults_.fill_marked(job, rng_);
    return true;
  }
  std::map<std::string, std::uint64_t> skip_counts() const override { return skip_counts_; }
  nlohmann::json list_notes() const override { return list_notes_; }

 private:
  std::shared_ptr<const std::vector<JobSpec>> jobs_;
  std::size_t next_ = 0;
  std::map<std::string, std::uint64_t> skip_counts_;
  nlohmann::json list_notes_;
  TraceDefaults defaults_;
  Rng rng_;
};

// Everything the parse depends on: the seed only draws the defaulted fields, redrawn per
// replay, but the defaults themselves are part of the key (a defaulted kind decides whether a
// row's service columns are valid).
std::string cache_key(const std::string& path, const std::string& format,
                      const TraceDefaults& defaults) {
  std::string key = path + '\n' + format;
  for (const auto& f : job_fields()) {
    if (f.required) continue;
    key += '\n' + defaults.value_json(f.field).dump() + ' ' + defaults.source(f.field);
  }
  return key;
}

}  // namespace

std::unique_ptr<TraceSource> TraceCache::open(const std::string& path, const std::string& format,
                                              const TraceDefaults& defaults, std::uint64_t seed) {
  std::shared_ptr<Entry> entry;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = entries_[cache_key(path, format, defaults)];
    if (!slot) slot = std::make_shared<Entry>();
    entry = slot;
  }
  std::call_once(entry->once, [&] {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      ++reads_;
    }
    try {
      auto reader = open_scenario_trace(path, format, defaults, 0);
      JobSpec job;
      while (reader->next(job)) entry->jobs.push_back(job);
      entry->stats = reader->stats();
      entry->skip_counts = reader->skip_counts();
      entry->list_notes = reader->list_notes();
    } catch (...) {
      entry->error = std::current_exception();
    }
  });
  if (entry->error) std::rethrow_exception(entry->error);
  // The jobs are shared, never copied per run: the entry outlives every replay holding it.
  std::shared_ptr<const std::vector<JobSpec>> jobs(entry, &entry->jobs);
  return std::make_unique<ReplayedTrace>(std::move(jobs), entry->stats, entry->skip_counts,
                                         entry->list_notes, defaults, seed);
}

std::uint64_t TraceCache::reads() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return reads_;
}

}  // namespace gpumux
