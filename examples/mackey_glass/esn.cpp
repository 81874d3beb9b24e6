// SPDX-License-Identifier: Apache-2.0
#include "mackey_glass/esn.hpp"

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include <neurobench/errors.hpp>

namespace neurobench::examples::mackey_glass {

namespace {

// The reference's echo_state_network_hyperparameters.csv (tau 17..30).
struct HyperRow {
  int tau;
  EsnHyperparameters hp;
};
EsnHyperparameters row(int64_t r, double bias, double input, double p, double rho, double a,
                       double ridge) {
  EsnHyperparameters hp;
  hp.reservoir_size = r;
  hp.scale_bias = bias;
  hp.scale_input = input;
  hp.connect_prob = p;
  hp.spectral_radius = rho;
  hp.leakage = a;
  hp.ridge = ridge;
  return hp;
}
const std::array<HyperRow, 14>& hyper_table() {
  static const std::array<HyperRow, 14> table{{
      {17, row(966, 0.9, 0.78, 0.97, 1.19, 0.69, 1e-07)},
      {18, row(913, 0.98, 1, 0.43, 1.08, 0.92, 1e-09)},
      {19, row(836, 0.45, 0.89, 0.64, 1.25, 0.77, 1e-06)},
      {20, row(656, 0.29, 0.83, 0.06, 1.07, 0.86, 1e-08)},
      {21, row(547, 0.37, 0.92, 0.92, 1.08, 0.45, 1e-08)},
      {22, row(661, 0.79, 0.92, 0.55, 1.17, 0.87, 1e-07)},
      {23, row(577, 0.69, 0.93, 0.02, 1.01, 0.54, 1e-08)},
      {24, row(694, 0.85, 0.98, 0.51, 1.13, 0.76, 1e-05)},
      {25, row(831, 0.87, 0.93, 0.49, 1.21, 1, 0.0001)},
      {26, row(522, 0.91, 0.95, 0.59, 1.22, 0.58, 1e-06)},
      {27, row(952, 0.99, 0.65, 0.6, 1.19, 0.78, 1e-06)},
      {28, row(838, 0.82, 0.83, 0.37, 1.21, 0.81, 1e-06)},
      {29, row(728, 0.99, 0.62, 0.48, 1.23, 0.9, 1e-05)},
      {30, row(577, 0.69, 0.93, 0.02, 1.01, 0.54, 1e-08)},
  }};
  return table;
}

constexpr double kPi = 3.14159265358979323846;

std::string shape_string(const torch::Tensor& t) {
  return fmt::format("[{}]", fmt::join(t.sizes(), ", "));
}

// Our own transforms of the generator's 64-bit words (the standard library's distributions
// differ between implementations): 53 random bits for a uniform in [0, 1), and Box-Muller
// pairs for the normals.
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1]: the logarithm stays finite
    const double u2 = uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * kPi * u2;
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// One reservoir update, the same operations as the TorchScript forward below.
torch::Tensor update(const torch::Tensor& r, const torch::Tensor& input, const Reservoir& res) {
  const double a = res.leakage;
  return (1.0 - a) * r + a * torch::tanh(torch::linear(r, res.w) + torch::linear(input, res.w_in));
}

// The parent module's forward. Only the first sample's last value is real data; each
// prediction is the next input (the reference's "autonomous" mode). The reservoir starts from
// the stored state every call, so that repeated runs give the same predictions.
constexpr const char* kEsnForward = R"JIT(
def forward(self, x: Tensor) -> Tensor:
    n = x.size(0)
    u = x[0, -1].reshape([1, 1]).to(self.state.dtype)
    ones = torch.ones_like(u)
    r = self.state
    a = self.leakage
    outs: List[Tensor] = []
    for _ in range(n):
        sb = torch.cat([ones, u], 1)
        r = (1.0 - a) * r + a * torch.tanh(self.W.forward(r) + self.Win.forward(sb))
        y = self.Wout.forward(torch.cat([sb, r], 1))
        outs.append(y)
        u = y
    return torch.cat(outs, 0)
)JIT";

constexpr const char* kLinearForward = R"JIT(
def forward(self, x: Tensor) -> Tensor:
    return torch.linear(x, self.weight)
)JIT";

}  // namespace

