// SPDX-License-Identifier: Apache-2.0
// Benchmarks run on a device other than the CPU. The tests run on LibTorch's lazy device (its
// TorchScript backend computes on the CPU), which every LibTorch has: its results must equal a
// CPU run's bit for bit, a tensor read back from it is one execution of its pending graph
// (counted by its own counters), and a CPU tensor where a device tensor belongs stops it. What
// holds on it holds for the device code on a GPU; scripts/gpu-check runs the same on CUDA.
#include <neurobench/benchmark.hpp>

#include <torch/csrc/lazy/core/metrics.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/audio.hpp>
#include <neurobench/processors/encoders.hpp>
#include <neurobench/reporters/results.hpp>

#include "support.hpp"

using neurobench::Benchmark;
using neurobench::DataLoader;
using neurobench::MetricSet;
using neurobench::RunOptions;
using neurobench::TensorDataset;
using neurobench::TorchScriptModel;
using neurobench::TorchScriptOptions;
using neurobench::test::fixture;

namespace {

const c10::Device kLazy(c10::DeviceType::Lazy, 0);  // as tensors there name it

struct Setup {
  std::string model;  // under tests/fixtures
  bool stepwise = false;
  torch::Tensor data;
  torch::Tensor targets;
  std::vector<std::string> static_metrics;
  std::vector<std::string> workload_metrics;
  std::vector<std::string> post;
  std::vector<std::string> activation_types;  // empty: the defaults
};

// A step-wise two-layer spiking MLP (fixtures/models/snn_noreset.pt, 3-5-2 Leaky) on `steps`
// timesteps of random input, with every metric that looks inside it.
Setup snn_setup(int64_t steps, int64_t samples = 7) {
  torch::manual_seed(11);
  Setup s;
  s.model = "models/snn_noreset.pt";
  s.stepwise = true;
  s.data = torch::rand({samples, steps, 3}) * 3;
  s.targets = torch::randint(0, 2, {samples}, torch::kLong);
  s.static_metrics = {"Footprint", "ConnectionSparsity", "ParameterCount"};
  s.workload_metrics = {"ClassificationAccuracy",
                        "ActivationSparsity",
                        "ActivationSparsityByLayer",
                        "SynapticOperations",
                        "MembraneUpdates",
                        "NeuronOperations",
                        "DenseMACs"};
  s.post = {"ChooseMaxCount"};
  s.activation_types = {"ReLU", "Leaky"};
  return s;
}

neurobench::Results run(const Setup& s, const c10::Device& device, int64_t batch_size = 3,
                        const std::vector<std::string>& extra_workload = {}) {
  TorchScriptOptions o;
  o.stepwise = s.stepwise;
  auto model = std::make_shared<TorchScriptModel>(fixture(s.model), o);
  auto data = std::make_shared<TensorDataset>(s.data, s.targets);
  neurobench::LoaderOptions lo;
  lo.batch_size = batch_size;
  std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
  for (const auto& name : s.post) post.push_back(neurobench::post_processors().create(name));
  auto layers = Benchmark::default_layers();
  if (!s.activation_types.empty()) layers.activation_types = s.activation_types;
  std::vector<std::string> workload = s.workload_metrics;
  workload.insert(workload.end(), extra_workload.begin(), extra_workload.end());
  Benchmark bench(model, DataLoader(data, lo), {}, std::move(post),
                  MetricSet::from_names(s.static_metrics, workload), layers);
  RunOptions ro;
  ro.quiet = true;
  ro.device = device;
  ro.timing.warmup = 1;
  ro.timing.runs = 2;
  ro.timing.startup_runs = 1;
  neurobench::Results r = bench.run(ro);
  for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
  REQUIRE(r.ok());
  CHECK(model->device() == neurobench::resolved_device(device));  // it stays there
  return r;
}

// Executions of the lazy device's pending graphs so far: each read of a tensor back to the host
// (and each operator the lazy device runs on the CPU behind its back) is one.
int64_t lazy_executions() {
  int64_t n = 0;
  for (const char* name : {"CachedCompile", "UncachedCompile"}) {
    if (const torch::lazy::CounterData* c = torch::lazy::GetCounter(name)) n += c->Value();
  }
  return n;
}

}  // namespace

