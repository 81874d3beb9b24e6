// SPDX-License-Identifier: Apache-2.0
#include <iostream>
#include <memory>

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/reporters/results.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

namespace {
// The options of the timing pass (Latency, InferenceTime, Throughput, StartupTime).
void add_timing_options(CLI::App& run, BenchmarkConfig& flags) {
  run.add_option("--warmup", flags.warmup, "timing metrics: untimed runs before the timed ones")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  run.add_option("--runs", flags.runs,
                 "timing metrics: timed runs (0: as many as fit in --min-time, at least 10)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, TimingOptions::kMaxRuns));
  run.add_option("--min-time", flags.min_time,
                 "timing metrics: with --runs 0, time at least this many seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  run.add_option("--latency-batch-size", flags.latency_batch_size,
                 "timing metrics: samples per timed run (0: --batch-size)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  run.add_option("--startup-runs", flags.startup_runs,
                 "StartupTime: fresh loads of the model file to time")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}
}  // namespace

CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  CLI::App* run = app.add_subcommand(
      "run", "Run a benchmark: a TorchScript model over an .npz data set, with metrics");
  run->add_option("config", a.config,
                  std::string("a benchmark config (JSON) with keys ") + BenchmarkConfig::keys() +
                      "; flags given after it override it");
  run->add_option("--model", a.model, "TorchScript model file (.pt)");
  run->add_option("--data", a.data, ".npz file with arrays 'data' and 'targets'");
  run->add_option("--batch-size", a.flags.batch_size,
                  "samples per batch; the last may be smaller")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--static", a.static_metrics,
                  "static metrics, comma-separated: Name or Name:key=value,key=value");
  run->add_option("--workload", a.workload_metrics,
                  "workload metrics, comma-separated: Name or Name:key=value,key=value");
  run->add_option("--metrics", a.metrics,
                  "any metrics, static or workload, comma-separated (Name or "
                  "Name:key=value,key=value): each goes where it belongs (added to --static and "
                  "--workload)");
  run->add_option("--pre", a.flags.pre, "pre-processors, comma-separated, applied in order")
      ->delimiter(',');
  run->add_option("--post", a.flags.post, "post-processors, comma-separated, applied in order")
      ->delimiter(',');
  run->add_flag("--stepwise", a.flags.stepwise,
                "feed data[:, t] one timestep at a time (spiking networks), stacking the spikes");
  run->add_option("--activation-modules", a.flags.activation_modules,
                  "activation layer classes (default: ReLU, Sigmoid and snnTorch neurons)")
      ->delimiter(',');
  run->add_option("--connection-modules", a.flags.connection_modules,
                  "connection layer classes (default: Linear, Conv1d/2d/3d, RNN/LSTM/GRU cells "
                  "and layers)")
      ->delimiter(',');
  run->add_option("--json", a.json_out, "write the results as JSON here");
  run->add_option("--csv", a.csv_out, "write the results as CSV here");
  run->add_option("--text", a.text_out, "write the results as 'key: value' lines here");
  run->add_option("--shuffle-seed", a.flags.shuffle_seed, "shuffle the samples with this seed");
  run->add_option("--threads", a.flags.threads, "intra-op threads for LibTorch")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  add_timing_options(*run, a.flags);
  run->add_flag("--quiet,-q", a.flags.quiet, "no progress bar");
  run->add_flag("--verbose,-v", a.flags.verbose, "print each batch's results to stderr");
  run->add_flag("--strict", a.flags.strict,
                "warnings are errors: NaN or Inf in the data or the weights stop the run before "
                "it starts, and any other warning stops it before results are written (exit 2)");
  run->add_option("--max-array-bytes", a.flags.max_array_bytes,
                  "the largest array read from the --data .npz, in bytes (declared sizes are "
                  "checked before anything is inflated)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return run;
}

namespace {
// Checks every name before any work is done, so that bad usage fails fast.
void check_names(const BenchmarkConfig& c) {
  for (const auto& n : c.pre) (void)pre_processors().create(n);
  for (const auto& n : c.post) (void)post_processors().create(n);
  if (c.static_metrics.empty() && c.workload_metrics.empty() && c.metrics.empty()) {
    throw UsageError("no metrics asked for: give --metrics, --static or --workload (see "
                     "'neurobench list')");
  }
}

// `metrics`: each goes to the family that has it, after the `static` and `workload` ones.
void place_metrics(const BenchmarkConfig& c, std::vector<MetricSpec>& static_specs,
                   std::vector<MetricSpec>& workload_specs) {
  static_specs = c.static_metrics;
  workload_specs = c.workload_metrics;
  for (const auto& spec : c.metrics) {
    if (static_metrics().contains(spec.name)) {
      static_specs.push_back(spec);
    } else if (find_metric(spec.name) != nullptr) {
      workload_specs.push_back(spec);  // workload and timing metrics alike
    } else {
      std::string known;
      for (const auto* m : all_metrics()) known += (known.empty() ? "" : ", ") + m->name;
      throw UsageError(fmt::format("unknown metric '{}' (known: {})", spec.name, known));
    }
  }
}

// The metrics of a flag: every value given, each a comma-separated list.
std::vector<MetricSpec> metric_flag(const char* flag, const std::vector<std::string>& values) {
  std::vector<MetricSpec> out;
  for (const auto& value : values) {
    try {
      for (auto& spec : parse_metric_specs(value)) out.push_back(std::move(spec));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", flag, e.what()));
    }
  }
  return out;
}

// Output paths are checked before the run, so a long run is not lost to a typo.
void check_outputs(const OutputFiles& outputs) {
  for (const auto* out : {&outputs.json, &outputs.csv, &outputs.text}) {
    if (out->empty()) continue;
    const auto dir = out->has_parent_path() ? out->parent_path() : std::filesystem::path(".");
    if (!std::filesystem::is_directory(dir)) {
      throw InputError(fmt::format("{}: cannot write: directory {} does not exist",
                                   out->string(), dir.string()));
    }
  }
}

// --strict: every warning of the run is an error. Says each one as an error and returns true
// when the run must end with exit status 2 and write no results file.
bool warnings_are_errors(const Results& results, bool strict) {
  if (!strict || results.warnings.empty()) return false;
  for (const auto& w : results.warnings) std::cerr << "error: " << w << "\n";
  std::cerr << "error: --strict: " << results.warnings.size() << " warning"
            << (results.warnings.size() == 1 ? "" : "s") << " above; no results file written\n";
  return true;
}
}  // namespace

