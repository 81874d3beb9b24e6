// SPDX-License-Identifier: Apache-2.0
#include <neurobench/benchmark.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/model/model.hpp>

#include "file_digest.hpp"
#include "runtime/finite_check.hpp"
#include "support.hpp"

using neurobench::Benchmark;
using neurobench::DataLoader;
using neurobench::MetricSet;
using neurobench::TensorDataset;
using neurobench::TorchScriptModel;

namespace {

std::shared_ptr<TensorDataset> load(const std::string& name) {
  return std::make_shared<TensorDataset>(
      TensorDataset::from_npz(neurobench::test::fixture("core/" + name)));
}

DataLoader loader(std::shared_ptr<TensorDataset> ds, int64_t batch_size) {
  neurobench::LoaderOptions o;
  o.batch_size = batch_size;
  return DataLoader(std::move(ds), o);
}

neurobench::RunOptions quiet_run() {
  neurobench::RunOptions o;
  o.quiet = true;
  return o;
}

// A plain metric whose per-batch value is the batch's first target, to check the weighting.
class FirstTarget final : public neurobench::WorkloadMetric {
 public:
  neurobench::Json operator()(const neurobench::WorkloadInput& in) override {
    return in.batch.targets[0].item<double>();
  }
};

class Exploding final : public neurobench::WorkloadMetric {
 public:
  neurobench::Json operator()(const neurobench::WorkloadInput&) override {
    throw std::runtime_error("boom");
  }
};

}  // namespace

