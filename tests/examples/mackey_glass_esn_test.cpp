// SPDX-License-Identifier: Apache-2.0
// The Mackey-Glass example's echo state network (examples/mackey_glass/esn.hpp).
#include "mackey_glass/esn.hpp"

#include <cstdint>
#include <limits>
#include <memory>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/datasets/mackey_glass.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

#include "support.hpp"

namespace esn = neurobench::examples::mackey_glass;

namespace {

torch::Tensor random_matrix(int64_t rows, int64_t cols, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randn({rows, cols}, torch::kDouble);
}

esn::EsnHyperparameters small_network() {
  esn::EsnHyperparameters hp = esn::EsnHyperparameters::for_tau(17);
  hp.reservoir_size = 24;
  hp.connect_prob = 0.3;
  return hp;
}

}  // namespace

TEST_CASE("ridge regression without a ridge recovers a linear map from noiseless data",
          "[examples][mackey_glass]") {
  const torch::Tensor x = random_matrix(200, 6, 1);
  const torch::Tensor w = random_matrix(2, 6, 2);
  const torch::Tensor y = torch::matmul(x, w.t());
  const torch::Tensor fitted = esn::ridge_regression(x, y, 0.0);
  REQUIRE(fitted.sizes() == torch::IntArrayRef{2, 6});
  REQUIRE(fitted.scalar_type() == torch::kDouble);
  CHECK((fitted - w).abs().max().item<double>() < 1e-12);
}

TEST_CASE("the ridge term shrinks the weights towards zero, as its closed form says",
          "[examples][mackey_glass]") {
  const torch::Tensor x = random_matrix(50, 8, 3);
  const torch::Tensor y =
      torch::matmul(x, random_matrix(1, 8, 4).t()) + 0.1 * random_matrix(50, 1, 5);
  double previous = std::numeric_limits<double>::infinity();
  for (double ridge : {0.0, 1.0, 10.0, 100.0, 1e4}) {
    const torch::Tensor w = esn::ridge_regression(x, y, ridge);
    const double norm = w.norm().item<double>();
    CAPTURE(ridge);
    CHECK(norm < previous);
    previous = norm;
    // (X^T X + ridge I) w^T = X^T y
    const torch::Tensor expected =
        torch::linalg_solve(torch::matmul(x.t(), x) + ridge * torch::eye(8, torch::kDouble),
                            torch::matmul(x.t(), y), true);
    CHECK((w.t() - expected).abs().max().item<double>() < 1e-12);
  }
  CHECK(previous < 0.1);
}

TEST_CASE("ridge regression rejects mismatched shapes, a bad ridge and dependent features",
          "[examples][mackey_glass]") {
  const torch::Tensor x = random_matrix(10, 3, 6);
  REQUIRE_THROWS_AS(esn::ridge_regression(x, random_matrix(9, 1, 7), 1.0), neurobench::UsageError);
  REQUIRE_THROWS_WITH(esn::ridge_regression(x, random_matrix(9, 1, 7), 1.0),
                      Catch::Contains("[10, 3]") && Catch::Contains("[9, 1]"));
  REQUIRE_THROWS_WITH(esn::ridge_regression(x, random_matrix(10, 1, 7), -1.0),
                      Catch::Contains("ridge"));
  // A feature that is always zero makes X^T X singular: only a ridge > 0 makes the problem
  // well posed. (A merely near-singular X^T X may pass Cholesky: the example's ridge is > 0.)
  const torch::Tensor with_zero = torch::cat({x, torch::zeros({10, 1}, torch::kDouble)}, 1);
  REQUIRE_THROWS_AS(esn::ridge_regression(with_zero, random_matrix(10, 1, 8), 0.0),
                    neurobench::InputError);
  REQUIRE_THROWS_WITH(esn::ridge_regression(with_zero, random_matrix(10, 1, 8), 0.0),
                      Catch::Contains("not positive definite"));
  REQUIRE_NOTHROW(esn::ridge_regression(with_zero, random_matrix(10, 1, 8), 1e-6));
}

