// SPDX-License-Identifier: Apache-2.0
#include <neurobench/metrics/builtin.hpp>

#include <cmath>
#include <random>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>

#include "support.hpp"

using neurobench::Json;
using neurobench::WorkloadInput;

namespace {

// A model that only describes itself (metrics that read model structure need nothing else).
class NoModel final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& b) override { return b; }
  std::vector<neurobench::ModuleInfo> modules() const override { return modules_; }
  std::string describe() const override { return "no model"; }
  std::vector<neurobench::ModuleInfo> modules_;
};

Json plain(neurobench::WorkloadMetric& m, const torch::Tensor& preds, const torch::Tensor& targets) {
  NoModel model;
  neurobench::Batch batch{targets, targets, {}};
  return m(WorkloadInput{model, preds, batch});
}

}  // namespace

TEST_CASE("ClassificationAccuracy is the float32 mean of equal predictions", "[metrics]") {
  neurobench::metrics::ClassificationAccuracy acc;
  const auto t = torch::arange(10, torch::kLong);
  auto p = t.clone().to(torch::kFloat);
  p[0] = 5;
  // 0.9 in float32, widened: the reference's numbers carry the same rounding.
  REQUIRE(plain(acc, p, t).get<double>() == static_cast<double>(0.9f));
}

TEST_CASE("ClassificationAccuracy counts a 0-d prediction as the one sample of its batch",
          "[metrics]") {
  // Argmax squeezes a batch of one to 0-d, as Python's argmax(-1).squeeze(); Python's
  // `preds == labels` broadcasts it against the labels' (1).
  neurobench::metrics::ClassificationAccuracy acc;
  REQUIRE(plain(acc, torch::tensor(2, torch::kLong), torch::tensor({2}, torch::kLong))
              .get<double>() == 1.0);
  REQUIRE(plain(acc, torch::tensor(1, torch::kLong), torch::tensor({2}, torch::kLong))
              .get<double>() == 0.0);
  // Anything else that does not match stays an error.
  REQUIRE_THROWS_AS(plain(acc, torch::tensor(2, torch::kLong), torch::tensor({2, 2})),
                    neurobench::InputError);
  REQUIRE_THROWS_WITH(plain(acc, torch::tensor(2, torch::kLong), torch::tensor({2, 2})),
                      Catch::Contains("ClassificationAccuracy") && Catch::Contains("[]") &&
                          Catch::Contains("[2]"));
}

TEST_CASE("predictions whose shape differs from the targets are an InputError", "[metrics]") {
  neurobench::metrics::MSE mse;
  REQUIRE_THROWS_AS(plain(mse, torch::zeros({4, 1}), torch::zeros({4})), neurobench::InputError);
  REQUIRE_THROWS_WITH(plain(mse, torch::zeros({4, 1}), torch::zeros({4})),
                      Catch::Contains("MSE") && Catch::Contains("[4, 1]") &&
                          Catch::Contains("[4]"));
}

TEST_CASE("ActivationSparsityByLayer keys layers by path, or by name with shared names merged",
          "[metrics][by_layer]") {
  using neurobench::metrics::ActivationSparsityByLayer;
  // Two blocks with a ReLU at index 1 each, and a top-level `act`: by name, the two `1`s are
  // one key whose sparsity is over both layers' elements (NeuroBench's hook names).
  const torch::Tensor a = torch::tensor({0.0F, 1.0F, 0.0F, 0.0F});  // 3 zeros of 4
  const torch::Tensor b = torch::tensor({1.0F, 2.0F});              // 0 of 2
  const torch::Tensor c = torch::tensor({0.0F, 5.0F});              // 1 of 2
  auto feed = [&](ActivationSparsityByLayer& m) {
    m.reset();
    for (const auto& [layer, out] :
         {std::pair<const char*, const torch::Tensor*>{"f.1", &a}, {"g.1", &b}, {"act", &c}}) {
      m.on_activation(
          neurobench::ActivationCall{layer, "ReLU", *out, false, nullptr, nullptr, {}, {}});
    }
  };
  ActivationSparsityByLayer by_path;
  ActivationSparsityByLayer by_name(Json{{"keys", "name"}});
  feed(by_path);
  feed(by_name);
  CHECK(by_path.compute() == Json{{"f.1", 0.75}, {"g.1", 0.0}, {"act", 0.5}});
  CHECK(by_name.compute() == Json{{"1", 0.5}, {"act", 0.5}});  // (3 + 0) / (4 + 2)
  // Shards keep the counts per path: a name-keyed merge of path-keyed states (and the reverse)
  // gives what one process would.
  ActivationSparsityByLayer merged(Json{{"keys", "name"}});
  merged.merge_state(by_path.export_state());
  merged.merge_state(by_name.export_state());
  CHECK(merged.compute() == Json{{"1", 0.5}, {"act", 0.5}});
  ActivationSparsityByLayer merged_path;
  merged_path.merge_state(by_name.export_state());
  CHECK(merged_path.compute() == by_path.compute());
  REQUIRE_THROWS_AS(ActivationSparsityByLayer(Json{{"keys", "dotted"}}), neurobench::UsageError);
  REQUIRE_THROWS_WITH(ActivationSparsityByLayer(Json{{"keys", "dotted"}}),
                      Catch::Contains("'keys'") && Catch::Contains("dotted"));
}

