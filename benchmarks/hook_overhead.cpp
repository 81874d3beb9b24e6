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
// and prints the medians and the ratios to bare, for 1 and 2 threads. With --device cuda (or
// lazy) all four run there: the bare loop moves each batch to the device as the harness does,
// and every variant waits for the device's work to end before its clock stops.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <torch/csrc/lazy/core/metrics.h>
#include <torch/version.h>
#include <nlohmann/json.hpp>

#include <neurobench/device.hpp>
#include <neurobench/io/output_file.hpp>
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
double time_bare(torch::jit::Module& module, const Workload& w, const c10::Device& device) {
  c10::InferenceMode guard;
  const auto start = Clock::now();
  const int64_t n = w.data.size(0);
  for (int64_t b = 0; b < n; b += w.batch_size) {
    const torch::Tensor batch = w.data.slice(0, b, std::min(n, b + w.batch_size)).to(device);
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
  neurobench::synchronize(device);
  return seconds_since(start);
}

double time_benchmark(const std::shared_ptr<neurobench::TorchScriptModel>& model, const Workload& w,
                      const std::vector<std::string>& metrics, neurobench::Results* results,
                      const c10::Device& device = c10::kCPU) {
  auto data = std::make_shared<neurobench::TensorDataset>(
      w.data, torch::zeros({w.data.size(0)}, torch::kLong));
  neurobench::LoaderOptions lo;
  lo.batch_size = w.batch_size;
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {},
                              neurobench::MetricSet::from_names({}, metrics));
  neurobench::RunOptions ro;
  ro.quiet = true;
  ro.device = device;
  const auto start = Clock::now();
  neurobench::Results r = bench.run(ro);
  neurobench::synchronize(device);
  const double s = seconds_since(start);
  if (results != nullptr) *results = std::move(r);
  return s;
}

