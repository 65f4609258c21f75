// Runs independent tasks on a few threads with results placed by index, so that what a
// command prints never depends on the thread count or on timing.
#pragma once

#include <cstddef>
#include <functional>

namespace gpumux {

// Calls task(0) .. task(count - 1), at most `threads` at once (the calling thread is one of
// them; threads < 1 counts as 1). Each task must write only its own result slot. When tasks
// throw, the exception of the lowest index is rethrown after all have ended, so which error is
// reported does not depend on timing either.
void run_indexed(std::size_t count, int threads, const std::function<void(std::size_t)>& task);

}  // namespace gpumux
