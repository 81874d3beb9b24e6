// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>
#include <neurobench/io/npz.hpp>

NEUROBENCH_API_BEGIN

namespace c10 {
struct IValue;
}  // namespace c10

namespace neurobench {

/// One batch (or one sample): data `(batch, timesteps, features...)`, targets sharing the
/// batch dimension, and optional named metadata tensors (also batch-first).
struct Batch {
  at::Tensor data;                           ///< Model input.
  at::Tensor targets;                        ///< What the predictions are compared with.
  std::map<std::string, at::Tensor> extras;  ///< Metadata, e.g. sample ids; may be empty.
  /// The model's input when it is not one tensor: tuples or lists of tensors, as a recurrent
  /// network that takes `[x, state]` is called (NeuroBench's LSTM, RNN and GRU test models).
  /// `data` is then its first tensor (the batch size, the device, messages). Null: the model
  /// is called on `data`. Shared, never modified: a copy of the batch shares it.
  std::shared_ptr<const c10::IValue> input = nullptr;

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
  /// The tensors the dataset holds whole in memory, by name (TensorDataset: `data` and
  /// `targets`), for the checks Benchmark::run makes before it starts (NaN and Inf values);
  /// none by default.
  [[nodiscard]] virtual std::vector<NamedArray> arrays() const { return {}; }
  /// The SHA-256 of the file the data were read from (64 lowercase hex digits), when they come
  /// from one file; Benchmark::run records it in the results as `_run.data_sha256`.
  [[nodiscard]] virtual std::optional<std::string> source_sha256() const { return std::nullopt; }
  /// Every file the data set reads: those it read when it was opened and those it reads
  /// batch by batch (clips, recordings, list files). A run refuses an output that is one of
  /// them (check_distinct_files(): "an output must not overwrite an input"). None by default.
  [[nodiscard]] virtual std::vector<std::filesystem::path> input_files() const { return {}; }
  /// The batch size of a data set that hands out whole batches only, in order (a
  /// SequentialDataset, whose batches stream recordings through slots): a DataLoader then
  /// makes batches of this size, whatever LoaderOptions::batch_size says, and refuses to
  /// shuffle. Unset (the default) for a random-access data set.
  [[nodiscard]] virtual std::optional<int64_t> fixed_batch_size() const { return std::nullopt; }
  /// The number of batches of a data set that hands out batches made elsewhere, whole and in
  /// order (a Python iterable of batches, through the `neurobench_cpp` module): a DataLoader
  /// then has this many batches, batch `b` being given_batch(b), whatever their sizes, and
  /// size() is the number of samples each batch's weight is taken of (NeuroBench's
  /// `len(dataloader.dataset)`). Unset (the default) for every other data set.
  [[nodiscard]] virtual std::optional<std::size_t> given_batches() const { return std::nullopt; }
  /// Batch `index` of a data set with given_batches(): throws UsageError here.
  [[nodiscard]] virtual Batch given_batch(std::size_t index) const;
};

/// A dataset held in memory as tensors whose first dimension is the sample index.
class TensorDataset final : public Dataset {
 public:
  /// Throws InputError when `data` and `targets` (or an extra) differ in their first
  /// dimension, or when `data` has no dimensions. `name` is used in messages.
  TensorDataset(at::Tensor data, at::Tensor targets, std::map<std::string, at::Tensor> extras = {},
                std::string name = "tensor dataset");

  /// Loads arrays `data` and `targets` from a NumPy `.npz` file and records the file's
  /// SHA-256 (source_sha256()). Other arrays in the file are not read at all, whatever their
  /// size or dtype; to use some as extras, read them with NpzArchive and build the dataset with
  /// the constructor. Throws InputError naming the file and the missing array (listing the
  /// arrays there are), and as NpzArchive does for a damaged file or an array beyond `options`.
  [[nodiscard]] static TensorDataset from_npz(const std::filesystem::path& path,
                                              const NpzReadOptions& options = {});

  [[nodiscard]] int64_t size() const override;
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  [[nodiscard]] std::string describe() const override;
  /// `data` and `targets`.
  [[nodiscard]] std::vector<NamedArray> arrays() const override;
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The `.npz` file of from_npz(), or what set_input_files() gave.
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;
  /// Records the files these tensors were read from (a kind that reads them itself).
  void set_input_files(std::vector<std::filesystem::path> files) { files_ = std::move(files); }

  /// All data.
  [[nodiscard]] const at::Tensor& data() const { return data_; }
  /// All targets.
  [[nodiscard]] const at::Tensor& targets() const { return targets_; }

 private:
  at::Tensor data_;
  at::Tensor targets_;
  std::map<std::string, at::Tensor> extras_;
  std::string name_;
  std::optional<std::string> sha256_;
  std::vector<std::filesystem::path> files_;
};

}  // namespace neurobench
NEUROBENCH_API_END
