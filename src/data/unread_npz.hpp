// SPDX-License-Identifier: Apache-2.0
#pragma once
// An `.npz` data file that a run may not read (RunOptions::static_only_reads_no_data): opened
// only when something asks for its samples. Private to src/.

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/io/npz.hpp>

namespace neurobench::detail {

/// The TensorDataset::from_npz() of `path`, read at the first call that needs its arrays.
/// size() reads only the `targets` array (the file's central directory and one member);
/// describe() and input_files() read nothing. Errors are from_npz()'s, when it is read.
class UnreadNpzDataset : public Dataset {
 public:
  UnreadNpzDataset(std::filesystem::path path, NpzReadOptions options);

  [[nodiscard]] int64_t size() const override;
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] std::vector<NamedArray> arrays() const override;
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// Whether the arrays have been read.
  [[nodiscard]] bool read() const;

 private:
  const TensorDataset& dataset() const;

  std::filesystem::path path_;
  NpzReadOptions options_;
  mutable std::mutex mutex_;
  mutable std::unique_ptr<TensorDataset> dataset_;
  mutable std::optional<int64_t> size_;
};

}  // namespace neurobench::detail
