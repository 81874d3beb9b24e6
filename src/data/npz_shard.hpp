// SPDX-License-Identifier: Apache-2.0
#pragma once
// An `.npz` data file of which a rank of a sharded run keeps only the rows of its shard
// (docs/distributed.md, "What each rank reads"). Private to src/.

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/io/npz.hpp>

namespace neurobench::detail {

/// TensorDataset::from_npz() of `path`, of whose `data` only some rows are kept in memory:
/// those `rows_of(n)` returns, [first, end) of the file's n samples. The file is read, checked
/// and hashed as from_npz() does it (its SHA-256 is the whole file's), and its errors are
/// from_npz()'s. size() is n: the data set stands for the whole file. A batch outside the rows
/// kept (the timing pass's, when a rank has no full batch of its own) reads the whole file
/// then. arrays() are the rows kept, which the run scans for NaN and infinities.
class NpzShardDataset final : public Dataset {
 public:
  using RowsOf = std::function<std::pair<int64_t, int64_t>(int64_t samples)>;
  NpzShardDataset(std::filesystem::path path, NpzReadOptions options, const RowsOf& rows_of);

  [[nodiscard]] int64_t size() const override;
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] std::vector<NamedArray> arrays() const override;
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The rows kept, [first, end).
  [[nodiscard]] std::pair<int64_t, int64_t> rows() const { return {first_, end_}; }

 private:
  const TensorDataset& whole() const;

  std::filesystem::path path_;
  NpzReadOptions options_;
  int64_t samples_ = 0;
  int64_t first_ = 0;
  int64_t end_ = 0;
  std::unique_ptr<TensorDataset> kept_;
  std::optional<std::string> sha256_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<TensorDataset> whole_;
};

}  // namespace neurobench::detail