TEST_CASE("MSE and SMAPE follow the spec's formulas", "[metrics]") {
  neurobench::metrics::MSE mse;
  neurobench::metrics::SMAPE smape;
  const auto t = torch::tensor({1.f, 2.f, 4.f});
  const auto p = torch::tensor({1.f, 3.f, 2.f});
  REQUIRE(plain(mse, p, t).get<double>() == Approx((0 + 1 + 4) / 3.0).epsilon(1e-6));
  const double expect = 200.0 * (0.0 + 1.0 / 5.0 + 2.0 / 6.0) / 3.0;
  REQUIRE(plain(smape, p, t).get<double>() == Approx(expect).epsilon(1e-6));
}

TEST_CASE("SMAPE scores a batch 200 when one prediction and target are both zero",
          "[metrics]") {
  neurobench::metrics::SMAPE smape;
  REQUIRE(plain(smape, torch::tensor({0.f, 1.f}), torch::tensor({0.f, 1.f})).get<double>() ==
          200.0);
}

TEST_CASE("R2 pools all batches with population variance per column", "[metrics]") {
  neurobench::metrics::R2 r2;
  r2.reset();
  NoModel model;
  auto t = torch::tensor({1.0, 2.0, 2.0, 4.0, 3.0, 5.0, 4.0, 9.0}, torch::kDouble).reshape({4, 2});
  auto p = torch::tensor({1.5, 2.0, 2.0, 5.0, 2.5, 5.0, 4.0, 8.0}, torch::kDouble).reshape({4, 2});
  for (int b = 0; b < 2; ++b) {
    neurobench::Batch batch{t.slice(0, 2 * b, 2 * b + 2), t.slice(0, 2 * b, 2 * b + 2), {}};
    const auto preds = p.slice(0, 2 * b, 2 * b + 2);
    r2.update(WorkloadInput{model, preds, batch});
  }
  // column 0: sse 0.5, var*N = 5; column 1: sse 2, mean 5, var*N = 9+1+0+16 = 26
  const double expect = ((1 - 0.5 / 5.0) + (1 - 2.0 / 26.0)) / 2;
  REQUIRE(r2.compute().get<double>() == Approx(expect).epsilon(1e-12));
  neurobench::Batch one{torch::zeros({2, 3}), torch::zeros({2, 3}), {}};
  const auto preds3 = torch::zeros({2, 3});
  REQUIRE_THROWS_AS(r2.update(WorkloadInput{model, preds3, one}), neurobench::InputError);
}

TEST_CASE("static metrics count parameters, buffers and zero connection weights",
          "[metrics][static]") {
  NoModel model;
  neurobench::ModuleInfo lin;
  lin.path = "fc";
  lin.type_name = "Linear";
  auto w = torch::ones({3, 4});
  w[0] = 0;  // 4 of 12 zero
  lin.parameters = {{"fc.weight", w}, {"fc.bias", torch::zeros({3})}};
  neurobench::ModuleInfo lstm;
  lstm.path = "rnn";
  lstm.type_name = "LSTMCell";
  lstm.parameters = {{"rnn.weight_ih", torch::ones({8, 2})}, {"rnn.bias_ih", torch::zeros({8})}};
  lstm.buffers = {{"rnn.counter", torch::zeros({5}, torch::kDouble)}};
  model.modules_ = {lin, lstm};
  const auto layers = neurobench::Benchmark::default_layers();
  REQUIRE(neurobench::metrics::ParameterCount().compute(model, layers).get<int64_t>() ==
          12 + 3 + 16 + 8);
  REQUIRE(neurobench::metrics::Footprint().compute(model, layers).get<int64_t>() ==
          (12 + 3 + 16 + 8) * 4 + 5 * 8);
  // Linear: weight only (4 zeros of 12); LSTMCell: weights and biases (8 zeros of 24)
  REQUIRE(neurobench::metrics::ConnectionSparsity().compute(model, layers).get<double>() ==
          0.3333);
}

