// SPDX-License-Identifier: Apache-2.0
// A NIR graph benchmarked with NeuroBench's metrics, in C++, without Python: the NIR paper's
// N-MNIST CNN exported by Sinabs (Conv2d, IF, SumPool2d, Flatten, Affine) on synthetic event
// frames of N-MNIST's shape, one frame per timestep. README.md beside this file has the details.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

using neurobench::Json;
using neurobench::examples::seconds_since;

namespace {

struct Args {
  std::string model = NIR_EXAMPLE_MODEL;
  int64_t samples = 40;
  int64_t steps = 30;
  int64_t batch_size = 20;
  std::uint64_t seed = 0;
  std::string nir_time = "snntorch";
  std::string nir_dt = "0.0001";
  std::string nir_reset = "v_reset";
  std::string device = "cpu";
  int threads = 1;
  std::string json;
  bool quiet = false;
};

// N-MNIST's shape (two polarities, 34 x 34 pixels), one frame per timestep: each of the 10
// classes lights a pattern of its own (a random stroke mask), with events at 25% of its pixels
// and 2% elsewhere in every frame. The network was trained on N-MNIST, so accuracy on these
// frames means nothing; the activity and the operations it causes are what is measured.
std::shared_ptr<neurobench::TensorDataset> event_frames(const Args& a) {
  torch::Generator gen = at::detail::createCPUGenerator(a.seed);
  const torch::Tensor masks = torch::rand({10, 2, 34, 34}, gen) < 0.2;
  const torch::Tensor targets = torch::randint(0, 10, {a.samples}, gen, torch::kInt64);
  const torch::Tensor mask = masks.index_select(0, targets).unsqueeze(1);  // (N, 1, 2, 34, 34)
  const torch::Tensor rate = torch::where(mask, torch::full({}, 0.25), torch::full({}, 0.02));
  const torch::Tensor events =
      (torch::rand({a.samples, a.steps, 2, 34, 34}, gen) < rate).to(torch::kFloat32);
  return std::make_shared<neurobench::TensorDataset>(events, targets);
}

neurobench::BenchmarkConfig benchmark_config(const Args& a) {
  neurobench::BenchmarkConfig c;
  c.model = a.model;
  c.batch_size = a.batch_size;
  c.threads = a.threads;
  c.static_metrics = {{"Footprint"}, {"ParameterCount"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"}, {"ActivationSparsity"},
                        {"SynapticOperations"}, {"MembraneUpdates"}};
  c.post = {{"ChooseMaxCount"}};
  c.set_key("nir_time", a.nir_time);
  c.set_key("nir_reset", a.nir_reset);
  c.set_key("nir_dt", Json::parse(a.nir_dt));
  c.device = a.device;
  c.quiet = a.quiet;
  c.validate();
  return c;
}

void print_nodes(const Json& nir) {
  fmt::print("\nthe graph (NIR {}), time {}, dt {} s, reset {}:\n",
             nir.value("nir_version", std::string("?")), nir.value("time", std::string()),
             nir.value("dt", 0.0), nir.value("reset", std::string()));
  for (const Json& n : nir.at("nodes")) {
    fmt::print("  {:<8} {:<10} {:<10} {}\n", n.at("node").get<std::string>(),
               n.at("type").get<std::string>(), n.at("class").get<std::string>(),
               n.at("rule").get<std::string>());
  }
}

int run(const Args& a) {
  if (!a.json.empty()) (void)neurobench::check_output_file(a.json);
  const neurobench::BenchmarkConfig c = benchmark_config(a);
  neurobench::RunParts parts;
  parts.data = event_frames(a);
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(c, std::move(parts));
  const auto start = std::chrono::steady_clock::now();
  const neurobench::Results results = prepared.run();
  const double seconds = seconds_since(start);
  neurobench::examples::print_messages("nir", results);

  struct Row {
    const char* label;
    const char* metric;
    const char* key;
    const char* format;
  };
  constexpr Row kRows[] = {
      {"footprint (bytes)", "Footprint", "", "{:.0f}"},
      {"parameters", "ParameterCount", "", "{:.0f}"},
      {"connection sparsity", "ConnectionSparsity", "", "{:.4f}"},
      {"accuracy (synthetic data)", "ClassificationAccuracy", "", "{:.4f}"},
      {"activation sparsity", "ActivationSparsity", "", "{:.4f}"},
      {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.0f}"},
      {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.0f}"},
      {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.0f}"},
      {"membrane updates", "MembraneUpdates", "", "{:.0f}"},
  };
  fmt::print("{} samples of {} frames (2 x 34 x 34); operations are per sample\n", a.samples,
             a.steps);
  for (const Row& r : kRows) {
    fmt::print("{:<30}{:>16}\n", r.label,
               neurobench::examples::cell(results, r.metric, r.key, r.format));
  }
  fmt::print("{:<30}{:>16}\n", "benchmark seconds", fmt::format("{:.2f}", seconds));
  if (results.run.contains("nir")) print_nodes(results.run.at("nir"));

  if (!a.json.empty()) {
    Json all = {{"task", "the NIR paper's N-MNIST CNN on synthetic event frames"},
                {"model", c.model.string()},
                {"results", results.values},
                {"_run", results.run},
                {"seconds", seconds}};
    if (!results.warnings.empty()) all["warnings"] = results.warnings;
    neurobench::write_output_file(a.json, all.dump(2) + "\n");
  }
  return results.ok() ? neurobench::kExitOk : neurobench::kExitMetricFailed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Benchmarks a NIR graph (by default the NIR paper's N-MNIST CNN, exported by "
               "Sinabs) with NeuroBench's metrics on synthetic N-MNIST-shaped event frames",
               "nir_cnn"};
  Args a;
  app.add_option("--model", a.model, "The NIR graph (.nir)")->capture_default_str();
  app.add_option("--samples", a.samples, "Synthetic samples")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--steps", a.steps, "Frames (timesteps) per sample")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{10000}));
  app.add_option("--batch-size", a.batch_size, "Samples per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--seed", a.seed, "Seed of the synthetic frames")->capture_default_str();
  app.add_option("--nir-time", a.nir_time, "Time convention: snntorch, euler or exact")
      ->capture_default_str()
      ->check(CLI::IsMember({"snntorch", "euler", "exact"}));
  app.add_option("--nir-dt", a.nir_dt, "Seconds per timestep")->capture_default_str();
  app.add_option("--nir-reset", a.nir_reset, "Spike reset: v_reset or subtract")
      ->capture_default_str()
      ->check(CLI::IsMember({"v_reset", "subtract"}));
  app.add_option("--device", a.device, "cpu, cuda, cuda:N or lazy")->capture_default_str();
  app.add_option("--threads", a.threads, "LibTorch threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", a.json, "Write the results to this JSON file");
  app.add_flag("--quiet", a.quiet, "No progress bars");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(a); }, std::cerr);
}
