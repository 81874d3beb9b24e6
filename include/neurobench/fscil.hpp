// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/datasets/mswc_sessions.hpp>
#include <neurobench/export.hpp>
#include <neurobench/fwd.hpp>
#include <neurobench/json.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// How the few-shot class-incremental (FSCIL) protocol treats the model: the `fscil` block of
/// a config without its data keys. See docs/fscil.md.
struct FscilOptions {
  /// The TorchScript method that gives the features prototypes are made of: called with a
  /// pre-processed batch, it returns `(batch, features)` (NeuroBench's M5
  /// `net(data, features_out=True)`) or `(batch, timesteps, features)` (the spiking variant:
  /// the hidden layers' spikes, NeuroBench's `snn[:-1]`). Export it with `@torch.jit.export`.
  std::string features = "features";
  /// The dotted path of the readout module (`output`, `snn.2.W`): its `weight`
  /// `(classes, features)` and `bias` `(classes)` are where prototypes are written, in place.
  std::string readout = "output";
  /// The base session's classes: labels 0 to `base_classes - 1` (NeuroBench's 100).
  int64_t base_classes = 100;

  /// Throws UsageError naming the field: an empty method or readout path, `base_classes`
  /// below 1.
  void validate() const;
};

/// One incremental session's data, as NeuroBench's `IncrementalFewShot` yields it.
struct FscilSession {
  std::string name;                  ///< Names the session in results (its language).
  std::shared_ptr<Dataset> support;  ///< The new classes' support samples (k shots each).
  /// The query samples of this session and of every session before it (NeuroBench's
  /// cumulative query set).
  std::shared_ptr<Dataset> query;
  std::vector<int64_t> new_classes;  ///< This session's new classes, in order.
};

/// The data of a whole FSCIL run.
struct FscilData {
  std::shared_ptr<Dataset> base_test;  ///< The base classes' test set (session 0's).
  /// The base classes' training set, to make their prototypes from before session 0
  /// (NeuroBench's "readout prototypical conversion"); null: the readout's base rows are kept.
  std::shared_ptr<Dataset> base_train;
  std::vector<FscilSession> sessions;  ///< The incremental sessions, in order.
};

/// The incremental sessions of `sessions` as FscilData takes them: support(i), query(i) and
/// new_classes(i) of each, named by its language.
[[nodiscard]] std::vector<FscilSession> fscil_sessions(const datasets::MswcSessions& sessions);

/// One session's results.
struct FscilSessionResult {
  int64_t session = 0;               ///< 0: the base session; then 1, 2, ...
  std::string name;                  ///< `base`, or the session's name (its language).
  std::vector<int64_t> new_classes;  ///< The classes this session added (the base's: 0..N-1).
  int64_t classes = 0;               ///< The classes seen so far.
  /// All classes seen so far, on the base test set and every query sample so far: the
  /// config's static and workload metrics.
  Results all;
  /// The query samples alone (every incremental class so far; NeuroBench's "accuracy on new
  /// classes"): ClassificationAccuracy. None for the base session.
  std::optional<Results> new_classes_only;
};

/// The results of a whole FSCIL run.
struct FscilResults {
  FscilOptions options;                      ///< The options it ran with.
  std::vector<int64_t> base_prototypes;      ///< Classes given prototypes from the base train set.
  std::vector<FscilSessionResult> sessions;  ///< The base session, then each incremental one.
  /// How the run was made (`_run` of the results file): the model, its SHA-256, the data, the
  /// processors, the sessions' source; callers may add to it.
  Json run = Json::object();

  /// The mean over the sessions (base included) of every number of FscilSessionResult::all
  /// (objects key by key; a metric that failed in some session is null), in the metrics'
  /// order: `ClassificationAccuracy` is NeuroBench's "total mean accuracy".
  [[nodiscard]] Json means() const;
  /// The mean of the incremental sessions' new-classes accuracy; none without such sessions.
  [[nodiscard]] std::optional<double> mean_new_classes_accuracy() const;
  /// True when no metric failed in any session.
  [[nodiscard]] bool ok() const;
};

/// Computes the prototypes of the classes in `batch` (pre-processed already, on the model's
/// device) from the model's features method and writes them into the readout, in place: for
/// each class, in the order of its first sample, `mean` is the sum of its samples' features
/// (and, for `(batch, timesteps, features)` features, of their timesteps) divided by its
/// number of samples; its readout row becomes `weight = 2 * mean`, `bias = -mean . mean`
/// (divided by the timesteps for timestep features), exactly as NeuroBench's example computes
/// them. Returns the classes written. Throws InputError naming the model and the method or
/// module at fault: no such method, a method that fails or returns no tensor of 2 or 3
/// dimensions with a row per sample, no readout module, a readout without a 2-d `weight` and a
/// 1-d `bias` of as many rows, a class outside the readout's rows, features of another width.
std::vector<int64_t> write_prototypes(TorchScriptModel& model, const Batch& batch,
                                      const FscilOptions& options);

/// Throws InputError naming the model when it has no method `options.features` or no readout
/// module as write_prototypes() needs, and UsageError when `options.base_classes` is more
/// than the readout's rows: the checks made before a run, before anything is made for the
/// base classes.
void check_fscil_model(const TorchScriptModel& model, const FscilOptions& options);

/// Called after each session with its results (progress for a command line).
using FscilProgress = std::function<void(const FscilSessionResult&)>;

