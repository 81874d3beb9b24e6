// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

namespace detail {
class TallyHandle;  // internal: a tensor counted with the rest of its batch
}  // namespace detail

/// A sum of counts that leaves what is counted on a device (a GPU) there until the sum is read:
/// a hook metric adds a layer call's count without waiting for the device, and reads the sum
/// once per batch (docs/devices.md). On the CPU it is a plain integer sum.
///
/// ```cpp
/// void on_activation(const neurobench::ActivationCall& call) override {
///   spikes_.add_nonzeros(call.output);  // counted when the sum is read
/// }
/// void update(const neurobench::WorkloadInput&) override { total_ = spikes_.value(); }
/// ```
class CountSum {
 public:
  /// The most bytes of tensors add_nonzeros() and add_changes() keep before they count them
  /// (and no longer keep them): 256 MiB.
  static constexpr int64_t kMaxKeptBytes = int64_t{256} << 20;

  /// Adds a number.
  void add(int64_t n) { host_ += n; }
  /// Adds a count held in a 0-dim tensor of integers (or booleans): on the CPU its value at
  /// once; on a device, on that device, nothing read back. Throws UsageError for a tensor that
  /// is not 0-dim or not of integers.
  void add(const at::Tensor& n);
  /// Adds the number of non-zero elements of `t`, times `times`. On the CPU they are counted at
  /// once. On a device `t` is kept, and every tensor kept is counted when the sum is next read,
  /// in one go: a few operators for all of them rather than a few for each (a hook runs at
  /// every call of a layer, at every timestep). Inside a run's layer hooks, the tensors of every
  /// metric's sums are counted together, in one go per batch. A kept tensor must not change in
  /// place before then; NeuroBench's hooks keep the tensors of a batch in the same way. Past
  /// kMaxKeptBytes, what is kept is counted on the device and let go.
  void add_nonzeros(const at::Tensor& t, int64_t times = 1);
  /// Adds the number of elements that differ between `before` and `after`, `(after - before) !=
  /// 0` (NaN counts), times `times`, as add_nonzeros() counts. Throws MetricError (`membrane
  /// potential changed shape from [...] to [...]`) when their shapes differ.
  void add_changes(const at::Tensor& before, const at::Tensor& after, int64_t times = 1);
  /// The sum so far: counts what is kept, reads back what was added on a device since the last
  /// call (one wait for the device), and keeps it as a number (so it is const: reading changes
  /// no value).
  [[nodiscard]] int64_t value() const;
  /// Starts again from 0, keeping nothing.
  void reset();

 private:
  // What add_nonzeros() and add_changes() keep on a device, by factor: the tensors whose
  // non-zeros count, and the pairs whose differences count.
  struct Kept {
    std::vector<at::Tensor> nonzeros;
    std::vector<at::Tensor> before;
    std::vector<at::Tensor> after;
  };
  void count_kept() const;  // folds what is kept into pending_, on the device

  mutable int64_t host_ = 0;
  mutable at::Tensor pending_;  // the counts added on a device since the last value(), there
  mutable std::map<int64_t, Kept> kept_;
  mutable int64_t kept_bytes_ = 0;
  // Tensors given to the run's tally (add_nonzeros() inside layer hooks), with their factors.
  mutable std::vector<std::pair<std::shared_ptr<const detail::TallyHandle>, int64_t>> tallied_;
};

}  // namespace neurobench
NEUROBENCH_API_END