TEST_CASE("a benchmark reports static then workload metrics in the order asked",
          "[benchmark]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/classifier.pt"));
  Benchmark bench(model, loader(load("classifier.npz"), 4), {}, {},
                  MetricSet::from_names({"ParameterCount", "Footprint"},
                                        {"ClassificationAccuracy", "SynapticOperations"}));
  const auto r = bench.run(quiet_run());
  REQUIRE(r.ok());
  std::vector<std::string> keys;
  for (const auto& [k, v] : r.values.items()) keys.push_back(k);
  REQUIRE(keys == std::vector<std::string>{"ParameterCount", "Footprint",
                                           "ClassificationAccuracy", "SynapticOperations"});
  REQUIRE(r.values["ParameterCount"].get<int64_t>() == 4 * 8 + 8 + 8 * 3 + 3);
  REQUIRE(r.values["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
  // Dense MACs per sample: 4*8 + 8*3
  REQUIRE(r.values["SynapticOperations"]["Dense"].get<double>() == 56.0);
  REQUIRE(r.samples == 10);
  REQUIRE(r.batches == 3);
}

TEST_CASE("plain workload metrics are weighted by batch size", "[benchmark]") {
  auto ds = std::make_shared<TensorDataset>(torch::zeros({5, 1}),
                                            torch::tensor({1.0, 1.0, 1.0, 4.0, 4.0}));
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/regressor.pt"));
  // Model input is (5, 1) but the regressor wants 3 features: use a pre-processor to pad.
  const auto r = [&] {
    std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
    pre.push_back(neurobench::make_pre_processor([](const neurobench::Batch& b) {
      neurobench::Batch out = b;
      out.data = b.data.expand({b.data.size(0), 3}).contiguous();
      return out;
    }));
    neurobench::MetricSet m;
    m.workload_metrics.push_back(std::make_unique<FirstTarget>());
    return Benchmark(model, loader(ds, 3), std::move(pre), {}, std::move(m)).run(quiet_run());
  }();
  // batches: [1,1,1] -> 1 (weight 3/5), [4,4] -> 4 (weight 2/5)
  REQUIRE(r.values["FirstTarget"].get<double>() == Approx(1.0 * 3 / 5 + 4.0 * 2 / 5));
}

TEST_CASE("a failing metric is reported by name and the others still complete",
          "[benchmark]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/classifier.pt"));
  neurobench::MetricSet metrics = MetricSet::from_names({"Footprint"}, {"ClassificationAccuracy"});
  metrics.workload_metrics.insert(metrics.workload_metrics.begin(), std::make_unique<Exploding>());
  Benchmark bench(model, loader(load("classifier.npz"), 4), {}, {}, std::move(metrics));
  const auto r = bench.run(quiet_run());
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.failures.size() == 1);
  REQUIRE(r.failures[0].metric == "Exploding");
  REQUIRE_THAT(r.failures[0].message, Catch::Contains("boom"));
  REQUIRE(r.values["Exploding"].is_null());
  REQUIRE(r.values["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
}

TEST_CASE("a spiking layer with no known neuron cost fails NeuronOperations only",
          "[benchmark]") {
  neurobench::TorchScriptOptions opts;
  opts.stepwise = true;
  auto model =
      std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/rleaky_snn.pt"), opts);
  auto layers = Benchmark::default_layers();
  Benchmark bench(model, loader(load("rleaky_snn.npz"), 4), {}, {},
                  MetricSet::from_names({}, {"NeuronOperations", "MembraneUpdates"}), layers);
  const auto r = bench.run(quiet_run());
  REQUIRE(r.failures.size() == 1);
  REQUIRE(r.failures[0].metric == "NeuronOperations");
  REQUIRE_THAT(r.failures[0].message, Catch::Contains("RLeaky"));
  REQUIRE(r.values["MembraneUpdates"].get<double>() > 0);
}

TEST_CASE("Argmax turns scores into classes for ClassificationAccuracy, batches of one included",
          "[benchmark][processors]") {
  // The regressor's two outputs per sample serve as scores of two classes.
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/regressor.pt"));
  const torch::Tensor data = load("regressor.npz")->data();
  const torch::Tensor classes = model->forward(data).argmax(1);
  torch::Tensor targets = classes.clone();
  targets[0] = 1 - targets[0];
  targets[3] = 1 - targets[3];  // 10 of 12 right
  auto ds = std::make_shared<TensorDataset>(data, targets);
  // Batch sizes 1 (every batch 0-d after Argmax), 5 (5, 5, 2), 11 (11, 1) and 12.
  for (const int64_t batch_size : {1, 5, 11, 12}) {
    INFO("batch size " << batch_size);
    std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
    post.push_back(neurobench::post_processors().create("Argmax"));
    Benchmark bench(model, loader(ds, batch_size), {}, std::move(post),
                    MetricSet::from_names({}, {"ClassificationAccuracy"}));
    const auto r = bench.run(quiet_run());
    REQUIRE(r.ok());
    REQUIRE(r.samples == 12);
    REQUIRE(r.values["ClassificationAccuracy"].get<double>() == Approx(10.0 / 12).epsilon(1e-6));
  }
}

TEST_CASE("a step-wise run of a traced snnTorch network carries the stateless-network warnings "
          "once each",
          "[benchmark][stepwise]") {
  const auto ds = std::make_shared<TensorDataset>(
      TensorDataset::from_npz(neurobench::test::fixture("stepwise/traced_snntorch.npz")));
  std::ifstream in(neurobench::test::fixture("stepwise/expected.json"));
  const auto expected = nlohmann::json::parse(in).at("traced_snntorch");
  neurobench::TorchScriptOptions opts;
  opts.stepwise = true;
  // Hooks (ActivationSparsity) and a timing pass (Latency) run the model in other ways too.
  const auto run = [&](const std::string& file) {
    auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture(file), opts);
    std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
    post.push_back(neurobench::post_processors().create("ChooseMaxCount"));
    neurobench::RunOptions o = quiet_run();
    o.timing.warmup = 0;
    o.timing.runs = 2;
    Benchmark bench(model, loader(ds, 3), {}, std::move(post),
                    MetricSet::from_names({}, {"ClassificationAccuracy", "ActivationSparsity",
                                               "Latency"}));
    return bench.run(o);
  };
  const auto count = [](const neurobench::Results& r, const std::string& part) {
    return std::count_if(r.warnings.begin(), r.warnings.end(), [&](const std::string& w) {
      return w.find(part) != std::string::npos;
    });
  };
  const auto traced = run("stepwise/traced_snntorch.pt");
  REQUIRE(traced.ok());
  CHECK(traced.values["ClassificationAccuracy"].get<double>() ==
        Approx(expected.at("stateless_accuracy").get<double>()));
  CHECK(count(traced, "state is lost") == 2);
  CHECK(count(traced, "no forward method stores the membrane 'mem'") == 1);
  CHECK(count(traced, "no spiking neuron kept its state") == 1);
  // The same network, scripted with its state: Python's accuracy and no such warning.
  const auto stateful = run("stepwise/stateful_leaky.pt");
  REQUIRE(stateful.ok());
  CHECK(stateful.values["ClassificationAccuracy"].get<double>() ==
        Approx(expected.at("accuracy").get<double>()));
  CHECK(count(stateful, "state is lost") == 0);
}