// The same work as the Latency metric sees it: its mean forward time per batch, times the
// number of batches (all full here).
double latency_seconds(const std::shared_ptr<neurobench::TorchScriptModel>& model,
                       const Workload& w, const c10::Device& device) {
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
  ro.device = device;
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

// Operators the lazy device recorded so far that compute: each (`lazy::add`) is one node of
// its graphs, where CUDA launches about one kernel; operators it runs on the CPU behind its back
// (`aten::...`) count too. Views (`lazy::view_copy`, `lazy::unsqueeze_copy`: the lazy device
// names a view `..._copy`) launch nothing on CUDA and are left out; `_to_copy` and
// `_copy_from` copy data and count.
std::map<std::string, int64_t> lazy_operator_counts() {
  const auto is_view = [](const std::string& name) {
    if (name == "lazy::_to_copy" || name.rfind("lazy::_copy_from", 0) == 0) return false;
    return name.find("_copy") != std::string::npos;
  };
  std::map<std::string, int64_t> counts;
  for (const std::string& name : torch::lazy::GetCounterNames()) {
    if (name.rfind("lazy::", 0) != 0 && name.rfind("aten::", 0) != 0) continue;
    if (is_view(name)) continue;
    if (const torch::lazy::CounterData* c = torch::lazy::GetCounter(name)) {
      counts[name] = c->Value();
    }
  }
  return counts;
}

int64_t lazy_operators() {
  int64_t n = 0;
  for (const auto& [name, count] : lazy_operator_counts()) n += count;
  return n;
}

// Per step, the operators `run` records beyond what `baseline` records (both run once to warm
// up, then once counted), most first.
template <class Run, class Baseline>
void print_added_operators(const Run& run, const Baseline& baseline, double steps) {
  const auto counted = [](const auto& f) {
    f();
    const auto before = lazy_operator_counts();
    f();
    auto after = lazy_operator_counts();
    for (auto& [name, count] : after) {
      const auto it = before.find(name);
      if (it != before.end()) count -= it->second;
    }
    return after;
  };
  const auto base = counted(baseline);
  const auto with = counted(run);
  std::vector<std::pair<double, std::string>> added;
  for (const auto& [name, count] : with) {
    const auto it = base.find(name);
    const int64_t extra = count - (it == base.end() ? 0 : it->second);
    if (extra != 0) added.emplace_back(static_cast<double>(extra) / steps, name);
  }
  std::sort(added.rbegin(), added.rend());
  for (const auto& [per_step, name] : added) fmt::print("  {:>8.2f}  {}\n", per_step, name);
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
  std::string device_text = "cpu";
  std::string json_out;
  bool count_ops = false;
  bool op_names = false;
  std::vector<double> max_ops_ratio;
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
  app.add_option("--device", device_text, "where the model runs: cpu, cuda, cuda:N or lazy")
      ->capture_default_str();
  app.add_option("--json", json_out, "also write the medians (seconds) to this JSON file");
  app.add_flag("--count-ops", count_ops,
               "with --device lazy: instead of timing, count the operators each variant records "
               "per timestep (what a GPU would launch)");
  app.add_flag("--op-names", op_names,
               "with --count-ops: also list the operators the metrics add to the harness, per "
               "step");
  app.add_option("--max-ops-ratio", max_ops_ratio,
                 "with --count-ops: fail (exit 1) when a workload's metrics record more than this "
                 "many times the bare forward's operators; one ratio per workload (CNN, SNN)")
      ->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  if (memory_steps > 0) return memory_mode(models_dir, memory_steps, !memory_bare);
  const c10::Device device = neurobench::resolved_device(neurobench::parse_device(device_text));
  neurobench::check_device(device);
  if (count_ops && device.type() != c10::DeviceType::Lazy) {
    fmt::print(stderr, "--count-ops counts the lazy device's operators: give --device lazy\n");
    return 2;
  }
  nlohmann::json report = {{"device", neurobench::device_text(device)},
                           {"libtorch", TORCH_VERSION},
                           {"libtorch_build", neurobench::libtorch_build()},
                           {"repeats", repeats},
                           {"workloads", nlohmann::json::array()}};

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
  if (const auto gpu = neurobench::gpu_info(device)) {
    fmt::print("GPU: {} (driver {}, CUDA runtime {})\n", gpu->name, gpu->driver, gpu->cuda_runtime);
    report["gpu"] = gpu->name;
  }
  fmt::print("device: {}, LibTorch {} ({})\n", neurobench::device_text(device), TORCH_VERSION,
             neurobench::libtorch_build());
  fmt::print("BLAS: {}\n", neurobench::loaded_blas_library().empty()
                               ? std::string("(not loaded yet)")
                               : neurobench::loaded_blas_library());
  fmt::print("{:<46} {:>7} {:>10} {:>10} {:>10} {:>10} {:>8} {:>8} {:>8}\n", "workload",
             "threads", "bare s", "harness s", "metrics s", "latency s", "harness", "metrics",
             "latency");
  bool failed = false;
  for (const auto& w : workloads) {
    // torch::jit::load maps onto the CPU and CUDA; onto the lazy device, TorchScriptModel
    // moves every tensor the module holds (torch::jit::Module::to cannot move onto it).
    torch::jit::Module bare;
    if (device.type() == c10::DeviceType::Lazy) {
      neurobench::TorchScriptOptions lazy;
      lazy.device = device;
      bare = neurobench::TorchScriptModel(w.model_path, lazy).module();
    } else {
      bare = torch::jit::load(w.model_path, device);
    }
    bare.eval();
    neurobench::TorchScriptOptions opts;
    opts.stepwise = w.stepwise;
    opts.device = device;
    auto model = std::make_shared<neurobench::TorchScriptModel>(w.model_path, opts);
    if (count_ops) {
      // Each variant once to warm up, then once counted; per sample step (timesteps of the
      // SNN, 1 for the CNN), so that the figures compare with a kernel count per step.
      const double steps = static_cast<double>(w.data.size(0) / w.batch_size) *
                           static_cast<double>(w.stepwise ? w.data.size(1) : 1);
      const auto ops = [&](const auto& run) {
        run();
        const int64_t before = lazy_operators();
        run();
        return static_cast<double>(lazy_operators() - before) / steps;
      };
      const double bare_ops = ops([&] { time_bare(bare, w, device); });
      const double harness_ops = ops([&] { time_benchmark(model, w, {}, nullptr, device); });
      const double metrics_ops = ops([&] { time_benchmark(model, w, w.metrics, nullptr, device); });
      fmt::print(
          "{:<46} operators per step: bare {:.1f}, harness {:.1f}, metrics {:.1f} "
          "({:.2f}x bare)\n",
          w.name, bare_ops, harness_ops, metrics_ops, metrics_ops / bare_ops);
      const std::size_t index = static_cast<std::size_t>(&w - workloads.data());
      if (index < max_ops_ratio.size() && metrics_ops > max_ops_ratio[index] * bare_ops) {
        fmt::print(stderr, "FAIL {}: the metrics record {:.2f}x the bare forward's operators, "
                   "more than {:.2f}x\n", w.name, metrics_ops / bare_ops, max_ops_ratio[index]);
        failed = true;
      }
      if (op_names) {
        print_added_operators([&] { time_benchmark(model, w, w.metrics, nullptr, device); },
                              [&] { time_benchmark(model, w, {}, nullptr, device); }, steps);
      }
      continue;
    }
    for (const int t : threads) {
      at::set_num_threads(t);
      // Warm-up: profiling executor runs, caches.
      time_bare(bare, w, device);
      time_benchmark(model, w, {}, nullptr, device);
      neurobench::Results results;
      time_benchmark(model, w, w.metrics, &results, device);
      std::vector<double> b, h, m, l;
      for (int r = 0; r < repeats; ++r) {  // interleaved, so drift hits all four alike
        b.push_back(time_bare(bare, w, device));
        h.push_back(time_benchmark(model, w, {}, nullptr, device));
        m.push_back(time_benchmark(model, w, w.metrics, nullptr, device));
        l.push_back(latency_seconds(model, w, device));
      }
      const double mb = median(b), mh = median(h), mm = median(m), ml = median(l);
      fmt::print("{:<46} {:>7} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>7.2f}x {:>7.2f}x "
                 "{:>7.2f}x\n",
                 w.name, t, mb, mh, mm, ml, mh / mb, mm / mb, ml / mb);
      if (t == threads.front()) {
        fmt::print("  results: {}\n", results.values.dump());
      }
      report["workloads"].push_back({{"name", w.name},
                                     {"threads", t},
                                     {"samples", w.data.size(0)},
                                     {"bare_s", mb},
                                     {"harness_s", mh},
                                     {"metrics_s", mm},
                                     {"latency_s", ml},
                                     {"metrics", w.metrics},
                                     {"results", results.values}});
    }
  }
  fmt::print("(medians of {} runs; 'harness', 'metrics' and 'latency' are ratios to the bare "
             "forward pass)\n",
             repeats);
  if (!json_out.empty()) neurobench::write_output_file(json_out, report.dump(2) + "\n");
  return failed ? 1 : 0;
}