TEST_CASE("connection sparsity divides in float32 before rounding, as NeuroBench does",
          "[metrics][static]") {
  NoModel model;
  neurobench::ModuleInfo lin;
  lin.path = "fc";
  lin.type_name = "Linear";
  auto w = torch::ones({5280});
  w.slice(0, 0, 561).zero_();  // 561 / 5280 = 0.10625: 0.1062 in double, 0.1063 in float32
  lin.parameters = {{"fc.weight", w}};
  model.modules_ = {lin};
  const auto layers = neurobench::Benchmark::default_layers();
  REQUIRE(neurobench::metrics::ConnectionSparsity().compute(model, layers).get<double>() ==
          0.1063);
}

TEST_CASE("connection sparsity of a model without connection weights is an error, not 0",
          "[metrics][static]") {
  NoModel model;
  neurobench::ModuleInfo relu;
  relu.path = "1";
  relu.type_name = "ReLU";
  model.modules_ = {relu};
  const auto layers = neurobench::Benchmark::default_layers();
  REQUIRE_THROWS_WITH(neurobench::metrics::ConnectionSparsity().compute(model, layers),
                      Catch::Contains("has no weights in connection layers"));
}

TEST_CASE("a tensor shared by two modules is counted once, as PyTorch does", "[metrics][static]") {
  NoModel model;
  const auto shared = torch::ones({10});
  neurobench::ModuleInfo a, b;
  a.parameters = {{"a.w", shared}};
  b.parameters = {{"b.w", shared}};
  model.modules_ = {a, b};
  REQUIRE(neurobench::metrics::ParameterCount()
              .compute(model, neurobench::Benchmark::default_layers())
              .get<int64_t>() == 10);
}

TEST_CASE("neuron update costs follow the spec's table", "[metrics][neurons]") {
  using neurobench::metrics::neuron_update_cost;
  REQUIRE(neuron_update_cost("Leaky", "subtract") == 4);
  REQUIRE(neuron_update_cost("Leaky", "zero") == 4);
  REQUIRE(neuron_update_cost("Synaptic", "zero") == 8);
  REQUIRE(neuron_update_cost("Alpha", "subtract") == 18);
  REQUIRE(neuron_update_cost("Lapicque", "zero") == 11);
  REQUIRE_THROWS_AS(neuron_update_cost("RLeaky", "zero"), neurobench::MetricError);
  REQUIRE_THROWS_WITH(neuron_update_cost("Leaky", "none"), Catch::Contains("none"));
}

// --- synaptic operations: closed form against the reference's method --------------------------

namespace {

struct ConvCase {
  int spatial;
  int64_t in, out, groups, kernel, stride, padding, dilation;
  bool same;
};

// The reference's method: a copy of the layer with binarised weights (all ones for dense), no
// bias, applied to the binarised input (all ones for dense); the sum of its outputs.
int64_t reference_count(const torch::Tensor& x, const torch::Tensor& w, const ConvCase& c,
                        bool dense) {
  const auto xb = dense ? torch::ones_like(x) : (x != 0).to(torch::kFloat);
  const auto wb = dense ? torch::ones_like(w) : (w != 0).to(torch::kFloat);
  const std::vector<int64_t> stride(c.spatial, c.stride), pad(c.spatial, c.padding),
      dil(c.spatial, c.dilation);
  torch::Tensor y;
  if (c.same) {
    y = c.spatial == 1   ? torch::conv1d(xb, wb, {}, 1, "same", dil, c.groups)
        : c.spatial == 2 ? torch::conv2d(xb, wb, {}, 1, "same", dil, c.groups)
                         : torch::conv3d(xb, wb, {}, 1, "same", dil, c.groups);
  } else {
    y = c.spatial == 1   ? torch::conv1d(xb, wb, {}, stride, pad, dil, c.groups)
        : c.spatial == 2 ? torch::conv2d(xb, wb, {}, stride, pad, dil, c.groups)
                         : torch::conv3d(xb, wb, {}, stride, pad, dil, c.groups);
  }
  return static_cast<int64_t>(y.sum(torch::kDouble).item<double>());
}

}  // namespace