TEST_CASE(
    "a step-wise spiking network with every hook metric gives the CPU's numbers on a "
    "device, bit for bit",
    "[device]") {
  const Setup s = snn_setup(6);
  const neurobench::Results cpu = run(s, c10::kCPU);
  const neurobench::Results lazy = run(s, kLazy);
  CHECK(lazy.values == cpu.values);
  CHECK(lazy.values["SynapticOperations"][neurobench::metrics::keys::kEffectiveACs].get<double>() >
        0);  // spikes did flow
  CHECK(lazy.samples == cpu.samples);
  CHECK(lazy.environment.device == "lazy");
  CHECK(cpu.environment.device == "cpu");
  CHECK_FALSE(lazy.environment.tf32.has_value());  // CUDA runs only
  CHECK_FALSE(lazy.environment.gpu.has_value());
}

TEST_CASE("conventional networks give the CPU's numbers on a device, bit for bit", "[device]") {
  torch::manual_seed(5);
  Setup mlp;
  mlp.model = "models/mlp_scripted.pt";
  mlp.data = torch::randn({9, 4});
  mlp.targets = torch::randn({9, 3});
  mlp.static_metrics = {"Footprint", "ConnectionSparsity"};
  mlp.workload_metrics = {
      "MSE",      "SMAPE", "ActivationSparsity", "ActivationSparsityByLayer", "SynapticOperations",
      "DenseMACs"};
  CHECK(run(mlp, kLazy, 4).values == run(mlp, c10::kCPU, 4).values);

  Setup conv;  // convolutions: the counting convolution runs on the device in float64
  conv.model = "models/conv_scripted.pt";
  conv.data = torch::relu(torch::randn({10, 1, 4, 4}));
  conv.targets = torch::randint(0, 3, {10}, torch::kLong);
  conv.workload_metrics = {"ActivationSparsity", "SynapticOperations", "DenseMACs"};
  CHECK(run(conv, kLazy, 4).values == run(conv, c10::kCPU, 4).values);
  // Spikes into a convolution count as accumulates, on the device as on the CPU.
  conv.data = (torch::rand({10, 1, 4, 4}) > 0.5).to(torch::kFloat);
  const neurobench::Results spikes = run(conv, kLazy, 4);
  CHECK(spikes.values == run(conv, c10::kCPU, 4).values);
  CHECK(
      spikes.values["SynapticOperations"][neurobench::metrics::keys::kEffectiveACs].get<double>() >
      0);
}

TEST_CASE("hook metrics read their counts back once per batch, not at each call of a layer",
          "[device]") {
  // The reads a run makes beyond what the model and the plain metrics make, with 4 and with 16
  // timesteps per batch: a count read at each call would grow with the timesteps.
  const auto reads = [](int64_t steps, bool hook_metrics) {
    Setup s = snn_setup(steps, 6);
    if (!hook_metrics) s.workload_metrics = {"ClassificationAccuracy"};
    (void)run(s, kLazy);  // compiles the graphs once
    const int64_t before = lazy_executions();
    (void)run(s, kLazy);
    return lazy_executions() - before;
  };
  const int64_t few = reads(4, true) - reads(4, false);
  const int64_t many = reads(16, true) - reads(16, false);
  INFO("reads by the hook metrics: " << few << " with 4 timesteps, " << many << " with 16");
  CHECK(few == many);
  // 2 batches; per batch one read each for ActivationSparsity, MembraneUpdates and
  // NeuronOperations, one per layer (2) for ActivationSparsityByLayer, two for
  // SynapticOperations (its dense count is known on the host), and a few executions of what
  // the lazy device runs on the CPU behind its back when it joins a batch's tensors.
  CHECK(few <= 2 * 10);
}

