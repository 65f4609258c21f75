#include "calibrate/probe/mps_daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

namespace gpumux::calibration {

namespace fs = std::filesystem;

MpsDaemon::~MpsDaemon() {
  if (running_) stop();
}

EnvVars MpsDaemon::client_env() const {
  return {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_},
          {"CUDA_MPS_LOG_DIRECTORY", log_dir_},
          {"CUDA_VISIBLE_DEVICES", ""}};
}

// Runs the control program with this daemon's variables, feeding `stdin_text`. Returns its
// exit code, -1 when it could not run or ran past `timeout_s` (then it is killed). Its output
// goes to a file, not a pipe: the daemon that `-d` forks keeps the launcher's stdout, and a
// pipe would either never reach EOF or, once closed here, kill the daemon with SIGPIPE.
int MpsDaemon::run_control(const std::string& stdin_text, double timeout_s,
                           std::string* output) const {
  const std::string out_path = root_ + "/control-output.txt";
  const int out_fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out_fd < 0) return -1;
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    ::close(out_fd);
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out_fd}) ::close(fd);
    return -1;
  }
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out_fd, 1);
    ::dup2(out_fd, 2);
    ::setenv("CUDA_MPS_PIPE_DIRECTORY", pipe_dir_.c_str(), 1);
    ::setenv("CUDA_MPS_LOG_DIRECTORY", log_dir_.c_str(), 1);
    ::setenv("CUDA_VISIBLE_DEVICES", device_.c_str(), 1);
    ::execlp(control_.c_str(), control_.c_str(), stdin_text.empty() ? "-d" : nullptr, nullptr);
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out_fd);
  if (!stdin_text.empty()) {
    // A control program that exits before reading must not kill us with SIGPIPE.
    struct sigaction ignore {
    }, previous{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous);
    const ssize_t n = ::write(in[1], stdin_text.data(), stdin_text.size());
    (void)n;  // an early exit is reported by the exit status
    ::sigaction(SIGPIPE, &previous, nullptr);
  }
  ::close(in[1]);
  const double deadline = monotonic_s() + timeout_s;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (monotonic_s() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (output != nullptr) {
    std::ifstream in_file(out_path);
    output->assign(std::istreambuf_iterator<char>(in_file), std::istreambuf_iterator<char>());
    while (!output->empty() && (output->back() == '\n' || output->back() == ' '))
      output->pop_back();
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string MpsDaemon::start(const std::string& visible_device) {
  if (running_) return "";
  device_ = visible_device;
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
    fs::copy(log_dir_, log_copy_dir,
             fs::copy_options::overwrite_existing | fs::copy_options::recursive, ec);
  }
  if (gone) fs::remove_all(root_, ec);
  if (code != 0) return "'echo quit | " + control_ + "' failed (exit " + std::to_string(code) + ")";
  if (!gone) return "control socket " + control_pipe + " still present after quit";
  return "";
}

}  // namespace gpumux::calibration
