// SPDX-License-Identifier: Apache-2.0
// What the platform sampler (Energy, Utilisation, Clock, Temperature) costs the timing pass.
//
// For the ReLU CNN of benchmarks/models on 28x28 inputs, it runs the timing pass in rounds of
//   without  Latency alone (no sampler thread)
//   with     Latency plus the four platform metrics (the sampler reading every interval)
//   again    Latency alone once more: the baseline against itself, which shows the noise
// `--rounds` times, and prints the median of Latency's mean time per batch for each side by
// side, the ratios with/without and again/without (of the medians, and the median, quartiles
// and range of each round's own ratio), the sampler's readings and its own CPU time. The
// sampler's cost on the timed runs is the ratio minus one (aim: under 1%); where the
// baseline's own ratio (again/without) spreads wider than that, the machine's noise hides it,
// and the sampler's CPU time bounds its cost.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <neurobench/neurobench.hpp>

namespace {

// The q-quantile of `v` (linear between the two nearest ranks); q = 0.5 is the median.
double sampler_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

double sampler_median(const std::vector<double>& v) { return sampler_quantile(v, 0.5); }

// One line of a ratio's spread over the rounds: median, quartiles, range.
void sampler_print_spread(const char* what, const std::vector<double>& num,
                          const std::vector<double>& den) {
  std::vector<double> r;
  for (std::size_t i = 0; i < num.size(); ++i) r.push_back(num[i] / den[i]);
  fmt::print("{:<26} median {:.4f}, quartiles {:.4f} to {:.4f}, range {:.4f} to {:.4f}\n", what,
             sampler_median(r), sampler_quantile(r, 0.25), sampler_quantile(r, 0.75),
             sampler_quantile(r, 0.0), sampler_quantile(r, 1.0));
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
  std::vector<double> a, b, c;
  neurobench::Results last;
  (void)sampler_latency_ms(model, data, batch_size, runs / 4 + 1, without, interval_ms, nullptr);
  for (int i = 0; i < rounds; ++i) {
    // Alternated, so that a drift of the machine (another job, the clock) falls on all three;
    // the order within a round turns, so that neither side always follows the other.
    const bool with_first = i % 2 == 1;
    if (with_first) {
      b.push_back(sampler_latency_ms(model, data, batch_size, runs, with, interval_ms, &last));
    }
    a.push_back(sampler_latency_ms(model, data, batch_size, runs, without, interval_ms, nullptr));
    if (!with_first) {
      b.push_back(sampler_latency_ms(model, data, batch_size, runs, with, interval_ms, &last));
    }
    c.push_back(sampler_latency_ms(model, data, batch_size, runs, without, interval_ms, nullptr));
  }
  const double ma = sampler_median(a);
  const double mb = sampler_median(b);
  const double mc = sampler_median(c);
  const neurobench::Json& rec = last.run["platform"]["Utilisation"][0];
  fmt::print("ReLU CNN 28x28, batch {}, {} timed runs per pass, {} thread(s), {} rounds\n",
             batch_size, runs, threads, rounds);
  fmt::print("{:<34} {:>10} {:>13} {:>10} {:>12} {:>12}\n", "Latency batch_mean_ms (median)",
             "without", "with sampler", "again", "with/without", "again/without");
  fmt::print("{:<34} {:>10.4f} {:>13.4f} {:>10.4f} {:>12.4f} {:>12.4f}\n", "", ma, mb, mc, mb / ma,
             mc / ma);
  fmt::print("the rounds' own ratios:\n");
  sampler_print_spread("  with/without (cost)", b, a);
  sampler_print_spread("  again/without (noise)", c, a);
  // Other jobs only ever add time: each variant's fastest pass is its least disturbed one.
  const double fa = sampler_quantile(a, 0.0);
  const double fb = sampler_quantile(b, 0.0);
  const double fc = sampler_quantile(c, 0.0);
  fmt::print(
      "fastest pass (ms): without {:.4f}, with {:.4f}, again {:.4f}; with/without {:.4f}, "
      "again/without {:.4f}\n",
      fa, fb, fc, fb / fa, fc / fa);
  const double wall = rec.value("wall_s", 0.0);
  const double cpu = rec.value("sampler_cpu_s", 0.0);
  fmt::print(
      "sampler: interval {:g} ms, {} readings over {:.2f} s, its own CPU time {:.3f} ms "
      "({:.3f}% of one core)\n",
      rec.value("interval_ms", 0.0), rec.value("readings", int64_t{0}), wall, cpu * 1e3,
      wall > 0 ? 100.0 * cpu / wall : 0.0);
  fmt::print("per round, without / with / again (ms):");
  for (std::size_t i = 0; i < a.size(); ++i) fmt::print(" {:.3f}/{:.3f}/{:.3f}", a[i], b[i], c[i]);
  fmt::print("\n");
  return 0;
}
