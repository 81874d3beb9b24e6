// SPDX-License-Identifier: Apache-2.0
#pragma once
// The counts the hook metrics make of a batch's tensors on a device, made together: every
// tensor of the batch (each layer's output, each connection's input, whichever metric asked) is
// counted in a few operators and read back once, instead of a few operators per tensor and
// metric (docs/performance.md, "Counting on a device"). Private to src/metrics.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

namespace neurobench::detail {

/// What a tally counted of one tensor. NaN counts as non-zero and as not a spike.
struct TallyCounts {
  int64_t nonzeros = 0;    ///< Elements that are not 0.
  int64_t not_spikes = 0;  ///< Elements that are not -1, 0 or 1 (0: the tensor is spikes).
  int64_t weighted = 0;    ///< With weights: the sum of the weights of the non-zero elements.
};

class DeviceTally;
struct TallyBatch;  // the tensors of one batch and, once counted, their counts

/// A tensor added to a tally. Its counts are made, for every tensor the batch added so far,
/// when one of them is first asked for (one wait for the device); the tensor must not change in
/// place before then, as NeuroBench's hooks keep a batch's tensors.
class TallyHandle {
 public:
  [[nodiscard]] const TallyCounts& counts() const;

 private:
  friend class DeviceTally;
  std::shared_ptr<TallyBatch> batch_;
  std::size_t index_ = 0;
};

/// The tensors the hooks of one run see on a device, counted batch by batch. A batch ends when
/// its counts are first read: what is added after belongs to the next.
class DeviceTally {
 public:
  /// The most bytes of tensors a batch keeps before it counts them (one wait) and lets them go.
  static constexpr int64_t kMaxKeptBytes = int64_t{256} << 20;

  explicit DeviceTally(int64_t max_kept_bytes = kMaxKeptBytes);
  ~DeviceTally();
  DeviceTally(const DeviceTally&) = delete;
  DeviceTally& operator=(const DeviceTally&) = delete;

  /// Adds `t` as `t.size(0)` samples when `batched` (else as one sample) of its other elements.
  /// `weights`, when given: an int64 CPU tensor with one weight per element of a sample. Returns
  /// nothing, and keeps nothing, for a tensor on the CPU, of a type other than floating point,
  /// or without elements: the caller counts those itself.
  [[nodiscard]] std::optional<TallyHandle> add(const at::Tensor& t, bool batched,
                                               const at::Tensor& weights = {});

 private:
  int64_t max_kept_bytes_;
  std::shared_ptr<TallyBatch> batch_;
};

/// The tally of the layer hooks running on this thread, or nullptr.
[[nodiscard]] DeviceTally* current_tally();

/// Makes a tally current on this thread while it lives (the previous one after).
class TallyScope {
 public:
  explicit TallyScope(DeviceTally& tally);
  ~TallyScope();
  TallyScope(const TallyScope&) = delete;
  TallyScope& operator=(const TallyScope&) = delete;

 private:
  DeviceTally* previous_;
};

}  // namespace neurobench::detail
