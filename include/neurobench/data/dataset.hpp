// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include <torch/script.h>

namespace neurobench {

/// One batch (or one sample): data `(batch, timesteps, features...)`, targets sharing the
/// batch dimension, and optional named metadata tensors (also batch-first).
struct Batch {
  torch::Tensor data;                            ///< Model input.
  torch::Tensor targets;                         ///< What the predictions are compared with.
  std::map<std::string, torch::Tensor> extras;   ///< Metadata, e.g. sample ids; may be empty.

  /// Number of samples (the first dimension of `data`).
  [[nodiscard]] int64_t size() const { return data.defined() && data.dim() > 0 ? data.size(0) : 0; }
};

/// A random-access collection of samples.
class Dataset {
 public:
  virtual ~Dataset() = default;
  /// Number of samples.
  [[nodiscard]] virtual int64_t size() const = 0;
  /// Samples `indices` as one batch (every tensor gains a leading batch dimension).
  /// Throws UsageError for an index out of range.
  [[nodiscard]] virtual Batch get(const std::vector<int64_t>& indices) const = 0;
  /// Samples `[begin, end)` as one batch; datasets override this when slicing is cheaper.
  [[nodiscard]] virtual Batch slice(int64_t begin, int64_t end) const;
  /// Where the data came from, for messages.
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// A dataset held in memory as tensors whose first dimension is the sample index.
class TensorDataset final : public Dataset {
 public:
  /// Throws InputError when `data` and `targets` (or an extra) differ in their first
  /// dimension, or when `data` has no dimensions. `name` is used in messages.
  TensorDataset(torch::Tensor data, torch::Tensor targets,
                std::map<std::string, torch::Tensor> extras = {},
                std::string name = "tensor dataset");

  /// Loads arrays `data` and `targets` from a NumPy `.npz` file (other arrays become
  /// extras). Throws InputError naming the file and the missing array.
  [[nodiscard]] static TensorDataset from_npz(const std::filesystem::path& path);

  [[nodiscard]] int64_t size() const override;
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  [[nodiscard]] std::string describe() const override;

  /// All data.
  [[nodiscard]] const torch::Tensor& data() const { return data_; }
  /// All targets.
  [[nodiscard]] const torch::Tensor& targets() const { return targets_; }

 private:
  torch::Tensor data_;
  torch::Tensor targets_;
  std::map<std::string, torch::Tensor> extras_;
  std::string name_;
};

}  // namespace neurobench
