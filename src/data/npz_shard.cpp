// SPDX-License-Identifier: Apache-2.0
#include "data/npz_shard.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <torch/script.h>

#include "data/file_digest.hpp"
#include "io/input_file.hpp"

namespace neurobench::detail {

NpzShardDataset::NpzShardDataset(std::filesystem::path path, NpzReadOptions options,
                                 const RowsOf& rows_of)
    : path_(std::move(path)), options_(options) {
  (void)check_regular_input(path_, "data file");
  // As from_npz(): the whole file's SHA-256 beside the reading.
  FileDigest digest(path_);
  NpzArchive archive(path_, options_);
  std::optional<std::vector<int64_t>> shape;
  at::Tensor targets;
  if (archive.contains("data") && archive.contains("targets")) {
    targets = archive.read("targets");
    shape = archive.shape("data");
  }
  if (!shape || targets.dim() == 0 || shape->empty() || shape->front() != targets.size(0)) {
    // What from_npz() refuses (an array missing, the samples disagreeing), it says so; what it
    // takes, it reads whole.
    kept_ = std::make_unique<TensorDataset>(TensorDataset::from_npz(path_, options_));
    samples_ = end_ = kept_->size();
    sha256_ = kept_->source_sha256();
    return;  // from_npz() recorded the phases
  }
  samples_ = targets.size(0);
  std::tie(first_, end_) = rows_of(samples_);
  first_ = std::clamp<int64_t>(first_, 0, samples_);
  end_ = std::clamp<int64_t>(end_, first_, samples_);
  at::Tensor data = archive.read_rows("data", first_, end_);
  kept_ = std::make_unique<TensorDataset>(std::move(data), targets.narrow(0, first_, end_ - first_),
                                          std::map<std::string, at::Tensor>{}, path_.string());
  sha256_ = digest.after_read();
}

const TensorDataset& NpzShardDataset::whole() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!whole_) whole_ = std::make_unique<TensorDataset>(TensorDataset::from_npz(path_, options_));
  return *whole_;
}

int64_t NpzShardDataset::size() const { return samples_; }

Batch NpzShardDataset::get(const std::vector<int64_t>& indices) const {
  const bool kept = std::all_of(indices.begin(), indices.end(),
                                [&](int64_t i) { return i >= first_ && i < end_; });
  if (!kept) return whole().get(indices);
  std::vector<int64_t> local(indices);
  for (int64_t& i : local) i -= first_;
  return kept_->get(local);
}

Batch NpzShardDataset::slice(int64_t begin, int64_t end) const {
  if (begin >= first_ && end <= end_ && begin <= end) {
    return kept_->slice(begin - first_, end - first_);
  }
  return whole().slice(begin, end);
}

std::string NpzShardDataset::describe() const { return path_.string(); }

std::vector<NamedArray> NpzShardDataset::arrays() const { return kept_->arrays(); }

std::optional<std::string> NpzShardDataset::source_sha256() const { return sha256_; }

std::vector<std::filesystem::path> NpzShardDataset::input_files() const { return {path_}; }

}  // namespace neurobench::detail
