// SPDX-License-Identifier: Apache-2.0
#pragma once

// `neurobench ARGS` started in the background, for the tests that signal a running command or
// watch its output as it goes (signal_cli_test.cpp, suite_cli_test.cpp).

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support.hpp"

extern char** environ;

namespace neurobench::test {

/// The command `neurobench ARGS`, started at construction with stdin `/dev/null` and stdout and
/// stderr in files under `logs`; killed at destruction if still running. It starts with SIGINT
/// and SIGTERM at their default action and unblocked, whatever the test runner had (a background
/// job of a shell ignores SIGINT); with `ignore_sigterm`, SIGTERM ignored instead (an ignored
/// signal stays ignored across exec, for the command and whatever it starts).
class BackgroundCli {
 public:
  BackgroundCli(const std::vector<std::string>& args, const std::filesystem::path& logs,
                bool ignore_sigterm = false)
      : out_(logs / "stdout"), err_(logs / "stderr") {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    if (!ignore_sigterm) sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    struct sigaction old {};
    if (ignore_sigterm) {
      struct sigaction ignore {};
      ignore.sa_handler = SIG_IGN;
      ::sigaction(SIGTERM, &ignore, &old);
    }
    std::vector<std::string> all = {NEUROBENCH_CLI};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int error =
        posix_spawn(&pid_, NEUROBENCH_CLI, &actions, &attributes, argv.data(), environ);
    if (ignore_sigterm) ::sigaction(SIGTERM, &old, nullptr);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) pid_ = -1;
  }
  ~BackgroundCli() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  BackgroundCli(const BackgroundCli&) = delete;
  BackgroundCli& operator=(const BackgroundCli&) = delete;

  /// True when the command was started (and has not been reaped yet).
  [[nodiscard]] bool started() const { return pid_ > 0; }
  /// Its process id, -1 once reaped or when it could not start.
  [[nodiscard]] pid_t pid() const { return pid_; }
  void signal(int number) {
    if (pid_ > 0) ::kill(pid_, number);
  }

  /// Waits until stdout holds `text`, at most `seconds`; false if it never came (or the
  /// command ended without it).
  bool wait_for_stdout(const std::string& text, double seconds) {
    return wait_for(out_, text, seconds);
  }
  /// Waits until stderr holds `text`, at most `seconds`; false if it never came (or the
  /// command ended without it).
  bool wait_for_stderr(const std::string& text, double seconds) {
    return wait_for(err_, text, seconds);
  }

  /// Waits for the command's end, at most `seconds`; its raw wait status, -1 if it did not end.
  int wait(double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (pid_ > 0 && std::chrono::steady_clock::now() < end) {
      if (reaped()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return status_;
  }

  [[nodiscard]] std::string out() const { return read_file(out_); }
  [[nodiscard]] std::string err() const { return read_file(err_); }

 private:
  bool wait_for(const std::filesystem::path& file, const std::string& text, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (read_file(file).find(text) != std::string::npos) return true;
      if (pid_ <= 0 || reaped()) return read_file(file).find(text) != std::string::npos;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }
  // True once the command has ended (its status kept).
  bool reaped() {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    status_ = status;
    pid_ = -1;
    return true;
  }

  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  int status_ = -1;
};

/// A raw wait status as a shell says it: the exit status, or 128 + the signal; -1 stays -1.
inline int shell_status(int status) {
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace neurobench::test
