// SPDX-License-Identifier: Apache-2.0
// One run of a suite as a child process: spawned in its own process group, its output in a log
// file, reaped with its resource usage. Private to `neurobench suite`.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neurobench::suite {

/// How a child process ended.
struct ChildExit {
  int wait_status = 0;          ///< As wait4() gave it (WIFEXITED, WTERMSIG, ...).
  double wall_seconds = 0;      ///< From spawn to reaping (reaping polls every few ms).
  std::int64_t peak_rss_bytes = 0;  ///< The child's peak resident set size (ru_maxrss).
  double user_seconds = 0;      ///< CPU time in user mode.
  double system_seconds = 0;    ///< CPU time in the kernel.
};

/// A running child process. Not copyable; a child still running when this is destroyed is
/// killed (its whole process group) and reaped.
class ChildProcess {
 public:
  /// Starts `argv` (argv[0] is the program's path) in a new process group, stdin from /dev/null,
  /// stdout and stderr to `log` (created or truncated). The child is killed should this process
  /// die (PR_SET_PDEATHSIG). Throws InputError naming `log` when it cannot be created, and
  /// Error naming the program when it cannot be started.
  ChildProcess(const std::vector<std::string>& argv, const std::filesystem::path& log);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;

  /// The exit, once the child has ended (reaped then); nothing while it runs. Never blocks.
  [[nodiscard]] std::optional<ChildExit> poll();
  /// Sends `signal` to the child's process group (nothing once it was reaped).
  void signal_group(int signal) const;
  /// The child's process id (also its process group's).
  [[nodiscard]] pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point start_;
};

/// A signal's name: `SIGKILL`, `SIGSEGV`; `signal N` for one without a name here.
[[nodiscard]] std::string signal_name(int signal);

/// The last `max_lines` lines of a text file (at most its last 64 KiB), for messages; empty
/// when it cannot be read.
[[nodiscard]] std::string log_tail(const std::filesystem::path& file, std::size_t max_lines);

}  // namespace neurobench::suite
