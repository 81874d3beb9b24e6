// SPDX-License-Identifier: Apache-2.0
// DenseMACs (docs/metrics.md#dense-macs-and-flops) and the kOperators layer events it observes.
// Models come from tests/fixtures/dense_macs/make_dense_macs.py (input shapes in its docstrings),
// tests/fixtures/models and tests/fixtures/recurrent. Expected counts are written out as the
// arithmetic that gives them: MACs per sample, which are exact in a double.
#include <neurobench/metrics/builtin.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

#include "support.hpp"

using neurobench::Json;
using neurobench::metrics::DenseMACs;
using neurobench::test::fixture;

namespace {

std::shared_ptr<neurobench::TorchScriptModel> load(const std::string& relative,
                                                   bool stepwise = false) {
  neurobench::TorchScriptOptions options;
  options.stepwise = stepwise;
  return std::make_shared<neurobench::TorchScriptModel>(fixture(relative), options);
}

neurobench::Results run(const std::shared_ptr<neurobench::NeuroBenchModel>& model,
                        const std::shared_ptr<neurobench::Dataset>& data,
                        const std::vector<std::string>& workload, int64_t batch_size = 2,
                        neurobench::LayerSetup layers = neurobench::Benchmark::default_layers()) {
  neurobench::LoaderOptions options;
  options.batch_size = batch_size;
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, options), {}, {},
                              neurobench::MetricSet::from_names({}, workload), std::move(layers));
  neurobench::RunOptions run_options;
  run_options.quiet = true;
  return bench.run(run_options);
}

// Random data of the given shape (DenseMACs reads shapes only), zeros as targets.
std::shared_ptr<neurobench::Dataset> data_of(std::vector<int64_t> shape) {
  torch::manual_seed(1);
  const torch::Tensor data = torch::randn(shape);
  return std::make_shared<neurobench::TensorDataset>(data, torch::zeros({shape[0]}));
}

std::shared_ptr<neurobench::Dataset> npz(const std::string& relative) {
  return std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(fixture(relative)));
}

// The run's DenseMACs value; requires that no metric failed and that FLOPs are twice the MACs.
double macs_of(const neurobench::Results& r) {
  for (const auto& f : r.failures) UNSCOPED_INFO(f.metric << ": " << f.message);
  REQUIRE(r.ok());
  const Json& value = r.values.at("DenseMACs");
  REQUIRE(value.at("FLOPs").get<double>() == 2 * value.at("MACs").get<double>());
  return value.at("MACs").get<double>();
}

double synops_dense_of(const neurobench::Results& r) {
  return r.values.at("SynapticOperations").at("Dense").get<double>();
}

// A model that only answers `describe()`: direct calls of `on_operator` need no real model.
class DenseStubModel final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& b) override { return b; }
  std::vector<neurobench::ModuleInfo> modules() const override { return {}; }
  std::string describe() const override { return "stub"; }
};

const neurobench::ModuleInfo& stub_module() {
  static const neurobench::ModuleInfo info{"block.layer", "MyLayer", "MyLayer", {}, {}};
  return info;
}

// One call of `op` given straight to a fresh DenseMACs, over one sample: its MACs.
double one_call(const std::string& op, const std::vector<c10::IValue>& args) {
  DenseMACs metric;
  metric.reset();
  metric.on_operator(neurobench::OperatorCall{stub_module(), op, "block.layer", args, nullptr});
  DenseStubModel model;
  const neurobench::Batch batch{torch::zeros({1, 1}), torch::zeros({1}), {}};
  const torch::Tensor preds = torch::zeros({1});
  metric.update(neurobench::WorkloadInput{model, preds, batch});
  const Json value = metric.compute();
  REQUIRE(value.at("FLOPs").get<double>() == 2 * value.at("MACs").get<double>());
  return value.at("MACs").get<double>();
}

c10::IValue dense_tensor_list(const std::vector<torch::Tensor>& tensors) {
  c10::List<torch::Tensor> list;
  for (const auto& t : tensors) list.push_back(t);
  return c10::IValue(list);
}

c10::IValue ints(std::vector<int64_t> values) { return c10::IValue(values); }

}  // namespace

