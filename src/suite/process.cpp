// SPDX-License-Identifier: Apache-2.0
// Child processes of a suite: fork and exec rather than posix_spawn, for PR_SET_PDEATHSIG (a
// child must not outlive a suite killed with SIGKILL) and setpgid in one place.
#include "suite/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

extern char** environ;

namespace neurobench::suite {

ChildProcess::ChildProcess(const std::vector<std::string>& argv,
                           const std::filesystem::path& log) {
  if (argv.empty()) throw UsageError("ChildProcess: no program given");
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    throw InputError(fmt::format("{}: cannot create the run's log: {}", log.string(),
                                 std::strerror(errno)));
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // The child reports a failed exec through this pipe; a successful exec closes it.
  int report[2];
  if (null_fd < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    const int error = errno;
    ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    throw Error(fmt::format("cannot start {}: {}", argv[0], std::strerror(error)));
  }
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = ::getpid();
  start_ = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the suite died before prctl
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(null_fd, 0);
    ::dup2(log_fd, 1);
    ::dup2(log_fd, 2);
    ::execve(args[0], args.data(), environ);
    const int error = errno;
    (void)!::write(report[1], &error, sizeof error);
    ::_exit(127);
  }
  const int fork_error = errno;
  ::close(report[1]);
  ::close(log_fd);
  ::close(null_fd);
  if (pid < 0) {
    ::close(report[0]);
    throw Error(fmt::format("cannot start {}: fork: {}", argv[0], std::strerror(fork_error)));
  }
  // Also here: the parent may signal the group before the child ran setpgid.
  ::setpgid(pid, pid);
  int exec_error = 0;
  ssize_t n;
  do {
    n = ::read(report[0], &exec_error, sizeof exec_error);
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof exec_error)) {
    ::waitpid(pid, nullptr, 0);
    throw Error(fmt::format("cannot start {}: {}", argv[0], std::strerror(exec_error)));
  }
  pid_ = pid;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), start_(other.start_) {
  other.pid_ = -1;
}

std::optional<ChildExit> ChildProcess::poll() {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  struct rusage usage {};
  const pid_t done = ::wait4(pid_, &status, WNOHANG, &usage);
  if (done != pid_) return std::nullopt;
  ChildExit exit;
  exit.wait_status = status;
  exit.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  exit.peak_rss_bytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // KiB on Linux
  exit.user_seconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
  exit.system_seconds = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  pid_ = -1;
  return exit;
}

void ChildProcess::signal_group(int signal) const {
  if (pid_ > 0) ::kill(-pid_, signal);
}

std::string signal_name(int signal) {
  switch (signal) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return fmt::format("signal {}", signal);
  }
}

std::string log_tail(const std::filesystem::path& file, std::size_t max_lines) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return "";
  constexpr std::streamoff kMaxBytes = 64 * 1024;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(size > kMaxBytes ? size - kMaxBytes : 0);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::size_t start = text.size();
  for (std::size_t lines = 0; lines < max_lines && start > 0; ++lines) {
    const std::size_t nl = text.rfind('\n', start - 1);
    if (nl == std::string::npos) {
      start = 0;
      break;
    }
    start = nl;
  }
  return start == 0 ? text : text.substr(start + 1);
}

}  // namespace neurobench::suite
