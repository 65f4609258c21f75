// Where a scenario value came from when `--set` gave it: an error about such a value names the
// scenario file's pointer and then the override, e.g.
//   s.json#/scheduler/queue (from --set scheduler.queue=bogus): field 'queue': unknown ...
// so that a user does not search the file for a value it does not hold.
#pragma once

#include <string>
#include <vector>

#include "sim/base/input_error.h"

namespace gpumux {

// The JSON pointer an override's path denotes: a pointer as given ("/expect/jct_s.p95"), a
// dotted path split at its dots ("scheduler.queue" -> "/scheduler/queue").
std::string override_pointer(const std::string& path);

// `error`, raised while parsing `file` after the overrides `sets` ("path=value") were applied,
// with "(from --set path=value)" after its place when it is about a value one of them set (the
// pointer it names is at or inside the override's, or names the override's key as its field);
// the last such override wins, as it is the one applied last. `error` itself otherwise.
InputError with_override_source(const InputError& error, const std::string& file,
                                const std::vector<std::string>& sets);

}  // namespace gpumux