TEST_CASE("a model without activation layers gets a warning, and the metric reports 0",
          "[benchmark]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/regressor.pt"));
  Benchmark bench(model, loader(load("regressor.npz"), 4), {}, {},
                  MetricSet::from_names({}, {"ActivationSparsity"}));
  const auto r = bench.run(quiet_run());
  REQUIRE(r.ok());
  REQUIRE(r.values["ActivationSparsity"].get<double>() == 0.0);
  REQUIRE(r.warnings.size() == 1);
  REQUIRE_THAT(r.warnings[0], Catch::Contains("no activation layers") && Catch::Contains("ReLU"));
}

TEST_CASE("predictions that do not match the targets abort the run with an InputError",
          "[benchmark]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/classifier.pt"));
  Benchmark bench(model, loader(load("wrong_targets_shape.npz"), 4), {}, {},
                  MetricSet::from_names({}, {"ClassificationAccuracy"}));
  REQUIRE_THROWS_AS(bench.run(quiet_run()), neurobench::InputError);
  REQUIRE_THROWS_WITH(bench.run(quiet_run()), Catch::Contains("[4]") && Catch::Contains("[4, 2]"));
}

TEST_CASE("a model that fails on the data is an InputError naming the model and shape",
          "[benchmark]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/classifier.pt"));
  Benchmark bench(model, loader(load("wrong_features.npz"), 4), {}, {},
                  MetricSet::from_names({}, {"ClassificationAccuracy"}));
  REQUIRE_THROWS_AS(bench.run(quiet_run()), neurobench::InputError);
  REQUIRE_THROWS_WITH(bench.run(quiet_run()),
                      Catch::Contains("classifier.pt") && Catch::Contains("[4, 5]"));
}

TEST_CASE("metric lists reject unknown, duplicate and misplaced names", "[benchmark]") {
  REQUIRE_THROWS_AS(MetricSet::from_names({}, {"Acuracy"}), neurobench::UsageError);
  REQUIRE_THROWS_WITH(MetricSet::from_names({"Footprint"}, {"footprint"}),
                      Catch::Contains("static metric"));
  REQUIRE_THROWS_WITH(MetricSet::from_names({"MSE", "mse"}, {}),
                      Catch::Contains("workload metric"));
  REQUIRE_THROWS_WITH(MetricSet::from_names({}, {"MSE", "mse"}), Catch::Contains("twice"));
}

TEST_CASE("running a benchmark twice gives the same results", "[benchmark]") {
  neurobench::TorchScriptOptions opts;
  opts.stepwise = true;
  auto model =
      std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/rleaky_snn.pt"), opts);
  Benchmark bench(model, loader(load("rleaky_snn.npz"), 4), {}, {},
                  MetricSet::from_names({"Footprint"}, {"MembraneUpdates", "SynapticOperations",
                                                        "ActivationSparsityByLayer"}));
  const auto a = bench.run(quiet_run());
  const auto b = bench.run(quiet_run());
  REQUIRE(a.values == b.values);
}

// ---------------------------------------------------------------------------------------------
// NaN and Inf in the data or the weights

