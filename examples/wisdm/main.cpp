// SPDX-License-Identifier: Apache-2.0
// Human activity recognition on NeuroBench's WISDM smartwatch windows, NeuroBench's way: the
// spiking convolutional network of NeuroBench's WISDM example (examples/nehar), run on whole
// windows and scored by its output spike counts, benchmarked with NeuroBench's metric set on the
// file the user points at, printed beside the figures of NeuroBench's trained network.
// README.md beside this file has the details.
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
#include <neurobench/datasets/wisdm.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::examples::failures_json;
using neurobench::examples::seconds_since;

namespace {

struct Args {
  std::string data;
  std::string subset = "test";
  std::string models = WISDM_MODELS_DIR;
  int64_t batch_size = 256;  // NeuroBench's WISDM benchmark
  int threads = 1;
  std::string json;
  std::string write_configs;
  bool quiet = false;
};

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

// NeuroBench's trained WISDM network (examples/nehar/SCNN.py with model_data/
// WISDM_snnTorch.ckpt, NeuroBench 2.3.0). NeuroBench publishes no test-set figures for it; these
// are the figures that do not depend on the data, computed by Python NeuroBench 2.3.0's
// Benchmark from that checkpoint (README.md). The others are unknown without the data.
struct Reference {
  double accuracy = kUnknown;
  double parameters = 57647;
  double footprint = 230648;
  double connection_sparsity = 0.0;
  double activation_sparsity = kUnknown;
  double membrane_updates = kUnknown;
  double dense = 8431360;
  double effective_macs = 96000;
  double effective_acs = kUnknown;
};
constexpr Reference kReference{};

// The benchmark as `neurobench run` takes it (scnn.json): NeuroBench's WISDM metric set (its
// NeuronOperations and ActivationSparsityByLayer left out) on the subset's windows, whole
// windows into the network, output spikes counted per class.
neurobench::BenchmarkConfig benchmark_config(const Args& args) {
  neurobench::BenchmarkConfig c;
  c.model = fs::path(args.models) / "scnn.pt";
  c.dataset = {"wisdm", args.data, {{"subset", args.subset}}};
  c.batch_size = args.batch_size;
  c.threads = args.threads;
  c.static_metrics = {{"ParameterCount"}, {"Footprint"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"},
                        {"ActivationSparsity"},
                        {"MembraneUpdates"},
                        {"SynapticOperations"}};
  // The model returns output spikes (batch, timesteps, 7), as NeuroBench's
  // SNNTorchModel(net, custom_forward=True) does.
  c.post = {{"ChooseMaxCount"}};
  c.quiet = args.quiet;
  return c;
}

std::string reference_cell(double value, const char* format) {
  return std::isnan(value) ? "n/a" : fmt::format(fmt::runtime(format), value);
}

void print_table(const neurobench::Results& results, const neurobench::Dataset& data,
                 double seconds) {
  struct Line {
    const char* label;
    const char* metric;
    const char* key;
    const char* format;
    double Reference::*reference;
  };
  const std::vector<Line> lines = {
      {"accuracy", "ClassificationAccuracy", "", "{:.4f}", &Reference::accuracy},
      {"parameters", "ParameterCount", "", "{:.0f}", &Reference::parameters},
      {"footprint (bytes)", "Footprint", "", "{:.0f}", &Reference::footprint},
      {"connection sparsity", "ConnectionSparsity", "", "{:.4f}", &Reference::connection_sparsity},
      {"activation sparsity", "ActivationSparsity", "", "{:.4f}", &Reference::activation_sparsity},
      {"membrane updates", "MembraneUpdates", "", "{:.1f}", &Reference::membrane_updates},
      {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.0f}", &Reference::dense},
      {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.0f}",
       &Reference::effective_macs},
      {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.0f}",
       &Reference::effective_acs},
  };
  constexpr int kLabel = 30;
  constexpr int kColumn = 16;
  fmt::print("\n{}; operations are per window\n", data.describe());
  fmt::print("{:<{}}{:>{}}{:>{}}\n", "", kLabel, "SCNN", kColumn, "NeuroBench ckpt", kColumn);
  for (const Line& l : lines) {
    fmt::print("{:<{}}{:>{}}{:>{}}\n", l.label, kLabel,
               neurobench::examples::cell(results, l.metric, l.key, l.format), kColumn,
               reference_cell(kReference.*l.reference, l.format), kColumn);
  }
  fmt::print("{:<{}}{:>{}}\n", "benchmark seconds", kLabel, fmt::format("{:.1f}", seconds),
             kColumn);
  fmt::print(
      "\nNeuroBench ckpt: NeuroBench's trained WISDM network (WISDM_snnTorch.ckpt), the figures "
      "that depend only on the network, from Python NeuroBench 2.3.0; NeuroBench publishes no "
      "test-set figures for it (see README.md).\n");
}

