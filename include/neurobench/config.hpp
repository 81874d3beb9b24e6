// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/data/dataloader.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/model/nir_options.hpp>
#include <neurobench/registry.hpp>
#include <neurobench/run_options.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// The results files a benchmark writes (the config's `outputs`), by format name:
/// `outputs["json"] = "results.json"` writes the results as JSON there. The formats are
/// results_formats() (<neurobench/reporters/formats.hpp>: `json`, `csv`, `text`); a name that
/// is none of them is refused before the run, by the code that writes the files (`neurobench
/// run`). An empty path writes none.
using OutputFiles = std::map<std::string, std::filesystem::path>;

/// A benchmark described as data: the config file that `neurobench run CONFIG.json` runs
/// (docs/cli.md, "Configs"). Each field is the config key of the same name, except
/// `static_metrics` (`static`), `workload_metrics` (`workload`) and `comment` (`_comment`).
///
/// In a file, a relative path is taken from the file's folder; in memory, from the current
/// directory (read() and write() convert). A metric or processor is `"Name"` or
/// `{"name": "Name", "options": {...}}`. The data are `data` (an `.npz`) or `dataset` (a data
/// set by kind: `{"kind": "speech-commands", "path": "gsc", "subset": "testing"}`, every key
/// but `kind` and `path` an option of the kind; or `"speech-commands:gsc"`), not both. Keys
/// starting with `_` are notes: `_comment` is kept in `comment`, the others are ignored.
///
/// ```cpp
/// neurobench::BenchmarkConfig config;
/// config.model = "out/net.pt";
/// config.data = "out/test.npz";
/// config.workload_metrics = {{"ClassificationAccuracy"}};
/// config.write("out/bench.json");  // "model": "net.pt", "data": "test.npz"
/// const auto again = neurobench::BenchmarkConfig::read("out/bench.json");  // "out/net.pt"
/// ```
struct BenchmarkConfig {
  std::string comment;          ///< `_comment`: a note for the reader; empty for none.
  std::filesystem::path model;  ///< TorchScript model file; may be left to the command line.
  std::filesystem::path data;   ///< `.npz` with `data` and `targets`; may be left to the CLI.
  /// A data set by kind (DatasetSpec), instead of `data`; empty for none.
  DatasetSpec dataset;
  int64_t batch_size = 64;      ///< Samples per batch, >= 1; the last may be smaller.
  bool stepwise = false;        ///< Feed `data[:, t]` one timestep at a time.
  /// A NIR graph's time convention: `snntorch`, `euler` or `exact` (NirOptions, docs/nir.md).
  std::string nir_time = "snntorch";
  double nir_dt = 1e-4;              ///< A NIR graph's seconds per timestep.
  std::string nir_reset = "v_reset";  ///< A NIR graph's spike reset: `v_reset` or `subtract`.
  std::vector<MetricSpec> static_metrics;    ///< `static`: static metrics.
  std::vector<MetricSpec> workload_metrics;  ///< `workload`: workload metrics.
  std::vector<MetricSpec> metrics;  ///< Metrics of either family, placed by name after those.
  std::vector<PluginSpec> pre;      ///< Pre-processors with their options, applied in order.
  std::vector<PluginSpec> post;     ///< Post-processors with their options, applied in order.
  std::vector<std::string> activation_modules;  ///< Activation layer classes; empty: defaults.
  std::vector<std::string> connection_modules;  ///< Connection layer classes; empty: defaults.
  /// The submodule the static and layer metrics see (RunOptions::metrics_scope), by dotted
  /// path; empty: the whole model.
  std::string metrics_scope;
  std::optional<std::uint64_t> shuffle_seed;    ///< Shuffle with this seed; in order when unset.
  int threads = 1;                              ///< LibTorch intra-op threads.
  int64_t warmup = 3;                           ///< Timing: untimed runs first.
  int64_t runs = 0;                ///< Timing: timed runs; 0: as many as fit in `min_time`.
  double min_time = 1.0;           ///< Timing: with `runs` 0, seconds to time at least.
  double max_time = 60.0;          ///< Timing: seconds that bound each part of the pass.
  int64_t latency_batch_size = 0;  ///< Timing: samples per timed run; 0: `batch_size`.
  int64_t startup_runs = 5;        ///< StartupTime: fresh loads of the model file.
  bool quiet = false;              ///< No progress bar.
  bool verbose = false;            ///< Print each batch's workload results to stderr.
  /// How the passes show their progress (RunOptions::progress): `auto`, `lines` or `off`.
  std::string progress = "auto";
  /// Warnings are errors: NaN or Inf in the data or the weights stop the run before it starts
  /// (RunOptions::strict); the command line also refuses to write results with any warning.
  bool strict = false;
  /// The largest array read from the `.npz` (`data`, or a data set kind's such as `wisdm`), in
  /// bytes (NpzReadOptions::max_array_bytes).
  std::uint64_t max_array_bytes = kDefaultMaxArrayBytes;
  /// Where the model runs: `cpu`, `cuda`, `cuda:N` or `lazy` (parse_device(); RunOptions::device).
  /// In a sharded run, `cuda` is each rank's `cuda:LOCAL_RANK`.
  std::string device = "cpu";
  bool tf32 = false;               ///< CUDA runs: allow TF32 (RunOptions::tf32).
  bool profile = false;            ///< Make the per-layer profile (RunOptions::profile).
  int64_t profile_warmup = 2;      ///< Profile: untimed runs before each kind of timed runs.
  int64_t profile_runs = 20;       ///< Profile: timed runs without, then with, layer clocks.
  /// Where to write the profile as CSV (render_profile_csv()); empty: nowhere. Needs `profile`.
  std::filesystem::path profile_csv;
  OutputFiles outputs;             ///< Results files to write.

