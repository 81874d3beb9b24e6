// SPDX-License-Identifier: Apache-2.0
// A suite run's record, `rep-K.run.json` (docs/suites.md, "Results folder"): how its process
// ended, what that means (status and cause), its resources and files; written when the run
// ends, read back to resume and to summarise. Private to `neurobench suite`.
#pragma once

#include <filesystem>

#include <neurobench/json.hpp>

#include "suite/plan.hpp"
#include "suite/scheduler.hpp"
#include "suite/suite_file.hpp"

namespace neurobench::suite {

/// The record of a run, `null` when its file is missing or damaged (the run is then not done).
/// Never throws for the file's sake.
[[nodiscard]] Json read_run_record(const std::filesystem::path& file);

/// True when the run's process exited with status 0 and left its results file.
[[nodiscard]] bool completed(const PlannedRun& run, const JobEnd& end);

/// The record of a run that ended: `group`, `repeat`, `key`, `exit_code` and `signal`,
/// `status` (`ok`, `failed`, `timeout` or `crashed`) and `cause` (with the last line of its log
/// that says `error`, else its last line; `log_tail` too when not `ok`), `wall_seconds`,
/// `peak_rss_bytes`, `user_seconds`, `system_seconds` (null when it could not start), `jobs`,
/// `alone`, and its `config`, `results` (null when it wrote none) and `log` relative to the
/// results folder. `timeout_seconds` is the suite's timeout, 0 for none.
[[nodiscard]] Json run_record(const SuiteFile& suite, const Plan& plan, const PlannedRun& run,
                              const JobEnd& end, double timeout_seconds, int jobs);

/// Writes run_record() to the run's record file, whole or not at all, and returns it. Throws
/// InputError naming the file when it cannot be written.
Json write_run_record(const SuiteFile& suite, const Plan& plan, const PlannedRun& run,
                      const JobEnd& end, double timeout_seconds, int jobs);

}  // namespace neurobench::suite