TEST_CASE("timing metrics, StartupTime and PeakMemory run on a device", "[device]") {
  Setup s = snn_setup(5, 6);
  s.workload_metrics = {"ClassificationAccuracy", "PeakMemory"};
  const neurobench::Results r =
      run(s, kLazy, 3, {"Latency", "InferenceTime", "Throughput", "StartupTime"});
  CHECK(r.values["Latency"][neurobench::metrics::keys::kRuns].get<int64_t>() == 2);
  CHECK(r.values["StartupTime"][neurobench::metrics::keys::kRuns].get<int64_t>() == 1);
  CHECK(r.values["Throughput"][neurobench::metrics::keys::kSamples].get<int64_t>() > 0);
  // Device memory is a CUDA device's: a lazy run reports the process's alone.
  CHECK(r.values["PeakMemory"].contains(neurobench::metrics::keys::kPeakRssBytes));
  CHECK_FALSE(
      r.values["PeakMemory"].contains(neurobench::metrics::keys::kDevicePeakAllocatedBytes));
}

TEST_CASE("the results file records where the model ran and what LibTorch was built for",
          "[device]") {
  const neurobench::Results r = run(snn_setup(3, 3), kLazy);
  const nlohmann::ordered_json doc = neurobench::results_document(r);
  const auto& env = doc["_environment"];
  CHECK(env["device"] == "lazy");
  CHECK(env["libtorch_build"] == neurobench::libtorch_build());
  CHECK(env["cxx_standard"].get<std::string>().rfind("C++", 0) == 0);
  CHECK(env["components"].is_array());
  CHECK_FALSE(env.contains("gpu"));
  CHECK_FALSE(env.contains("tf32"));
}

TEST_CASE("a run on a device it cannot use is a UsageError before anything runs", "[device]") {
  if (neurobench::libtorch_build() != "CPU") return;  // here CUDA is there
  const Setup s = snn_setup(3, 3);
  auto model = std::make_shared<TorchScriptModel>(fixture(s.model));
  Benchmark bench(model, DataLoader(std::make_shared<TensorDataset>(s.data, s.targets)), {}, {},
                  MetricSet::from_names({"Footprint"}, {"ClassificationAccuracy"}));
  RunOptions ro;
  ro.quiet = true;
  ro.device = neurobench::parse_device("cuda:1");
  REQUIRE_THROWS_AS(bench.run(ro), neurobench::UsageError);
  REQUIRE_THROWS_WITH(bench.run(ro),
                      Catch::Contains("--device cuda:1") && Catch::Contains("built without CUDA"));
  CHECK(model->device().is_cpu());  // not moved
}

namespace {

// A model of a user's own that runs on the CPU only (NeuroBenchModel::to's default).
class CpuOnly final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& batch) override { return batch.sum(1); }
  std::vector<neurobench::ModuleInfo> modules() const override { return {}; }
  std::string describe() const override { return "the CpuOnly model"; }
};

}  // namespace

TEST_CASE("a model class that cannot move is a UsageError naming it, and runs on the CPU",
          "[device]") {
  auto model = std::make_shared<CpuOnly>();
  auto data = std::make_shared<TensorDataset>(torch::ones({4, 3}), torch::full({4}, 3.0));
  Benchmark bench(model, DataLoader(data), {}, {}, MetricSet::from_names({}, {"MSE"}));
  RunOptions ro;
  ro.quiet = true;
  ro.device = kLazy;
  REQUIRE_THROWS_AS(bench.run(ro), neurobench::UsageError);
  REQUIRE_THROWS_WITH(bench.run(ro), Catch::Contains("the CpuOnly model") &&
                                         Catch::Contains("NeuroBenchModel::to"));
  ro.device = c10::kCPU;
  CHECK(bench.run(ro).values["MSE"] == 0.0);
}