  /// Throws UsageError naming the field when a number is out of its range (number_range()),
  /// `device` is not a device parse_device() reads,
  /// `min_time` is more than `max_time` with `runs` 0, a metric or processor has no name or
  /// options that are not an object, both `data` and `dataset` are set, or `dataset` lacks a
  /// kind or a path, has options that are not an object, or an option named `kind` or `path`.
  /// Names (of metrics, processors, data set kinds) are checked when a run makes them.
  void validate() const;

  /// The numeric keys, in the documented order: `batch_size`, `shuffle_seed`, `threads`,
  /// `warmup`, `runs`, `min_time`, `max_time`, `latency_batch_size`, `startup_runs`,
  /// `max_array_bytes`, `profile_warmup`, `profile_runs`. Each is also a flag of `neurobench
  /// run`: `--` and the key with `-` for `_` (`--batch-size`).
  [[nodiscard]] static std::vector<std::string> number_keys();
  /// The values a numeric key takes, as messages say them: `an integer from 1 to 2147483647`,
  /// `a number of seconds from 0 to 86400`. Throws UsageError for a key that is not numeric.
  /// Every range is checked in one place, the same way for a config's value, a flag's text
  /// (set_number()) and validate().
  [[nodiscard]] static std::string number_range(std::string_view key);
  /// Sets a numeric key from text as a command line gives it: an integer in decimal digits,
  /// or for seconds a decimal number (`0.5`, `2e-3`). Throws UsageError starting with `where`
  /// when the text is not such a number or the number is out of the key's range, without
  /// wrapping or clamping: `--batch-size: 0 is out of range; expected an integer from 1 to
  /// 2147483647`, `--batch-size: 'abc' is not an integer; expected ...`.
  void set_number(std::string_view key, std::string_view text, std::string_view where);

  /// The config in `json`, an object with the documented keys. Relative paths are joined to
  /// `base` when it is not empty. Throws UsageError starting with `source` and naming the key
  /// for an unknown key, a value of the wrong type or out of range: a numeric key takes a
  /// JSON number (an integer, written without a fraction or exponent, for an integer key) in
  /// its range (number_range()). Keys are checked one by one, so that flags can still
  /// override them: validate() checks `min_time` against `max_time`.
  [[nodiscard]] static BenchmarkConfig from_json(const Json& json,
                                                 const std::filesystem::path& base = {},
                                                 const std::string& source = "config");
  /// The largest config file read(): 16 MiB.
  static constexpr std::uint64_t kMaxFileBytes = std::uint64_t{16} << 20;

  /// Reads a config file (JSON; comments allowed); relative paths are taken from its folder.
  /// Throws InputError naming the file when it is missing, not a regular file (a directory, a
  /// FIFO or a device is refused before it is opened), larger than kMaxFileBytes, not JSON,
  /// nested more than 64 deep, or holds a number beyond a double (`1e400`), with the line and
  /// column (docs/file-formats.md); UsageError naming the file and the key as from_json() does.
  [[nodiscard]] static BenchmarkConfig read(const std::filesystem::path& file);

  /// The config as JSON, keys in the documented order: `_comment` when set, `model`, `data`
  /// and `dataset` (as an object) when set, `batch_size`, then every other key whose value is
  /// not its default.
  /// Paths are written as they are. from_json(to_json()) gives the config back.
  [[nodiscard]] Json to_json() const;
  /// Validates, then writes the config to `file` (2-space indented JSON) whole or not at all,
  /// as results files are written. A path in the file's folder or below is written relative
  /// to that folder, any other absolute; read(file) gives the config back. Throws UsageError
  /// as validate() and InputError naming the file when it cannot be written.
  void write(const std::filesystem::path& file) const;

