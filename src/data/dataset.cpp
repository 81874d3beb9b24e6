// SPDX-License-Identifier: Apache-2.0
#include <neurobench/data/dataset.hpp>

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>

#include "data/file_digest.hpp"
#include "data/rows.hpp"
#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench {

using detail::shape_string;

Batch Dataset::slice(int64_t begin, int64_t end) const {
  std::vector<int64_t> indices(static_cast<std::size_t>(std::max<int64_t>(end - begin, 0)));
  std::iota(indices.begin(), indices.end(), begin);
  return get(indices);
}

Batch Dataset::given_batch(std::size_t index) const {
  throw UsageError(fmt::format("{}: batch {}: the data set hands out no batches of its own",
                               describe(), index));
}

TensorDataset::TensorDataset(torch::Tensor data, torch::Tensor targets,
                             std::map<std::string, torch::Tensor> extras, std::string name)
    : data_(std::move(data)),
      targets_(std::move(targets)),
      extras_(std::move(extras)),
      name_(std::move(name)) {
  if (!data_.defined() || data_.dim() == 0) {
    throw InputError(fmt::format("{}: 'data' must have a batch dimension, got shape {}", name_,
                                 data_.defined() ? shape_string(data_) : "(undefined)"));
  }
  if (!targets_.defined() || targets_.dim() == 0) {
    throw InputError(fmt::format("{}: 'targets' must have a batch dimension, got shape {}",
                                 name_, targets_.defined() ? shape_string(targets_) : "(undefined)"));
  }
  if (data_.size(0) != targets_.size(0)) {
    throw InputError(fmt::format("{}: 'data' has {} samples (shape {}) but 'targets' has {} "
                                 "(shape {})",
                                 name_, data_.size(0), shape_string(data_), targets_.size(0),
                                 shape_string(targets_)));
  }
  for (const auto& [key, value] : extras_) {
    if (!value.defined() || value.dim() == 0 || value.size(0) != data_.size(0)) {
      throw InputError(fmt::format("{}: extra array '{}' has shape {}, expected {} samples "
                                   "along its first dimension",
                                   name_, key, value.defined() ? shape_string(value) : "()",
                                   data_.size(0)));
    }
  }
}

TensorDataset TensorDataset::from_npz(const std::filesystem::path& path,
                                      const NpzReadOptions& options) {
  // Named as what it is for: "the data file is a FIFO". NpzArchive checks again, as "file".
  (void)detail::check_regular_input(path, "data file");
  // The file's SHA-256 is computed beside the arrays' reading, on a thread of its own: on a
  // large file each takes a good part of the opening.
  detail::FileDigest digest(path);
  // Only the two arrays a benchmark uses are read: others (metadata, strings, objects, large
  // arrays) cost nothing and cannot fail the run.
  NpzArchive archive(path, options);
  for (const char* needed : {"data", "targets"}) {
    if (archive.contains(needed)) continue;
    std::string names;
    for (const auto& name : archive.names()) {
      names += (names.empty() ? "" : ", ") + detail::printable(name, 200);
    }
    throw InputError(fmt::format("{}: no array named '{}' (found: {})", path.string(), needed,
                                 names.empty() ? "none" : names));
  }
  torch::Tensor data = archive.read("data");
  torch::Tensor targets = archive.read("targets");
  TensorDataset dataset(std::move(data), std::move(targets), {}, path.string());
  dataset.sha256_ = digest.after_read();
  dataset.files_ = {path};
  return dataset;
}

int64_t TensorDataset::size() const { return data_.size(0); }

Batch TensorDataset::get(const std::vector<int64_t>& indices) const {
  return detail::select_rows([this] { return name_; }, "sample", data_, targets_, extras_, indices);
}

Batch TensorDataset::slice(int64_t begin, int64_t end) const {
  return detail::slice_rows([this] { return name_; }, data_, targets_, extras_, begin, end);
}

std::string TensorDataset::describe() const { return name_; }

std::vector<NamedArray> TensorDataset::arrays() const {
  return {{"data", data_}, {"targets", targets_}};
}

std::optional<std::string> TensorDataset::source_sha256() const { return sha256_; }

std::vector<std::filesystem::path> TensorDataset::input_files() const { return files_; }

}  // namespace neurobench
