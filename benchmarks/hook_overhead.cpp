// SPDX-License-Identifier: Apache-2.0
// What the hook-based metrics cost next to the bare LibTorch forward pass.
//
// For a ReLU CNN on 28x28 inputs and a 3-layer LIF spiking MLP run step-wise over 100
// timesteps (benchmarks/models/make_models.py), it times, side by side and repeatedly:
//   bare     the TorchScript module called directly over the data (the step loop for the SNN)
//   harness  neurobench::Benchmark with no metric (batching, the step-wise wrapper)
//   metrics  neurobench::Benchmark with every hook metric on
//   latency  the Latency metric's mean time per batch (its timing pass, no hooks) times the
//            number of batches: what the timing pass says the bare forward pass costs
// and prints the medians and the ratios to bare, for 1 and 2 threads.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <neurobench/neurobench.hpp>

namespace {

using Clock = std::chrono::steady_clock;

struct Workload {
  std::string name;
  std::string model_path;
  bool stepwise = false;
  torch::Tensor data;
  int64_t batch_size = 0;
  std::vector<std::string> metrics;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The bare forward pass: the module as loaded, called on each batch (each timestep).
double time_bare(torch::jit::Module& module, const Workload& w) {
  c10::InferenceMode guard;
  const auto start = Clock::now();
  const int64_t n = w.data.size(0);
  for (int64_t b = 0; b < n; b += w.batch_size) {
    const torch::Tensor batch = w.data.slice(0, b, std::min(n, b + w.batch_size));
    if (!w.stepwise) {
      (void)module.forward({batch});
      continue;
    }
    for (const auto& sub : module.named_modules()) {  // reset the neurons' state
      torch::jit::Module m = sub.value;
      if (m.hasattr("mem")) m.setattr("mem", torch::zeros({0}));
    }
    std::vector<torch::Tensor> spikes;
    for (int64_t t = 0; t < batch.size(1); ++t) {
      spikes.push_back(module.forward({batch.select(1, t)}).toTupleRef().elements()[0].toTensor());
    }
    (void)torch::stack(spikes, 1);
  }
  return seconds_since(start);
}

double time_benchmark(const std::shared_ptr<neurobench::TorchScriptModel>& model,
                      const Workload& w, const std::vector<std::string>& metrics,
                      neurobench::Results* results) {
  auto data = std::make_shared<neurobench::TensorDataset>(
      w.data, torch::zeros({w.data.size(0)}, torch::kLong));
  neurobench::LoaderOptions lo;
  lo.batch_size = w.batch_size;
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {},
                              neurobench::MetricSet::from_names({}, metrics));
  neurobench::RunOptions ro;
  ro.quiet = true;
  const auto start = Clock::now();
  neurobench::Results r = bench.run(ro);
  const double s = seconds_since(start);
  if (results != nullptr) *results = std::move(r);
  return s;
}

// The same work as the Latency metric sees it: its mean forward time per batch, times the
// number of batches (all full here).
double latency_seconds(const std::shared_ptr<neurobench::TorchScriptModel>& model,
                       const Workload& w) {
  auto data = std::make_shared<neurobench::TensorDataset>(
      w.data, torch::zeros({w.data.size(0)}, torch::kLong));
  neurobench::LoaderOptions lo;
  lo.batch_size = w.batch_size;
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {},
                              neurobench::MetricSet::from_names({}, {"Latency"}));
  const int64_t batches = std::max<int64_t>(1, w.data.size(0) / w.batch_size);
  neurobench::RunOptions ro;
  ro.quiet = true;
  ro.timing.warmup = 1;
  ro.timing.runs = batches;
  const neurobench::Results r = bench.run(ro);
  return r.values["Latency"]["batch_mean_ms"].get<double>() / 1e3 * static_cast<double>(batches);
}

