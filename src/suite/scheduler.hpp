// SPDX-License-Identifier: Apache-2.0
// Runs a suite's child processes, N at a time, with per-run timeouts and Ctrl-C forwarded to
// them (docs/suites.md, "Jobs", "Timeouts", "Interrupting"). Private to `neurobench suite`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "suite/process.hpp"

namespace neurobench::suite {

/// One process to run.
struct Job {
  std::vector<std::string> argv;  ///< The command; argv[0] is the program's path.
  std::filesystem::path log;      ///< Its stdout and stderr.
  /// Runs alone: not started while another job runs, and nothing else is started while it
  /// runs (timing metrics are never measured under contention).
  bool alone = false;
};

/// How a job ended.
struct JobEnd {
  std::optional<ChildExit> exit;  ///< Unset when the process could not be started.
  std::string start_error;        ///< Why it could not be started.
  bool timed_out = false;         ///< The suite stopped it at its timeout.
  bool interrupted = false;       ///< The suite stopped it on SIGINT or SIGTERM.
  bool alone = false;             ///< No other job ran while it ran.
};

/// Options of run_jobs().
struct ScheduleOptions {
  int jobs = 1;                          ///< Jobs at once, >= 1.
  std::optional<double> timeout_seconds;  ///< Per job; none when unset.
  /// After SIGTERM (a timeout) or a forwarded SIGINT, seconds before SIGKILL.
  double grace_seconds = 5.0;
};

/// What run_jobs() did.
struct ScheduleResult {
  /// 0, or the signal (SIGINT, SIGTERM) that stopped the suite: jobs not yet started were not.
  int interrupted_by = 0;
};

/// Runs `jobs` in order, up to `options.jobs` at once; a job marked `alone` runs with no
/// other. Calls `on_start(i)` just before job i starts and `on_end(i, end)` once it has ended
/// (in this thread, in the order they end). A job that outlives its timeout gets SIGTERM, then
/// SIGKILL after the grace, on its whole process group.
///
/// While it runs, SIGINT and SIGTERM (unless this process ignores them) stop the suite: no new
/// job starts, the running ones get the same signal on their process groups and SIGKILL after
/// the grace (at once on a second signal), and run_jobs() returns once all have ended. The
/// previous signal handlers are put back on return. Exceptions from the callbacks propagate
/// after the running jobs were killed and reaped.
ScheduleResult run_jobs(const std::vector<Job>& jobs, const ScheduleOptions& options,
                        const std::function<void(std::size_t)>& on_start,
                        const std::function<void(std::size_t, const JobEnd&)>& on_end);

}  // namespace neurobench::suite
