// SPDX-License-Identifier: Apache-2.0
// The per-layer profile (`neurobench run --profile`) against the timing pass, on the perf CNN
// (benchmarks/models/cnn_relu.pt: two 3x3 convolutions with ReLU and max pooling, two Linear
// layers, 28x28 inputs). One run makes both: Latency's timing pass, then the profile's own
// plain and profiled forward calls. It prints, per repetition:
//   latency      Latency's mean forward time per batch (its pass, no hooks)
//   plain        the profile's forward calls without hooks (the same work, timed again)
//   profiled     the profile's forward calls with a clock at each module's entry and exit
//   layers       the sum of the rows' own times per forward call (every module, pooling,
//                flattening and containers included; without the "(rest of forward)" row)
//   rest         other_s: the profiled forward call outside every module
//   layers/latency, profiled/plain - 1 (the clocks' cost) and layers/profiled
// and at the end the range and median of layers/latency over the repetitions, and the ratio of
// the fastest layers to the fastest Latency over them: on a machine shared with other jobs,
// which only ever add time, the fastest repetition of each is the least disturbed.
// With --check it also checks the profile's structure (layers in execution order, shapes, one
// call each, times that add up) and exits 1 when it is wrong: ctest `profile_structure` runs
// that, with no claim about the times, which a loaded machine would make flaky.
#include <algorithm>
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

// The structure the CNN's profile must have at batch size `b`: every module, each container
// before the modules it calls.
void check_structure(const neurobench::Json& p, int64_t b, ProfileCheck& c) {
  struct Expected {
    const char* layer;
    const char* kind;
    std::vector<int64_t> shape;
  };
  const std::vector<Expected> expected = {
      {"features", "other", {b, 32, 7, 7}},          {"features.0", "connection", {b, 16, 28, 28}},
      {"features.1", "activation", {b, 16, 28, 28}}, {"features.2", "other", {b, 16, 14, 14}},
      {"features.3", "connection", {b, 32, 14, 14}}, {"features.4", "activation", {b, 32, 14, 14}},
      {"features.5", "other", {b, 32, 7, 7}},        {"classifier", "other", {b, 10}},
      {"classifier.0", "other", {b, 32 * 7 * 7}},    {"classifier.1", "connection", {b, 128}},
      {"classifier.2", "activation", {b, 128}},      {"classifier.3", "connection", {b, 10}}};
  const auto& layers = p["layers"];
  c.expect(layers.size() == expected.size(),
           fmt::format("{} layers, expected {}", layers.size(), expected.size()));
  double sum = 0;
  for (std::size_t i = 0; i < std::min(layers.size(), expected.size()); ++i) {
    const auto& row = layers[i];
    const std::string name = expected[i].layer;
    c.expect(row["layer"] == name,
             fmt::format("layer {} is {}, expected {}", i, row["layer"].dump(), name));
    c.expect(row["output_shape"] == neurobench::Json(expected[i].shape),
             fmt::format("{}: output shape {}", name, row["output_shape"].dump()));
    c.expect(row["kind"] == expected[i].kind, fmt::format("{}: kind {}", name, row["kind"].dump()));
    c.expect(row["calls_per_run"] == 1.0, name + ": calls");
    c.expect(row["time_per_run_s"].get<double>() >= 0, name + ": negative time");
    c.expect(row["dense_ops"].is_null() == (row["kind"] != "connection"),
             name + ": operations where none are counted, or none where they are");
    sum += row["time_per_run_s"].get<double>();
  }
  const double layers_s = p["layers_s"].get<double>();
  const double profiled = p["profiled_forward_s"].get<double>();
  c.expect(std::abs(sum - layers_s) <= 1e-9 * std::max(1.0, layers_s),
           "the layers' times do not add up to layers_s");
  c.expect(std::abs(layers_s + p["other_s"].get<double>() - profiled) <= 1e-9,
           "layers_s + other_s is not profiled_forward_s");
  c.expect(layers.size() > 1 && layers[1]["dense_ops"].is_number() &&
               layers[1]["dense_ops"].get<double>() > 0,
           "no dense operations counted");
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
  fmt::print("{:>12} {:>12} {:>12} {:>12} {:>10} {:>15} {:>15} {:>16}\n", "latency ms", "plain ms",
             "profiled ms", "layers ms", "rest ms", "layers/latency", "clocks' cost",
             "layers/profiled");
  ProfileCheck c;
  std::vector<double> ratios;
  double fastest_latency = 0;
  double fastest_layers = 0;
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
    const double rest = p["other_s"].get<double>() * 1e3;
    fmt::print(
        "{:>12.3f} {:>12.3f} {:>12.3f} {:>12.3f} {:>10.3f} {:>15.3f} {:>+14.1f}% {:>16.3f}\n",
        latency, plain, profiled, layers, rest, layers / latency, p["overhead"].get<double>() * 100,
        layers / profiled);
    ratios.push_back(layers / latency);
    fastest_latency = k == 0 ? latency : std::min(fastest_latency, latency);
    fastest_layers = k == 0 ? layers : std::min(fastest_layers, layers);
    if (check) check_structure(p, batch, c);
    if (k + 1 == repeats) fmt::print("{}", neurobench::render_profile_table(p));
  }
  std::sort(ratios.begin(), ratios.end());
  const std::size_t within = static_cast<std::size_t>(
      std::count_if(ratios.begin(), ratios.end(), [](double r) { return std::abs(r - 1) <= 0.1; }));
  fmt::print("layers/latency over {} repetitions: {:.3f} to {:.3f}, median {:.3f}; {} within 10%\n",
             ratios.size(), ratios.front(), ratios.back(), ratios[ratios.size() / 2], within);
  fmt::print("fastest over the repetitions: latency {:.3f} ms, layers {:.3f} ms, ratio {:.3f}\n",
             fastest_latency, fastest_layers, fastest_layers / fastest_latency);
  for (const auto& problem : c.problems) fmt::print(stderr, "profile: {}\n", problem);
  return c.problems.empty() ? 0 : 1;
}
