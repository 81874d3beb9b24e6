// SPDX-License-Identifier: Apache-2.0
// The echo state network of NeuroBench's Mackey-Glass example, built and trained in C++ and
// saved as a TorchScript module (see README.md beside this file).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <torch/script.h>

/// The Mackey-Glass example's echo state network.
namespace neurobench::examples::mackey_glass {

/// Hyperparameters of one echo state network (the reference's
/// `echo_state_network_hyperparameters.csv`).
struct EsnHyperparameters {
  int64_t reservoir_size = 966;   ///< Reservoir neurons R.
  double scale_bias = 0.9;        ///< Scale of the input weights of the constant bias input.
  double scale_input = 0.78;      ///< Scale of the input weights of the series input.
  double connect_prob = 0.97;     ///< Probability that a reservoir connection exists.
  double spectral_radius = 1.19;  ///< Largest eigenvalue modulus of the reservoir matrix W.
  double leakage = 0.69;          ///< Leak rate a: r <- (1 - a) r + a tanh(...).
  double ridge = 1e-7;            ///< Ridge (Tikhonov) parameter of the readout.
  int64_t warmup_points = 45;     ///< Training points whose states are not fitted (0.6 * 75).

  /// Throws neurobench::UsageError naming the field when a value is invalid.
  void validate() const;

  /// The reference's row for an integer tau in 17..30; UsageError for any other.
  [[nodiscard]] static EsnHyperparameters for_tau(int tau);
};

/// A reservoir before training: input weights `(R, 2)` (column 0 for the constant 1, column 1
/// for the series), recurrent weights `(R, R)`, float64.
struct Reservoir {
  torch::Tensor w_in;
  torch::Tensor w;
  double leakage = 0.0;
  double largest_modulus = 0.0;  ///< max |eigenvalue| of W before scaling.
  double first_modulus = 0.0;    ///< |first eigenvalue LAPACK returned| of W before scaling.
  /// The spectral radius the reference would have given this W: it divides by first_modulus,
  /// so its radius is spectral_radius * largest_modulus / first_modulus.
  double reference_radius = 0.0;
};

/// Draws a reservoir from a seeded std::mt19937_64, in the reference's order: the input
/// weights (uniform in [-0.5, 0.5), each column scaled), the connection mask (uniform <=
/// connect_prob, row-major), then a standard normal weight per connection (row-major); W is
/// scaled to `spectral_radius` by its eigenvalue of largest modulus (LAPACK geev in double).
[[nodiscard]] Reservoir make_reservoir(const EsnHyperparameters& hp, std::uint64_t seed);

/// A trained network: the reservoir, the readout `(1, R + 2)` over the extended state
/// [1, x, r] and the reservoir state `(1, R)` after the last training point.
struct TrainedEsn {
  Reservoir reservoir;
  torch::Tensor w_out;
  torch::Tensor state;
  double train_rmse = 0.0;  ///< Root mean square error of the readout on the fitted points.
};

/// Ridge regression: the weights `(outputs, features)` minimising
/// `|features W^T - targets|^2 + ridge |W|^2`, from the normal equations in float64
/// (`features^T features + ridge I`, Cholesky). `features` is `(samples, features)`,
/// `targets` `(samples, outputs)`. Throws neurobench::UsageError for mismatched shapes or a
/// negative or non-finite ridge, and neurobench::InputError when the normal matrix is not
/// positive definite (linearly dependent features and ridge 0).
[[nodiscard]] torch::Tensor ridge_regression(const torch::Tensor& features,
                                             const torch::Tensor& targets, double ridge);

/// Runs the reservoir from a zero state over `inputs` (`(N, 1, 1)` or `(N, 1)`, the training
/// series), collects the extended states [1, x_i, r_i], discards the first `warmup_points`
/// and fits the readout to `targets[warmup_points:]` (`(N, 1)`, the next values).
[[nodiscard]] TrainedEsn train(Reservoir reservoir, const torch::Tensor& inputs,
                               const torch::Tensor& targets, const EsnHyperparameters& hp);

/// Runs the trained network autonomously for `steps` steps from its stored state: the first
/// input is `first_input`, each prediction is the next input. Returns `(steps, 1)` float64.
/// Eager C++, the same operations as the TorchScript module's forward.
[[nodiscard]] torch::Tensor predict_autonomous(const TrainedEsn& esn, double first_input,
                                               int64_t steps);

/// The trained network as a TorchScript module: submodules `Win`, `W`, `Wout` of a module
/// type `Linear` (a `weight` parameter, `forward(x) = torch.linear(x, weight)`), the state
/// after training as the buffer `state`, the leak rate as the attribute `leakage`.
/// `forward(batch)` takes `(N, T, 1)`, uses only `batch[0, -1]` as the first input, runs
/// autonomously from `state` (never changing it) and returns `(N, 1)` float64.
[[nodiscard]] torch::jit::Module build_module(const TrainedEsn& esn);

}  // namespace neurobench::examples::mackey_glass
