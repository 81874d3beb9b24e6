// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/distributed.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/plugins.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/profile.hpp>
#include <neurobench/reporters/results.hpp>
#include <neurobench/stop.hpp>

#include "cli/commands.hpp"
#include "util/text.hpp"

namespace neurobench::cli {

namespace {
// A numeric option: its text is kept as typed and checked when the flags are resolved, by the
// same code and against the same range as the config key (BenchmarkConfig::set_number).
void add_number(CLI::App& run, RunArgs& a, const std::string& key, const char* type,
                const std::string& default_text, const std::string& help) {
  auto* option = run.add_option(number_flag(key), a.numbers[key],
                                help + "; " + BenchmarkConfig::number_range(key));
  option->type_name(type);
  if (!default_text.empty()) option->default_str(default_text);
}

// The options of the timing pass (Latency, InferenceTime, Throughput, StartupTime).
void add_timing_options(CLI::App& run, RunArgs& a) {
  const BenchmarkConfig& d = a.flags;
  add_number(run, a, "warmup", "INT", fmt::format("{}", d.warmup),
             "timing metrics: untimed runs before the timed ones");
  add_number(run, a, "runs", "INT", fmt::format("{}", d.runs),
             "timing metrics: timed runs, at least 10 when 0");
  add_number(run, a, "min_time", "SECONDS", fmt::format("{:g}", d.min_time),
             "timing metrics: with --runs 0, time at least this many seconds");
  add_number(run, a, "max_time", "SECONDS", fmt::format("{:g}", d.max_time),
             "timing metrics: stop the warm-up and timed runs, and separately StartupTime's "
             "loads, after this many seconds (at least one run each), reporting the runs made");
  add_number(run, a, "latency_batch_size", "INT", fmt::format("{}", d.latency_batch_size),
             "timing metrics: samples per timed run");
  add_number(run, a, "startup_runs", "INT", fmt::format("{}", d.startup_runs),
             "StartupTime: fresh loads of the model file to time");
}
}  // namespace

std::string number_flag(const std::string& key) {
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  CLI::App* run = app.add_subcommand(
      "run", "Run a benchmark: a TorchScript model over an .npz or a data set, with metrics");
  run->add_option("config", a.config,
                  std::string("a benchmark config (JSON) with keys ") + BenchmarkConfig::keys() +
                      "; flags given after it override it");
  run->add_option("--model", a.model, "TorchScript model file (.pt)");
  run->add_option("--data", a.data, ".npz file with arrays 'data' and 'targets'");
  run->add_option("--dataset", a.dataset,
                  "a data set by kind instead of --data: KIND:PATH, such as "
                  "speech-commands:data/speech_commands_v0.02 ('neurobench list' shows the kinds)")
      ->type_name("KIND:PATH");
  run->add_option("--subset", a.subset,
                  "the data set's subset (its option 'subset'): speech-commands takes training, "
                  "validation, testing or all");
  run->add_option("--dataset-options", a.dataset_options,
                  "the data set's other options, comma-separated: key=value,key=value")
      ->type_name("KEY=VALUE,...");
  add_number(*run, a, "batch_size", "INT", fmt::format("{}", a.flags.batch_size),
             "samples per batch; the last may be smaller");
  run->add_option("--static", a.static_metrics,
                  "static metrics, comma-separated: Name or Name:key=value,key=value");
  run->add_option("--workload", a.workload_metrics,
                  "workload metrics, comma-separated: Name or Name:key=value,key=value");
  run->add_option("--metrics", a.metrics,
                  "any metrics, static or workload, comma-separated (Name or "
                  "Name:key=value,key=value): each goes where it belongs (added to --static and "
                  "--workload)");
  run->add_option("--pre", a.pre,
                  "pre-processors, comma-separated, applied in order: Name or "
                  "Name:key=value,key=value");
  run->add_option("--post", a.post,
                  "post-processors, comma-separated, applied in order: Name or "
                  "Name:key=value,key=value");
  run->add_flag("--stepwise", a.flags.stepwise,
                "feed data[:, t] one timestep at a time (spiking networks), stacking the spikes");
  run->add_option("--activation-modules", a.flags.activation_modules,
                  "activation layer classes (default: ReLU, Sigmoid and snnTorch neurons)")
      ->delimiter(',');
  run->add_option("--connection-modules", a.flags.connection_modules,
                  "connection layer classes (default: Linear, Conv1d/2d/3d, RNN/LSTM/GRU cells "
                  "and layers)")
      ->delimiter(',');
  run->add_option("--metrics-scope", a.flags.metrics_scope,
                  "restrict the static metrics and the layer hooks to the submodule at this "
                  "dotted path, as NeuroBench's metrics see a model's __net__() (the forward "
                  "pass still runs the whole model; '' for the whole model; docs/metrics.md)")
      ->type_name("PATH");
  // One flag per results format: --json, --csv, --text.
  for (const ResultsFormat& format : results_formats()) {
    run->add_option("--" + format.name, a.outputs[format.name],
                    "write the results as " + format.description + " here")
        ->check(output_path_text());
  }
  add_number(*run, a, "shuffle_seed", "INT", "", "shuffle the samples with this seed");
  add_number(*run, a, "threads", "INT", fmt::format("{}", a.flags.threads),
             "intra-op threads for LibTorch");
  run->add_option("--device", a.flags.device,
                  "where the model runs: cpu, cuda (cuda:0; cuda:LOCAL_RANK in a sharded run), "
                  "cuda:N, or lazy (LibTorch's lazy tensors on the CPU, for testing); the model "
                  "and each batch go there before pre-processing (docs/devices.md)")
      ->type_name("DEVICE")
      ->default_str("cpu");
  run->add_flag("--tf32", a.flags.tf32,
                "CUDA: allow TF32 in float32 convolutions and matrix products (faster on "
                "Ampere and later, ~1e-3 relative precision; off: results equal the CPU's)");
  add_timing_options(*run, a);
  run->add_flag("--profile", a.flags.profile,
                "after the timing pass, profile each connection and activation layer: time "
                "per call, share, operations and sparsity per sample, output shape "
                "(docs/deployment-metrics.md#per-layer-profile)");
  add_number(*run, a, "profile_warmup", "INT", fmt::format("{}", a.flags.profile_warmup),
             "profile: untimed runs before each kind of timed runs");
  add_number(*run, a, "profile_runs", "INT", fmt::format("{}", a.flags.profile_runs),
             "profile: timed runs without hooks, then as many with the layer clocks");
  run->add_option("--profile-csv", a.flags.profile_csv,
                  "write the per-layer profile as CSV here, one row per layer (needs --profile)")
      ->check(output_path_text());
  run->add_flag("--quiet,-q", a.flags.quiet, "no progress bar");
  run->add_flag("--verbose,-v", a.flags.verbose, "print each batch's results to stderr");
  run->add_flag("--strict", a.flags.strict,
                "warnings are errors: NaN or Inf in the data or the weights stop the run before "
                "it starts, and any other warning stops it before results are written (exit 2)");
  add_number(*run, a, "max_array_bytes", "BYTES", fmt::format("{}", a.flags.max_array_bytes),
             "the largest array read from the --data .npz, in bytes (declared sizes are "
             "checked before anything is inflated)");
  run->add_option("--distributed", a.distributed.mode,
                  "shard the run over the processes torchrun, mpirun or srun started: auto (when "
                  "WORLD_SIZE, OMPI_COMM_WORLD_SIZE or SLURM_STEP_NUM_TASKS says more than one), "
                  "on or off (docs/distributed.md)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->default_str("auto");
  run->add_option("--distributed-timeout", a.distributed.timeout_s,
                  "sharded runs: seconds a rank waits for the others to join, and at the end of "
                  "its shard for the slowest")
      ->check(decimal_text())
      ->check(CLI::Range(1.0, 86400.0))
      ->default_str(fmt::format("{:g}", a.distributed.timeout_s));
  return run;
}

namespace {
// The metrics or processors of a flag: every value given, each a comma-separated list.
std::vector<PluginSpec> spec_flag(const char* flag, const std::vector<std::string>& values,
                                  const char* what = "metric") {
  std::vector<PluginSpec> out;
  for (const auto& value : values) {
    try {
      for (auto& spec : parse_plugin_specs(value, what)) out.push_back(std::move(spec));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", flag, e.what()));
    }
  }
  return out;
}

// `--dataset-options a=1,b=x` (each value given): the options of a data set.
Json dataset_options_flag(const std::vector<std::string>& values) {
  Json options = Json::object();
  for (const auto& value : values) {
    const Json parsed = parse_options(value, "--dataset-options");
    for (const auto& [key, v] : parsed.items()) {
      if (options.contains(key)) {
        throw UsageError(fmt::format("--dataset-options: option '{}' is given twice", key));
      }
      options[key] = v;
    }
  }
  return options;
}

// The results files asked for, each with its option and format.
struct ResultsFile {
  NamedFile file;
  const ResultsFormat* format;
};

// In the order of the formats' table (BenchmarkConfig::validate() refuses other names).
std::vector<ResultsFile> results_files(const OutputFiles& outputs) {
  std::vector<ResultsFile> files;
  for (const ResultsFormat& format : results_formats()) {
    const auto it = outputs.find(format.name);
    if (it != outputs.end() && !it->second.empty()) {
      files.push_back({{it->second, "--" + format.name}, &format});
    }
  }
  return files;
}

// Every output is checked before the model is loaded, so that a long run is not lost to a
// typo: a writable folder, not a directory, not an input, not another output.
std::vector<NamedFile> check_outputs(const std::vector<ResultsFile>& files,
                                     const BenchmarkConfig& c, const std::string& config_file) {
  std::vector<NamedFile> outputs;
  for (const auto& f : files) {
    try {
      (void)check_output_file(f.file.path);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: {}", f.file.role, e.what()));
    }
    outputs.push_back(f.file);
  }
  if (!c.profile_csv.empty()) {
    try {
      (void)check_output_file(c.profile_csv);
    } catch (const InputError& e) {
      throw InputError(fmt::format("--profile-csv: {}", e.what()));
    }
    outputs.push_back({c.profile_csv, "--profile-csv"});
  }
  // Results files are JSON, which holds UTF-8 only: a path that is not would fail the writing
  // of the results at the very end of the run.
  std::vector<NamedFile> paths = outputs;
  paths.push_back({c.model, "--model"});
  if (!c.data.empty()) paths.push_back({c.data, "--data"});
  if (!c.dataset.empty()) paths.push_back({c.dataset.path, "--dataset"});
  if (!config_file.empty()) paths.push_back({config_file, "the config file"});
  for (const auto& p : paths) {
    if (!detail::is_utf8(p.path.string())) {
      throw UsageError(fmt::format(
          "{}: the path {} is not valid UTF-8, which the results (JSON) cannot hold: rename it, "
          "or give a symbolic link with a UTF-8 name",
          p.role, detail::printable(p.path.string())));
    }
  }
  std::vector<NamedFile> inputs = {{c.model, "--model"}};
  if (!c.data.empty()) inputs.push_back({c.data, "--data"});
  if (!config_file.empty()) inputs.push_back({config_file, "the config file"});
  for (const auto& plugin : loaded_plugins()) inputs.push_back({plugin, "a plugin library"});
  check_distinct_files(outputs, inputs);
  return outputs;
}

// The files the data set reads, as inputs no output may overwrite.
std::vector<NamedFile> dataset_inputs(const Dataset& data, const BenchmarkConfig& c) {
  const std::string role = c.dataset.empty()
                               ? std::string("--data")
                               : fmt::format("read by the data set {}:{}", c.dataset.kind,
                                             detail::printable(c.dataset.path.string()));
  return named_files(data.input_files(), role);
}

// Writes the results files, all or none; the table is on stdout already, so a failure here
// loses no number.
void write_results(const Results& results, const std::vector<ResultsFile>& files,
                   const std::filesystem::path& profile_csv) {
  std::vector<OutputFile> outputs;
  for (const auto& f : files) outputs.push_back({f.file.path, f.format->write(results)});
  if (!profile_csv.empty()) outputs.push_back({profile_csv, render_profile_csv(results)});
  try {
    write_output_files(outputs);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} (no results file written; the values are in the table above)",
                                 e.what()));
  }
}