TEST_CASE("DenseMACs is registered and found by name", "[metrics][dense_macs]") {
  const auto metric = neurobench::workload_metrics().create("dense_macs");
  REQUIRE(metric->name() == "DenseMACs");
  REQUIRE(metric->observes() == neurobench::LayerEvents::kOperators);
  const std::vector<std::string> ops = metric->observed_operators();
  for (const char* op :
       {"aten::linear", "aten::conv2d", "aten::_convolution", "aten::lstm", "aten::gru_cell",
        "aten::matmul", "aten::mm", "aten::bmm", "aten::addmm"}) {
    INFO(op);
    REQUIRE(std::find(ops.begin(), ops.end(), op) != ops.end());
  }
}

TEST_CASE("DenseMACs counts rows x in x out per Linear call, as SynapticOperations' Dense",
          "[metrics][dense_macs]") {
  // Mlp: fc1 Linear(4, 6), two Blocks with Linear(6, 6), head Linear(6, 3), all with biases
  // (not counted), on (batch, 3, 4) data: 3 rows per sample.
  const char* file =
      GENERATE("models/mlp_scripted.pt", "models/mlp_traced.pt", "models/mlp_frozen.pt");
  INFO(file);
  const auto r = run(load(file), data_of({5, 3, 4}), {"DenseMACs", "SynapticOperations"});
  const double expected = 3 * (4 * 6 + 6 * 6 + 6 * 6 + 6 * 3);
  REQUIRE(macs_of(r) == expected);
  REQUIRE(synops_dense_of(r) == expected);
}

TEST_CASE("DenseMACs counts every output element of a grouped, strided, padded convolution",
          "[metrics][dense_macs]") {
  // conv1: Conv2d(4, 6, 3, stride 2, padding 1, groups 2) on 9x9: (9 + 2 - 3) / 2 + 1 = 5.
  // conv2: Conv2d(6, 3, (3, 1), padding 'same', dilation 2): 5x5 stays 5x5.
  const auto r = run(load("dense_macs/conv_groups.pt"), data_of({3, 4, 9, 9}), {"DenseMACs"});
  REQUIRE(macs_of(r) == 6 * 5 * 5 * (4 / 2 * 3 * 3) + 3 * 5 * 5 * (6 * 3 * 1));
}

TEST_CASE("DenseMACs reads traced convolutions (aten::_convolution), transposed ones too",
          "[metrics][dense_macs]") {
  // Conv1d(3, 4, 5, stride 2, padding 2) on length 20: (20 + 4 - 4 - 1) / 2 + 1 = 10 outputs.
  // ConvTranspose1d(4, 2, 3, stride 2): each of the 4 x 10 inputs meets 2 x 3 weights.
  const auto r = run(load("dense_macs/conv_traced.pt"), data_of({3, 3, 20}), {"DenseMACs"});
  REQUIRE(macs_of(r) == 4 * 10 * (3 * 5) + 4 * 10 * (2 * 3));
}

TEST_CASE("DenseMACs counts recurrent layers per layer, direction and timestep",
          "[metrics][dense_macs]") {
  SECTION("LSTM(4, 3), 2 layers, bidirectional, batch_first, on 3 timesteps") {
    const auto r = run(load("recurrent/lstm_2layer_bi_batch_first_hx.pt"),
                       npz("recurrent/lstm_2layer_bi_batch_first_hx.npz"), {"DenseMACs"});
    // Layer 1 reads both directions of layer 0: 2 x 3 features.
    REQUIRE(macs_of(r) == 3 * 2 * (4 * 3 * (4 + 3) + 4 * 3 * (2 * 3 + 3)));
  }
  SECTION("LSTM(4, 3, proj_size=2), which SynapticOperations does not count") {
    const auto r =
        run(load("recurrent/lstm_proj.pt"), npz("recurrent/lstm_proj.npz"), {"DenseMACs"});
    // The recurrence reads the projected state (2), then the projection maps 3 to 2.
    REQUIRE(macs_of(r) == 3 * (4 * 3 * (4 + 2) + 2 * 3));
  }
  SECTION("RNN(5, 4), 2 layers, as SynapticOperations' Dense") {
    const auto r =
        run(load("recurrent/rnn_tanh_2layer_spikes.pt"),
            npz("recurrent/rnn_tanh_2layer_spikes.npz"), {"DenseMACs", "SynapticOperations"});
    REQUIRE(macs_of(r) == 4 * (4 * (5 + 4) + 4 * (4 + 4)));
    REQUIRE(synops_dense_of(r) == 4 * (4 * (5 + 4) + 4 * (4 + 4)));
  }
  SECTION("GRU(3, 2) on packed sequences: only the steps computed count") {
    const auto r =
        run(load("recurrent/gru_packed.pt"), npz("recurrent/gru_packed.npz"), {"DenseMACs"});
    // Lengths 4, 2, 3 and 1 over 4 samples.
    REQUIRE(macs_of(r) == (4 + 2 + 3 + 1) * (3 * 2 * (3 + 2)) / 4.0);
  }
}