BenchmarkConfig resolve_run_args(const CLI::App& run, const RunArgs& cli) {
  BenchmarkConfig merged;
  if (!cli.config.empty()) merged = BenchmarkConfig::read(cli.config);
  // Flags given on the command line win over the config.
  const auto given = [&](const char* name) { return run.get_option(name)->count() > 0; };
  const BenchmarkConfig& f = cli.flags;
  if (given("--model")) merged.model = cli.model;
  if (given("--data")) merged.data = cli.data;
  if (given("--batch-size")) merged.batch_size = f.batch_size;
  if (given("--static")) merged.static_metrics = metric_flag("--static", cli.static_metrics);
  if (given("--workload")) {
    merged.workload_metrics = metric_flag("--workload", cli.workload_metrics);
  }
  if (given("--metrics")) merged.metrics = metric_flag("--metrics", cli.metrics);
  if (given("--warmup")) merged.warmup = f.warmup;
  if (given("--runs")) merged.runs = f.runs;
  if (given("--min-time")) merged.min_time = f.min_time;
  if (given("--latency-batch-size")) merged.latency_batch_size = f.latency_batch_size;
  if (given("--startup-runs")) merged.startup_runs = f.startup_runs;
  if (given("--pre")) merged.pre = f.pre;
  if (given("--post")) merged.post = f.post;
  if (given("--stepwise")) merged.stepwise = f.stepwise;
  if (given("--activation-modules")) merged.activation_modules = f.activation_modules;
  if (given("--connection-modules")) merged.connection_modules = f.connection_modules;
  if (given("--json")) merged.outputs.json = cli.json_out;
  if (given("--csv")) merged.outputs.csv = cli.csv_out;
  if (given("--text")) merged.outputs.text = cli.text_out;
  if (given("--shuffle-seed")) merged.shuffle_seed = f.shuffle_seed;
  if (given("--threads")) merged.threads = f.threads;
  if (given("--quiet")) merged.quiet = f.quiet;
  if (given("--verbose")) merged.verbose = f.verbose;
  if (given("--strict")) merged.strict = f.strict;
  if (given("--max-array-bytes")) merged.max_array_bytes = f.max_array_bytes;
  const std::string where = cli.config.empty() ? "" : " (on the command line or in the config)";
  if (merged.model.empty()) throw UsageError("--model is required" + where);
  if (merged.data.empty()) throw UsageError("--data is required" + where);
  return merged;
}

int run_command(const BenchmarkConfig& c, const std::string& config_file) {
  check_names(c);
  std::vector<MetricSpec> static_specs, workload_specs;
  place_metrics(c, static_specs, workload_specs);
  MetricSet metrics = MetricSet::from_specs(static_specs, workload_specs);
  const RunOptions run_options = c.run_options();
  run_options.timing.validate();
  check_outputs(c.outputs);
  at::set_num_threads(c.threads);

  TorchScriptOptions model_options;
  model_options.stepwise = c.stepwise;
  auto model = std::make_shared<TorchScriptModel>(c.model, model_options);
  auto dataset = std::make_shared<TensorDataset>(TensorDataset::from_npz(c.data, c.npz_options()));

  std::vector<std::unique_ptr<PreProcessor>> pre;
  for (const auto& n : c.pre) pre.push_back(pre_processors().create(n));
  std::vector<std::unique_ptr<PostProcessor>> post;
  for (const auto& n : c.post) post.push_back(post_processors().create(n));

  LayerSetup layers = Benchmark::default_layers();
  if (!c.activation_modules.empty()) layers.activation_types = c.activation_modules;
  if (!c.connection_modules.empty()) layers.connection_types = c.connection_modules;

  Benchmark bench(model, DataLoader(dataset, c.loader_options()), std::move(pre),
                  std::move(post), std::move(metrics), layers);
  Results results = bench.run(run_options);
  results.run["data"] = c.data.string();
  results.run["stepwise"] = c.stepwise;
  if (!config_file.empty()) results.run["config"] = config_file;

  if (reference_blas_in_use()) {
    std::cerr << "warning: LibTorch is using the reference BLAS (" << loaded_blas_library()
              << "), 10-15x slower than OpenBLAS on Linear layers: install libopenblas0\n";
  }
  const bool refused = warnings_are_errors(results, c.strict);
  if (!refused) {
    for (const auto& w : results.warnings) std::cerr << "warning: " << w << "\n";
  }
  for (const auto& f : results.failures) std::cerr << "error: metric " << f.message << "\n";
  if (refused) return kExitError;

  if (!c.outputs.json.empty()) save_results(results, c.outputs.json, Format::Json);
  if (!c.outputs.csv.empty()) save_results(results, c.outputs.csv, Format::Csv);
  if (!c.outputs.text.empty()) save_results(results, c.outputs.text, Format::Text);

  std::cout << render_table(results);
  std::cout.flush();
  return results.ok() ? kExitOk : kExitMetricFailed;
}

}  // namespace neurobench::cli
