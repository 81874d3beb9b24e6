// SPDX-License-Identifier: Apache-2.0
// A suite's plan (docs/suites.md, "Results folder", "Resuming"): the results folder, every
// group's repeats with their keys and files, which are done already, and what each run's
// process is given. Private to `neurobench suite`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "suite/folder_lock.hpp"
#include "suite/run_key.hpp"
#include "suite/suite_file.hpp"

namespace neurobench::suite {

/// One run of the plan: a group's repeat, its key and its files.
struct PlannedRun {
  std::size_t group = 0;          ///< Its group: an index into SuiteFile::groups.
  int repeat = 0;                 ///< From 0.
  RunKey key;                     ///< What makes it the same run as one done before.
  std::filesystem::path config;   ///< OUT/runs/GROUP/config.json, as the run reads it.
  std::filesystem::path results;  ///< OUT/runs/GROUP/rep-K.json, its results file.
  std::filesystem::path log;      ///< OUT/runs/GROUP/rep-K.log, its stdout and stderr.
  std::filesystem::path record;   ///< OUT/runs/GROUP/rep-K.run.json, its record.
  bool done = false;              ///< Done before with the same key: skipped this time.
};

/// A suite's runs in a results folder.
struct Plan {
  std::filesystem::path folder;     ///< The results folder.
  std::vector<PlannedRun> runs;     ///< Group by group, repeats in order.
  std::vector<std::size_t> to_run;  ///< The indices of the runs not done, in order.
};

/// The results folder: `out` when not empty, else `SUITE-results` in the current directory
/// (SUITE the suite file's name without `.json`).
[[nodiscard]] std::filesystem::path results_folder(const SuiteFile& suite, const std::string& out);

/// A results folder, created and locked: held for the suite's life, since a second suite on
/// the same folder would remove this one's fresh results before each of its own runs, and run
/// every run twice.
class ResultsFolder {
 public:
  /// Creates `folder` (and the folders above it) and its `runs` folder, and locks it. Throws
  /// InputError naming the folder (as `--out`) when it cannot be created, and as FolderLock
  /// when another suite holds it.
  explicit ResultsFolder(std::filesystem::path folder);
  /// The folder.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  FolderLock lock_;
};

/// Expands `suite` into its runs in `folder`: every group's repeats, each with its key
/// (run_key(): its config, the contents of its model and data, its repeat) and files. A run is
/// done when, unless `rerun`, its results file is there and can be read, and its record says
/// `ok` for the same key.
[[nodiscard]] Plan plan_suite(const SuiteFile& suite, const std::filesystem::path& folder,
                              bool rerun);

/// The command of a run's process: `EXE run CONFIG --json RESULTS --quiet --distributed off`.
/// Each run is one whole benchmark: a suite started by torchrun, srun or mpirun does not make
/// its runs shard (docs/distributed.md).
[[nodiscard]] std::vector<std::string> run_argv(const std::filesystem::path& exe,
                                                const PlannedRun& run);

/// Readies the folders of a plan's runs as they start.
class RunFolders {
 public:
  /// For the runs of `suite` planned in `plan` (both must outlive this object).
  RunFolders(const SuiteFile& suite, const Plan& plan);

  /// Just before `run` starts: its group's folder and config (as the runs read it; also for
  /// the user: `neurobench run CONFIG`) are written when the group's first run starts, not all
  /// before the first run (a file written whole is synced to disk, and thousands of them would
  /// hold back the first run for minutes); then its stale results file and record are removed,
  /// with their temporary files, so that a stale results file never pairs with the new record.
  /// Throws InputError naming the folder or the file that cannot be written.
  void prepare(const PlannedRun& run);

 private:
  const SuiteFile& suite_;
  const Plan& plan_;
  std::vector<bool> written_;
};

/// Removes `file` and the atomic writer's temporary files beside it (`.NAME.XXXXXX`).
void remove_with_temporaries(const std::filesystem::path& file);

}  // namespace neurobench::suite