TEST_CASE("TorchScriptModel moves every tensor it holds, lists of tensors too", "[device]") {
  // An RNN layer keeps its weights twice: as parameters and in `_flat_weights`, a list that
  // torch::jit::Module::to leaves behind.
  TorchScriptModel model(fixture("recurrent/gru_1layer_batch_first.pt"));
  model.to(kLazy);
  CHECK(model.device() == kLazy);
  std::size_t tensors = 0;
  for (const auto& item : model.module().named_modules()) {
    const auto object = item.value._ivalue();
    for (std::size_t i = 0; i < object->slots().size(); ++i) {
      const c10::IValue v = object->getSlot(i);
      const auto check = [&](const c10::IValue& e) {
        if (!e.isTensor()) return;
        ++tensors;
        INFO(item.name << "." << object->type()->getAttributeName(i));
        CHECK(e.toTensor().device() == kLazy);
      };
      check(v);
      if (v.isList()) {
        for (const c10::IValue& e : v.toListRef()) check(e);
      }
    }
  }
  CHECK(tensors >= 8);  // 4 parameters, and the list of the same 4
  model.to(c10::kCPU);
  CHECK(model.device().is_cpu());
}

TEST_CASE("a model with tensor constants in its graphs moves only by loading its file there",
          "[device]") {
  // A frozen model: its weights are graph constants. torch.jit.load can map them onto the CPU
  // and CUDA, not onto the lazy device.
  TorchScriptModel frozen(fixture("models/mlp_frozen.pt"));
  REQUIRE_THROWS_AS(frozen.to(kLazy), neurobench::UsageError);
  REQUIRE_THROWS_WITH(frozen.to(kLazy), Catch::Contains("tensor constants") &&
                                            Catch::Contains("TorchScriptOptions::device"));
  CHECK(frozen.device().is_cpu());
  // Wrapped from memory, the same model has no file to load again.
  TorchScriptModel wrapped(torch::jit::load(fixture("models/mlp_frozen.pt").string()));
  REQUIRE_THROWS_WITH(wrapped.to(kLazy), Catch::Contains("tensor constants"));
}

TEST_CASE(
    "the built-in pre-processors give the CPU's output for a batch on a device, on that "
    "device",
    "[device]") {
  neurobench::check_device(kLazy);
  torch::manual_seed(3);
  const neurobench::Batch audio{torch::randn({2, 16000, 1}) * 0.1, torch::zeros({2}), {}};
  const neurobench::Batch features{torch::rand({3, 5, 4}), torch::zeros({3}), {}};
  struct Case {
    const char* name;
    neurobench::Json options;
    const neurobench::Batch* batch;
  };
  const Case cases[] = {
      {"S2SPreProcessor", neurobench::Json::object(), &audio},
      {"MFCCPreProcessor", neurobench::Json::object(), &audio},
      {"Resample", {{"orig_freq", 16000}, {"new_freq", 8000}}, &audio},
      {"DeltaEncoder", {{"threshold", 0.1}}, &features},
      {"RateEncoder", {{"num_steps", 4}, {"seed", 7}}, &features},
      {"LatencyEncoder", {{"num_steps", 4}}, &features},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto on_cpu = neurobench::pre_processors().create(c.name, c.options);
    auto on_device = neurobench::pre_processors().create(c.name, c.options);
    const neurobench::Batch expected = (*on_cpu)(*c.batch);
    neurobench::Batch moved = *c.batch;
    moved.data = moved.data.to(kLazy);
    const neurobench::Batch got = (*on_device)(moved);
    CHECK(got.data.device() == kLazy);
    CHECK(got.data.to(c10::kCPU).equal(expected.data));
  }
}