void EsnHyperparameters::validate() const {
  const auto fail = [](const char* field, const std::string& expected, double got) {
    throw UsageError(fmt::format("EsnHyperparameters.{} must be {}, got {}", field, expected, got));
  };
  if (reservoir_size < 1) fail("reservoir_size", "an integer >= 1", reservoir_size);
  if (!std::isfinite(scale_bias)) fail("scale_bias", "a finite number", scale_bias);
  if (!std::isfinite(scale_input)) fail("scale_input", "a finite number", scale_input);
  if (!(connect_prob > 0.0 && connect_prob <= 1.0)) {
    fail("connect_prob", "a probability in (0, 1]", connect_prob);
  }
  if (!std::isfinite(spectral_radius) || spectral_radius <= 0.0) {
    fail("spectral_radius", "a finite number > 0", spectral_radius);
  }
  if (!(leakage > 0.0 && leakage <= 1.0)) fail("leakage", "a rate in (0, 1]", leakage);
  if (!std::isfinite(ridge) || ridge < 0.0) fail("ridge", "a finite number >= 0", ridge);
  if (warmup_points < 0) fail("warmup_points", "an integer >= 0", warmup_points);
}

EsnHyperparameters EsnHyperparameters::for_tau(int tau) {
  for (const auto& r : hyper_table()) {
    if (r.tau == tau) return r.hp;
  }
  throw UsageError(fmt::format(
      "EsnHyperparameters::for_tau: the reference has hyperparameters for tau 17..30, not {}",
      tau));
}

Reservoir make_reservoir(const EsnHyperparameters& hp, std::uint64_t seed) {
  hp.validate();
  const int64_t n = hp.reservoir_size;
  Random random(seed);
  Reservoir res;
  res.leakage = hp.leakage;

  res.w_in = torch::empty({n, 2}, torch::kDouble);
  auto w_in = res.w_in.accessor<double, 2>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < 2; ++j) w_in[i][j] = random.uniform() - 0.5;
  }
  for (int64_t i = 0; i < n; ++i) {
    w_in[i][0] *= hp.scale_bias;
    w_in[i][1] *= hp.scale_input;
  }

  std::vector<bool> mask(static_cast<std::size_t>(n * n));
  for (std::size_t k = 0; k < mask.size(); ++k) mask[k] = random.uniform() <= hp.connect_prob;
  torch::Tensor w = torch::zeros({n, n}, torch::kDouble);
  double* wp = w.data_ptr<double>();
  for (std::size_t k = 0; k < mask.size(); ++k) {
    if (mask[k]) wp[k] = random.normal();
  }

  const torch::Tensor moduli = torch::linalg::eigvals(w).abs();
  res.largest_modulus = moduli.max().item<double>();
  res.first_modulus = moduli[0].item<double>();
  if (!(res.largest_modulus > 0.0) || !std::isfinite(res.largest_modulus)) {
    throw InputError(fmt::format(
        "make_reservoir: the reservoir matrix (R = {}, connect_prob = {}, seed {}) has spectral "
        "radius {}, so it cannot be scaled to {}",
        n, hp.connect_prob, seed, res.largest_modulus, hp.spectral_radius));
  }
  res.reference_radius = hp.spectral_radius * res.largest_modulus / res.first_modulus;
  res.w = w * (hp.spectral_radius / res.largest_modulus);
  return res;
}

torch::Tensor ridge_regression(const torch::Tensor& features, const torch::Tensor& targets,
                               double ridge) {
  if (!features.defined() || !targets.defined() || features.dim() != 2 || targets.dim() != 2 ||
      features.size(0) != targets.size(0)) {
    throw UsageError(fmt::format(
        "ridge_regression: features (samples, features) and targets (samples, outputs) must be "
        "2-D with the same number of rows, got {} and {}",
        features.defined() ? shape_string(features) : "(undefined)",
        targets.defined() ? shape_string(targets) : "(undefined)"));
  }
  if (!std::isfinite(ridge) || ridge < 0.0) {
    throw UsageError(
        fmt::format("ridge_regression: ridge must be a finite number >= 0, got {}", ridge));
  }
  const torch::Tensor x = features.to(torch::kDouble);
  const torch::Tensor y = targets.to(torch::kDouble);
  const int64_t f = x.size(1);
  // The ridge is added in float64 (the reference adds float32(ridge) * I).
  const torch::Tensor a = torch::matmul(x.t(), x) + ridge * torch::eye(f, torch::kDouble);
  const torch::Tensor b = torch::matmul(x.t(), y);
  auto [factor, info] = torch::linalg_cholesky_ex(a);
  const int64_t failed_at = info.item<int64_t>();
  if (failed_at != 0) {
    throw InputError(fmt::format(
        "ridge_regression: features^T features + {} I ({} x {}) is not positive definite "
        "(leading minor {}): the features are linearly dependent; use a ridge > 0",
        ridge, f, f, failed_at));
  }
  return torch::cholesky_solve(b, factor).t().contiguous();
}

