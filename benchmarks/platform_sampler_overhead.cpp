// SPDX-License-Identifier: Apache-2.0
// What the platform sampler (Energy, Utilisation, Clock, Temperature) costs the timing pass.
//
// For the ReLU CNN of benchmarks/models on 28x28 inputs, it runs the timing pass alternately
//   without  Latency alone (no sampler thread)
//   with     Latency plus the four platform metrics (the sampler reading every interval)
// `--rounds` times each, and prints the median of Latency's mean time per batch for both side
// by side, their ratio (and the median of each round's ratio), the sampler's readings and its own
// CPU time. The sampler's cost on the timed runs is the ratio minus one (aim: under 1%); on a
// busy machine the rounds vary more than that, and the sampler's CPU time bounds its cost.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <neurobench/neurobench.hpp>

namespace {

double sampler_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Latency's mean ms per batch over one timing pass, and the run's results.
double sampler_latency_ms(const std::shared_ptr<neurobench::TorchScriptModel>& model,
                          const std::shared_ptr<neurobench::TensorDataset>& data,
                          int64_t batch_size, int64_t runs, const std::vector<std::string>& metrics,
                          double interval_ms, neurobench::Results* out) {
  std::vector<neurobench::MetricSpec> specs;
  for (const auto& name : metrics) {
    neurobench::MetricSpec s;
    s.name = name;
    if (name != "Latency") s.options = {{"interval_ms", interval_ms}};
    specs.push_back(s);
  }
  neurobench::LoaderOptions lo;
  lo.batch_size = batch_size;
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {},
                              neurobench::MetricSet::from_specs({}, specs));
  neurobench::RunOptions ro;
  ro.quiet = true;
  ro.timing.warmup = 5;
  ro.timing.runs = runs;
  ro.timing.max_time_s = 600;
  neurobench::Results r = bench.run(ro);
  const double ms = r.values["Latency"]["batch_mean_ms"].get<double>();
  if (out != nullptr) *out = std::move(r);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Cost of the platform metrics' sampler on the timing pass"};
  std::string models_dir = NEUROBENCH_BENCHMARK_MODELS;
  int rounds = 7;
  int64_t runs = 400;
  int64_t batch_size = 16;
  int threads = 1;
  double interval_ms = 100;
  app.add_option("--models", models_dir, "folder of cnn_relu.pt")->capture_default_str();
  app.add_option("--rounds", rounds, "timing passes of each variant, alternated (median shown)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--runs", runs, "timed runs per pass")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--batch-size", batch_size, "samples per timed run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "LibTorch's intra-op threads")->capture_default_str();
  app.add_option("--interval-ms", interval_ms, "the sampler's interval")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  at::set_num_threads(threads);
  torch::manual_seed(0);
  auto model = std::make_shared<neurobench::TorchScriptModel>(models_dir + "/cnn_relu.pt");
  auto data = std::make_shared<neurobench::TensorDataset>(
      torch::randn({batch_size * 8, 1, 28, 28}), torch::zeros({batch_size * 8}, torch::kLong));
  const std::vector<std::string> without = {"Latency"};
  const std::vector<std::string> with = {"Latency", "Energy", "Utilisation", "Clock",
                                         "Temperature"};
  std::vector<double> a, b;
  neurobench::Results last;
  (void)sampler_latency_ms(model, data, batch_size, runs / 4 + 1, without, interval_ms, nullptr);
  for (int i = 0; i < rounds; ++i) {
    // Alternated, so that a drift of the machine (another job, the clock) falls on both.
    a.push_back(sampler_latency_ms(model, data, batch_size, runs, without, interval_ms, nullptr));
    b.push_back(sampler_latency_ms(model, data, batch_size, runs, with, interval_ms, &last));
  }
  const double ma = sampler_median(a);
  const double mb = sampler_median(b);
  const neurobench::Json& rec = last.run["platform"]["Utilisation"][0];
  fmt::print("ReLU CNN 28x28, batch {}, {} timed runs per pass, {} thread(s), {} rounds\n",
             batch_size, runs, threads, rounds);
  fmt::print("{:<34} {:>14} {:>14} {:>8}\n", "Latency batch_mean_ms (median)", "without",
             "with sampler", "ratio");
  fmt::print("{:<34} {:>14.4f} {:>14.4f} {:>8.4f}\n", "", ma, mb, mb / ma);
  std::vector<double> ratios;
  for (std::size_t i = 0; i < a.size(); ++i) ratios.push_back(b[i] / a[i]);
  fmt::print("{:<34} {:>14} {:>14} {:>8.4f}\n", "median of the rounds' ratios", "", "",
             sampler_median(ratios));
  const double wall = rec.value("wall_s", 0.0);
  const double cpu = rec.value("sampler_cpu_s", 0.0);
  fmt::print(
      "sampler: interval {:g} ms, {} readings over {:.2f} s, its own CPU time {:.3f} ms "
      "({:.3f}% of one core)\n",
      rec.value("interval_ms", 0.0), rec.value("readings", int64_t{0}), wall, cpu * 1e3,
      wall > 0 ? 100.0 * cpu / wall : 0.0);
  fmt::print("per round, without / with (ms):");
  for (std::size_t i = 0; i < a.size(); ++i) fmt::print(" {:.4f}/{:.4f}", a[i], b[i]);
  fmt::print("\n");
  return 0;
}