  /// Sets config key `key` (a key of run_keys() in <neurobench/run_keys.hpp>) from `value`,
  /// read as a config file holding it reads it (relative paths from `base`; numbers checked
  /// against their range). Throws UsageError starting with `source` for an unknown key or a
  /// value its reader refuses. The command line sets its flags through this.
  void set_key(std::string_view key, const Json& value, const std::filesystem::path& base = {},
               const std::string& source = "config");
  /// The value of config key `key` as a config writes it (null for an unset `shuffle_seed` or
  /// no `dataset`). Throws UsageError for an unknown key.
  [[nodiscard]] Json get_key(std::string_view key) const;

  /// The keys a config may have, comma-separated (`model, data, batch_size, ...`), for help
  /// texts and messages.
  [[nodiscard]] static const char* keys();

  /// The data loader's options: `batch_size` and `shuffle_seed`.
  [[nodiscard]] LoaderOptions loader_options() const;
  /// A run's options: `quiet`, `verbose`, `progress`, `strict`, `device`, `tf32`,
  /// `metrics_scope`, the profile's and the timing settings (`max_time` as `max_time_s`).
  [[nodiscard]] RunOptions run_options() const;
  /// How a NIR graph model is built: `nir_time`, `nir_dt`, `nir_reset`.
  [[nodiscard]] NirOptions nir_options() const;
  /// How the `.npz` data file is read: `max_array_bytes`.
  [[nodiscard]] NpzReadOptions npz_options() const;
  /// Some metric asked for (`static`, `workload` or `metrics`) is a timing metric
  /// (timing_metrics() in <neurobench/metrics/metric.hpp>: Latency, InferenceTime, ...), so a
  /// run makes a timing pass.
  [[nodiscard]] bool asks_for_timing() const;
};

/// Parses a metric as the command line writes it: `Name`, or `Name:key=value,key=value`.
/// A value is taken as JSON when it parses as JSON (`3`, `0.5`, `true`, `[1,2]`, `"a,b"`),
/// and as a string otherwise (`mode=fast`). Throws UsageError quoting `text` for a missing
/// name (`:k=v`), a `:` without options (`Name:`), an option without `=` or value (`Name:k`,
/// `Name:k=`), an empty key, or a key given twice.
///
/// ```cpp
/// auto spec = neurobench::parse_metric_spec("Latency:runs=20,percentiles=[50,99]");
/// // spec.name == "Latency", spec.options == {"runs": 20, "percentiles": [50, 99]}
/// ```
[[nodiscard]] MetricSpec parse_metric_spec(std::string_view text);

/// Parses a comma-separated list of metrics as `--metrics` takes it: `A,B:k=1,j=2,C` is A, B
/// with options k and j, and C. A piece with an `=` before any `:` is an option of the
/// metric before it; commas inside `[]`, `{}` or double quotes do not separate. Throws
/// UsageError as parse_metric_spec(), or for an empty piece or options with no metric.
[[nodiscard]] std::vector<MetricSpec> parse_metric_specs(std::string_view list);

/// A metric as the command line writes it: `Name`, or `Name:key=value,...` with each value
/// as compact JSON. parse_metric_spec() reads it back.
[[nodiscard]] std::string format_metric_spec(const MetricSpec& spec);

/// parse_metric_spec() for any plugin: `what` names it in messages (`pre-processor 'S2S:': no
/// options after ':' (...)`).
///
/// ```cpp
/// auto spec = neurobench::parse_plugin_spec(
///     "MFCCPreProcessor:n_mfcc=20,melkwargs={\"n_fft\":512}", "pre-processor");
/// // spec.options == {"n_mfcc": 20, "melkwargs": {"n_fft": 512}}
/// ```
[[nodiscard]] PluginSpec parse_plugin_spec(std::string_view text, std::string_view what);

/// parse_metric_specs() for any plugin (`--pre`, `--post`): `what` names it in messages.
[[nodiscard]] std::vector<PluginSpec> parse_plugin_specs(std::string_view list,
                                                         std::string_view what);

/// A plugin as the command line writes it (format_metric_spec()).
[[nodiscard]] std::string format_plugin_spec(const PluginSpec& spec);

/// Parses options alone as the command line writes them, `key=value,key=value` (values as in
/// parse_metric_spec()), into an object; `--dataset-options` takes them. Throws UsageError
/// starting with `what` and quoting `text` for an empty text, an option without `=` or value,
/// an empty key, or a key given twice.
[[nodiscard]] Json parse_options(std::string_view text, std::string_view what);

}  // namespace neurobench
NEUROBENCH_API_END
