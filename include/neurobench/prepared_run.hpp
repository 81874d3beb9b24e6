// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <neurobench/config.hpp>
#include <neurobench/export.hpp>
#include <neurobench/fwd.hpp>
#include <neurobench/results.hpp>
#include <neurobench/run_options.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// What a caller gives PreparedRun::from_config() besides the config: parts it has built
/// itself, the run's options, and where the config was read from. Every member is optional.
struct RunParts {
  /// A model built or loaded already (an echo state network made in C++, a model checked
  /// before the run), run instead of loading the config's `model`, which may then be empty.
  /// The config's `stepwise` is recorded as given (a TorchScriptModel's own when it is one:
  /// a NIR graph runs step-wise): the model must run as it says.
  std::shared_ptr<NeuroBenchModel> model;
  /// A data set built or opened already, run instead of reading the config's `data` or opening
  /// its `dataset`. When the config names one of those, these data stand for it and `_run`
  /// records it as if they had been read from there (the data set's options checked, its
  /// samples and description taken from these data); when the config names neither, `_run.data`
  /// is the data set's describe().
  std::shared_ptr<Dataset> data;
  /// The run's options, instead of the config's (BenchmarkConfig::run_options()): the command
  /// line gives its own, with the process group of a sharded run and each rank's device.
  std::optional<RunOptions> options;
  /// The file the config was read from, recorded as `_run.config`; empty: not recorded.
  std::filesystem::path config_file;
  /// Pre-processors of the caller's own (neurobench_cpp: a Python callable), made by these
  /// factories, by the name an entry of the config's `pre` gives them: that entry runs the
  /// processor made at its place in the chain, and `_run.pre` records it by that name, without
  /// options. Names here need not be in the registry.
  std::map<std::string, std::function<std::unique_ptr<PreProcessor>()>, std::less<>>
      pre_processors;
  /// Post-processors of the caller's own, as pre_processors.
  std::map<std::string, std::function<std::unique_ptr<PostProcessor>()>, std::less<>>
      post_processors;
  /// Workload metrics of the caller's own (neurobench_cpp: a script's own metric classes), made
  /// by these factories and run after the config's.
  std::vector<std::function<std::unique_ptr<WorkloadMetric>()>> workload_metrics;
  /// No metric asked for is not an error (neurobench_cpp: a script may compute only Python
  /// static metrics, and still runs its data through the network).
  bool metrics_optional = false;
};

/// A benchmark assembled from a BenchmarkConfig, ready to run: what `neurobench run CONFIG`
/// does, as one library call. from_config() checks every name and option first, then makes
/// the model, the data, the pre- and post-processors, the metrics and the layer setup the
/// config asks for; run() runs it and records, beside what Benchmark::run records, the same
/// `_run` history as the command line: `data` (the `.npz` path, or `KIND:PATH`), `dataset`
/// (`kind`, `path`, `options` complete, `samples`, `description`; for a data set by kind),
/// `pre` and `post` (each with its options complete), `stepwise`, and `config` (when
/// RunParts::config_file is given).
///
/// ```cpp
/// neurobench::BenchmarkConfig config = neurobench::BenchmarkConfig::read("bench.json");
/// neurobench::PreparedRun run = neurobench::PreparedRun::from_config(config, {});
/// const neurobench::Results results = run.run();
/// std::cout << results.run.dump(2) << "\n";  // "model", ..., "data", "stepwise"
///
/// // A model and data made in memory: processors, metrics and `_run` still from the config.
/// neurobench::RunParts parts;
/// parts.model = my_model;  // std::shared_ptr<neurobench::NeuroBenchModel>
/// parts.data = std::make_shared<neurobench::TensorDataset>(inputs, targets);
/// neurobench::PreparedRun mine = neurobench::PreparedRun::from_config(config, parts);
/// ```
class PreparedRun {
 public:
  /// Checks `config` (with `parts`) as from_config() does before it opens or loads anything:
  /// the pre- and post-processors (names and options), the data set's kind and options, that
  /// some metric is asked for, the metrics (names, options, each once; `metrics` placed as
  /// static or workload by name), the timing settings (RunOptions::timing::validate()), then
  /// BenchmarkConfig::validate(), and that a model and data are given (by the config or
  /// `parts`). Throws UsageError naming what is at fault: the unknown metric, processor or data
  /// set kind (listing the known ones), the option, the config's key.
  static void check(const BenchmarkConfig& config, const RunParts& parts = {});

  /// Assembles the run `config` describes, with what `parts` gives. After check(): sets
  /// LibTorch's intra-op threads to the config's `threads` (at::set_num_threads: the whole
  /// process's), checks the run's device (check_device(): UsageError naming what is missing),
  /// loads the model (TorchScriptModel, step-wise as the config says, onto the run's device)
  /// and reads the data (TensorDataset::from_npz with the config's `max_array_bytes`, or
  /// DatasetKinds::open(), its progress bar shown unless `quiet`) unless `parts` gives them,
  /// then makes the processors and the metrics. Throws UsageError as check(), and InputError
  /// naming the file at fault when the model or the data cannot be read (missing, not a
  /// TorchScript model, not an `.npz` with `data` and `targets`, a data set the kind refuses).
  [[nodiscard]] static PreparedRun from_config(const BenchmarkConfig& config, RunParts parts = {});

  ~PreparedRun();
  PreparedRun(PreparedRun&&) noexcept;
  PreparedRun& operator=(PreparedRun&&) noexcept;

  /// Runs the benchmark (Benchmark::run with the run's options) and records the `_run`
  /// history above in Results::run. Throws as Benchmark::run: InputError for bad data or a
  /// model that fails on it, Interrupted when a stop is requested; a failing metric is recorded
  /// in Results::failures.
  [[nodiscard]] Results run();

  /// The data the run reads: opened from the config, or given in RunParts.
  [[nodiscard]] const std::shared_ptr<Dataset>& data() const;
  /// The options the run runs with: RunParts::options, or the config's.
  [[nodiscard]] const RunOptions& options() const;

 private:
  struct Impl;
  explicit PreparedRun(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace neurobench
NEUROBENCH_API_END