TEST_CASE("find_non_finite counts NaN and Inf and gives the first as a multi-index",
          "[benchmark][finite]") {
  using neurobench::detail::find_non_finite;
  torch::Tensor t = torch::zeros({5, 2, 20});
  CHECK_FALSE(find_non_finite(t).has_value());
  t.index_put_({3, 0, 17}, std::numeric_limits<float>::quiet_NaN());
  t.index_put_({4, 1, 2}, -std::numeric_limits<float>::infinity());
  t.index_put_({4, 1, 3}, std::numeric_limits<float>::quiet_NaN());
  const auto found = find_non_finite(t);
  REQUIRE(found.has_value());
  CHECK(found->count == 3);
  CHECK(found->nan == 2);
  CHECK(found->numel == 200);
  CHECK(found->first_index == std::vector<std::int64_t>{3, 0, 17});
  CHECK(found->first_value == "nan");
  // The first in row-major order of the tensor as it reads, not as it is stored.
  const auto transposed = find_non_finite(t.permute({2, 1, 0}));
  REQUIRE(transposed.has_value());
  CHECK(transposed->first_index == std::vector<std::int64_t>{2, 1, 4});
  CHECK(transposed->first_value == "-inf");
  // Large finite values whose sum overflows are finite; integers and empty tensors have none.
  CHECK_FALSE(find_non_finite(torch::full({4}, 3e38F)).has_value());
  CHECK_FALSE(find_non_finite(torch::arange(10)).has_value());
  CHECK_FALSE(find_non_finite(torch::empty({0, 3})).has_value());
  const auto scalar = find_non_finite(torch::scalar_tensor(INFINITY, torch::kDouble));
  REQUIRE(scalar.has_value());
  CHECK(scalar->first_index.empty());
  CHECK(scalar->first_value == "inf");
}

TEST_CASE("NaN in the data is a warning naming the array, count and first index, in _run",
          "[benchmark][finite]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/regressor.pt"));
  const auto clean = load("regressor.npz");
  torch::Tensor data = clean->data().clone();
  data.index_put_({7, 1}, std::numeric_limits<float>::quiet_NaN());
  auto dataset = std::make_shared<TensorDataset>(data, clean->targets(),
                                                 std::map<std::string, torch::Tensor>{}, "nan.npz");
  Benchmark bench(model, loader(dataset, 4), {}, {}, MetricSet::from_names({}, {"MSE"}));
  const auto r = bench.run(quiet_run());
  // The first warning (the MSE itself, NaN, may bring one of its own).
  REQUIRE_FALSE(r.warnings.empty());
  CHECK(r.warnings[0] == "nan.npz: array 'data' holds 1 non-finite value (1 NaN, 0 infinite) of " +
                             std::to_string(data.numel()) + "; the first is data[7, 1] = nan");
  const neurobench::Json& records = r.run.at("non_finite_inputs");
  REQUIRE(records.size() == 1);
  CHECK(records[0]["tensor"] == "data");
  CHECK(records[0]["kind"] == "array");
  CHECK(records[0]["source"] == "nan.npz");
  CHECK(records[0]["count"] == 1);
  CHECK(records[0]["first_index"] == neurobench::Json::array({7, 1}));
  // Strict: an InputError before the run, not a result.
  neurobench::RunOptions strict = quiet_run();
  strict.strict = true;
  REQUIRE_THROWS_AS(bench.run(strict), neurobench::InputError);
  REQUIRE_THROWS_WITH(bench.run(strict), Catch::Contains("array 'data' holds 1 non-finite") &&
                                             Catch::Contains("strict"));
}