TEST_CASE("closed-form synaptic operations equal the binarised-copy method on random layers",
          "[metrics][synops]") {
  std::mt19937 rng(1234);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  torch::manual_seed(7);
  for (int trial = 0; trial < 150; ++trial) {
    const bool linear = trial % 3 == 0;
    const bool spiking = trial % 2 == 0;
    auto make_input = [&](std::vector<int64_t> shape) {
      auto x = spiking ? torch::randint(-1, 2, shape).to(torch::kFloat) : torch::randn(shape);
      return x * (torch::rand(shape) > 0.4).to(torch::kFloat);  // zeros in either kind
    };
    neurobench::metrics::SynapticOperations synops;
    synops.reset();
    int64_t expect_eff = 0, expect_dense = 0;
    std::vector<c10::IValue> args;
    std::string op;
    if (linear) {
      const int64_t in = pick(1, 20), out = pick(1, 20), rows = pick(1, 5);
      auto w = torch::randn({out, in}) * (torch::rand({out, in}) > 0.3).to(torch::kFloat);
      // Every other one a view with its rows apart in memory, as a step-wise network's
      // data[:, t] is.
      auto x =
          (trial / 3) % 2 == 0 ? make_input({rows, in}) : make_input({rows, 3, in}).select(1, 1);
      expect_eff = ((x != 0).to(torch::kFloat).matmul((w != 0).to(torch::kFloat).t()))
                       .sum(torch::kDouble)
                       .item<double>();
      expect_dense = rows * in * out;
      args = {x, w, torch::randn({out})};
      op = "aten::linear";
    } else {
      ConvCase c;
      c.spatial = pick(1, 3);
      c.groups = pick(1, 3);
      c.in = c.groups * pick(1, 3);
      c.out = c.groups * pick(1, 3);
      c.kernel = pick(1, 3);
      c.stride = pick(1, 2);
      c.padding = pick(0, 2);
      c.dilation = pick(1, 2);
      c.same = trial % 5 == 1;
      if (c.same) c.stride = 1;
      std::vector<int64_t> wshape = {c.out, c.in / c.groups};
      std::vector<int64_t> xshape = {pick(1, 3), c.in};
      for (int d = 0; d < c.spatial; ++d) {
        wshape.push_back(c.kernel);
        xshape.push_back(pick(c.dilation * (c.kernel - 1) + 1, 7));
      }
      auto w = torch::randn(wshape) * (torch::rand(wshape) > 0.3).to(torch::kFloat);
      auto x = make_input(xshape);
      expect_eff = reference_count(x, w, c, false);
      expect_dense = reference_count(x, w, c, true);
      const std::vector<int64_t> stride(c.spatial, c.stride), pad(c.spatial, c.padding),
          dil(c.spatial, c.dilation);
      op = "aten::conv" + std::to_string(c.spatial) + "d";
      args = {x, w, c10::IValue(), stride,
              c.same ? c10::IValue(std::string("same")) : c10::IValue(pad), dil, c.groups};
    }
    const std::string layer = "layer" + std::to_string(trial);
    synops.on_connection(neurobench::ConnectionCall{layer, "Layer", op, args});
    NoModel model;
    neurobench::Batch batch{torch::zeros({1, 1}), torch::zeros({1}), {}};
    const auto preds = torch::zeros({1});
    synops.update(WorkloadInput{model, preds, batch});
    const Json r = synops.compute();
    INFO("trial " << trial << " " << op);
    const bool input_spiking = args[0].toTensor().abs().le(1).all().item<bool>() &&
                               (args[0].toTensor() == args[0].toTensor().round()).all().item<bool>();
    REQUIRE(r["Dense"].get<double>() == static_cast<double>(expect_dense));
    REQUIRE(r[input_spiking ? "Effective_ACs" : "Effective_MACs"].get<double>() ==
            static_cast<double>(expect_eff));
    REQUIRE(r[input_spiking ? "Effective_MACs" : "Effective_ACs"].get<double>() == 0.0);
  }
}
