// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

/// Bundled data sets of NeuroBench tasks.
namespace neurobench::datasets {

/// Settings of the Mackey-Glass series
/// `dx/dt = beta x(t-tau) / (1 + x(t-tau)^exponent) - gamma x(t)` and of its train/test split,
/// with the reference's defaults (NeuroBench's `MackeyGlass` data set, tau = 17).
///
/// Time is in the equation's own units; the series is sampled every
/// `lyaptime / pts_per_lyaptime` time units, starting at t = tau (see docs/mackey-glass.md).
///
/// ```cpp
/// auto options = neurobench::datasets::MackeyGlassOptions::for_tau(23);
/// options.start_offset = 37.5;  // sampling steps, truncated to 37 as the reference does
/// neurobench::datasets::MackeyGlass mg(options);
/// ```
struct MackeyGlassOptions {
  double tau = 17.0;                 ///< Delay, time units; > 0.
  double lyaptime = 197.0;           ///< Lyapunov time of this tau, time units; > 0.
  double constant_past = 0.7206597;  ///< The history: x(t) for every t <= 0.
  double beta = 0.2;                 ///< Production rate.
  double gamma = 0.1;                ///< Decay rate.
  int exponent = 10;                 ///< The nonlinearity's power n; >= 1.
  int64_t pts_per_lyaptime = 75;     ///< Samples per Lyapunov time; >= 1.
  double traintime = 10.0;           ///< Training part, in Lyapunov times; > 0.
  double testtime = 10.0;            ///< Test part, in Lyapunov times; > 0.
  /// First sample used, in sampling steps from the start of the series; truncated toward
  /// zero (37.5 gives 37), as the reference's `int(start_offset)`; >= 0.
  double start_offset = 0.0;
  int64_t bin_window = 1;  ///< Samples per input window (left zero padding); >= 1.
  /// Classical Runge-Kutta steps per sampling interval: the step is
  /// `lyaptime / pts_per_lyaptime / integration_steps`, and must be shorter than tau.
  int64_t integration_steps = 1024;

  /// Throws UsageError naming the field when an option is invalid.
  void validate() const;

  /// The reference's settings for an integer tau in 17..30 (its Lyapunov time and constant
  /// past, from NeuroBench's `mackey_glass_parameters.csv`), other fields at their defaults.
  /// Throws UsageError for any other tau.
  [[nodiscard]] static MackeyGlassOptions for_tau(int tau);

  /// Training samples: `round(traintime * pts_per_lyaptime)` (ties to even, like Python).
  [[nodiscard]] int64_t train_points() const;
  /// Test samples: `round(testtime * pts_per_lyaptime)`.
  [[nodiscard]] int64_t test_points() const;
  /// Points of the series: train + test + 1 (the last test target).
  [[nodiscard]] int64_t total_points() const;
  /// Time between two samples: `lyaptime / pts_per_lyaptime`.
  [[nodiscard]] double sampling_interval() const;
  /// The start offset in whole sampling steps (truncated).
  [[nodiscard]] int64_t offset_points() const;
};

/// Integrates the Mackey-Glass equation and returns `num_points` samples
/// x(tau + j * sampling_interval), j = 0..num_points-1, as a 1-D float64 tensor
/// (`start_offset` and `bin_window` are not applied here).
///
/// Classical fourth-order Runge-Kutta with a fixed step, the delayed state read from the
/// stored solution by cubic Hermite interpolation, the initial discontinuity and its first
/// five propagations (tau, 2 tau, ..., 5 tau) landed on exactly; see docs/mackey-glass.md for
/// the method and its measured error. Deterministic: the same options give the same bits.
///
/// Throws UsageError for invalid options or a negative `num_points`.
[[nodiscard]] at::Tensor mackey_glass_trajectory(const MackeyGlassOptions& options,
                                                 int64_t num_points);

/// The Mackey-Glass data set of NeuroBench's chaotic function prediction task.
///
/// Holds the series `(bin_window - 1 + total_points, 1)` float64: `bin_window - 1` zeros, then
/// the trajectory from sample `offset_points()` on. Sample i is `series[i : i + bin_window]`
/// and its target `series[i + bin_window]` (the point after the window). The training split
/// has samples 0..train_points-1, the test split the next test_points samples.
///
/// ```cpp
/// neurobench::datasets::MackeyGlass mg(neurobench::datasets::MackeyGlassOptions{});
/// neurobench::TensorDataset test = mg.test();  // data (750, 1, 1), targets (750, 1)
/// ```
class MackeyGlass {
 public:
  /// Generates the series with mackey_glass_trajectory. Throws UsageError for invalid options.
  explicit MackeyGlass(const MackeyGlassOptions& options);

  /// Takes the series from a given trajectory: a 1-D floating-point tensor whose element j is
  /// the sample j of the series (as in the reference's `mg_{tau}.npy` files); elements
  /// `[offset_points(), offset_points() + total_points())` are used, as float64. `source`
  /// names it in messages. Throws UsageError for invalid options and InputError when the
  /// tensor is not 1-D, not floating-point, too short, or holds a non-finite value there.
  MackeyGlass(const at::Tensor& trajectory, const MackeyGlassOptions& options, std::string source);

  /// Loads the trajectory from a NumPy `.npy` file (a 1-D float array such as the reference's
  /// `mg_17.npy`), then as the constructor above. Throws InputError naming the file.
  [[nodiscard]] static MackeyGlass from_npy(const std::filesystem::path& path,
                                            const MackeyGlassOptions& options);

  /// The padded series, `(bin_window - 1 + total_points, 1)` float64.
  [[nodiscard]] const at::Tensor& series() const { return series_; }
  /// Training samples: data `(train_points, bin_window, 1)`, targets `(train_points, 1)`.
  [[nodiscard]] TensorDataset train() const;
  /// Test samples: data `(test_points, bin_window, 1)`, targets `(test_points, 1)`.
  [[nodiscard]] TensorDataset test() const;
  /// Samples `[begin, end)` of the whole set (train, then test), as a data set.
  /// Throws UsageError when the range is not within 0..train_points+test_points.
  [[nodiscard]] TensorDataset samples(int64_t begin, int64_t end) const;
  /// The options.
  [[nodiscard]] const MackeyGlassOptions& options() const { return options_; }
  /// Where the series came from, for messages.
  [[nodiscard]] const std::string& describe() const { return source_; }

 private:
  MackeyGlassOptions options_;
  std::string source_;
  at::Tensor series_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
