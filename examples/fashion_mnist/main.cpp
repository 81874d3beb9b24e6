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
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/npz.hpp>
#include <neurobench/datasets/idx.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>
#include <neurobench/reporters/results.hpp>

#include "fashion_mnist/networks.hpp"

namespace fs = std::filesystem;
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

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one benchmark run asks for and gives.
struct Run {
  std::string key;    // "cnn" or "snn"
  std::string label;  // column heading
  fs::path file;
  std::vector<std::string> static_metrics;
  std::vector<std::string> workload_metrics;
  bool stepwise = false;
  std::shared_ptr<neurobench::TensorDataset> data;
  neurobench::Results results;
  double seconds = 0;
};

void benchmark(Run& run, const Args& args) {
  neurobench::TorchScriptOptions options;
  options.stepwise = run.stepwise;
  auto model = std::make_shared<neurobench::TorchScriptModel>(run.file, options);
  neurobench::LoaderOptions loader;
  loader.batch_size = args.batch_size;
  std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
  if (run.stepwise) post.push_back(std::make_unique<neurobench::processors::ChooseMaxCount>());
  neurobench::Benchmark bench(
      model, neurobench::DataLoader(run.data, loader), {}, std::move(post),
      neurobench::MetricSet::from_names(run.static_metrics, run.workload_metrics));
  neurobench::RunOptions run_options;
  run_options.quiet = args.quiet;
  const auto start = std::chrono::steady_clock::now();
  run.results = bench.run(run_options);
  run.seconds = seconds_since(start);
  for (const auto& w : run.results.warnings) fmt::print(stderr, "warning: {}: {}\n", run.key, w);
  for (const auto& f : run.results.failures) {
    fmt::print(stderr, "error: {}: {}: {}\n", run.key, f.metric, f.message);
  }
}

// A table cell: the value of `metric` (or its `key`), "-" when the run did not compute it.
std::string cell(const Run& run, const std::string& metric, const std::string& key,
                 const char* format) {
  const Json& values = run.results.values;
  if (!values.contains(metric)) return "-";
  const Json* v = &values.at(metric);
  if (!key.empty()) {
    if (!v->is_object() || !v->contains(key)) return "-";
    v = &v->at(key);
  }
  if (!v->is_number()) return "failed";
  return fmt::format(fmt::runtime(format), v->get<double>());
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
    for (const Run& r : runs) fmt::print("{:>{}}", cell(r, l.metric, l.key, l.format), kColumn);
    fmt::print("\n");
  }
  fmt::print("{:<{}}", "benchmark seconds", kLabel);
  for (const Run& r : runs) fmt::print("{:>{}}", fmt::format("{:.1f}", r.seconds), kColumn);
  fmt::print("\n");
}

int run(const Args& args) {
  fm::set_threads(args.threads);
  if (!args.quiet && neurobench::reference_blas_in_use()) {
    fmt::print(stderr, "warning: the reference BLAS is loaded ({}); expect slow runs\n",
               neurobench::loaded_blas_library());
  }
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
    r.file = models / "cnn.pt";
    r.static_metrics = {"Footprint", "ParameterCount", "ConnectionSparsity"};
    r.workload_metrics = {"ClassificationAccuracy", "ActivationSparsity", "SynapticOperations"};
    r.data = std::make_shared<neurobench::TensorDataset>(
        images, targets, std::map<std::string, torch::Tensor>{}, "Fashion-MNIST test images");
    runs.push_back(std::move(r));
  }
  int64_t timesteps = 0;
  if (want_snn) {
    Run r;
    r.key = "snn";
    r.file = models / "snn.pt";
    // The network records the encoding length it was trained with.
    const neurobench::TorchScriptModel probe(r.file);
    if (!probe.module().hasattr("timesteps")) {
      throw neurobench::InputError(fmt::format(
          "{}: no 'timesteps' attribute; was it made by fashion_mnist_train?", r.file.string()));
    }
    timesteps = probe.module().attr("timesteps").toInt();
    r.label = fmt::format("SNN (LIF, T={})", timesteps);
    r.static_metrics = {"Footprint", "ParameterCount", "ConnectionSparsity"};
    r.workload_metrics = {"ClassificationAccuracy", "ActivationSparsity", "SynapticOperations",
                          "MembraneUpdates"};
    r.stepwise = true;
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

  if (!args.write_npz.empty()) {
    const fs::path dir(args.write_npz);
    fs::create_directories(dir);
    for (const Run& r : runs) {
      const fs::path file = dir / fmt::format("{}_test.npz", r.key);
      neurobench::save_npz(file, {{"data", r.data->data()}, {"targets", r.data->targets()}});
      fmt::print(stderr, "wrote {} (data {})\n", file.string(),
                 fmt::join(r.data->data().sizes(), "x"));
    }
  }

  bool failed = false;
  for (Run& r : runs) {
    if (!args.quiet) fmt::print(stderr, "benchmarking {} ({})\n", r.label, r.file.string());
    benchmark(r, args);
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
      Json j = {{"label", r.label}, {"model", r.file.string()}, {"stepwise", r.stepwise}};
      if (r.stepwise) {
        j["timesteps"] = timesteps;
        j["encoding"] = "deterministic rate coding (fashion_mnist::rate_encode)";
        j["post"] = Json::array({"ChooseMaxCount"});
      }
      j["results"] = r.results.values;
      if (!r.results.warnings.empty()) j["warnings"] = r.results.warnings;
      if (!r.results.failures.empty()) {
        Json failures = Json::array();
        for (const auto& f : r.results.failures) {
          failures.push_back({{"metric", f.metric}, {"message", f.message}});
        }
        j["failures"] = failures;
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
                 "Also write the benchmark data to DIR/cnn_test.npz and DIR/snn_test.npz, for "
                 "`neurobench run cnn.json` / `snn.json`");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
