// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>
#include <neurobench/json.hpp>
#include <neurobench/plugin_description.hpp>
#include <neurobench/processors/processors.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Delta modulation (send-on-delta) of `x` along dimension `dim`, as Speech2Spikes encodes its
/// log-mel spectrogram: for each series along `dim` the level starts at `round(first value)`
/// (round half to even, as `torch.round`), whatever the threshold, and at
/// each step the event is +1 when `value - level > threshold`, -1 when
/// `value - level < -threshold`, else 0; the level then moves by `event * threshold`.
///
/// Arithmetic is done in float64 for a float64 `x` and in float32 otherwise (integers, bool,
/// float16 and bfloat16 are converted to float32), with `threshold` rounded to that type once:
/// `value - level` is one subtraction, compared with `threshold` and `-threshold`; the level
/// moves by adding or subtracting `threshold`. With a threshold of 0.5 or more the first step's
/// event is 0 (the level starts within 0.5 of it); a smaller one can fire at the first step.
///
/// Returns float32 events in {-1, 0, 1}, the shape of `x`. An empty `x` gives an empty result.
/// Throws UsageError when `threshold` is not a finite number above 0 or `dim` is out of range,
/// InputError for an undefined or 0-d `x`, complex values, or a NaN or infinite value (the
/// message gives their count and the index of the first).
///
/// ```cpp
/// // (batch, frames, mel bands) -> events per band, threshold 1, as Speech2Spikes
/// at::Tensor events = neurobench::delta_modulate(log_mel, 1.0, 1);
/// ```
[[nodiscard]] at::Tensor delta_modulate(const at::Tensor& x, double threshold, int64_t dim);

namespace processors {

/// Options of DeltaEncoder.
struct DeltaEncoderOptions {
  double threshold = 1.0;  ///< Level step; a finite number above 0.
  bool off_spikes = true;  ///< Emit -1 for a fall; false drops them (the level still falls).
  /// Throws UsageError naming the option at fault.
  void validate() const;
};

/// Delta modulation along the timesteps as a pre-processor: data `(batch, timesteps,
/// features...)` becomes float32 events of the same shape, in {-1, 0, 1} (or {0, 1} without
/// off spikes), by delta_modulate() along dimension 1. Targets and extras pass through.
/// Registered as `DeltaEncoder` (options `threshold`, `off_spikes`); see docs/encoders.md.
/// Throws InputError for data with fewer than 2 dimensions, complex data, or NaN or infinite
/// values.
class DeltaEncoder final : public PreProcessor {
 public:
  /// Threshold 1, off spikes on.
  DeltaEncoder();
  /// Throws UsageError for invalid options.
  explicit DeltaEncoder(DeltaEncoderOptions options);
  /// From options as the registry takes them (`threshold`, `off_spikes`; missing ones take
  /// their defaults); throws UsageError for unknown, mistyped or invalid ones.
  explicit DeltaEncoder(const Json& options);
  /// The name, one line and options that `neurobench list` shows.
  [[nodiscard]] static PluginDescription describe();
  /// Events of `batch.data`; see the class comment.
  [[nodiscard]] Batch operator()(const Batch& batch) override;
  /// The options in use.
  [[nodiscard]] const DeltaEncoderOptions& options() const { return options_; }

