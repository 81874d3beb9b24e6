// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/mackey_glass.hpp>

#include <cmath>
#include <limits>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

#include "support.hpp"

using neurobench::datasets::mackey_glass_trajectory;
using neurobench::datasets::MackeyGlass;
using neurobench::datasets::MackeyGlassOptions;

namespace {

double max_abs_diff(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// The tau = 17 series with the default settings, computed once for the tests that only read it.
const torch::Tensor& tau17() {
  static const torch::Tensor series = mackey_glass_trajectory(MackeyGlassOptions{}, 1501);
  return series;
}

}  // namespace

TEST_CASE("the generated series is the same bits every time", "[datasets][mackey_glass]") {
  MackeyGlassOptions o = MackeyGlassOptions::for_tau(23);
  o.integration_steps = 64;
  const torch::Tensor a = mackey_glass_trajectory(o, 400);
  const torch::Tensor b = mackey_glass_trajectory(o, 400);
  REQUIRE(a.scalar_type() == torch::kDouble);
  REQUIRE(a.sizes() == torch::IntArrayRef{400});
  REQUIRE(torch::equal(a, b));
  REQUIRE(torch::equal(MackeyGlass(o).series(), MackeyGlass(o).series()));
}

TEST_CASE("halving the integration step changes the tau 17 series by less than 1e-6",
          "[datasets][mackey_glass]") {
  // Measured (docs/mackey-glass.md): 4.6e-12 over the training part, 7.4e-8 at the end, where
  // chaos has amplified rounding by ~1e8 and a one-ulp change of the past moves it by 6e-7.
  MackeyGlassOptions o;
  o.integration_steps = 2 * MackeyGlassOptions{}.integration_steps;
  const torch::Tensor fine = mackey_glass_trajectory(o, 1501);
  const torch::Tensor& coarse = tau17();
  CHECK(max_abs_diff(coarse.slice(0, 0, 751), fine.slice(0, 0, 751)) < 1e-10);
  CHECK(max_abs_diff(coarse, fine) < 1e-6);
}

TEST_CASE("the generator converges at fourth order in the step", "[datasets][mackey_glass]") {
  // A mishandled discontinuity of the history would show as first or second order.
  MackeyGlassOptions o;
  const auto run = [&](int64_t k) {
    o.integration_steps = k;
    return mackey_glass_trajectory(o, 100);
  };
  const torch::Tensor k2 = run(2), k4 = run(4), k8 = run(8), k16 = run(16);
  const double e2 = max_abs_diff(k2, k4);
  const double e4 = max_abs_diff(k4, k8);
  const double e8 = max_abs_diff(k8, k16);
  CHECK(e2 / e4 > 10.0);  // 2^4 = 16 for a clean fourth order; measured 17.6 and 17.9
  CHECK(e4 / e8 > 10.0);
}

TEST_CASE("before tau the history is the constant past, so x(tau) has a closed form",
          "[datasets][mackey_glass]") {
  // On [0, tau] the delayed term is the constant past c: dx/dt = beta c / (1 + c^n) - gamma x,
  // whose solution from x(0) = c is x* + (c - x*) exp(-gamma t), x* = beta c / (gamma (1 + c^n)).
  for (int tau : {17, 24, 30}) {
    const MackeyGlassOptions o = MackeyGlassOptions::for_tau(tau);
    const double c = o.constant_past;
    const double fixed = o.beta * c / (o.gamma * (1.0 + std::pow(c, o.exponent)));
    const double expected = fixed + (c - fixed) * std::exp(-o.gamma * o.tau);
    const double first = mackey_glass_trajectory(o, 1)[0].item<double>();
    CAPTURE(tau);
    CHECK(first == Approx(expected).margin(1e-13));
  }
}

TEST_CASE("the tau 17 series stays on the known attractor and is not periodic",
          "[datasets][mackey_glass]") {
  const torch::Tensor& x = tau17();
  // The tau = 17 attractor lies within about [0.42, 1.32] (measured 0.4196..1.3189; mean 0.930,
  // variance 0.0511).
  CHECK(x.min().item<double>() > 0.4);
  CHECK(x.max().item<double>() < 1.35);
  CHECK(x.mean().item<double>() == Approx(0.93).margin(0.03));
  CHECK(x.var().item<double>() == Approx(0.051).margin(0.01));
  // No shift of up to 700 samples makes the series repeat itself: the smallest mean difference
  // between the series and a shifted copy is 0.058 (at 303 samples).
  double closest = std::numeric_limits<double>::infinity();
  for (int64_t lag = 1; lag <= 700; ++lag) {
    const double d = (x.slice(0, lag) - x.slice(0, 0, x.size(0) - lag)).abs().mean().item<double>();
    closest = std::min(closest, d);
  }
  CHECK(closest > 0.03);
}

TEST_CASE("the splits have the reference's shapes and each target is the next point",
          "[datasets][mackey_glass]") {
  MackeyGlassOptions o;
  o.start_offset = 37.5;  // truncated to 37, as the reference's int(start_offset)
  const torch::Tensor trajectory = mackey_glass_trajectory(o, 37 + 1501);
  const MackeyGlass mg(trajectory, o, "tau 17");
  REQUIRE(mg.series().sizes() == torch::IntArrayRef{1501, 1});
  REQUIRE(torch::equal(mg.series().reshape({-1}), trajectory.slice(0, 37)));

  const neurobench::TensorDataset train = mg.train();
  const neurobench::TensorDataset test = mg.test();
  REQUIRE(train.data().sizes() == torch::IntArrayRef{750, 1, 1});
  REQUIRE(train.targets().sizes() == torch::IntArrayRef{750, 1});
  REQUIRE(test.data().sizes() == torch::IntArrayRef{750, 1, 1});
  REQUIRE(test.targets().sizes() == torch::IntArrayRef{750, 1});
  REQUIRE(train.data().scalar_type() == torch::kDouble);
  REQUIRE(test.targets().scalar_type() == torch::kDouble);
  // Sample i is point 37 + i, its target point 37 + i + 1; the test split starts at 750.
  REQUIRE(torch::equal(train.data().reshape({-1}), trajectory.slice(0, 37, 37 + 750)));
  REQUIRE(torch::equal(train.targets().reshape({-1}), trajectory.slice(0, 38, 38 + 750)));
  REQUIRE(torch::equal(test.data().reshape({-1}), trajectory.slice(0, 37 + 750, 37 + 1500)));
  REQUIRE(torch::equal(test.targets().reshape({-1}), trajectory.slice(0, 38 + 750, 38 + 1500)));
}

TEST_CASE("a bin window looks back over the previous points, zero-padded at the start",
          "[datasets][mackey_glass]") {
  MackeyGlassOptions o;
  o.bin_window = 3;
  o.integration_steps = 16;
  const torch::Tensor x = mackey_glass_trajectory(o, 1501);
  const MackeyGlass mg(x, o, "tau 17");
  REQUIRE(mg.series().sizes() == torch::IntArrayRef{1503, 1});
  const neurobench::TensorDataset train = mg.train();
  REQUIRE(train.data().sizes() == torch::IntArrayRef{750, 3, 1});
  const auto d = train.data().reshape({750, 3});
  CHECK(d[0].equal(
      torch::stack({torch::zeros({}, torch::kDouble), torch::zeros({}, torch::kDouble), x[0]})));
  CHECK(d[1].equal(torch::stack({torch::zeros({}, torch::kDouble), x[0], x[1]})));
  CHECK(d[10].equal(x.slice(0, 8, 11)));
  // The target still follows the window's last point.
  CHECK(train.targets()[10][0].item<double>() == x[11].item<double>());
  CHECK(mg.test().targets()[749][0].item<double>() == x[1500].item<double>());
}

TEST_CASE("a series is read from a 1-D .npy file and sliced like a generated one",
          "[datasets][mackey_glass]") {
  neurobench::test::TempDir dir;
  const auto path = dir / "mg_17.npy";
  // float32, as a published file may be: it is widened to float64.
  const torch::Tensor values = torch::linspace(0.5, 1.5, 1600, torch::kFloat);
  neurobench::save_npy(path, values);
  MackeyGlassOptions o;
  o.start_offset = 75;
  const MackeyGlass mg = MackeyGlass::from_npy(path, o);
  CHECK(mg.describe() == path.string());
  REQUIRE(mg.series().scalar_type() == torch::kDouble);
  CHECK(torch::equal(mg.series().reshape({-1}), values.slice(0, 75, 75 + 1501).to(torch::kDouble)));
  CHECK(mg.test().targets()[0][0].item<double>() == values[75 + 751].item<double>());
}

TEST_CASE("a .npy series of the wrong shape, dtype, length or values is an InputError",
          "[datasets][mackey_glass]") {
  neurobench::test::TempDir dir;
  const MackeyGlassOptions o;

  neurobench::save_npy(dir / "two_d.npy", torch::zeros({1501, 1}, torch::kDouble));
  REQUIRE_THROWS_AS(MackeyGlass::from_npy(dir / "two_d.npy", o), neurobench::InputError);
  REQUIRE_THROWS_WITH(
      MackeyGlass::from_npy(dir / "two_d.npy", o),
      Catch::Contains("two_d.npy") && Catch::Contains("1-D") && Catch::Contains("[1501, 1]"));

  neurobench::save_npy(dir / "ints.npy", torch::zeros({1501}, torch::kLong));
  REQUIRE_THROWS_WITH(MackeyGlass::from_npy(dir / "ints.npy", o),
                      Catch::Contains("ints.npy") && Catch::Contains("Long"));

  neurobench::save_npy(dir / "short.npy", torch::zeros({1600}, torch::kDouble));
  MackeyGlassOptions late = o;
  late.start_offset = 112.5;
  REQUIRE_THROWS_AS(MackeyGlass::from_npy(dir / "short.npy", late), neurobench::InputError);
  REQUIRE_THROWS_WITH(MackeyGlass::from_npy(dir / "short.npy", late),
                      Catch::Contains("1600 points") && Catch::Contains("needs 1613"));

  torch::Tensor with_nan = torch::ones({1501}, torch::kDouble);
  with_nan[700] = std::nan("");
  neurobench::save_npy(dir / "nan.npy", with_nan);
  REQUIRE_THROWS_WITH(MackeyGlass::from_npy(dir / "nan.npy", o),
                      Catch::Contains("point 700") && Catch::Contains("not finite"));

  REQUIRE_THROWS_AS(MackeyGlass::from_npy(dir / "missing.npy", o), neurobench::InputError);
}

TEST_CASE("invalid options are UsageErrors that name the field", "[datasets][mackey_glass]") {
  const auto rejects = [](void (*change)(MackeyGlassOptions&), const char* field) {
    MackeyGlassOptions o;
    change(o);
    CAPTURE(field);
    REQUIRE_THROWS_AS(o.validate(), neurobench::UsageError);
    REQUIRE_THROWS_WITH(o.validate(), Catch::Contains(std::string("MackeyGlassOptions.") + field));
    REQUIRE_THROWS_AS(MackeyGlass(o), neurobench::UsageError);
  };
  rejects([](MackeyGlassOptions& o) { o.tau = 0.0; }, "tau");
  rejects([](MackeyGlassOptions& o) { o.lyaptime = -1.0; }, "lyaptime");
  rejects([](MackeyGlassOptions& o) { o.constant_past = std::nan(""); }, "constant_past");
  rejects([](MackeyGlassOptions& o) { o.exponent = 0; }, "exponent");
  rejects([](MackeyGlassOptions& o) { o.pts_per_lyaptime = 0; }, "pts_per_lyaptime");
  rejects([](MackeyGlassOptions& o) { o.traintime = 0.0; }, "traintime");
  rejects([](MackeyGlassOptions& o) { o.testtime = 0.001; }, "testtime");
  rejects([](MackeyGlassOptions& o) { o.start_offset = -1.0; }, "start_offset");
  rejects([](MackeyGlassOptions& o) { o.bin_window = 0; }, "bin_window");
  rejects([](MackeyGlassOptions& o) { o.integration_steps = 0; }, "integration_steps");
  // A step longer than the delay would read the history where it is not yet computed.
  rejects(
      [](MackeyGlassOptions& o) {
        o.tau = 1.0;
        o.integration_steps = 2;
      },
      "integration_steps");

  REQUIRE_THROWS_AS(MackeyGlassOptions::for_tau(16), neurobench::UsageError);
  REQUIRE_THROWS_WITH(MackeyGlassOptions::for_tau(31), Catch::Contains("not 31"));
  REQUIRE_THROWS_AS(mackey_glass_trajectory(MackeyGlassOptions{}, -1), neurobench::UsageError);
}

TEST_CASE("the reference's per-tau settings and split sizes are used", "[datasets][mackey_glass]") {
  const MackeyGlassOptions o17 = MackeyGlassOptions::for_tau(17);
  CHECK(o17.lyaptime == 197.0);
  CHECK(o17.constant_past == 0.7206597);
  const MackeyGlassOptions o30 = MackeyGlassOptions::for_tau(30);
  CHECK(o30.lyaptime == 139.0);
  CHECK(o30.constant_past == 0.2713639);
  CHECK(o17.train_points() == 750);
  CHECK(o17.test_points() == 750);
  CHECK(o17.total_points() == 1501);
  CHECK(o17.sampling_interval() == Approx(197.0 / 75.0));
  MackeyGlassOptions o;
  o.start_offset = 37.5;
  CHECK(o.offset_points() == 37);
  o.traintime = 0.1;  // 7.5 points: Python's round() gives 8 (ties to even)
  CHECK(o.train_points() == 8);
  o.traintime = 0.3;  // 22.5 points -> 22
  CHECK(o.train_points() == 22);
}

TEST_CASE("a range of samples outside the data set is a UsageError", "[datasets][mackey_glass]") {
  MackeyGlassOptions o;
  o.integration_steps = 8;
  const MackeyGlass mg(o);
  CHECK(mg.samples(0, 1500).size() == 1500);
  REQUIRE_THROWS_AS(mg.samples(0, 1501), neurobench::UsageError);
  REQUIRE_THROWS_WITH(mg.samples(-1, 3), Catch::Contains("[-1, 3)"));
}