TEST_CASE("DenseMACs counts recurrent cells once per call", "[metrics][dense_macs]") {
  SECTION("GRUCell(3, 5) over 4 timesteps") {
    const auto r = run(load("dense_macs/gru_cell.pt"), data_of({3, 4, 3}), {"DenseMACs"});
    REQUIRE(macs_of(r) == 4 * (3 * 5 * (3 + 5)));
  }
  SECTION("RNNCell(3, 5) over 4 timesteps, as SynapticOperations' Dense") {
    const auto r = run(load("dense_macs/rnn_cell.pt"), data_of({3, 4, 3}),
                       {"DenseMACs", "SynapticOperations"});
    REQUIRE(macs_of(r) == 4 * (5 * (3 + 5)));
    REQUIRE(synops_dense_of(r) == 4 * (5 * (3 + 5)));
  }
}

TEST_CASE("DenseMACs counts the matmul family anywhere in the model, each call once",
          "[metrics][dense_macs]") {
  // On (batch, 5, 4): proj (MyDense) matmul (5, 4) x (4, 6); bmm (5, 6) x (6, 5); addmm
  // (5, 5) x (5, 3), its bias not counted; mm (5, 3) x (3, 2); matmul of (2, 1, 5, 5) with
  // (batch, 5, 6), the batch dimensions broadcast to (2, batch).
  const double expected = 5 * 4 * 6 + 5 * 6 * 5 + 5 * 5 * 3 + 5 * 3 * 2 + 2 * (5 * 5 * 6);
  const auto model = load("dense_macs/matmul.pt");
  const auto data = data_of({3, 5, 4});
  SECTION("with the default connection classes") {
    const auto r = run(model, data, {"DenseMACs", "SynapticOperations"});
    REQUIRE(macs_of(r) == expected);
    REQUIRE(synops_dense_of(r) == 0);  // no connection layer in the model
  }
  SECTION("with the custom class that calls matmul listed as a connection layer") {
    neurobench::LayerSetup layers = neurobench::Benchmark::default_layers();
    layers.connection_types.push_back("MyDense");
    const auto r = run(model, data, {"DenseMACs"}, 2, layers);
    REQUIRE(macs_of(r) == expected);
  }
}

TEST_CASE("DenseMACs gives the same counts for a frozen model as for the model it came from",
          "[metrics][dense_macs]") {
  SECTION("conv, Linear and a matmul with a parameter") {
    // Conv2d(1, 2, 3, padding 1) on 4x4, Linear(32, 5), matmul (5) x (5, 3).
    const double expected = 2 * 4 * 4 * (1 * 3 * 3) + 32 * 5 + 5 * 3;
    const auto frozen = load("dense_macs/mixed_frozen.pt");
    REQUIRE(frozen->is_inlined());
    REQUIRE(macs_of(run(frozen, data_of({3, 1, 4, 4}), {"DenseMACs"})) == expected);
    REQUIRE(macs_of(run(load("dense_macs/mixed_scripted.pt"), data_of({3, 1, 4, 4}),
                        {"DenseMACs"})) == expected);
  }
  SECTION("conv and batch norm folded, two Linear layers reading the same input") {
    // Conv2d(1, 2, 3, stride 2, padding 1) on 4x4 gives 2x2; two Linear(8, 3).
    const double expected = 2 * 2 * 2 * (1 * 3 * 3) + 2 * (8 * 3);
    const char* file = GENERATE("models/convbn_frozen.pt", "models/convbn_traced_frozen.pt");
    INFO(file);
    REQUIRE(macs_of(run(load(file), data_of({3, 1, 4, 4}), {"DenseMACs"})) == expected);
  }
}

TEST_CASE("DenseMACs adds up the calls of a step-wise model over its timesteps",
          "[metrics][dense_macs]") {
  // Linear(3, 5) and Linear(5, 2) per timestep, 6 timesteps.
  const auto r = run(load("models/snn_reset.pt", /*stepwise=*/true), data_of({3, 6, 3}),
                     {"DenseMACs", "SynapticOperations"});
  REQUIRE(macs_of(r) == 6 * (3 * 5 + 5 * 2));
  REQUIRE(synops_dense_of(r) == 6 * (3 * 5 + 5 * 2));
}

