// SPDX-License-Identifier: Apache-2.0
// Gesture recognition on IBM's DVS128 Gesture, NeuroBench's way: the convolutional spiking
// network of NeuroBench's DVS Gesture row on tonic's frames (Denoise 10 ms, 32 x 32, 150 time
// bins), benchmarked with NeuroBench's metric set on the data the user points at, printed
// beside NeuroBench's published figures. README.md beside this file has the details.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/dvs_gesture.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::examples::seconds_since;

namespace {

struct Args {
  std::string data;
  std::string subset = "test";
  std::string model = DVS_GESTURE_MODEL;
  int64_t batch_size = 16;
  int threads = 1;
  std::string json;
  std::string write_config;
  bool quiet = false;
};

// NeuroBench's published results for its DVS Gesture CSNN (examples/dvs_gesture/
// benchmark_snn.py in NeuroBench 2.x, its trained weights, tonic's test subset).
struct Published {
  const char* label;
  const char* metric;
  const char* key;
  const char* format;
  double value;
};
constexpr Published kPublished[] = {
    {"accuracy", "ClassificationAccuracy", "", "{:.4f}", 0.8636363636363633},
    {"footprint (bytes)", "Footprint", "", "{:.0f}", 304828},
    {"connection sparsity", "ConnectionSparsity", "", "{:.4f}", 0.0},
    {"activation sparsity", "ActivationSparsity", "", "{:.4f}", 0.9507192967815323},
    {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.0f}", 891206400.0},
    {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.0f}",
     9227011.575757576},
    {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.0f}",
     30564577.174242426},
};

// The benchmark as `neurobench run` takes it: NeuroBench's metric set on the data set's
// recordings, one frame per call, output spikes counted per class.
neurobench::BenchmarkConfig benchmark_config(const Args& args) {
  neurobench::BenchmarkConfig c;
  c.model = args.model;
  c.dataset = {"dvs-gesture", args.data, {{"subset", args.subset}}};
  c.batch_size = args.batch_size;
  c.threads = args.threads;
  c.stepwise = true;
  c.static_metrics = {{"Footprint"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"}, {"ActivationSparsity"}, {"SynapticOperations"}};
  c.post = {{"ChooseMaxCount"}};
  c.quiet = args.quiet;
  return c;
}

// Says where to get the data set, when it is not where the user pointed.
int no_data(const Args& args) {
  fmt::print(stderr,
             "error: {}\n"
             "The DVS128 Gesture data are not bundled. Either IBM's release ({}, "
             "DvsGesture.tar.gz):\n"
             "  tar -xzf DvsGesture.tar.gz -C data   # data/DvsGesture/trials_to_test.txt, ...\n"
             "  dvs_gesture --data data/DvsGesture\n"
             "or tonic's export, what tonic.datasets.DVSGesture downloads:\n"
             "  wget -O ibmGestureTest.tar.gz {}\n"
             "  mkdir -p data/DVSGesture && tar -xzf ibmGestureTest.tar.gz -C data/DVSGesture\n"
             "  dvs_gesture --data data/DVSGesture\n",
             args.data.empty() ? std::string("no data set given (--data FOLDER)")
                               : fmt::format("{}: no such folder", args.data),
             neurobench::datasets::kDvsGestureUrl, neurobench::datasets::kDvsGestureTonicTestUrl);
  return neurobench::kExitError;
}

int run(const Args& args) {
  if (args.data.empty() || !fs::is_directory(args.data)) return no_data(args);
  if (!args.json.empty()) (void)neurobench::check_output_file(args.json);
  const neurobench::BenchmarkConfig c = benchmark_config(args);
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(c);
  const std::shared_ptr<neurobench::Dataset>& data = prepared.data();
  if (!args.write_config.empty()) {
    neurobench::BenchmarkConfig config = c;
    config.comment = "NeuroBench's DVS Gesture CSNN benchmark, written by dvs_gesture";
    config.quiet = false;
    config.write(args.write_config);
  }
  const auto start = std::chrono::steady_clock::now();
  const neurobench::Results results = prepared.run();
  const double seconds = seconds_since(start);
  neurobench::examples::print_messages("snn", results);

  constexpr int kLabel = 30;
  constexpr int kColumn = 16;
  fmt::print("\n{}; operations are per sample\n", data->describe());
  fmt::print("{:<{}}{:>{}}{:>{}}\n", "", kLabel, "CSNN", kColumn, "NeuroBench", kColumn);
  for (const Published& p : kPublished) {
    fmt::print("{:<{}}{:>{}}{:>{}}\n", p.label, kLabel,
               neurobench::examples::cell(results, p.metric, p.key, p.format), kColumn,
               fmt::format(fmt::runtime(p.format), p.value), kColumn);
  }
  fmt::print("{:<{}}{:>{}}\n", "benchmark seconds", kLabel, fmt::format("{:.1f}", seconds),
             kColumn);
  fmt::print(
      "\nNeuroBench's figures: its trained network on tonic's test subset (264 samples). "
      "Footprint, connection sparsity and dense operations depend only on the network; "
      "the others on the weights and the data (see README.md).\n");

  if (!args.json.empty()) {
    Json all = {
        {"task", "gesture recognition, IBM DVS128 Gesture (11 classes)"},
        {"data", {{"folder", args.data}, {"subset", args.subset}, {"samples", data->size()}}},
        {"model", c.model.string()},
        {"results", results.values},
        {"_run", results.run},
        {"seconds", seconds}};
    if (!results.warnings.empty()) all["warnings"] = results.warnings;
    neurobench::write_output_file(args.json, all.dump(2) + "\n");
  }
  return results.ok() ? neurobench::kExitOk : neurobench::kExitMetricFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Benchmarks NeuroBench's DVS Gesture spiking network (three conv-pool-Leaky blocks on "
      "tonic's 32x32 frames) on IBM's DVS128 Gesture with neurobench, beside NeuroBench's "
      "published figures",
      "dvs_gesture"};
  Args args;
  app.add_option("--data", args.data,
                 "IBM's release folder (holding trials_to_test.txt) or tonic's export (holding "
                 "ibmGestureTest/)");
  app.add_option("--subset", args.subset, "Which recordings")
      ->capture_default_str()
      ->check(CLI::IsMember({"train", "test"}));
  app.add_option("--model", args.model, "The network (TorchScript)")->capture_default_str();
  app.add_option("--batch-size", args.batch_size, "Samples per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--threads", args.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", args.json, "Write the results to this JSON file");
  app.add_option("--write-config", args.write_config,
                 "Also write this config, the same benchmark for `neurobench run`");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