TEST_CASE("Inf in a weight is a warning naming the parameter, clean inputs give none",
          "[benchmark][finite]") {
  auto model = std::make_shared<TorchScriptModel>(neurobench::test::fixture("core/regressor.pt"));
  Benchmark clean(model, loader(load("regressor.npz"), 4), {}, {},
                  MetricSet::from_names({}, {"MSE"}));
  const auto ok = clean.run(quiet_run());
  CHECK(ok.warnings.empty());
  CHECK_FALSE(ok.run.contains("non_finite_inputs"));
  // Damage one weight of the loaded module in place.
  const auto params = model->parameters();
  REQUIRE_FALSE(params.empty());
  {
    torch::NoGradGuard no_grad;
    params[0].value.view({-1})[1] = std::numeric_limits<float>::infinity();
  }
  Benchmark damaged(model, loader(load("regressor.npz"), 4), {}, {},
                    MetricSet::from_names({}, {"MSE"}));
  const auto r = damaged.run(quiet_run());
  REQUIRE_FALSE(r.warnings.empty());
  CHECK_THAT(r.warnings[0],
             Catch::Contains("parameter '" + params[0].name + "' holds 1 non-finite value") &&
                 Catch::Contains("= inf"));
  CHECK(r.run.at("non_finite_inputs")[0]["kind"] == "parameter");
}

TEST_CASE("results record the SHA-256 of the model and data files", "[benchmark]") {
  const auto model_path = neurobench::test::fixture("core/regressor.pt");
  const auto data_path = neurobench::test::fixture("core/regressor.npz");
  auto model = std::make_shared<TorchScriptModel>(model_path);
  Benchmark bench(model, loader(load("regressor.npz"), 4), {}, {},
                  MetricSet::from_names({}, {"MSE"}));
  const auto r = bench.run(quiet_run());
  CHECK(r.run.at("model_sha256") == neurobench::test::sha256sum(model_path));
  CHECK(r.run.at("data_sha256") == neurobench::test::sha256sum(data_path));
}

// RunOptions::metrics_scope: the static metrics and the layer hooks see one submodule, the
// forward pass runs the whole model (as NeuroBench's metrics see a model's __net__()).
namespace {

// A scripted module of class `type` in a compilation unit of its own (several classes share a
// name across the model).
torch::jit::Module scope_module(const std::string& type) {
  return torch::jit::Module(c10::QualifiedName(type),
                            std::make_shared<torch::jit::CompilationUnit>());
}

// Linear(in, out) with `zeros` of its weights set to 0, then ReLU.
torch::jit::Module scope_block(const std::string& type, int64_t in, int64_t out, int64_t zeros) {
  torch::jit::Module fc = scope_module("Linear");
  torch::Tensor weight = torch::randn({out, in});
  weight.view(-1).narrow(0, 0, zeros).zero_();
  fc.register_parameter("weight", weight, false);
  fc.register_parameter("bias", torch::randn({out}), false);
  fc.define("def forward(self, x):\n    return torch.linear(x, self.weight, self.bias)\n");
  torch::jit::Module act = scope_module("ReLU");
  act.define("def forward(self, x):\n    return torch.relu(x)\n");
  torch::jit::Module block = scope_module(type);
  block.register_module("fc", fc);
  block.register_module("act", act);
  block.define("def forward(self, x):\n    return self.act.forward(self.fc.forward(x))\n");
  return block;
}

// b(a(x) @ mix): `a` Linear(4, 3) with 5 zero weights and a ReLU, the root's own matmul by
// `mix` (3 x 3), `b` Linear(3, 2) with 1 zero weight and a ReLU.
std::shared_ptr<TorchScriptModel> scope_two_blocks() {
  torch::manual_seed(7);
  torch::jit::Module root = scope_module("ScopeTwo");
  root.register_module("a", scope_block("ScopeBlockA", 4, 3, 5));
  root.register_parameter("mix", torch::randn({3, 3}), false);
  root.register_module("b", scope_block("ScopeBlockB", 3, 2, 1));
  root.define(
      "def forward(self, x):\n"
      "    return self.b.forward(torch.matmul(self.a.forward(x), self.mix))\n");
  return std::make_shared<TorchScriptModel>(root, neurobench::TorchScriptOptions{}, "two blocks");
}

// The width of the predictions: what the whole model returns.
class ScopePredsWidth final : public neurobench::WorkloadMetric {
 public:
  neurobench::Json operator()(const neurobench::WorkloadInput& in) override {
    return in.preds.size(1);
  }
  std::string name() const override { return "PredsWidth"; }
};

neurobench::Results scope_run(std::shared_ptr<neurobench::NeuroBenchModel> model,
                              torch::Tensor data, const std::string& scope,
                              bool stepwise_metrics = false) {
  const std::vector<std::string> statics = {"Footprint", "ParameterCount", "ConnectionSparsity"};
  std::vector<std::string> workload = {"ActivationSparsity", "ActivationSparsityByLayer",
                                       "SynapticOperations"};
  if (!stepwise_metrics) workload.push_back("DenseMACs");
  MetricSet metrics = MetricSet::from_names(statics, workload);
  metrics.workload_metrics.push_back(std::make_unique<ScopePredsWidth>());
  const int64_t n = data.size(0);
  auto ds = std::make_shared<TensorDataset>(std::move(data), torch::zeros({n}));
  Benchmark bench(std::move(model), loader(ds, 4), {}, {}, std::move(metrics));
  neurobench::RunOptions options = quiet_run();
  options.metrics_scope = scope;
  return bench.run(options);
}

}  // namespace

