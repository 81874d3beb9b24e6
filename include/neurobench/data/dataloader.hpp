// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// How a DataLoader batches a dataset.
struct LoaderOptions {
  static constexpr int64_t kMaxBatchSize = 2147483647;  ///< Most samples per batch: 2^31 - 1.

  /// Samples per batch; the last may be smaller. A data set with a fixed batch size
  /// (Dataset::fixed_batch_size()) replaces it with its own.
  int64_t batch_size = 64;
  std::optional<std::uint64_t> shuffle_seed;  ///< Shuffle with this seed; in order when unset.

  /// Throws UsageError naming the field when an option is invalid (`batch_size` 1 to
  /// kMaxBatchSize).
  void validate() const;
};

/// Splits a dataset into batches, in order (the default) or shuffled with a fixed seed.
///
/// ```cpp
/// neurobench::LoaderOptions options;
/// options.batch_size = 32;
/// neurobench::DataLoader loader(dataset, options);
/// for (std::size_t b = 0; b < loader.num_batches(); ++b) use(loader.batch(b));
/// ```
class DataLoader {
 public:
  /// Throws UsageError for invalid options and InputError for an empty dataset. A data set with
  /// a fixed batch size (Dataset::fixed_batch_size()) sets `options.batch_size` (options()
  /// says which was used); asking to shuffle it is a UsageError.
  DataLoader(std::shared_ptr<const Dataset> dataset, LoaderOptions options = {});

  /// Number of batches: ceil(size / batch_size).
  [[nodiscard]] std::size_t num_batches() const;
  /// Batch `index` (0-based). Throws UsageError when out of range.
  [[nodiscard]] Batch batch(std::size_t index) const;
  /// The dataset.
  [[nodiscard]] const Dataset& dataset() const { return *dataset_; }
  /// The dataset, shared.
  [[nodiscard]] const std::shared_ptr<const Dataset>& shared_dataset() const { return dataset_; }
  /// The options.
  [[nodiscard]] const LoaderOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  LoaderOptions options_;
  std::vector<int64_t> order_;  // empty when in order
};

}  // namespace neurobench
NEUROBENCH_API_END