TEST_CASE("a reservoir is fixed by its seed and scaled to the spectral radius",
          "[examples][mackey_glass]") {
  const esn::EsnHyperparameters hp = small_network();
  const esn::Reservoir a = esn::make_reservoir(hp, 3);
  const esn::Reservoir b = esn::make_reservoir(hp, 3);
  const esn::Reservoir c = esn::make_reservoir(hp, 4);
  REQUIRE(torch::equal(a.w, b.w));
  REQUIRE(torch::equal(a.w_in, b.w_in));
  REQUIRE_FALSE(torch::equal(a.w, c.w));
  REQUIRE(a.w.sizes() == torch::IntArrayRef{24, 24});
  REQUIRE(a.w_in.sizes() == torch::IntArrayRef{24, 2});
  const double radius = torch::linalg_eigvals(a.w).abs().max().item<double>();
  CHECK(radius == Approx(hp.spectral_radius).epsilon(1e-10));
  CHECK(a.reference_radius >= hp.spectral_radius * (1 - 1e-12));
  // Input weights: uniform in [-0.5, 0.5) times the column's scale.
  CHECK(a.w_in.select(1, 0).abs().max().item<double>() <= 0.5 * hp.scale_bias);
  CHECK(a.w_in.select(1, 1).abs().max().item<double>() <= 0.5 * hp.scale_input);
  const double density = (a.w != 0).sum().item<double>() / (24.0 * 24.0);
  CHECK(density == Approx(hp.connect_prob).margin(0.1));
  esn::EsnHyperparameters bad = hp;
  bad.leakage = 0.0;
  REQUIRE_THROWS_WITH(esn::make_reservoir(bad, 0), Catch::Contains("EsnHyperparameters.leakage"));
  REQUIRE_THROWS_AS(esn::EsnHyperparameters::for_tau(31), neurobench::UsageError);
}

TEST_CASE("the saved TorchScript network predicts exactly what the C++ network does",
          "[examples][mackey_glass]") {
  neurobench::datasets::MackeyGlassOptions options;
  options.integration_steps = 32;
  const neurobench::datasets::MackeyGlass data(options);
  const neurobench::TensorDataset train = data.train();
  const auto test = std::make_shared<neurobench::TensorDataset>(data.test());
  const esn::EsnHyperparameters hp = small_network();
  const esn::TrainedEsn net =
      esn::train(esn::make_reservoir(hp, 0), train.data(), train.targets(), hp);
  CHECK(net.train_rmse < 0.05);
  REQUIRE(net.w_out.sizes() == torch::IntArrayRef{1, 26});
  REQUIRE(net.state.sizes() == torch::IntArrayRef{1, 24});

  neurobench::test::TempDir dir;
  const auto path = dir / "esn.pt";
  esn::build_module(net).save(path.string());
  auto model = std::make_shared<neurobench::TorchScriptModel>(path);
  const torch::Tensor first = model->forward(test->data());
  const torch::Tensor again = model->forward(test->data());
  const torch::Tensor expected =
      esn::predict_autonomous(net, test->data()[0][0][0].item<double>(), 750);
  REQUIRE(first.sizes() == torch::IntArrayRef{750, 1});
  REQUIRE(first.scalar_type() == torch::kDouble);
  CHECK(torch::equal(first, expected));
  CHECK(torch::equal(first, again));  // the stored state is never changed by a run
  // Autonomous: only the first input is read.
  torch::Tensor only_first = test->data().clone();
  only_first.slice(0, 1).zero_();
  CHECK(torch::equal(model->forward(only_first), first));

  // The benchmark sees Win, W and Wout as Linear connection layers, once per step.
  neurobench::LoaderOptions loader;
  loader.batch_size = 750;
  neurobench::Benchmark bench(
      model, neurobench::DataLoader(test, loader), {}, {},
      neurobench::MetricSet::from_names({"Footprint", "ConnectionSparsity"},
                                        {"SMAPE", "ActivationSparsity", "SynapticOperations"}));
  neurobench::RunOptions quiet;
  quiet.quiet = true;
  const neurobench::Results r = bench.run(quiet);
  REQUIRE(r.ok());
  const int64_t n = hp.reservoir_size;
  // Weights (R x 2, R x R, 1 x (R + 2)) and the stored state (1 x R), all float64.
  CHECK(r.values["Footprint"].get<int64_t>() == 8 * (2 * n + n * n + n + 2 + n));
  CHECK(r.values["SynapticOperations"]["Dense"].get<double>() ==
        static_cast<double>((n + 1) * (n + 2)));
  const double zeros = (net.reservoir.w == 0).sum().item<double>();
  CHECK(r.values["ConnectionSparsity"].get<double>() ==
        Approx(zeros / static_cast<double>(n * n + 3 * n + 2)).margin(5e-5));
  CHECK(r.values["ActivationSparsity"].get<double>() == 0.0);
  const torch::Tensor t = test->targets();
  const double smape = 200.0 * ((first - t).abs() / (first.abs() + t.abs())).mean().item<double>();
  CHECK(r.values["SMAPE"].get<double>() == Approx(smape).epsilon(1e-5));
}