TEST_CASE("the built-in post-processors run on a device", "[device]") {
  neurobench::check_device(kLazy);
  const torch::Tensor spikes = (torch::rand({4, 6, 3}) > 0.5).to(torch::kFloat);
  for (const char* name : {"ChooseMaxCount", "Aggregate", "Argmax"}) {
    INFO(name);
    auto post = neurobench::post_processors().create(name);
    const torch::Tensor expected = (*post)(spikes);
    const torch::Tensor got = (*post)(spikes.to(kLazy));
    CHECK(got.device() == kLazy);
    CHECK(got.to(c10::kCPU).equal(expected));
  }
}

TEST_CASE("SynapticOperations counts recurrent cells on a device as on the CPU", "[device]") {
  neurobench::check_device(kLazy);
  torch::manual_seed(9);
  struct Cell {
    const char* op;
    int64_t gates;
  };
  for (const Cell& cell :
       {Cell{"aten::rnn_tanh_cell", 1}, Cell{"aten::gru_cell", 3}, Cell{"aten::lstm_cell", 4}}) {
    INFO(cell.op);
    const int64_t hidden = 5;
    const torch::Tensor x = (torch::rand({3, 4}) > 0.5).to(torch::kFloat);  // spikes
    const torch::Tensor h = torch::randn({3, hidden});
    const torch::Tensor c = torch::randn({3, hidden});
    torch::Tensor w_ih = torch::randn({cell.gates * hidden, 4});
    w_ih.index_put_({torch::rand_like(w_ih) > 0.7}, 0.0);
    const torch::Tensor w_hh = torch::randn({cell.gates * hidden, hidden});
    const torch::Tensor b_ih = torch::randn({cell.gates * hidden});
    const torch::Tensor b_hh = torch::randn({cell.gates * hidden});
    const auto count = [&](const c10::Device& d) {
      c10::InferenceMode guard;
      const c10::IValue state = std::string(cell.op) == "aten::lstm_cell"
                                    ? c10::IValue(std::vector<torch::Tensor>{h.to(d), c.to(d)})
                                    : c10::IValue(h.to(d));
      const std::vector<c10::IValue> args = {x.to(d),    state,      w_ih.to(d),
                                             w_hh.to(d), b_ih.to(d), b_hh.to(d)};
      neurobench::metrics::SynapticOperations m;
      m.reset();
      neurobench::ConnectionCall call{"cell", "Cell", cell.op, args};
      m.on_connection(call);
      m.on_connection(call);
      return m.export_state();
    };
    const neurobench::Json cpu = count(c10::kCPU);
    CHECK(count(kLazy) == cpu);
    CHECK(cpu["acs"].get<int64_t>() > 0);
    CHECK(cpu["macs"].get<int64_t>() == 0);
  }
}

TEST_CASE("NaN in the weights of a model on a device is found as on the CPU", "[device]") {
  auto model = std::make_shared<TorchScriptModel>(fixture("models/mlp_scripted.pt"));
  model->to(kLazy);
  {
    c10::InferenceMode guard;
    for (const auto& p : model->parameters()) {
      if (p.name == "fc1.weight") p.value.select(0, 1).select(0, 2).fill_(std::nan(""));
    }
  }
  auto data = std::make_shared<TensorDataset>(torch::randn({4, 4}), torch::randn({4, 3}));
  Benchmark bench(model, DataLoader(data), {}, {}, MetricSet::from_names({}, {"MSE"}));
  RunOptions ro;
  ro.quiet = true;
  ro.device = kLazy;
  const neurobench::Results r = bench.run(ro);
  REQUIRE(r.run.contains("non_finite_inputs"));
  CHECK(r.run["non_finite_inputs"][0]["tensor"] == "fc1.weight");
  CHECK(r.run["non_finite_inputs"][0]["first_index"] == neurobench::Json::array({1, 2}));
  CHECK(r.run["non_finite_inputs"].size() == 1);  // the other weights are finite
  ro.strict = true;
  REQUIRE_THROWS_WITH(bench.run(ro), Catch::Contains("fc1.weight") && Catch::Contains("strict"));
}