// Processes of a sharded run on one machine share its cores: say so when their threads
// together are more than it has (torchrun starts one thread per process unless told otherwise).
void warn_if_ranks_share_cores(const RankInfo& rank, int threads) {
  const int cores = capture_environment().cores;
  if (rank.rank != 0 || rank.local_world_size <= 0 || cores <= 0) return;
  if (rank.local_world_size * threads <= cores) return;
  std::cerr << fmt::format(
      "warning: {} processes of {} threads each share this machine's {} logical CPUs: they "
      "compete for them, which slows the run and makes timings unrepresentative\n",
      rank.local_world_size, threads, cores);
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
  if (given("--data") && given("--dataset")) {
    throw UsageError(
        "--data and --dataset are mutually exclusive: --data reads an .npz file, "
        "--dataset a data set by kind (KIND:PATH)");
  }
  // Either flag replaces whatever data the config named.
  if (given("--data")) {
    merged.data = cli.data;
    merged.dataset = DatasetSpec{};
  }
  if (given("--dataset")) {
    try {
      merged.dataset = parse_dataset_spec(cli.dataset);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--dataset: {}", e.what()));
    }
    merged.data.clear();
  }
  for (const char* flag : {"--subset", "--dataset-options"}) {
    if (given(flag) && merged.dataset.empty()) {
      throw UsageError(fmt::format(
          "{} needs a data set by kind: give --dataset KIND:PATH (or a config's 'dataset'); "
          "{}",
          flag,
          merged.data.empty() ? "no data set is given"
                              : "--data names an .npz file, which has no subsets or options"));
    }
  }
  if (given("--dataset-options")) {
    const Json options = dataset_options_flag(cli.dataset_options);
    // Two flags naming the subset: neither wins in silence (a config's subset gives way to
    // either, as every flag wins over the config).
    if (given("--subset") && options.contains("subset") && options["subset"] != Json(cli.subset)) {
      throw UsageError(fmt::format(
          "--subset '{}' and --dataset-options' subset {} disagree: give the subset once",
          detail::printable(cli.subset, 60), detail::json_excerpt(options["subset"])));
    }
    for (const auto& [key, value] : options.items()) merged.dataset.options[key] = value;
  }
  if (given("--subset")) merged.dataset.options["subset"] = cli.subset;
  if (given("--static")) merged.static_metrics = spec_flag("--static", cli.static_metrics);
  if (given("--workload")) {
    merged.workload_metrics = spec_flag("--workload", cli.workload_metrics);
  }
  if (given("--metrics")) merged.metrics = spec_flag("--metrics", cli.metrics);
  if (given("--pre")) merged.pre = spec_flag("--pre", cli.pre, "pre-processor");
  if (given("--post")) merged.post = spec_flag("--post", cli.post, "post-processor");
  if (given("--stepwise")) merged.stepwise = f.stepwise;
  if (given("--activation-modules")) merged.activation_modules = f.activation_modules;
  if (given("--connection-modules")) merged.connection_modules = f.connection_modules;
  if (given("--metrics-scope")) merged.metrics_scope = f.metrics_scope;
  for (const ResultsFormat& format : results_formats()) {
    if (given(("--" + format.name).c_str())) {
      merged.outputs[format.name] = cli.outputs.at(format.name);
    }
  }
  if (given("--quiet")) merged.quiet = f.quiet;
  if (given("--verbose")) merged.verbose = f.verbose;
  if (given("--strict")) merged.strict = f.strict;
  if (given("--device")) {
    try {
      (void)parse_device(f.device);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--device: {}", e.what()));
    }
    merged.device = f.device;
  }
  if (given("--tf32")) merged.tf32 = f.tf32;
  if (given("--profile")) merged.profile = f.profile;
  if (given("--profile-csv")) merged.profile_csv = f.profile_csv;
  // Numbers: checked as the config's keys are, against the same ranges.
  for (const std::string& key : BenchmarkConfig::number_keys()) {
    const std::string flag = number_flag(key);
    if (given(flag.c_str())) merged.set_number(key, cli.numbers.at(key), flag);
  }
  const std::string where = cli.config.empty() ? "" : " (on the command line or in the config)";
  if (merged.model.empty()) throw UsageError("--model is required" + where);
  if (merged.data.empty() && merged.dataset.empty()) {
    throw UsageError("--data (an .npz file) or --dataset (KIND:PATH) is required" + where);
  }
  return merged;
}

