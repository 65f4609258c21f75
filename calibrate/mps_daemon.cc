#include "calibrate/mps_daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>

namespace gpumux::calibrate {

namespace fs = std::filesystem;

MpsDaemon::~MpsDaemon() {
  if (running_) stop();
}

EnvVars MpsDaemon::client_env() const {
  return {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_}, {"CUDA_MPS_LOG_DIRECTORY", log_dir_}};
}

// Runs the control program with this daemon's variables, feeding `stdin_text`. Returns its
// exit code, -1 when it could not run or ran past `timeout_s` (then it is killed).
int MpsDaemon::run_control(const std::string& stdin_text, double timeout_s,
                           std::string* output) const {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return -1;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return -1;
  }
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir_.c_str(), 1);
    ::setenv("CUDA_MPS_LOG_DIRECTORY", log_dir_.c_str(), 1);
    ::setenv("CUDA_VISIBLE_DEVICES", std::to_string(device_).c_str(), 1);
    ::execlp(control_.c_str(), control_.c_str(), stdin_text.empty() ? "-d" : nullptr, nullptr);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  if (!stdin_text.empty()) {
    const ssize_t n = ::write(in[1], stdin_text.data(), stdin_text.size());
    (void)n;  // a control program that exits early is reported by its status
  }
  ::close(in[1]);
  // `-d` forks the daemon and returns; the daemon may keep our output pipe open, so the
  // launcher's exit, not EOF, ends the wait.
  const double deadline = monotonic_s() + timeout_s;
  char buf[1024];
  int status = 0;
  bool exited = false;
  while (!exited) {
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, 20) > 0) {
      const ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n > 0 && output) output->append(buf, static_cast<size_t>(n));
    }
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) exited = true;
    if (!exited && monotonic_s() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ::close(out[0]);
      return -1;
    }
  }
  pollfd p{out[0], POLLIN, 0};
  if (::poll(&p, 1, 0) > 0) {
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n > 0 && output) output->append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string MpsDaemon::start(int device) {
  if (running_) return "";
  device_ = device;
  const char* tmp = std::getenv("TMPDIR");
  // MPS pipes are Unix sockets, whose paths are limited to ~107 bytes: keep the root short.
  std::string base = (tmp && std::strlen(tmp) > 0 && std::strlen(tmp) < 60) ? tmp : "/tmp";
  std::string templ = base + "/gpumux-mps-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    return "cannot create a temp folder under " + base + ": " + std::strerror(errno);
  }
  root_ = templ;
  pipe_dir_ = root_ + "/pipe";
  log_dir_ = root_ + "/log";
  std::error_code ec;
  fs::create_directories(pipe_dir_, ec);
  fs::create_directories(log_dir_, ec);
  std::string output;
  const int code = run_control("", 10.0, &output);
  if (code != 0) {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
    return "'" + control_ + " -d' failed (exit " + std::to_string(code) + ")" +
           (output.empty() ? "" : ": " + output);
  }
  running_ = true;
  return "";
}

std::string MpsDaemon::stop(const std::string& log_copy_dir) {
  if (!running_) return "";
  std::string output;
  const int code = run_control("quit\n", 15.0, &output);
  // The daemon removes its control socket when it is gone.
  const std::string control_pipe = pipe_dir_ + "/control";
  const double deadline = monotonic_s() + quit_wait_s_;
  while (fs::exists(control_pipe) && monotonic_s() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const bool gone = !fs::exists(control_pipe);
  running_ = false;
  std::error_code ec;
  if (!log_copy_dir.empty()) {
    fs::create_directories(log_copy_dir, ec);
    fs::copy(log_dir_, log_copy_dir, fs::copy_options::overwrite_existing | fs::copy_options::recursive, ec);
  }
  if (gone) fs::remove_all(root_, ec);
  if (code != 0) return "'echo quit | " + control_ + "' failed (exit " + std::to_string(code) + ")";
  if (!gone) return "control socket " + control_pipe + " still present after quit";
  return "";
}

}  // namespace gpumux::calibrate