// Peak memory of one step-wise run of the spiking MLP over `steps` timesteps, above the memory
// in use before it (data loaded): hooks keep counters, so this should not grow with `steps`.
int memory_mode(const std::string& models_dir, int64_t steps, bool metrics) {
  at::set_num_threads(1);
  neurobench::TorchScriptOptions opts;
  opts.stepwise = true;
  auto model = std::make_shared<neurobench::TorchScriptModel>(models_dir + "/snn_mlp.pt", opts);
  Workload w{"snn", models_dir + "/snn_mlp.pt", true,
             (torch::rand({32, steps, 784}) < 0.2).to(torch::kFloat), 32, {}};
  const std::vector<std::string> names = {"ActivationSparsity", "ActivationSparsityByLayer",
                                          "SynapticOperations", "MembraneUpdates",
                                          "NeuronOperations"};
  time_benchmark(model, w, metrics ? names : std::vector<std::string>{}, nullptr);  // warm-up
  const int64_t before = neurobench::resident_memory_bytes() / 1024;
  if (!neurobench::reset_peak_resident_memory()) {
    fmt::print(stderr, "cannot reset the peak memory (/proc/self/clear_refs)\n");
    return 1;
  }
  time_benchmark(model, w, metrics ? names : std::vector<std::string>{}, nullptr);
  const int64_t peak = neurobench::peak_resident_memory_bytes() / 1024;
  fmt::print("steps {} {}: peak {} KiB above the {} KiB in use before the run\n", steps,
             metrics ? "with all hook metrics" : "bare harness", peak - before, before);
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Cost of neurobench's hook metrics next to the bare LibTorch forward pass"};
  std::string models_dir = NEUROBENCH_BENCHMARK_MODELS;
  int repeats = 5;
  std::vector<int> threads = {1, 2};
  double scale = 1.0;
  std::vector<std::string> only;
  int64_t memory_steps = 0;
  bool memory_bare = false;
  app.add_option("--models", models_dir, "folder of cnn_relu.pt and snn_mlp.pt")
      ->capture_default_str();
  app.add_option("--repeats", repeats, "timed runs of each variant (median reported)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "thread counts to measure")->delimiter(',');
  app.add_option("--scale", scale, "fraction of the default data size (for a quick look)")
      ->check(CLI::Range(0.01, 10.0));
  app.add_option("--metrics", only, "measure only these metrics (default: every hook metric)")
      ->delimiter(',');
  app.add_option("--memory-steps", memory_steps,
                 "instead of timing: peak memory of one spiking-MLP run over this many steps")
      ->check(CLI::PositiveNumber);
  app.add_flag("--memory-bare", memory_bare, "with --memory-steps: no metrics");
  CLI11_PARSE(app, argc, argv);
  if (memory_steps > 0) return memory_mode(models_dir, memory_steps, !memory_bare);

  torch::manual_seed(0);
  auto count = [&](int64_t n) { return std::max<int64_t>(1, static_cast<int64_t>(n * scale)); };
  std::vector<Workload> workloads;
  workloads.push_back({"ReLU CNN, 28x28, batch 64", models_dir + "/cnn_relu.pt", false,
                       torch::randn({count(1024), 1, 28, 28}), 64,
                       {"ActivationSparsity", "ActivationSparsityByLayer", "SynapticOperations"}});
  workloads.push_back({"LIF MLP 784-256-128-10, 100 steps, batch 32", models_dir + "/snn_mlp.pt",
                       true, (torch::rand({count(128), 100, 784}) < 0.2).to(torch::kFloat), 32,
                       {"ActivationSparsity", "ActivationSparsityByLayer", "SynapticOperations",
                        "MembraneUpdates", "NeuronOperations"}});

  if (!only.empty()) {
    for (auto& w : workloads) w.metrics = only;
  }
  fmt::print("BLAS: {}\n", neurobench::loaded_blas_library().empty()
                               ? std::string("(not loaded yet)")
                               : neurobench::loaded_blas_library());
  fmt::print("{:<46} {:>7} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}\n", "workload",
             "threads", "bare s", "harness s", "metrics s", "latency s", "harness", "metrics",
             "latency");
  for (const auto& w : workloads) {
    torch::jit::Module bare = torch::jit::load(w.model_path);
    bare.eval();
    neurobench::TorchScriptOptions opts;
    opts.stepwise = w.stepwise;
    auto model = std::make_shared<neurobench::TorchScriptModel>(w.model_path, opts);
    for (const int t : threads) {
      at::set_num_threads(t);
      // Warm-up: profiling executor runs, caches.
      time_bare(bare, w);
      time_benchmark(model, w, {}, nullptr);
      neurobench::Results results;
      time_benchmark(model, w, w.metrics, &results);
      std::vector<double> b, h, m, l;
      for (int r = 0; r < repeats; ++r) {  // interleaved, so drift hits all four alike
        b.push_back(time_bare(bare, w));
        h.push_back(time_benchmark(model, w, {}, nullptr));
        m.push_back(time_benchmark(model, w, w.metrics, nullptr));
        l.push_back(latency_seconds(model, w));
      }
      const double mb = median(b), mh = median(h), mm = median(m), ml = median(l);
      fmt::print("{:<46} {:>7} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>7.2f}x {:>7.2f}x "
                 "{:>7.2f}x\n",
                 w.name, t, mb, mh, mm, ml, mh / mb, mm / mb, ml / mb);
      if (t == threads.front()) {
        fmt::print("  results: {}\n", results.values.dump());
      }
    }
  }
  fmt::print("(medians of {} runs; 'harness', 'metrics' and 'latency' are ratios to the bare "
             "forward pass)\n",
             repeats);
  return 0;
}