TEST_CASE("DenseMACs agrees with SynapticOperations' Dense on unpadded conformance cases",
          "[metrics][dense_macs][conformance]") {
  const std::filesystem::path root = std::filesystem::path(NEUROBENCH_CONFORMANCE_DIR) / "cases";
  if (!std::filesystem::exists(root)) {
    WARN("no conformance cases at " << root.string());
    return;
  }
  const std::string name = GENERATE("tm_synops_linear_4", "tm_synops_conv2d_12x12");
  INFO(name);
  std::ifstream in(root / name / "expected.json");
  const Json expected = Json::parse(in);
  const auto model = std::make_shared<neurobench::TorchScriptModel>(root / name / "model.pt");
  const auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(root / name / "data.npz"));
  const double dense = expected.at("SynapticOperations").at("Dense").get<double>();
  REQUIRE(macs_of(run(model, data, {"DenseMACs"}, 1)) == dense);
  // Linear(20, 20), (20, 25), (25, 25), (25, 25); Conv2d(1, 1, 3) on 12x12 gives 10x10.
  REQUIRE(dense == (name == "tm_synops_linear_4" ? 20 * 20 + 20 * 25 + 25 * 25 + 25 * 25
                                                 : 10 * 10 * (3 * 3)));
}

TEST_CASE("DenseMACs follows each operator's shape rule", "[metrics][dense_macs]") {
  c10::InferenceMode guard;
  const torch::Tensor none;
  SECTION("matmul: vectors, matrices and broadcast batch dimensions") {
    CHECK(one_call("aten::matmul", {torch::ones({4}), torch::ones({4})}) == 4);
    CHECK(one_call("aten::matmul", {torch::ones({3, 4}), torch::ones({4})}) == 3 * 4);
    CHECK(one_call("aten::matmul", {torch::ones({4}), torch::ones({4, 5})}) == 4 * 5);
    CHECK(one_call("aten::matmul", {torch::ones({4}), torch::ones({7, 4, 5})}) == 7 * 4 * 5);
    CHECK(one_call("aten::matmul", {torch::ones({2, 1, 3, 4}), torch::ones({7, 4, 5})}) ==
          2 * 7 * 3 * 4 * 5);
  }
  SECTION("mm, bmm, addmm and baddbmm; biases are not MACs") {
    CHECK(one_call("aten::mm", {torch::ones({3, 4}), torch::ones({4, 5})}) == 3 * 4 * 5);
    CHECK(one_call("aten::bmm", {torch::ones({2, 3, 4}), torch::ones({2, 4, 5})}) == 2 * 3 * 4 * 5);
    CHECK(one_call("aten::addmm", {torch::ones({5}), torch::ones({3, 4}), torch::ones({4, 5}), 1,
                                   1}) == 3 * 4 * 5);
    CHECK(one_call("aten::baddbmm", {torch::ones({5}), torch::ones({2, 3, 4}),
                                     torch::ones({2, 4, 5}), 1, 1}) == 2 * 3 * 4 * 5);
  }
  SECTION("convolutions: 3-D, unbatched, 'valid', one value for every dimension") {
    // (5 - 3) / 2 + 1 = 2 per dimension.
    CHECK(one_call("aten::conv3d", {torch::ones({2, 2, 5, 5, 5}), torch::ones({4, 2, 3, 3, 3}),
                                    none, ints({2, 2, 2}), ints({0, 0, 0}), ints({1, 1, 1}), 1}) ==
          2 * 4 * 2 * 2 * 2 * (2 * 3 * 3 * 3));
    CHECK(one_call("aten::conv1d", {torch::ones({3, 10}), torch::ones({4, 3, 3}), none, ints({1}),
                                    std::string("valid"), ints({1}), 1}) == 4 * 8 * (3 * 3));
    // Stride 2 and padding 1 given once for both dimensions: (6 + 2 - 3) / 2 + 1 = 3.
    CHECK(one_call("aten::conv2d", {torch::ones({1, 2, 6, 6}), torch::ones({2, 2, 3, 3}), none,
                                    ints({2}), ints({1}), ints({1}), 1}) ==
          2 * 3 * 3 * (2 * 3 * 3));
  }
  SECTION("a transposed convolution with groups") {
    // Weight (in 4, out 6 / groups 2, 2, 2): each input element meets 3 x 2 x 2 weights.
    CHECK(one_call("aten::conv_transpose2d",
                   {torch::ones({1, 4, 3, 3}), torch::ones({4, 3, 2, 2}), none, ints({2, 2}),
                    ints({0, 0}), ints({0, 0}), 2, ints({1, 1})}) == 4 * 3 * 3 * (3 * 2 * 2));
  }
  SECTION("an LSTM cell") {
    const torch::Tensor h = torch::zeros({3, 5});
    CHECK(one_call("aten::lstm_cell",
                   {torch::ones({3, 4}), dense_tensor_list({h, h}), torch::ones({20, 4}),
                    torch::ones({20, 5}), torch::ones({20}), torch::ones({20})}) ==
          3 * (4 * 5 * (4 + 5)));
  }
  SECTION("recurrent layers: packed, unbatched, without biases") {
    // rnn_tanh over packed data of batch sizes 3, 2, 1: 6 rows.
    const std::vector<torch::Tensor> rnn = {torch::ones({2, 3}), torch::ones({2, 2}),
                                            torch::ones({2}), torch::ones({2})};
    CHECK(one_call("aten::rnn_tanh", {torch::ones({6, 3}), torch::tensor({3, 2, 1}),
                                      torch::zeros({1, 3, 2}), dense_tensor_list(rnn), true,
                                      int64_t{1}, 0.0, false, false}) == 6 * (2 * (3 + 2)));
    // A 2-layer GRU(3, 4) without biases on an unbatched sequence of 5 steps.
    const std::vector<torch::Tensor> gru = {torch::ones({12, 3}), torch::ones({12, 4}),
                                            torch::ones({12, 4}), torch::ones({12, 4})};
    CHECK(one_call("aten::gru", {torch::ones({5, 3}), torch::zeros({2, 4}), dense_tensor_list(gru),
                                 false, int64_t{2}, 0.0, false, false, false}) ==
          5 * (3 * 4 * (3 + 4) + 3 * 4 * (4 + 4)));
  }
}

