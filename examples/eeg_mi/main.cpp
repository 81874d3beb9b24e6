// SPDX-License-Identifier: Apache-2.0
// EEG motor imagery on NeuroBench's THOR data, NeuroBench's way: the spiking network of
// NeuroBench's eeg_mi example (EEG_SNN), run on whole trials and scored by its output spike
// counts, benchmarked with NeuroBench's metric list for the example on the folder the user points
// at, printed beside the figures of NeuroBench's trained network. README.md beside this file has
// the details.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/thor_eeg_mi.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

namespace fs = std::filesystem;
namespace ds = neurobench::datasets;
using neurobench::Json;
using neurobench::examples::failures_json;
using neurobench::examples::seconds_since;

namespace {

struct Args {
  std::string data;
  std::string subset = "val";  // NeuroBench's benchmark.py evaluates the val split
  std::string models = EEG_MI_MODELS_DIR;
  int64_t batch_size = 64;  // NeuroBench's benchmark.py
  int threads = 1;
  std::string json;
  std::string write_configs;
  bool quiet = false;
};

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// NeuroBench's trained network (examples/eeg_mi/model.py with model_data/best_model.pt).
// NeuroBench publishes no results for it; these are the figures that do not depend on the data's
// values, computed by Python NeuroBench's Benchmark from that file (README.md). Dense operations
// are 48,896 a timestep (62 x 256 + 256 x 128 + 128 x 2), so they scale with the trials' length.
struct Reference {
  double accuracy = kUnknown;
  double parameters = 49282;
  double footprint = 197188;
  double connection_sparsity = 0.0;
  double activation_sparsity = kUnknown;
  double dense_per_timestep = 48896;
  double effective_macs = kUnknown;
  double effective_acs = kUnknown;
};
constexpr Reference kReference{};

// The benchmark as `neurobench run` takes it (eeg_snn.json): NeuroBench's metric list for the
// example on the subset's trials, whole trials into the network, output spikes counted per
// class.
neurobench::BenchmarkConfig benchmark_config(const Args& args) {
  neurobench::BenchmarkConfig c;
  c.model = fs::path(args.models) / "eeg_snn.pt";
  c.dataset = {"thor-eeg-mi", args.data, {{"subset", args.subset}}};
  c.batch_size = args.batch_size;
  c.threads = args.threads;
  c.static_metrics = {{"Footprint"}, {"ParameterCount"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"}, {"ActivationSparsity"}, {"SynapticOperations"}};
  // The model returns output spikes (batch, timesteps, 2); NeuroBench's postprocess,
  // spikes.sum(dim=0).argmax(dim=1) on its (timesteps, batch, 2), is ChooseMaxCount on ours.
  c.post = {{"ChooseMaxCount"}};
  c.quiet = args.quiet;
  return c;
}

std::string reference_cell(double value, const char* format) {
  return std::isnan(value) ? "n/a" : fmt::format(fmt::runtime(format), value);
}

void print_table(const neurobench::Results& results, const ds::ThorEegMi& data, double seconds) {
  struct Line {
    const char* label;
    const char* metric;
    const char* key;
    const char* format;
    double reference;
  };
  const Reference& r = kReference;
  const std::vector<Line> lines = {
      {"accuracy", "ClassificationAccuracy", "", "{:.4f}", r.accuracy},
      {"footprint (bytes)", "Footprint", "", "{:.0f}", r.footprint},
      {"parameters", "ParameterCount", "", "{:.0f}", r.parameters},
      {"connection sparsity", "ConnectionSparsity", "", "{:.4f}", r.connection_sparsity},
      {"activation sparsity", "ActivationSparsity", "", "{:.4f}", r.activation_sparsity},
      {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.0f}",
       r.dense_per_timestep * static_cast<double>(data.num_timesteps())},
      {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.0f}",
       r.effective_macs},
      {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.0f}",
       r.effective_acs},
  };
  constexpr int kLabel = 30;
  constexpr int kColumn = 16;
  fmt::print("\n{}; operations are per trial\n", data.describe());
  fmt::print("{:<{}}{:>{}}{:>{}}\n", "", kLabel, "EEG_SNN", kColumn, "NeuroBench's", kColumn);
  for (const Line& l : lines) {
    fmt::print("{:<{}}{:>{}}{:>{}}\n", l.label, kLabel,
               neurobench::examples::cell(results, l.metric, l.key, l.format), kColumn,
               reference_cell(l.reference, l.format), kColumn);
  }
  fmt::print("{:<{}}{:>{}}\n", "benchmark seconds", kLabel, fmt::format("{:.1f}", seconds),
             kColumn);
  fmt::print(
      "\nNeuroBench's: its trained EEG_SNN (best_model.pt), the figures that do not depend on the "
      "data's values, from Python NeuroBench (dense operations for {} timesteps); NeuroBench "
      "publishes no results for it (see README.md).\n",
      data.num_timesteps());
}

