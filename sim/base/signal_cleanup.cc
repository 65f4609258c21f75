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

struct Slot {
  std::atomic<int> state{kFree};
  bool is_folder = false;
  char path[kMaxPath] = {};
};
static_assert(std::atomic<int>::is_always_lock_free, "the handler reads slot states");

std::array<Slot, kSlots> slots;
constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous[3];

void remove_folder(const char* path) {
  // Entries may be skipped while the folder changes under getdents64: a few passes suffice.
  for (int pass = 0; pass < 4; ++pass) {
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    alignas(8) char buffer[4096];
    for (;;) {
      const ssize_t n = ::getdents64(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (ssize_t offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + offset);
        const char* name = entry->d_name;
        const bool dot = name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
        if (!dot) ::unlinkat(fd, name, 0);
        offset += entry->d_reclen;
      }
    }
    ::close(fd);
    if (::rmdir(path) == 0) return;
  }
}

void on_stop_signal(int sig) {
  const int saved_errno = errno;
  for (auto& slot : slots) {
    if (slot.state.load(std::memory_order_acquire) != kActive) continue;
    if (slot.is_folder) {
      remove_folder(slot.path);
    } else {
      ::unlink(slot.path);
    }
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

}  // namespace

int register_signal_cleanup(const std::string& path, bool is_folder) {
  static std::once_flag installed;
  std::call_once(installed, install_handlers);
  if (path.size() + 1 > kMaxPath) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].is_folder = is_folder;
    slots[i].state.store(kActive, std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_signal_cleanup(int handle) {
  if (handle < 0 || handle >= kSlots) return;
  slots[handle].state.store(kFree, std::memory_order_release);
}

}  // namespace gpumux