TEST_CASE("operator calls whose shapes do not fit are MetricErrors naming the call site",
          "[metrics][dense_macs]") {
  c10::InferenceMode guard;
  const torch::Tensor none;
  const auto require_error = [](const std::string& op, const std::vector<c10::IValue>& args,
                                const std::string& telling) {
    INFO(op);
    REQUIRE_THROWS_AS(one_call(op, args), neurobench::MetricError);
    REQUIRE_THROWS_WITH(one_call(op, args), Catch::Contains("DenseMACs") &&
                                                Catch::Contains("'block.layer' (MyLayer)") &&
                                                Catch::Contains(op) && Catch::Contains(telling));
  };
  require_error("aten::linear", {torch::ones({2, 3}), torch::ones({4, 5}), none},
                "input of shape [2, 3] does not fit a weight of shape [4, 5]");
  require_error("aten::linear", {torch::ones({2, 3}), 1.0, none},
                "argument 1 (weight) is not a tensor");
  require_error("aten::matmul", {torch::ones({2, 3, 4}), torch::ones({5, 4, 2})},
                "do not broadcast");
  require_error("aten::matmul", {torch::ones({3}), torch::ones({4})}, "cannot be multiplied");
  require_error("aten::bmm", {torch::ones({3, 4}), torch::ones({4, 5})},
                "are not batches of matrices");
  require_error("aten::conv2d",
                {torch::ones({1, 2, 2, 2}), torch::ones({2, 2, 3, 3}), none, ints({1, 1}),
                 ints({0, 0}), ints({1, 1}), 1},
                "gives no output");
  require_error("aten::conv2d",
                {torch::ones({1, 3, 5, 5}), torch::ones({2, 2, 3, 3}), none, ints({1, 1}),
                 ints({0, 0}), ints({1, 1}), 1},
                "has 3 channels");
  require_error("aten::gru_cell",
                {torch::ones({2, 3}), torch::zeros({2, 4}), torch::ones({12, 3}),
                 torch::ones({8, 4}), none, none},
                "expected (batch, input)");
  const std::vector<torch::Tensor> wrong = {torch::ones({12, 3}), torch::ones({12, 4}),
                                            torch::ones({12, 3}), torch::ones({12, 4})};
  require_error("aten::gru",
                {torch::ones({5, 1, 3}), torch::zeros({2, 1, 4}), dense_tensor_list(wrong), false,
                 int64_t{2}, 0.0, false, false, false},
                "layer 1 direction 0");
  require_error("aten::gru", {torch::ones({5, 1, 3})}, "1 arguments, expected 9");
}