// Says where to get the data, when they are not where the user pointed.
int no_data(const Args& args, ds::ThorEegMiSubset subset) {
  const std::string problem =
      args.data.empty() ? std::string("no data given (--data FOLDER)")
                        : fmt::format("{}: no such file",
                                      ds::thor_eeg_mi_inputs_file(args.data, subset).string());
  fmt::print(stderr,
             "error: {}\n"
             "NeuroBench's THOR EEG motor imagery data (train_X.npy, train_y.npy, val_X.npy, "
             "val_y.npy) are not bundled. Download them from\n"
             "  {}\n"
             "(where NeuroBench's ThorEEGMI fetches them), for instance into data/, then run: "
             "eeg_mi --data data\n",
             problem, ds::kThorEegMiUrl);
  return neurobench::kExitError;
}

int run(const Args& args) {
  const ds::ThorEegMiSubset subset = ds::thor_eeg_mi_subset(args.subset);
  std::error_code ec;
  if (args.data.empty() || !fs::exists(ds::thor_eeg_mi_inputs_file(args.data, subset), ec)) {
    return no_data(args, subset);
  }
  // Outputs are checked before anything runs: a bad --json path costs no benchmark.
  if (!args.json.empty()) (void)neurobench::check_output_file(args.json);
  neurobench::examples::warn_if_reference_blas(args.quiet);
  const auto everything = std::chrono::steady_clock::now();
  const neurobench::BenchmarkConfig config = benchmark_config(args);
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(config);
  const auto* data = dynamic_cast<const ds::ThorEegMi*>(prepared.data().get());
  if (data == nullptr) throw neurobench::Error("thor-eeg-mi opened another kind of data set");
  if (!args.write_configs.empty()) {
    fs::create_directories(args.write_configs);
    neurobench::BenchmarkConfig written = config;
    written.comment = "EEG_SNN, NeuroBench's EEG motor imagery benchmark, written by eeg_mi";
    written.quiet = false;
    written.write(fs::path(args.write_configs) / "eeg_snn.json");
  }

  if (!args.quiet) fmt::print(stderr, "benchmarking EEG_SNN ({})\n", config.model.string());
  const auto start = std::chrono::steady_clock::now();
  const neurobench::Results results = prepared.run();
  const double seconds = seconds_since(start);
  neurobench::examples::print_messages("eeg_snn", results);
  print_table(results, *data, seconds);

  if (!args.json.empty()) {
    Json all = Json::object();
    all["task"] = "EEG motor imagery, NeuroBench's THOR data (left or right hand, 2 classes)";
    all["data"] = {{"folder", args.data},
                   {"subset", args.subset},
                   {"samples", data->size()},
                   {"timesteps", data->num_timesteps()},
                   {"channels", data->num_channels()}};
    all["options"] = {{"batch_size", args.batch_size}, {"threads", args.threads}};
    Json model = {{"label", "EEG_SNN"},
                  {"model", config.model.string()},
                  {"results", results.values},
                  {"_run", results.run},
                  {"seconds", seconds}};
    if (!results.warnings.empty()) model["warnings"] = results.warnings;
    if (!results.failures.empty()) model["failures"] = failures_json(results);
    all["models"] = {{"eeg_snn", model}};
    all["seconds"] = seconds_since(everything);
    neurobench::write_output_file(args.json, all.dump(2) + "\n");
  }
  return results.ok() ? neurobench::kExitOk : neurobench::kExitMetricFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Benchmarks NeuroBench's EEG motor imagery network (a spiking network on THOR's EEG "
      "trials) with neurobench, beside the figures of NeuroBench's trained network",
      "eeg_mi"};
  Args args;
  app.add_option("--data", args.data,
                 "The folder holding NeuroBench's train_X.npy, train_y.npy, val_X.npy, val_y.npy");
  app.add_option("--subset", args.subset, "Which trials")
      ->capture_default_str()
      ->check(CLI::IsMember({"train", "val"}));
  app.add_option("--models", args.models, "Folder with eeg_snn.pt")->capture_default_str();
  app.add_option("--batch-size", args.batch_size, "Trials per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--threads", args.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", args.json, "Write the results to this JSON file");
  app.add_option("--write-configs", args.write_configs,
                 "Also write DIR/eeg_snn.json, the same benchmark for `neurobench run`");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
