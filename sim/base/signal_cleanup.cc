#include "sim/base/signal_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace gpumux {

namespace {

constexpr int kSlots = 256;  // compare runs a few folders at once per thread
constexpr std::size_t kMaxPath = 4096;
constexpr int kFree = 0, kWriting = 1, kActive = 2;

enum Kind : int { kPlainFile, kTree, kParents };

struct Slot {
  std::atomic<int> state{kFree};
  int kind = kPlainFile;
  int levels = 0;  // kParents: how many folders, from `path` up, to remove while empty
  char path[kMaxPath] = {};
};
static_assert(std::atomic<int>::is_always_lock_free, "the handler reads slot states");

std::array<Slot, kSlots> slots;
constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous[3];

// Folders below a temporary output folder: a comparison's <model>/seed-<n>/ run folders.
constexpr int kMaxDepth = 8;

// Removes the entry `name` of the open folder `dir_fd`: a file, or a folder with everything in it
// down to `depth` more levels (symbolic links are removed, never followed).
void remove_entry_at(int dir_fd, const char* name, int depth) {
  if (::unlinkat(dir_fd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  if (depth <= 0) return;
  // Entries may be skipped while the folder changes under getdents64: a few passes suffice.
  for (int pass = 0; pass < 4; ++pass) {
    const int fd = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    alignas(8) char buffer[2048];
    for (;;) {
      const ssize_t n = ::getdents64(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (ssize_t offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + offset);
        const char* child = entry->d_name;
        const bool dot =
            child[0] == '.' && (child[1] == '\0' || (child[1] == '.' && child[2] == '\0'));
        if (!dot) remove_entry_at(fd, child, depth - 1);
        offset += entry->d_reclen;
      }
    }
    ::close(fd);
    if (::unlinkat(dir_fd, name, AT_REMOVEDIR) == 0) return;
  }
}

// Removes `path` and then up to `levels` - 1 of its parents, each only while it is empty: the
// folders this process created to hold an output that never came.
void remove_empty_parents(const char* path, int levels) {
  char buffer[kMaxPath];
  std::size_t n = 0;
  while (path[n] != '\0' && n + 1 < kMaxPath) {
    buffer[n] = path[n];
    ++n;
  }
  buffer[n] = '\0';
  for (int level = 0; level < levels && n > 0; ++level) {
    while (n > 1 && buffer[n - 1] == '/') buffer[--n] = '\0';
    if (::rmdir(buffer) != 0) return;
    while (n > 0 && buffer[n - 1] != '/') --n;
    buffer[n] = '\0';
  }
}

void on_stop_signal(int sig) {
  const int saved_errno = errno;
  // Files and temporary folders first, then the (now empty) folders that held them.
  for (auto& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != kActive) continue;
    if (slot.kind == kTree) {
      remove_entry_at(AT_FDCWD, slot.path, kMaxDepth);
    } else if (slot.kind == kPlainFile) {
      ::unlink(slot.path);
    }
  }
  for (auto& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != kActive) continue;
    if (slot.kind == kParents) remove_empty_parents(slot.path, slot.levels);
  }
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    if (kSignals[i] == sig) ::sigaction(sig, &previous[i], nullptr);
  }
  errno = saved_errno;
  ::raise(sig);
}

void install_handlers() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    ::sigaction(kSignals[i], nullptr, &previous[i]);
    if (previous[i].sa_handler == SIG_IGN) continue;  // e.g. SIGHUP under nohup
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (const int s : kSignals) sigaddset(&action.sa_mask, s);
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

int register_slot(const std::string& path, int kind, int levels) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (path.size() + 1 > kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].kind = kind;
    slots[i].levels = levels;
    slots[i].state.store(kActive, std::memory_order_release);
    return i;
  }
  return -1;
}

}  // namespace

int register_signal_cleanup(const std::string& path, bool is_folder) {
  return register_slot(path, is_folder ? kTree : kPlainFile, 0);
}

int register_signal_cleanup_of_parents(const std::string& deepest, int levels) {
  return register_slot(deepest, kParents, levels);
}

void unregister_signal_cleanup(int handle) {
  if (handle < 0 || handle >= kSlots) return;
  slots[handle].state.store(kFree, std::memory_order_release);
}

}  // namespace gpumux