namespace {

// Counts the calls of the operators it names, wherever they are.
class OperatorCounter final : public neurobench::AccumulatedMetric {
 public:
  explicit OperatorCounter(std::vector<std::string> ops) : ops_(std::move(ops)) {}
  void reset() override { calls_.clear(); }
  void update(const neurobench::WorkloadInput& /*input*/) override {}
  [[nodiscard]] Json compute() const override { return calls_; }
  [[nodiscard]] neurobench::LayerEvents observes() const override {
    return neurobench::LayerEvents::kOperators;
  }
  [[nodiscard]] std::vector<std::string> observed_operators() const override { return ops_; }
  void on_operator(const neurobench::OperatorCall& call) override {
    if (call.output != nullptr) calls_["with an output"] = true;  // before-hooks have none
    const std::string key = std::string(call.op) + " in '" + std::string(call.site) + "'";
    calls_[key] = calls_.value(key, 0) + 1;
  }
  [[nodiscard]] std::string name() const override { return name_; }
  std::string name_ = "OperatorCounter";

 private:
  std::vector<std::string> ops_;
  Json calls_ = Json::object();
};

}  // namespace

TEST_CASE("a metric observing kOperators receives the calls of the operators it names",
          "[metrics][dense_macs][hooks]") {
  neurobench::MetricSet metrics;
  metrics.workload_metrics.push_back(
      std::make_unique<OperatorCounter>(std::vector<std::string>{"aten::matmul", "aten::mm"}));
  auto bad = std::make_unique<OperatorCounter>(std::vector<std::string>{"matmul"});
  bad->name_ = "BadCounter";
  metrics.workload_metrics.push_back(std::move(bad));
  metrics.workload_metrics.push_back(neurobench::workload_metrics().create("DenseMACs"));
  neurobench::LoaderOptions options;
  options.batch_size = 2;
  neurobench::Benchmark bench(load("dense_macs/matmul.pt"),
                              neurobench::DataLoader(data_of({3, 5, 4}), options), {}, {},
                              std::move(metrics));
  neurobench::RunOptions run_options;
  run_options.quiet = true;
  const neurobench::Results r = bench.run(run_options);

  // Two batches; `proj` is MyDense's path, the root's calls have an empty site.
  const Json expected = {
      {"aten::matmul in 'proj'", 2}, {"aten::mm in ''", 2}, {"aten::matmul in ''", 2}};
  REQUIRE(Json(r.values.at("OperatorCounter")).dump() == Json(expected).dump());
  // An operator name that is not qualified fails only the metric that gave it.
  REQUIRE(r.failures.size() == 1);
  REQUIRE(r.failures[0].metric == "BadCounter");
  REQUIRE_THAT(r.failures[0].message, Catch::Contains("'matmul' is not a qualified operator name"));
  REQUIRE(r.values.at("BadCounter").is_null());
  REQUIRE(r.values.at("DenseMACs").at("MACs").get<double>() > 0);
}

TEST_CASE("neurobench run --workload DenseMACs counts a conformance case's padded convolution",
          "[cli][dense_macs]") {
  const std::filesystem::path root =
      std::filesystem::path(NEUROBENCH_CONFORMANCE_DIR) / "cases" / "rx_cnn_classifier";
  if (!std::filesystem::exists(root)) {
    WARN("no conformance case at " << root.string());
    return;
  }
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  using neurobench::test::q;
  const auto r = neurobench::test::run_cli(
      "run --model " + q(root / "model.pt") + " --data " + q(root / "data.npz") +
      " --batch-size 4 --workload DenseMACs,SynapticOperations --quiet --json " + q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("DenseMACs"));
  const auto values = nlohmann::json::parse(neurobench::test::read_file(json));
  // conv1 Conv2d(1, 4, 3, padding 1) on 8x8 keeps 8x8; max-pooled to 4x4; conv2 Conv2d(4, 8, 3)
  // gives 2x2; fc1 Linear(32, 16); fc2 Linear(16, 5).
  const double macs = 4 * 8 * 8 * (1 * 3 * 3) + 8 * 2 * 2 * (4 * 3 * 3) + 32 * 16 + 16 * 5;
  REQUIRE(values["DenseMACs"]["MACs"].get<double>() == macs);
  REQUIRE(values["DenseMACs"]["FLOPs"].get<double>() == 2 * macs);
  // SynapticOperations' Dense leaves out conv1's taps on the zero padding: per output channel,
  // 8 x 8 x 9 taps of which 22 x 22 read the image (22 = 8 x 3 - 2 per row or column).
  REQUIRE(values["SynapticOperations"]["Dense"].get<double>() == macs - 4 * (8 * 8 * 9 - 22 * 22));
}
