// Removes the temporary outputs of this process when it is stopped by SIGINT, SIGTERM or SIGHUP,
// so that an interrupted run leaves neither a half-written folder nor a stray temporary file.
//
// The handler only calls async-signal-safe functions (open, getdents64, unlinkat, rmdir, unlink,
// sigaction, raise) on paths recorded beforehand in a fixed table; then it restores the
// previous disposition and raises the signal again, so the exit status still says which signal
// stopped the process. A signal that was ignored when the first path is registered stays ignored.
// A folder is removed with what it holds down to 8 levels (a comparison's temporary folder holds
// <model>/seed-<n>/ run folders); symbolic links in it are removed, not followed. Folders
// registered as created parents are removed last, each only while it is empty.
#pragma once

#include <string>

namespace gpumux {

// Records `path` (a plain file, or a folder of plain files) for removal on a stopping signal;
// installs the handlers on first use. Returns a handle for unregister_signal_cleanup, or -1
// when the table is full or the path too long (the path is then simply not removed on a
// signal; the next run into the same folder still cleans it). Thread-safe.
int register_signal_cleanup(const std::string& path, bool is_folder);

// Records `deepest` and up to `levels` - 1 of its parents, folders this process created to hold
// an output, for removal on a stopping signal after every other registered path, each only while
// it is empty (rmdir): a stopped run leaves no empty folder behind it. Returns a handle as above.
int register_signal_cleanup_of_parents(const std::string& deepest, int levels);

// Forgets a registration (handle -1 is ignored). Call it once the path is renamed away or removed.
void unregister_signal_cleanup(int handle);

}  // namespace gpumux
