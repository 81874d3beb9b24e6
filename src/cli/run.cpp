// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include <neurobench/config.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/device.hpp>
#include <neurobench/distributed.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/plugins.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/profile.hpp>
#include <neurobench/reporters/results.hpp>
#include <neurobench/run_keys.hpp>
#include <neurobench/stop.hpp>

#include "cli/commands.hpp"
#include "util/text.hpp"

namespace neurobench::cli {

namespace {
// A flag's --help default: the config's default value, as a flag writes it.
std::string default_str(const RunKey& k) {
  const Json value = BenchmarkConfig{}.get_key(k.key);
  if (k.value == RunKeyValue::Integer || k.value == RunKeyValue::Seconds) {
    return value.is_number_float() ? fmt::format("{:g}", value.get<double>())
                                   : value.is_null() ? std::string() : value.dump();
  }
  if (k.value == RunKeyValue::Device || k.value == RunKeyValue::Choice) {
    return value.is_string() ? value.get<std::string>() : "";
  }
  return "";
}

// One flag of a config key, from its row of run_keys(): the text it holds goes to `a`.
void add_key_flag(CLI::App& run, RunArgs& a, const RunKey& k) {
  const std::string key(k.key);
  std::string names(k.flag);
  if (!k.short_flag.empty()) names += "," + std::string(k.short_flag);
  std::string help(k.help);
  CLI::Option* option = nullptr;
  switch (k.value) {
    case RunKeyValue::Boolean:
      run.add_flag(names, a.switches[key], help);
      return;
    case RunKeyValue::Names:
      option = run.add_option(names, a.lists[key], help)->delimiter(',');
      break;
    case RunKeyValue::Metrics:
    case RunKeyValue::Processors:
      option = run.add_option(names, a.lists[key], help);
      break;
    case RunKeyValue::Integer:
    case RunKeyValue::Seconds:
      // Kept as typed and checked when the flags are resolved, by the same code and against
      // the same range as the config key (BenchmarkConfig::set_number).
      option =
          run.add_option(names, a.texts[key], help + "; " + BenchmarkConfig::number_range(key));
      break;
    default:
      option = run.add_option(names, a.texts[key], help);
      break;
  }
  if (k.value == RunKeyValue::Choice) option->check(CLI::IsMember(run_key_choices(k)));
  if (k.key == "profile_csv") option->check(output_path_text());  // an output file
  if (!k.value_name.empty()) option->type_name(std::string(k.value_name));
  const std::string shown = default_str(k);
  if (!shown.empty()) option->default_str(shown);
}
}  // namespace

CLI::App* add_run_command(CLI::App& app, RunArgs& a) {
  CLI::App* run = app.add_subcommand(
      "run", "Run a benchmark: a TorchScript model over an .npz or a data set, with metrics");
  run->add_option("config", a.config,
                  std::string("a benchmark config (JSON) with keys ") + BenchmarkConfig::keys() +
                      "; flags given after it override it");
  // Every key of a run, in the table's order (run_keys()): a config key's flag, or one the
  // command line alone has.
  for (const RunKey& k : run_keys()) {
    const std::string help(k.help);
    if (!k.key.empty() && k.value == RunKeyValue::Outputs) {
      // One flag per results format: --json, --csv, --text.
      for (const ResultsFormat& format : results_formats()) {
        run->add_option("--" + format.name, a.outputs[format.name],
                        "write the results as " + format.description + " here")
            ->check(output_path_text());
      }
    } else if (!k.key.empty()) {
      add_key_flag(*run, a, k);
    } else if (k.flag == "--subset") {
      run->add_option("--subset", a.subset, help);
    } else if (k.flag == "--dataset-options") {
      run->add_option("--dataset-options", a.dataset_options, help)
          ->type_name(std::string(k.value_name));
    } else if (k.flag == "--distributed") {
      run->add_option("--distributed", a.distributed.mode, help)
          ->check(CLI::IsMember(run_key_choices(k)))
          ->default_str("auto");
    } else if (k.flag == "--distributed-timeout") {
      run->add_option("--distributed-timeout", a.distributed.timeout_s, help)
          ->check(decimal_text())
          ->check(CLI::Range(1.0, 86400.0))
          ->default_str(fmt::format("{:g}", a.distributed.timeout_s));
    } else {
      throw std::logic_error("run_keys(): no flag for " + std::string(k.flag));
    }
  }
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
// A config key's flag, given on the command line, into `merged`: its text read by the key's
// reader (the config's, through BenchmarkConfig::set_key), each error starting with the flag.
void set_key_flag(BenchmarkConfig& merged, const RunArgs& cli, const RunKey& k) {
  const std::string key(k.key);
  const std::string flag(k.flag);
  Json value;
  switch (k.value) {
    case RunKeyValue::Integer:
    case RunKeyValue::Seconds:
      merged.set_number(key, cli.texts.at(key), flag);
      return;
    case RunKeyValue::Boolean:
      value = cli.switches.at(key);
      break;
    case RunKeyValue::Names:
      value = cli.lists.at(key);
      break;
    case RunKeyValue::Metrics:
    case RunKeyValue::Processors: {
      const char* what = k.value == RunKeyValue::Metrics ? "metric"
                         : key == "pre"                  ? "pre-processor"
                                                         : "post-processor";
      value = Json::array();
      for (const auto& spec : spec_flag(flag.c_str(), cli.lists.at(key), what)) {
        value.push_back(Json(spec));
      }
      break;
    }
    case RunKeyValue::Dataset: {
      DatasetSpec spec;
      try {
        spec = parse_dataset_spec(cli.texts.at(key));
      } catch (const UsageError& e) {
        throw UsageError(fmt::format("{}: {}", flag, e.what()));
      }
      value = Json{{"kind", spec.kind}, {"path", spec.path.string()}};
      break;
    }
    case RunKeyValue::Device:
      try {
        (void)parse_device(cli.texts.at(key));
      } catch (const UsageError& e) {
        throw UsageError(fmt::format("{}: {}", flag, e.what()));
      }
      value = cli.texts.at(key);
      break;
    default:
      value = cli.texts.at(key);
      break;
  }
  merged.set_key(key, value, {}, flag);
}
}  // namespace

BenchmarkConfig resolve_run_args(const CLI::App& run, const RunArgs& cli) {
  BenchmarkConfig merged;
  if (!cli.config.empty()) merged = BenchmarkConfig::read(cli.config);
  // Flags given on the command line win over the config.
  const auto given = [&](std::string_view flag) {
    return run.get_option(std::string(flag))->count() > 0;
  };
  if (given("--data") && given("--dataset")) {
    throw UsageError(
        "--data and --dataset are mutually exclusive: --data reads an .npz file, "
        "--dataset a data set by kind (KIND:PATH)");
  }
  for (const RunKey& k : run_keys()) {
    if (k.key.empty() || k.flag.empty() || !given(k.flag)) continue;
    set_key_flag(merged, cli, k);
  }
  // Either data flag replaces whatever data the config named.
  if (given("--data")) merged.dataset = DatasetSpec{};
  if (given("--dataset")) merged.data.clear();
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
  for (const ResultsFormat& format : results_formats()) {
    if (given("--" + format.name)) merged.outputs[format.name] = cli.outputs.at(format.name);
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
  const auto writing = std::chrono::steady_clock::now();
  write_results(results, files, c.profile_csv);
  // Beside the progress, not in the table; with the writing, which the files cannot hold.
  if (!c.quiet) {
    std::cerr << render_phases(
        results, std::chrono::duration<double>(std::chrono::steady_clock::now() - writing).count());
  }
  return results.ok() ? kExitOk : kExitMetricFailed;
}

}  // namespace neurobench::cli
