// SPDX-License-Identifier: Apache-2.0
// Fashion-MNIST, conventional against spiking: benchmarks the example's ReLU CNN and its spiking
// MLP on the 10,000 test images with neurobench and prints one table of the trade-off
// (accuracy, operations, footprint). README.md beside this file has the figures.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/fashion_mnist.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

#include "fashion_mnist/networks.hpp"

namespace fs = std::filesystem;
using neurobench::examples::seconds_since;
namespace fm = neurobench::examples::fashion_mnist;
using neurobench::Json;

namespace {

struct Args {
  std::string data_dir = neurobench::datasets::kFashionMnistFolder;
  std::string models = FASHION_MNIST_MODELS_DIR;
  std::string only;  // "", "cnn" or "snn"
  int64_t batch_size = 250;
  int64_t limit = 0;
  int threads = 1;
  std::string json;
  std::string write_npz;
  bool quiet = false;
};

// What one benchmark run asks for and gives.
struct Run {
  std::string key;    // "cnn" or "snn"
  std::string label;  // column heading
  // The benchmark as `neurobench run` takes it (cnn.json, snn.json). This program computes
  // NeuroBench's metrics, `static` and `workload`; the deployment `metrics` are the CLI's.
  neurobench::BenchmarkConfig config;
  std::shared_ptr<neurobench::TensorDataset> data;
  neurobench::Results results;
  double seconds = 0;
};

// The benchmark of one network: its metrics, and the deployment figures beside NeuroBench's
// (docs/deployment-metrics.md), with Latency on single images.
neurobench::BenchmarkConfig benchmark_config(const fs::path& model, bool spiking,
                                             const Args& args) {
  neurobench::BenchmarkConfig c;
  c.model = model;
  c.batch_size = args.batch_size;
  c.threads = args.threads;
  c.stepwise = spiking;
  if (spiking) c.post = {"ChooseMaxCount"};
  c.static_metrics = {{"Footprint"}, {"ParameterCount"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"}, {"ActivationSparsity"}, {"SynapticOperations"}};
  if (spiking) c.workload_metrics.push_back({"MembraneUpdates"});
  c.metrics = {{"ModelFileSize"}, {"ActivationSparsityByLayer"}, {"DenseMACs"}, {"Latency"},
               {"InferenceTime"}, {"Throughput"}, {"StartupTime"}, {"PeakMemory"}};
  c.latency_batch_size = 1;
  c.quiet = args.quiet;
  return c;
}

void benchmark(Run& run) {
  // NeuroBench's metrics only; the deployment `metrics` are the CLI's (Run::config).
  neurobench::BenchmarkConfig c = run.config;
  c.metrics.clear();
  neurobench::RunParts parts;
  parts.data = run.data;  // the test images in memory, rate-encoded for the SNN
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(c, parts);
  const auto start = std::chrono::steady_clock::now();
  run.results = prepared.run();
  run.seconds = seconds_since(start);
  neurobench::examples::print_messages(run.key, run.results);
}

void print_table(const std::vector<Run>& runs, int64_t samples) {
  struct Line {
    const char* label;
    const char* metric;
    const char* key;
    const char* format;
  };
  const std::vector<Line> lines = {
      {"accuracy", "ClassificationAccuracy", "", "{:.4f}"},
      {"footprint (bytes)", "Footprint", "", "{:.0f}"},
      {"parameters", "ParameterCount", "", "{:.0f}"},
      {"connection sparsity", "ConnectionSparsity", "", "{:.4f}"},
      {"activation sparsity", "ActivationSparsity", "", "{:.4f}"},
      {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.4g}"},
      {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.4g}"},
      {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.4g}"},
      {"membrane updates", "MembraneUpdates", "", "{:.4g}"},
  };
  constexpr int kLabel = 30;
  constexpr int kColumn = 20;
  fmt::print("\nFashion-MNIST test set, {} images; operations are per image\n", samples);
  fmt::print("{:<{}}", "", kLabel);
  for (const Run& r : runs) fmt::print("{:>{}}", r.label, kColumn);
  fmt::print("\n");
  for (const Line& l : lines) {
    fmt::print("{:<{}}", l.label, kLabel);
    for (const Run& r : runs) {
      fmt::print("{:>{}}", neurobench::examples::cell(r.results, l.metric, l.key, l.format),
                 kColumn);
    }
    fmt::print("\n");
  }
  fmt::print("{:<{}}", "benchmark seconds", kLabel);
  for (const Run& r : runs) fmt::print("{:>{}}", fmt::format("{:.1f}", r.seconds), kColumn);
  fmt::print("\n");
}

// The benchmark data as DIR/cnn_test.npz and DIR/snn_test.npz, each with the config that runs
// it with `neurobench run` (DIR/cnn.json, DIR/snn.json).
void write_npz_and_configs(const std::vector<Run>& runs, const fs::path& dir) {
  fs::create_directories(dir);
  for (const Run& r : runs) {
    const fs::path file = dir / fmt::format("{}_test.npz", r.key);
    neurobench::save_npz(file, {{"data", r.data->data()}, {"targets", r.data->targets()}});
    neurobench::BenchmarkConfig config = r.config;
    config.comment = fmt::format("{} on {}, written by fashion_mnist --write-npz", r.label,
                                 r.data->describe());
    config.data = file;
    config.quiet = false;
    config.write(dir / (r.key + ".json"));
    fmt::print(stderr, "wrote {} (data {}) and {}.json\n", file.string(),
               fmt::join(r.data->data().sizes(), "x"), r.key);
  }
}

int run(const Args& args) {
  fm::set_threads(args.threads);
  neurobench::examples::warn_if_reference_blas(args.quiet);
  const auto everything = std::chrono::steady_clock::now();
  neurobench::TensorDataset test = neurobench::datasets::fashion_mnist(
      args.data_dir, neurobench::datasets::FashionMnistSplit::Test);
  torch::Tensor images = test.data();
  torch::Tensor targets = test.targets();
  if (args.limit > 0 && args.limit < images.size(0)) {
    images = images.slice(0, 0, args.limit);
    targets = targets.slice(0, 0, args.limit);
  }
  const int64_t samples = images.size(0);

  const fs::path models(args.models);
  const bool want_cnn = args.only.empty() || args.only == "cnn";
  const bool want_snn = args.only.empty() || args.only == "snn";
  std::vector<Run> runs;
  if (want_cnn) {
    Run r;
    r.key = "cnn";
    r.label = "CNN (ReLU)";
    r.config = benchmark_config(models / "cnn.pt", /*spiking=*/false, args);
    r.data = std::make_shared<neurobench::TensorDataset>(
        images, targets, std::map<std::string, torch::Tensor>{}, "Fashion-MNIST test images");
    runs.push_back(std::move(r));
  }
  int64_t timesteps = 0;
  if (want_snn) {
    Run r;
    r.key = "snn";
    r.config = benchmark_config(models / "snn.pt", /*spiking=*/true, args);
    // The network records the encoding length it was trained with.
    const neurobench::TorchScriptModel probe(r.config.model);
    if (!probe.module().hasattr("timesteps")) {
      throw neurobench::InputError(
          fmt::format("{}: no 'timesteps' attribute; was it made by fashion_mnist_train?",
                      r.config.model.string()));
    }
    timesteps = probe.module().attr("timesteps").toInt();
    r.label = fmt::format("SNN (LIF, T={})", timesteps);
    const auto start = std::chrono::steady_clock::now();
    r.data = std::make_shared<neurobench::TensorDataset>(
        fm::rate_encode(images, timesteps), targets, std::map<std::string, torch::Tensor>{},
        fmt::format("Fashion-MNIST test images, rate-encoded over {} timesteps", timesteps));
    if (!args.quiet) {
      fmt::print(stderr, "encoded {} images over {} timesteps in {:.1f} s\n", samples, timesteps,
                 seconds_since(start));
    }
    runs.push_back(std::move(r));
  }

  if (!args.write_npz.empty()) write_npz_and_configs(runs, args.write_npz);

  bool failed = false;
  for (Run& r : runs) {
    if (!args.quiet) {
      fmt::print(stderr, "benchmarking {} ({})\n", r.label, r.config.model.string());
    }
    benchmark(r);
    failed = failed || !r.results.ok();
  }
  print_table(runs, samples);

  if (!args.json.empty()) {
    Json all = Json::object();
    all["task"] = "Fashion-MNIST classification: ReLU CNN against spiking MLP";
    all["data"] = {{"folder", args.data_dir}, {"split", "test"}, {"samples", samples}};
    all["options"] = {
        {"batch_size", args.batch_size}, {"threads", args.threads}, {"limit", args.limit}};
    Json models_json = Json::object();
    for (const Run& r : runs) {
      Json j = {
          {"label", r.label}, {"model", r.config.model.string()}, {"stepwise", r.config.stepwise}};
      if (r.config.stepwise) {
        j["timesteps"] = timesteps;
        j["encoding"] = "deterministic rate coding (fashion_mnist::rate_encode)";
        j["post"] = r.config.post;
      }
      j["results"] = r.results.values;
      j["_run"] = r.results.run;
      if (!r.results.warnings.empty()) j["warnings"] = r.results.warnings;
      if (!r.results.failures.empty()) {
        j["failures"] = neurobench::examples::failures_json(r.results);
      }
      j["seconds"] = r.seconds;
      models_json[r.key] = j;
    }
    all["models"] = models_json;
    all["seconds"] = seconds_since(everything);
    neurobench::write_file_atomically(args.json, all.dump(2) + "\n");
  }
  return failed ? neurobench::kExitMetricFailed : neurobench::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Benchmarks the Fashion-MNIST example's ReLU CNN and spiking MLP with neurobench "
      "and prints one comparison table",
      "fashion_mnist"};
  Args args;
  app.add_option("--data-dir", args.data_dir,
                 "Folder with the Fashion-MNIST IDX files (plain or .gz)")
      ->capture_default_str();
  app.add_option("--models", args.models, "Folder with cnn.pt and snn.pt")->capture_default_str();
  app.add_option("--only", args.only, "Benchmark only this network")
      ->check(CLI::IsMember({"cnn", "snn"}));
  app.add_option("--batch-size", args.batch_size, "Images per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--limit", args.limit, "Use only the first N test images (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", args.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", args.json, "Write both networks' results to this JSON file");
  app.add_option("--write-npz", args.write_npz,
                 "Also write the benchmark data to DIR/cnn_test.npz and DIR/snn_test.npz, with "
                 "the configs that run them: `neurobench run DIR/cnn.json` / `DIR/snn.json`");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