/// Runs the FSCIL protocol of NeuroBench's `examples/mswc_fscil` on `model`, changing its
/// readout in place: the base classes' prototypes from `data.base_train` (when given, one class
/// at a time); session 0 on `data.base_test` with the base classes; then per session the new
/// classes' prototypes from its support set (one batch), and two evaluations: all classes seen
/// so far on the base test set followed by the query samples so far, and the query samples
/// alone. Each evaluation is a Benchmark run with `config`'s pre-processors, metrics, layer
/// classes, batch size and run options, and the post-processing of NeuroBench's example: the
/// classes not seen yet masked to -inf (`OutMask`), softmax (over the classes, as
/// `F.softmax` without `dim`), then the argmax with dimensions of size 1 squeezed away.
///
/// `config`'s model and data are not read (the model and `data` are given); its `post` must be
/// empty and its workload metrics must hold ClassificationAccuracy. Throws UsageError for such
/// a config or invalid options, InputError as check_fscil_model() and write_prototypes(), and
/// as Benchmark::run; a metric that fails is recorded in its session's Results.
///
/// ```cpp
/// auto model = std::make_shared<neurobench::TorchScriptModel>("mswc_cnn.pt");
/// neurobench::datasets::MswcSessions sessions("data/MSWC", draws);
/// neurobench::FscilData data{base_test, base_train, neurobench::fscil_sessions(sessions)};
/// neurobench::FscilResults r = neurobench::run_fscil(model, data, config, {});
/// double mean_accuracy = r.means()["ClassificationAccuracy"];
/// ```
[[nodiscard]] FscilResults run_fscil(const std::shared_ptr<TorchScriptModel>& model,
                                     const FscilData& data, const BenchmarkConfig& config,
                                     const FscilOptions& options,
                                     const FscilProgress& progress = {});

/// Where the sessions of a config come from: a draws file, or a draw of our own.
struct FscilSessionSource {
  /// A draws file to read (read_mswc_draws()); empty: draw with `seed`.
  std::filesystem::path draws;
  std::optional<uint64_t> seed;  ///< The seed of draw_mswc_sessions() when `draws` is empty.
  datasets::MswcSessionOptions options;  ///< The draw's options (with `seed`).
  std::filesystem::path write_draws;     ///< Where to write the draws used; empty: nowhere.
};

/// The config of `neurobench fscil CONFIG` (docs/fscil.md): a BenchmarkConfig whose `dataset`
/// is the MSWC release's base test set (`{"kind": "mswc", "path": ..., "subset": "base",
/// "procedure": "testing"}`), plus an `fscil` object: `features`, `readout`, `base_classes`,
/// `prototypes` (the base training set, a data set as `dataset` is written; absent: no base
/// prototypes), `draws` or `seed` with the draw's options (`k_shot`, `query_shots`,
/// `support_pool`, `query_pool`, `languages`), and `write_draws`.
struct FscilConfig {
  BenchmarkConfig benchmark;    ///< Every key but `fscil`.
  FscilOptions options;         ///< `features`, `readout`, `base_classes`.
  DatasetSpec prototypes;       ///< `prototypes`: the base training set; empty: none.
  FscilSessionSource sessions;  ///< `draws`, `seed`, the draw's options, `write_draws`.

  /// Throws UsageError naming the key: BenchmarkConfig::validate(), FscilOptions::validate(),
  /// a `dataset` that is not of kind `mswc`, a `data` file, `post` processors, `stepwise`,
  /// both `draws` and `seed` or neither, options of the draw that
  /// MswcSessionOptions::validate() refuses.
  void validate() const;
  /// The config in `json` (relative paths joined to `base`). Throws UsageError starting with
  /// `source` and naming the key as BenchmarkConfig::from_json() does, for the `fscil` keys too
  /// (an unknown key, a value of the wrong type or range, the draw's options beside `draws`).
  [[nodiscard]] static FscilConfig from_json(const Json& json,
                                             const std::filesystem::path& base = {},
                                             const std::string& source = "config");
  /// Reads a config file as BenchmarkConfig::read() does. Throws InputError naming the file,
  /// UsageError naming the file and the key.
  [[nodiscard]] static FscilConfig read(const std::filesystem::path& file);
};

/// Runs the FSCIL protocol a config describes: checks it, loads the model (onto the config's
/// device) and checks its features method and readout, opens the base test set (and the base
/// training set), reads or draws the sessions (writing the draws when asked), then
/// run_fscil(). `config_file` is recorded in `_run.config` when not empty. Throws UsageError
/// and InputError naming the file, key or method at fault, before anything is written.
[[nodiscard]] FscilResults run_fscil(const FscilConfig& config,
                                     const std::filesystem::path& config_file = {},
                                     const FscilProgress& progress = {});

/// The results file of an FSCIL run (docs/fscil.md): the means as the metrics' values (so that
/// `neurobench report` and `compare` read them as a run's), `FscilNewClassesAccuracy` (the
/// mean new-classes accuracy), `_metrics`, `_fscil` (the options and every session's values),
/// `_run` and `_environment`; NaN and infinities written as `"NaN"`, ... as results files are.
[[nodiscard]] Json fscil_results_document(const FscilResults& results);
/// Writes fscil_results_document() to `path` as JSON, whole or not at all. Throws InputError
/// naming the path when it cannot be written.
void save_fscil_results(const FscilResults& results, const std::filesystem::path& path);

}  // namespace neurobench
NEUROBENCH_API_END