 private:
  DeltaEncoderOptions options_;
};

/// Options of RateEncoder (snnTorch's `spikegen.rate` arguments of the same names).
struct RateEncoderOptions {
  int64_t num_steps = 0;  ///< Timesteps drawn; required: 1 to 1,000,000.
  /// Seeds the encoder's own generator as `torch.manual_seed(seed)` seeds PyTorch's (registry
  /// options also take a negative seed and use its two's complement, as PyTorch does).
  uint64_t seed = 0;
  double gain = 1.0;             ///< Probability is `clamp(data * gain + offset, 0, 1)`.
  double offset = 0.0;           ///< See gain.
  int64_t first_spike_time = 0;  ///< Timesteps before it are silent; 0 to num_steps - 1.
  /// Throws UsageError naming the option at fault.
  void validate() const;
};

/// Rate coding, snnTorch's `spikegen.rate`: each value becomes `num_steps` Bernoulli draws with
/// probability `clamp(value * gain + offset, 0, 1)`. Data `(batch, features...)` becomes
/// float32 spikes `(batch, num_steps, features...)`; targets and extras pass through.
///
/// Each encoder owns a CPU generator seeded once, at construction, from `seed`, and draws in
/// snnTorch's order (time first, `(num_steps, batch, features...)`, then made batch-first), so
/// its batches equal `spikegen.rate` called on the same batches in turn after
/// `torch.manual_seed(seed)`: same seed, data, batch sizes and order, same spikes. float64 data
/// are drawn in float64 as snnTorch does; other types in float32. Registered as `RateEncoder`;
/// see docs/encoders.md. Throws InputError for 0-d or complex data and NaN values (infinities
/// are clamped, as in snnTorch).
class RateEncoder final : public PreProcessor {
 public:
  /// Throws UsageError for invalid options (num_steps is required).
  explicit RateEncoder(RateEncoderOptions options);
  /// From options as the registry takes them (missing ones take their defaults); throws
  /// UsageError for unknown, mistyped, missing required or invalid ones.
  explicit RateEncoder(const Json& options);
  RateEncoder(const RateEncoder&) = delete;             ///< Not copied: the generator is state.
  RateEncoder& operator=(const RateEncoder&) = delete;  ///< Not copied: the generator is state.
  /// The name, one line and options that `neurobench list` shows.
  [[nodiscard]] static PluginDescription describe();
  /// Spikes of `batch.data`; advances the generator.
  [[nodiscard]] Batch operator()(const Batch& batch) override;
  /// The options in use.
  [[nodiscard]] const RateEncoderOptions& options() const { return options_; }

 private:
  RateEncoderOptions options_;
  at::Generator generator_;
};

/// Options of LatencyEncoder (snnTorch's `spikegen.latency` arguments of the same names and
/// defaults).
struct LatencyEncoderOptions {
  int64_t num_steps = 0;         ///< Timesteps; required: 1 to 1,000,000.
  double threshold = 0.01;       ///< Values below fire last (or never, with clip); in (0, 1).
  double tau = 1.0;              ///< Time constant, above 0; linear with normalize ignores it.
  bool linear = false;           ///< Linear code instead of the logarithmic (RC) one.
  bool normalize = false;        ///< Stretch the spike times to end at num_steps - 1.
  bool clip = false;             ///< No spike for values below threshold.
  int64_t first_spike_time = 0;  ///< Earliest spike time; 0 to num_steps - 1.
  bool bypass = false;           ///< Drop spikes after num_steps - 1 instead of an error.
  double epsilon = 1e-7;         ///< Log code: values are clamped to threshold + epsilon; > 0.
  /// Throws UsageError naming the option at fault.
  void validate() const;
};

/// Latency coding, snnTorch's `spikegen.latency` (without `interpolate`): each value in
/// [0, 1] fires once, larger values earlier. Data `(batch, features...)` becomes float32
/// spikes `(batch, num_steps, features...)`; targets and extras pass through.
///
/// Spike times follow snnTorch's arithmetic op for op (float32, or float64 for float64 data):
/// logarithmic `tau * log(v / (v - threshold))` with `v = max(value, threshold + epsilon)`, or
/// linear `min(-tau * (value - 1), -tau * (threshold - 1))`, plus first_spike_time; with
/// normalize the times are scaled by the largest time of the whole batch, as snnTorch does on
/// the tensor it is given. A time `t` fires at step `round(t)` (half to even). Registered as
/// `LatencyEncoder`; see docs/encoders.md.
///
/// Throws InputError for 0-d or complex data, NaN values, data outside [0, 1] (naming the
/// range found), and, without bypass, a spike time after num_steps - 1.
class LatencyEncoder final : public PreProcessor {
 public:
  /// Throws UsageError for invalid options (num_steps is required).
  explicit LatencyEncoder(LatencyEncoderOptions options);
  /// From options as the registry takes them (missing ones take their defaults); throws
  /// UsageError for unknown, mistyped, missing required or invalid ones.
  explicit LatencyEncoder(const Json& options);
  /// The name, one line and options that `neurobench list` shows.
  [[nodiscard]] static PluginDescription describe();
  /// Spikes of `batch.data`; see the class comment.
  [[nodiscard]] Batch operator()(const Batch& batch) override;
  /// The options in use.
  [[nodiscard]] const LatencyEncoderOptions& options() const { return options_; }

 private:
  LatencyEncoderOptions options_;
};

}  // namespace processors
}  // namespace neurobench
NEUROBENCH_API_END