int run_command(const BenchmarkConfig& c, const std::string& config_file,
                const DistributedArgs& distributed) {
  // Every name and option, before the outputs are checked and a sharded run connects.
  PreparedRun::check(c);
  RunParts parts;
  parts.options = c.run_options();
  parts.config_file = config_file;
  RunOptions& run_options = *parts.options;
  const std::vector<ResultsFile> files = results_files(c.outputs);
  const std::vector<NamedFile> outputs = check_outputs(files, c, config_file);
  // SIGINT and SIGTERM stop the run after the batch in progress, with no results file.
  stop_on_signals();
  // A sharded run connects first, so that a rank that cannot join stops every rank early.
  const std::unique_ptr<RankInfo> rank =
      rank_from_environment(distributed_mode_from_string(distributed.mode));
  if (rank != nullptr && rank->world_size > 1) {
    DistributedOptions options;
    options.timeout = std::chrono::milliseconds(static_cast<int64_t>(distributed.timeout_s * 1000));
    run_options.group = std::make_shared<ProcessGroup>(*rank, options);
    if (rank->rank != 0) run_options.quiet = true;  // one progress bar: rank 0's
    warn_if_ranks_share_cores(*rank, c.threads);
  }
  const bool writes = rank == nullptr || rank->rank == 0;
  // `cuda` in a sharded run is each rank's own GPU, as torchrun's convention is.
  if (run_options.group != nullptr) run_options.device = rank_device(run_options.device, *rank);

  PreparedRun prepared = PreparedRun::from_config(c, std::move(parts));
  // The files the data set reads are known once it is open: still before the first batch.
  check_distinct_files(outputs, dataset_inputs(*prepared.data(), c));
  Results results;
  try {
    results = prepared.run();
    // A signal after the last pass: the user asked to stop, so nothing is written either.
    throw_if_stop_requested("after the run, before the results were written");
  } catch (const Interrupted& e) {
    throw Interrupted(std::string(e.what()) + ": no results written", e.signal());
  }

  if (rank != nullptr) {
    Json& d = results.run["distributed"];
    if (!d.is_object()) d = {{"world_size", 1}, {"launcher", rank->launcher}};
    d["timeout_s"] = distributed.timeout_s;
  }
  // The other ranks hold the same results; rank 0 alone says them and writes them.
  if (!writes) {
    // The same status as rank 0's: --strict refuses on every rank alike.
    if (c.strict && !results.warnings.empty()) return kExitError;
    return results.ok() ? kExitOk : kExitMetricFailed;
  }
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

  std::cout << render_table(results);
  std::cout.flush();
  write_results(results, files, c.profile_csv);
  return results.ok() ? kExitOk : kExitMetricFailed;
}

}  // namespace neurobench::cli