TrainedEsn train(Reservoir reservoir, const torch::Tensor& inputs, const torch::Tensor& targets,
                 const EsnHyperparameters& hp) {
  hp.validate();
  const torch::Tensor u = inputs.reshape({-1, 1}).to(torch::kDouble);
  const int64_t n = u.size(0);
  if (targets.numel() != n) {
    throw UsageError(
        fmt::format("train: {} inputs but targets of shape {}", n, shape_string(targets)));
  }
  if (hp.warmup_points >= n) {
    throw UsageError(fmt::format("train: warmup_points = {} leaves none of the {} training points",
                                 hp.warmup_points, n));
  }
  const int64_t r_size = reservoir.w.size(0);
  torch::Tensor r = torch::zeros({1, r_size}, torch::kDouble);
  torch::Tensor states = torch::empty({n, r_size + 2}, torch::kDouble);
  const torch::Tensor ones = torch::ones({1, 1}, torch::kDouble);
  for (int64_t i = 0; i < n; ++i) {
    const torch::Tensor sb = torch::cat({ones, u.slice(0, i, i + 1)}, 1);
    r = update(r, sb, reservoir);
    states.slice(0, i, i + 1).copy_(torch::cat({sb, r}, 1));
  }
  const torch::Tensor fitted = states.slice(0, hp.warmup_points);
  const torch::Tensor wanted =
      targets.reshape({-1, 1}).to(torch::kDouble).slice(0, hp.warmup_points);
  TrainedEsn esn;
  esn.w_out = ridge_regression(fitted, wanted, hp.ridge);
  esn.state = r;
  esn.train_rmse =
      torch::sqrt((torch::linear(fitted, esn.w_out) - wanted).square().mean()).item<double>();
  esn.reservoir = std::move(reservoir);
  return esn;
}

torch::Tensor predict_autonomous(const TrainedEsn& esn, double first_input, int64_t steps) {
  const torch::Tensor ones = torch::ones({1, 1}, torch::kDouble);
  torch::Tensor u = torch::full({1, 1}, first_input, torch::kDouble);
  torch::Tensor r = esn.state;
  std::vector<torch::Tensor> outs;
  outs.reserve(static_cast<std::size_t>(steps));
  for (int64_t i = 0; i < steps; ++i) {
    const torch::Tensor sb = torch::cat({ones, u}, 1);
    r = update(r, sb, esn.reservoir);
    torch::Tensor y = torch::linear(torch::cat({sb, r}, 1), esn.w_out);
    outs.push_back(y);
    u = y;
  }
  if (outs.empty()) return torch::empty({0, 1}, torch::kDouble);
  return torch::cat(outs, 0);
}

torch::jit::Module build_module(const TrainedEsn& esn) {
  auto cu = std::make_shared<torch::jit::CompilationUnit>();
  // One class `Linear` for the three connection layers, as torch.nn.Linear is in the
  // reference: the hook machinery recognises connection layers by class name.
  torch::jit::Module win(c10::QualifiedName("__torch__.neurobench_examples.Linear"), cu);
  win.register_parameter("weight", esn.reservoir.w_in.clone(), /*is_buffer=*/false);
  win.define(kLinearForward);
  torch::jit::Module w(cu, win.type());
  w.register_parameter("weight", esn.reservoir.w.clone(), /*is_buffer=*/false);
  torch::jit::Module wout(cu, win.type());
  wout.register_parameter("weight", esn.w_out.clone(), /*is_buffer=*/false);

  torch::jit::Module net(c10::QualifiedName("__torch__.neurobench_examples.EchoStateNetwork"), cu);
  net.register_module("Win", win);
  net.register_module("W", w);
  net.register_module("Wout", wout);
  net.register_buffer("state", esn.state.clone());
  net.register_attribute("leakage", c10::FloatType::get(), esn.reservoir.leakage);
  net.define(kEsnForward);
  net.eval();
  return net;
}

}  // namespace neurobench::examples::mackey_glass