TEST_CASE("a metrics scope restricts the metrics to a submodule and the model still runs whole",
          "[benchmark][metrics_scope]") {
  torch::manual_seed(11);
  const torch::Tensor data = torch::randn({6, 4});
  const auto whole = scope_run(scope_two_blocks(), data, "");
  const auto a = scope_run(scope_two_blocks(), data, "a");
  const auto b = scope_run(scope_two_blocks(), data, "b");
  REQUIRE(whole.ok());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK_FALSE(whole.run.contains("metrics_scope"));
  CHECK(a.run["metrics_scope"] == "a");
  CHECK(a.run["model"] == "two blocks");
  // Parameters: a 4*3 + 3, b 3*2 + 2, the root's own mix 9.
  CHECK(whole.values["ParameterCount"] == 15 + 8 + 9);
  CHECK(a.values["ParameterCount"] == 15);
  CHECK(b.values["ParameterCount"] == 8);
  CHECK(a.values["Footprint"] == 15 * 4);
  CHECK(b.values["Footprint"] == 8 * 4);
  CHECK(whole.values["ConnectionSparsity"].get<double>() == Approx(0.3333));  // 6 of 18
  CHECK(a.values["ConnectionSparsity"].get<double>() == Approx(0.4167));      // 5 of 12
  CHECK(b.values["ConnectionSparsity"].get<double>() == Approx(0.1667));      // 1 of 6
  // Hooks: the connection layers of the scope; the root's matmul is outside both scopes.
  CHECK(whole.values["SynapticOperations"]["Dense"] == 12 + 6);
  CHECK(a.values["SynapticOperations"]["Dense"] == 12);
  CHECK(b.values["SynapticOperations"]["Dense"] == 6);
  CHECK(whole.values["DenseMACs"]["MACs"] == 12 + 9 + 6);
  CHECK(a.values["DenseMACs"]["MACs"] == 12);
  CHECK(b.values["DenseMACs"]["MACs"] == 6);
  // Activation layers of the scope only, with the values the whole model's layers have.
  const auto& by_layer = whole.values["ActivationSparsityByLayer"];
  REQUIRE(by_layer.size() == 2);
  CHECK(a.values["ActivationSparsityByLayer"] == neurobench::Json{{"a.act", by_layer["a.act"]}});
  CHECK(b.values["ActivationSparsityByLayer"] == neurobench::Json{{"b.act", by_layer["b.act"]}});
  CHECK(a.values["ActivationSparsity"].get<double>() == Approx(by_layer["a.act"].get<double>()));
  CHECK(b.values["ActivationSparsity"].get<double>() == Approx(by_layer["b.act"].get<double>()));
  // The predictions are the whole model's, 2 wide, with or without the scope.
  CHECK(a.values["PredsWidth"] == 2);
  CHECK(b.values["PredsWidth"] == 2);
}

