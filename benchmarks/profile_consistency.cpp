// SPDX-License-Identifier: Apache-2.0
// The per-layer profile (`neurobench run --profile`) against the timing pass, on the perf CNN
// (benchmarks/models/cnn_relu.pt: two 3x3 convolutions with ReLU and max pooling, two Linear
// layers, 28x28 inputs). One run makes both: Latency's timing pass, then the profile's own
// plain and profiled forward calls. It prints, per repetition:
//   latency      Latency's mean forward time per batch (its pass, no hooks)
//   plain        the profile's forward calls without hooks (the same work, timed again)
//   profiled     the profile's forward calls with a clock at each layer's entry and exit
//   layers       the sum of the layers' own times per forward call
//   layers/latency, profiled/plain - 1 (the clocks' cost) and layers/profiled
// With --check it also checks the profile's structure (layers in execution order, shapes, one
// call each, times that add up) and exits 1 when it is wrong: ctest `profile_structure` runs
// that, with no claim about the times, which a loaded machine would make flaky.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <neurobench/neurobench.hpp>

namespace {

struct ProfileCheck {
  std::vector<std::string> problems;
  void expect(bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  }
};

// The structure the CNN's profile must have at batch size `b`.
void check_structure(const neurobench::Json& p, int64_t b, ProfileCheck& c) {
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      {"features.0", {b, 16, 28, 28}}, {"features.1", {b, 16, 28, 28}},
      {"features.3", {b, 32, 14, 14}}, {"features.4", {b, 32, 14, 14}},
      {"classifier.1", {b, 128}},      {"classifier.2", {b, 128}},
      {"classifier.3", {b, 10}}};
  const auto& layers = p["layers"];
  c.expect(layers.size() == expected.size(),
           fmt::format("{} layers, expected {}", layers.size(), expected.size()));
  double sum = 0;
  for (std::size_t i = 0; i < std::min(layers.size(), expected.size()); ++i) {
    const auto& row = layers[i];
    c.expect(row["layer"] == expected[i].first,
             fmt::format("layer {} is {}, expected {}", i, row["layer"].dump(), expected[i].first));
    c.expect(row["output_shape"] == neurobench::Json(expected[i].second),
             fmt::format("{}: output shape {}", expected[i].first, row["output_shape"].dump()));
    c.expect(row["kind"] == (i % 2 == 0 ? "connection" : "activation"),
             fmt::format("{}: kind {}", expected[i].first, row["kind"].dump()));
    c.expect(row["calls_per_run"] == 1.0, fmt::format("{}: calls", expected[i].first));
    c.expect(row["time_per_run_s"].get<double>() >= 0, expected[i].first + ": negative time");
    sum += row["time_per_run_s"].get<double>();
  }
  const double layers_s = p["layers_s"].get<double>();
  const double profiled = p["profiled_forward_s"].get<double>();
  c.expect(std::abs(sum - layers_s) <= 1e-9 * std::max(1.0, layers_s),
           "the layers' times do not add up to layers_s");
  c.expect(std::abs(layers_s + p["other_s"].get<double>() - profiled) <= 1e-9,
           "layers_s + other_s is not profiled_forward_s");
  c.expect(p["layers"][0]["dense_ops"].get<double>() > 0, "no dense operations counted");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The per-layer profile against Latency on the perf CNN"};
  int64_t runs = 50;
  int64_t batch = 32;
  int threads = 1;
  int repeats = 3;
  bool check = false;
  app.add_option("--runs", runs, "timed runs of Latency and of each kind of profile run");
  app.add_option("--batch-size", batch, "samples per forward call");
  app.add_option("--threads", threads, "LibTorch intra-op threads");
  app.add_option("--repeats", repeats, "runs of the whole comparison");
  app.add_flag("--check", check, "check the profile's structure; exit 1 when it is wrong");
  CLI11_PARSE(app, argc, argv);
  at::set_num_threads(threads);

  const std::string path = std::string(NEUROBENCH_BENCHMARK_MODELS) + "/cnn_relu.pt";
  torch::manual_seed(0);
  auto data = std::make_shared<neurobench::TensorDataset>(torch::randn({batch * 4, 1, 28, 28}),
                                                          torch::zeros({batch * 4}, torch::kLong));
  neurobench::LoaderOptions lo;
  lo.batch_size = batch;
  fmt::print("perf CNN, batch {}, {} runs each, {} thread(s)\n", batch, runs, threads);
  fmt::print("{:>12} {:>12} {:>12} {:>12} {:>15} {:>15} {:>16}\n", "latency ms", "plain ms",
             "profiled ms", "layers ms", "layers/latency", "clocks' cost", "layers/profiled");
  ProfileCheck c;
  for (int k = 0; k < repeats; ++k) {
    auto model = std::make_shared<neurobench::TorchScriptModel>(path);
    neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {},
                                neurobench::MetricSet::from_names({}, {"Latency"}));
    neurobench::RunOptions ro;
    ro.quiet = true;
    ro.timing.warmup = 3;
    ro.timing.runs = runs;
    ro.profile.enabled = true;
    ro.profile.warmup = 3;
    ro.profile.runs = runs;
    const neurobench::Results r = bench.run(ro);
    if (!r.ok()) {
      fmt::print(stderr, "the run failed: {}\n", r.failures.front().message);
      return 1;
    }
    const auto& p = r.profile;
    const double latency = r.values["Latency"]["batch_mean_ms"].get<double>();
    const double plain = p["plain_forward_s"].get<double>() * 1e3;
    const double profiled = p["profiled_forward_s"].get<double>() * 1e3;
    const double layers = p["layers_s"].get<double>() * 1e3;
    fmt::print("{:>12.3f} {:>12.3f} {:>12.3f} {:>12.3f} {:>15.3f} {:>+14.1f}% {:>16.3f}\n", latency,
               plain, profiled, layers, layers / latency, p["overhead"].get<double>() * 100,
               layers / profiled);
    if (check) check_structure(p, batch, c);
    if (k + 1 == repeats) fmt::print("{}", neurobench::render_profile_table(p));
  }
  for (const auto& problem : c.problems) fmt::print(stderr, "profile: {}\n", problem);
  return c.problems.empty() ? 0 : 1;
}