// Says where to get the data, when they are not where the user pointed.
int no_data(const Args& args) {
  const std::string problem =
      args.data.empty()
          ? std::string("no data given (--data FILE.npz or FOLDER)")
          : fmt::format("{}: no such file", neurobench::datasets::wisdm_file(args.data).string());
  fmt::print(stderr,
             "error: {}\n"
             "NeuroBench's WISDM data ({}) are not bundled. Download the file from\n"
             "  {}\n"
             "(the folder NeuroBench's WISDM data set fetches it from), for instance into "
             "data/nehar/, then run: wisdm --data data/nehar/{}\n"
             "(a folder holding {} works too: --data data/nehar)\n",
             problem, neurobench::datasets::kWisdmFileName, neurobench::datasets::kWisdmUrl,
             neurobench::datasets::kWisdmFileName, neurobench::datasets::kWisdmFileName);
  return neurobench::kExitError;
}

int run(const Args& args) {
  std::error_code ec;
  if (args.data.empty() || !fs::exists(neurobench::datasets::wisdm_file(args.data), ec)) {
    return no_data(args);
  }
  // Outputs are checked before anything runs: a bad --json path costs no benchmark.
  if (!args.json.empty()) (void)neurobench::check_output_file(args.json);
  neurobench::examples::warn_if_reference_blas(args.quiet);
  const auto everything = std::chrono::steady_clock::now();
  const neurobench::BenchmarkConfig config = benchmark_config(args);
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(config);
  const std::shared_ptr<neurobench::Dataset>& data = prepared.data();
  if (!args.write_configs.empty()) {
    fs::create_directories(args.write_configs);
    neurobench::BenchmarkConfig written = config;
    written.comment = "SCNN, NeuroBench's WISDM benchmark, written by wisdm";
    written.quiet = false;
    written.write(fs::path(args.write_configs) / "scnn.json");
  }

  if (!args.quiet) fmt::print(stderr, "benchmarking SCNN ({})\n", config.model.string());
  const auto start = std::chrono::steady_clock::now();
  const neurobench::Results results = prepared.run();
  const double seconds = seconds_since(start);
  neurobench::examples::print_messages("scnn", results);
  print_table(results, *data, seconds);

  if (!args.json.empty()) {
    Json all = Json::object();
    all["task"] = "human activity recognition, NeuroBench's WISDM smartwatch windows (7 classes)";
    all["data"] = {{"file", neurobench::datasets::wisdm_file(args.data).string()},
                   {"subset", args.subset},
                   {"samples", data->size()}};
    all["options"] = {{"batch_size", args.batch_size}, {"threads", args.threads}};
    Json model = {{"label", "SCNN"},
                  {"model", config.model.string()},
                  {"results", results.values},
                  {"_run", results.run},
                  {"seconds", seconds}};
    if (!results.warnings.empty()) model["warnings"] = results.warnings;
    if (!results.failures.empty()) model["failures"] = failures_json(results);
    all["models"] = {{"scnn", model}};
    all["seconds"] = seconds_since(everything);
    neurobench::write_output_file(args.json, all.dump(2) + "\n");
  }
  return results.ok() ? neurobench::kExitOk : neurobench::kExitMetricFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Benchmarks NeuroBench's WISDM network (a spiking CNN on smartwatch accelerometer and "
      "gyroscope windows) with neurobench, beside the figures of NeuroBench's trained network",
      "wisdm"};
  Args args;
  app.add_option("--data", args.data,
                 "NeuroBench's watch_subset2_40.npz, or the folder holding it");
  app.add_option("--subset", args.subset, "Which windows")
      ->capture_default_str()
      ->check(CLI::IsMember({"train", "val", "test"}));
  app.add_option("--models", args.models, "Folder with scnn.pt")->capture_default_str();
  app.add_option("--batch-size", args.batch_size, "Windows per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--threads", args.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", args.json, "Write the results to this JSON file");
  app.add_option("--write-configs", args.write_configs,
                 "Also write DIR/scnn.json, the same benchmark for `neurobench run`");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
