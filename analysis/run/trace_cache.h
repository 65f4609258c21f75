// Traces read once per command: `gpumux plan` and `gpumux compare` run one trace hundreds of
// times (sizes x models x placements x layouts x seeds), and reading and parsing it dominated
// each run. A TraceCache keeps what a trace reader produced, by everything the parse depends on
// (file, format, the defaults for missing fields), and replays it to every later run as a
// TraceSource that yields the same jobs, counts, skip reasons and list notes: a run's outputs
// are the same with or without the cache (tested).
//
// The seed is not part of the key. A reader's only draws are the defaulted fields of each job
// it returns, from one stream of the seed, row after row, in field order
// (TraceDefaults::fill_marked); every job keeps the marks of its defaulted fields, so a replay
// for a seed redraws them through the same call from a stream of that seed and gets the values
// that seed's reader draws. Nothing else a reader does (errors, order and id checks, skip
// counts, list notes) depends on the seed: one parse serves every seed.
//
// What is kept is the reader's output only: the filter, inflation, load factor and every other
// transform still run per run, on the replayed jobs. Memory: the whole trace's jobs (a few
// hundred bytes each) once per distinct file, format and defaults, until the cache goes; a
// trace that fails to read rethrows its error to every run that asks for it.
//
// Thread-safe: runs on several threads share one cache; a key is read once, the others wait.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "traces/formats/trace_source.h"

namespace gpumux {

class TraceCache {
 public:
  // A source replaying the trace `path` in `format` as open_scenario_trace(path, format,
  // defaults, seed) would read it; reads it on the first call for these inputs. Throws what
  // reading throws (InputError for bad rows), on every call for these inputs.
  std::unique_ptr<TraceSource> open(const std::string& path, const std::string& format,
                                    const TraceDefaults& defaults, std::uint64_t seed);

  // How many traces were read (not replayed): one per distinct file, format and defaults,
  // whatever the seeds.
  std::uint64_t reads() const;

 private:
  struct Entry;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::uint64_t reads_ = 0;
};

}  // namespace gpumux
