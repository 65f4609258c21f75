#include "calibrate/probe/child_processes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <thread>

namespace gpumux::calibration {
namespace {

volatile std::sig_atomic_t g_stop = 0;

constexpr char kReady = 'R';
constexpr char kPayload = 'P';
constexpr char kError = 'E';

void write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone; nothing left to tell
    p += n;
    size -= static_cast<size_t>(n);
  }
}

struct Child {
  pid_t pid = -1;
  int from_child = -1;  // parent reads
  int to_child = -1;    // parent writes
  std::string bytes;
  bool eof = false;
  ChildResult result;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reads what is available; marks EOF.
void drain(Child& c) {
  char buf[4096];
  const ssize_t n = ::read(c.from_child, buf, sizeof buf);
  if (n > 0) {
    c.bytes.append(buf, static_cast<size_t>(n));
    if (!c.result.ready && !c.bytes.empty() && c.bytes[0] == kReady) c.result.ready = true;
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    c.eof = true;
    c.result.exit_s = monotonic_s();
    close_fd(c.from_child);
  }
}

// Polls the children's pipes until `done()` or `deadline` (monotonic_s) or a stop request.
template <typename Done>
void pump(std::vector<Child>& children, double deadline, Done done) {
  while (!done() && !stop_requested()) {
    const double left = deadline - monotonic_s();
    if (left <= 0) return;
    std::vector<pollfd> fds;
    std::vector<size_t> owner;
    for (size_t i = 0; i < children.size(); ++i) {
      if (!children[i].eof) {
        fds.push_back({children[i].from_child, POLLIN, 0});
        owner.push_back(i);
      }
    }
    if (fds.empty()) return;
    const int ms = static_cast<int>(std::min(left, 0.05) * 1000) + 1;
    const int n = ::poll(fds.data(), fds.size(), ms);
    if (n <= 0) continue;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents != 0) drain(children[owner[k]]);
    }
  }
}

[[noreturn]] void child_main(int member, int to_parent, int from_parent, const EnvVars& env,
                             const ChildBody& body) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  for (const auto& [name, value] : env) {
    if (value.empty()) {
      ::unsetenv(name.c_str());
    } else {
      ::setenv(name.c_str(), value.c_str(), 1);
    }
  }
  StartGate gate(to_parent, from_parent);
  std::string message;
  try {
    message = kPayload + body(member, gate);
  } catch (const std::exception& e) {
    message = kError + std::string(e.what());
  } catch (...) {
    message = kError + std::string("unknown exception");
  }
  write_all(to_parent, message.data(), message.size());
  // _exit: the parent's atexit handlers and stdio buffers are not this process's to run.
  ::_exit(0);
}

}  // namespace

double monotonic_s() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void request_stop() { g_stop = 1; }
bool stop_requested() { return g_stop != 0; }

double StartGate::ready_and_wait() {
  write_all(to_parent_, &kReady, 1);
  double start = -1;
  char* p = reinterpret_cast<char*>(&start);
  size_t got = 0;
  while (got < sizeof start) {
    const ssize_t n = ::read(from_parent_, p + got, sizeof start - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += static_cast<size_t>(n);
  }
  // Sleep to just before the start, then spin: all members leave within microseconds.
  const double sleep_s = start - monotonic_s() - 0.002;
  if (sleep_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(sleep_s));
  while (monotonic_s() < start) {
  }
  return start;
}

SetRun run_child_set(const std::vector<EnvVars>& envs, const ChildBody& body,
                     double ready_timeout_s, double run_timeout_s, double start_delay_s) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::vector<Child> children(envs.size());
  for (size_t i = 0; i < envs.size(); ++i) {
    int up[2], down[2];
    if (::pipe2(up, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    if (::pipe2(down, O_CLOEXEC) != 0) {
      ::close(up[0]);
      ::close(up[1]);
      throw std::runtime_error("pipe failed");
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (int fd : {up[0], up[1], down[0], down[1]}) ::close(fd);
      throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) {
      // Earlier siblings' pipe ends would hold their EOF back; close them here.
      for (Child& c : children) {
        close_fd(c.from_child);
        close_fd(c.to_child);
      }
      ::close(up[0]);
      ::close(down[1]);
      child_main(static_cast<int>(i), up[1], down[0], envs[i], body);
    }
    ::close(up[1]);
    ::close(down[0]);
    children[i].pid = pid;
    children[i].from_child = up[0];
    children[i].to_child = down[1];
  }

  SetRun run;
  // Ready: every child either sent its ready byte or ended.
  pump(children, monotonic_s() + ready_timeout_s, [&] {
    for (const Child& c : children) {
      if (!c.result.ready && !c.eof) return false;
    }
    return true;
  });
  const bool any_ready = std::any_of(children.begin(), children.end(),
                                     [](const Child& c) { return c.result.ready && !c.eof; });
  double deadline = monotonic_s();
  if (any_ready && !stop_requested()) {
    run.start_s = monotonic_s() + start_delay_s;
    deadline = run.start_s + run_timeout_s;
  }
  // A child that died just after reporting ready must not take the parent down by SIGPIPE.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  for (Child& c : children) {
    if (c.result.ready && !c.eof && run.start_s >= 0) {
      write_all(c.to_child, &run.start_s, sizeof run.start_s);
    }
    close_fd(c.to_child);  // a child still waiting reads EOF: the set was given up
  }
  ::sigaction(SIGPIPE, &previous, nullptr);
  pump(children, deadline, [&] {
    for (const Child& c : children) {
      if (!c.eof) return false;
    }
    return true;
  });
  for (Child& c : children) {
    if (!c.eof) {
      ::kill(c.pid, SIGKILL);
      c.result.timed_out = true;
      close_fd(c.from_child);
    }
    int status = 0;
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
      c.result.exited = true;
      c.result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      c.result.signal = WTERMSIG(status);
    }
    std::string_view rest(c.bytes);
    if (!rest.empty() && rest.front() == kReady) rest.remove_prefix(1);
    if (!rest.empty() && rest.front() == kPayload) {
      c.result.has_payload = true;
      c.result.payload = std::string(rest.substr(1));
    } else if (!rest.empty() && rest.front() == kError) {
      c.result.error = std::string(rest.substr(1));
    }
    run.children.push_back(c.result);
  }
  return run;
}

ChildResult run_child(const EnvVars& env, const std::function<std::string()>& body,
                      double timeout_s) {
  SetRun run = run_child_set(
      {env}, [&](int, StartGate&) { return body(); }, timeout_s, timeout_s, 0);
  return run.children.front();
}

}  // namespace gpumux::calibration
