// SPDX-License-Identifier: Apache-2.0
#include <iostream>
#include <memory>

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/reporters/results.hpp>

#include "cli/commands.hpp"
#include "cli/config.hpp"

namespace neurobench::cli {

CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  CLI::App* run = app.add_subcommand(
      "run", "Run a benchmark: a TorchScript model over an .npz data set, with metrics");
  run->add_option("config", a.config,
                  std::string("a benchmark config (JSON) with keys ") + config_keys() +
                      "; flags given after it override it");
  run->add_option("--model", a.model, "TorchScript model file (.pt)");
  run->add_option("--data", a.data, ".npz file with arrays 'data' and 'targets'");
  run->add_option("--batch-size", a.batch_size, "samples per batch; the last may be smaller")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--static", a.static_metrics, "static metrics, comma-separated")
      ->delimiter(',');
  run->add_option("--workload", a.workload_metrics, "workload metrics, comma-separated")
      ->delimiter(',');
  run->add_option("--metrics", a.metrics,
                  "any metrics, static or workload, comma-separated: each goes where it belongs "
                  "(added to --static and --workload)")
      ->delimiter(',');
  run->add_option("--pre", a.pre, "pre-processors, comma-separated, applied in order")
      ->delimiter(',');
  run->add_option("--post", a.post, "post-processors, comma-separated, applied in order")
      ->delimiter(',');
  run->add_flag("--stepwise", a.stepwise,
                "feed data[:, t] one timestep at a time (spiking networks), stacking the spikes");
  run->add_option("--activation-modules", a.activation_modules,
                  "activation layer classes (default: ReLU, Sigmoid and snnTorch neurons)")
      ->delimiter(',');
  run->add_option("--connection-modules", a.connection_modules,
                  "connection layer classes (default: Linear, Conv1d/2d/3d, RNN/LSTM/GRU cells "
                  "and layers)")
      ->delimiter(',');
  run->add_option("--json", a.json_out, "write the results as JSON here");
  run->add_option("--csv", a.csv_out, "write the results as CSV here");
  run->add_option("--text", a.text_out, "write the results as 'key: value' lines here");
  run->add_option("--shuffle-seed", a.shuffle_seed, "shuffle the samples with this seed");
  run->add_option("--threads", a.threads, "intra-op threads for LibTorch")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_option("--warmup", a.warmup,
                  "timing metrics: untimed runs before the timed ones")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  run->add_option("--runs", a.runs,
                  "timing metrics: timed runs (0: as many as fit in --min-time, at least 10)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, TimingOptions::kMaxRuns));
  run->add_option("--min-time", a.min_time,
                  "timing metrics: with --runs 0, time at least this many seconds")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  run->add_option("--latency-batch-size", a.latency_batch_size,
                  "timing metrics: samples per timed run (0: --batch-size)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  run->add_option("--startup-runs", a.startup_runs,
                  "StartupTime: fresh loads of the model file to time")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run->add_flag("--quiet,-q", a.quiet, "no progress bar");
  run->add_flag("--verbose,-v", a.verbose, "print each batch's results to stderr");
  return run;
}

namespace {
// Checks every name before any work is done, so that bad usage fails fast.
void check_names(const RunArgs& a) {
  for (const auto& n : a.pre) (void)pre_processors().create(n);
  for (const auto& n : a.post) (void)post_processors().create(n);
  if (a.static_metrics.empty() && a.workload_metrics.empty() && a.metrics.empty()) {
    throw UsageError("no metrics asked for: give --metrics, --static or --workload (see "
                     "'neurobench list')");
  }
}

// --metrics: each name goes to the family that has it, after the --static and --workload ones.
void place_metrics(const RunArgs& a, std::vector<std::string>& static_names,
                   std::vector<std::string>& workload_names) {
  static_names = a.static_metrics;
  workload_names = a.workload_metrics;
  for (const auto& name : a.metrics) {
    if (static_metrics().contains(name)) {
      static_names.push_back(name);
    } else if (find_metric(name) != nullptr) {
      workload_names.push_back(name);  // workload and timing metrics alike
    } else {
      std::string known;
      for (const auto* m : all_metrics()) known += (known.empty() ? "" : ", ") + m->name;
      throw UsageError(fmt::format("unknown metric '{}' (known: {})", name, known));
    }
  }
}
}  // namespace

RunArgs resolve_run_args(const CLI::App& run, const RunArgs& cli) {
  RunArgs merged;
  if (!cli.config.empty()) load_config(cli.config, merged);
  // Flags given on the command line win over the config.
  const auto given = [&](const char* name) { return run.get_option(name)->count() > 0; };
  if (given("--model")) merged.model = cli.model;
  if (given("--data")) merged.data = cli.data;
  if (given("--batch-size")) merged.batch_size = cli.batch_size;
  if (given("--static")) merged.static_metrics = cli.static_metrics;
  if (given("--workload")) merged.workload_metrics = cli.workload_metrics;
  if (given("--metrics")) merged.metrics = cli.metrics;
  if (given("--warmup")) merged.warmup = cli.warmup;
  if (given("--runs")) merged.runs = cli.runs;
  if (given("--min-time")) merged.min_time = cli.min_time;
  if (given("--latency-batch-size")) merged.latency_batch_size = cli.latency_batch_size;
  if (given("--startup-runs")) merged.startup_runs = cli.startup_runs;
  if (given("--pre")) merged.pre = cli.pre;
  if (given("--post")) merged.post = cli.post;
  if (given("--stepwise")) merged.stepwise = cli.stepwise;
  if (given("--activation-modules")) merged.activation_modules = cli.activation_modules;
  if (given("--connection-modules")) merged.connection_modules = cli.connection_modules;
  if (given("--json")) merged.json_out = cli.json_out;
  if (given("--csv")) merged.csv_out = cli.csv_out;
  if (given("--text")) merged.text_out = cli.text_out;
  if (given("--shuffle-seed")) merged.shuffle_seed = cli.shuffle_seed;
  if (given("--threads")) merged.threads = cli.threads;
  if (given("--quiet")) merged.quiet = cli.quiet;
  if (given("--verbose")) merged.verbose = cli.verbose;
  merged.config = cli.config;
  const std::string where = cli.config.empty() ? "" : " (on the command line or in the config)";
  if (merged.model.empty()) throw UsageError("--model is required" + where);
  if (merged.data.empty()) throw UsageError("--data is required" + where);
  return merged;
}

int run_command(const RunArgs& a) {
  check_names(a);
  std::vector<std::string> static_names, workload_names;
  place_metrics(a, static_names, workload_names);
  MetricSet metrics = MetricSet::from_names(static_names, workload_names);
  RunOptions run_options;
  run_options.quiet = a.quiet;
  run_options.verbose = a.verbose;
  run_options.timing.warmup = a.warmup;
  run_options.timing.runs = a.runs;
  run_options.timing.min_time_s = a.min_time;
  run_options.timing.batch_size = a.latency_batch_size;
  run_options.timing.startup_runs = a.startup_runs;
  run_options.timing.validate();
  // Output paths are checked before the run, so a long run is not lost to a typo.
  for (const auto& out : {a.json_out, a.csv_out, a.text_out}) {
    if (out.empty()) continue;
    const std::filesystem::path p(out);
    const auto dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
    if (!std::filesystem::is_directory(dir)) {
      throw InputError(fmt::format("{}: cannot write: directory {} does not exist", out,
                                   dir.string()));
    }
  }
  at::set_num_threads(a.threads);

  TorchScriptOptions model_options;
  model_options.stepwise = a.stepwise;
  auto model = std::make_shared<TorchScriptModel>(a.model, model_options);
  auto dataset = std::make_shared<TensorDataset>(TensorDataset::from_npz(a.data));
  LoaderOptions loader_options;
  loader_options.batch_size = a.batch_size;
  loader_options.shuffle_seed = a.shuffle_seed;

  std::vector<std::unique_ptr<PreProcessor>> pre;
  for (const auto& n : a.pre) pre.push_back(pre_processors().create(n));
  std::vector<std::unique_ptr<PostProcessor>> post;
  for (const auto& n : a.post) post.push_back(post_processors().create(n));

  LayerSetup layers = Benchmark::default_layers();
  if (!a.activation_modules.empty()) layers.activation_types = a.activation_modules;
  if (!a.connection_modules.empty()) layers.connection_types = a.connection_modules;

  Benchmark bench(model, DataLoader(dataset, loader_options), std::move(pre), std::move(post),
                  std::move(metrics), layers);
  Results results = bench.run(run_options);
  results.run["data"] = a.data;
  results.run["stepwise"] = a.stepwise;
  if (!a.config.empty()) results.run["config"] = a.config;

  if (reference_blas_in_use()) {
    std::cerr << "warning: LibTorch is using the reference BLAS (" << loaded_blas_library()
              << "), 10-15x slower than OpenBLAS on Linear layers: install libopenblas0\n";
  }
  for (const auto& w : results.warnings) std::cerr << "warning: " << w << "\n";
  for (const auto& f : results.failures) std::cerr << "error: metric " << f.message << "\n";

  if (!a.json_out.empty()) save_results(results, a.json_out, Format::Json);
  if (!a.csv_out.empty()) save_results(results, a.csv_out, Format::Csv);
  if (!a.text_out.empty()) save_results(results, a.text_out, Format::Text);

  std::cout << render_table(results);
  std::cout.flush();
  return results.ok() ? kExitOk : kExitMetricFailed;
}

}  // namespace neurobench::cli
