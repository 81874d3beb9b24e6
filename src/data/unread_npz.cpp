// SPDX-License-Identifier: Apache-2.0
#include "data/unread_npz.hpp"

#include "io/input_file.hpp"

namespace neurobench::detail {

UnreadNpzDataset::UnreadNpzDataset(std::filesystem::path path, NpzReadOptions options)
    : path_(std::move(path)), options_(options) {
  // What from_npz() refuses before reading (a folder, a FIFO, a missing file) is said now.
  (void)check_regular_input(path_, "data file");
}

const TensorDataset& UnreadNpzDataset::dataset() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!dataset_) {
    dataset_ = std::make_unique<TensorDataset>(TensorDataset::from_npz(path_, options_));
  }
  return *dataset_;
}

bool UnreadNpzDataset::read() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return dataset_ != nullptr;
}

int64_t UnreadNpzDataset::size() const {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (dataset_) return dataset_->size();
    if (size_) return *size_;
    NpzArchive archive(path_, options_);
    if (archive.contains("data") && archive.contains("targets")) {
      const at::Tensor targets = archive.read("targets");
      if (targets.dim() > 0) {
        size_ = targets.size(0);
        return *size_;
      }
    }
  }
  return dataset().size();  // a file from_npz() refuses: its error
}

Batch UnreadNpzDataset::get(const std::vector<int64_t>& indices) const {
  return dataset().get(indices);
}

Batch UnreadNpzDataset::slice(int64_t begin, int64_t end) const {
  return dataset().slice(begin, end);
}

std::string UnreadNpzDataset::describe() const { return path_.string(); }

std::vector<NamedArray> UnreadNpzDataset::arrays() const { return dataset().arrays(); }

std::optional<std::string> UnreadNpzDataset::source_sha256() const {
  return dataset().source_sha256();
}

std::vector<std::filesystem::path> UnreadNpzDataset::input_files() const { return {path_}; }

}  // namespace neurobench::detail