TEST_CASE("a metrics scope may be a nested submodule", "[benchmark][metrics_scope]") {
  const auto r = scope_run(scope_two_blocks(), torch::randn({5, 4}), "a.fc");
  REQUIRE(r.ok());
  CHECK(r.run["metrics_scope"] == "a.fc");
  CHECK(r.values["ParameterCount"] == 15);
  CHECK(r.values["SynapticOperations"]["Dense"] == 12);
  CHECK(r.values["DenseMACs"]["MACs"] == 12);
  CHECK(r.values["PredsWidth"] == 2);
  // No activation layer in the scope: 0, and the warning names the scope.
  CHECK(r.values["ActivationSparsity"] == 0.0);
  const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
    return w.find("no activation layers found in two blocks, submodule 'a.fc'") !=
           std::string::npos;
  });
  CHECK(warned);
}

TEST_CASE("a metrics scope that is no submodule is a UsageError naming it and the submodules",
          "[benchmark][metrics_scope]") {
  const torch::Tensor data = torch::randn({4, 4});
  REQUIRE_THROWS_AS(scope_run(scope_two_blocks(), data, "c"), neurobench::UsageError);
  REQUIRE_THROWS_WITH(scope_run(scope_two_blocks(), data, "c"),
                      Catch::Contains("metrics scope 'c': two blocks has no submodule 'c'") &&
                          Catch::Contains("top-level submodules: a, b"));
  // A nested path also lists the submodules of the deepest part that exists.
  REQUIRE_THROWS_WITH(scope_run(scope_two_blocks(), data, "a.conv"),
                      Catch::Contains("no submodule 'a.conv'") &&
                          Catch::Contains("top-level submodules: a, b") &&
                          Catch::Contains("the submodules of 'a': a.fc, a.act"));
  // A parameter is not a submodule; neither are paths with empty parts.
  for (const char* path : {"mix", "a.", ".a", "a..fc"}) {
    INFO(path);
    REQUIRE_THROWS_AS(scope_run(scope_two_blocks(), data, path), neurobench::UsageError);
  }
}

TEST_CASE("a metrics scope on a step-wise snnTorch-style network sees its neurons' state",
          "[benchmark][metrics_scope]") {
  // snn_reset.pt: fc1 Linear(3, 5), lif1, fc2 Linear(5, 2), lif2; reset() before each batch.
  auto load_snn = [] {
    return std::make_shared<TorchScriptModel>(neurobench::test::fixture("models/snn_reset.pt"),
                                              neurobench::TorchScriptOptions{true});
  };
  torch::manual_seed(3);
  const torch::Tensor data = torch::rand({4, 6, 3}) * 3;
  const auto whole = scope_run(load_snn(), data, "", /*stepwise_metrics=*/true);
  const auto lif2 = scope_run(load_snn(), data, "lif2", true);
  const auto fc2 = scope_run(load_snn(), data, "fc2", true);
  REQUIRE(whole.ok());
  // lif2 holds no connection layer: its connection sparsity is undefined, a failure.
  REQUIRE(lif2.failures.size() == 1);
  CHECK(lif2.failures[0].metric == "ConnectionSparsity");
  CHECK(lif2.values["ConnectionSparsity"].is_null());
  REQUIRE(fc2.ok());
  const auto& by_layer = whole.values["ActivationSparsityByLayer"];
  REQUIRE(by_layer.contains("lif2"));
  CHECK(lif2.values["ActivationSparsityByLayer"] == neurobench::Json{{"lif2", by_layer["lif2"]}});
  CHECK(lif2.values["ActivationSparsity"].get<double>() == Approx(by_layer["lif2"].get<double>()));
  // fc2's synaptic operations: 5 x 2 dense per timestep; its effective ACs are the spikes of
  // lif1 (outside the scope) times its 2 outputs, as in the whole model's count.
  CHECK(fc2.values["SynapticOperations"]["Dense"] == 6 * 5 * 2);
  CHECK(fc2.values["ParameterCount"] == 5 * 2 + 2);
  CHECK(whole.values["SynapticOperations"]["Dense"] == 6 * (3 * 5 + 5 * 2));
  CHECK(fc2.values["PredsWidth"] == 6);  // spikes stacked over the timesteps: (4, 6, 2)
}
