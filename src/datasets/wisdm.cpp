// SPDX-License-Identifier: Apache-2.0
// NeuroBench's WISDM data: six arrays of one .npz, the subset's inputs as float32 and its one-hot
// targets as class indices, as NeuroBench's WISDM builds them with NumPy and torch.tensor.
#include <neurobench/datasets/wisdm.hpp>

#include <array>
#include <cmath>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "data/rows.hpp"
#include "io/input_file.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {
namespace {

namespace fs = std::filesystem;

using detail::numpy_shape_string;

// NeuroBench unpacks the file's arrays in this order: x_train, x_val, x_test, y_train, y_val,
// y_test.
constexpr std::array<const char*, 6> kArrays = {"arr_0", "arr_1", "arr_2",
                                                "arr_3", "arr_4", "arr_5"};
constexpr std::array<WisdmSubset, 3> kSubsets = {WisdmSubset::Train, WisdmSubset::Val,
                                                 WisdmSubset::Test};

std::size_t position(WisdmSubset subset) {
  switch (subset) {
    case WisdmSubset::Train:
      return 0;
    case WisdmSubset::Val:
      return 1;
    case WisdmSubset::Test:
      return 2;
  }
  return 0;
}

// NumPy's argmax over one row: the first largest value, the first NaN before any number.
template <class T>
int64_t first_max(const T* row, int64_t n) {
  int64_t best = 0;
  for (int64_t j = 1; j < n; ++j) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(row[best])) break;
      if (std::isnan(row[j])) return j;
    }
    if (row[j] > row[best]) best = j;
  }
  return best;
}

template <class T>
torch::Tensor argmax_as(const torch::Tensor& one_hot, torch::ScalarType type) {
  const torch::Tensor values = one_hot.to(type).contiguous();
  const int64_t rows = values.size(0);
  const int64_t columns = values.size(1);
  torch::Tensor out = torch::empty({rows}, torch::kInt64);
  const T* in = values.data_ptr<T>();
  int64_t* index = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < rows; ++i) index[i] = first_max(in + i * columns, columns);
  return out;
}

}  // namespace

std::string_view to_string(WisdmSubset subset) {
  switch (subset) {
    case WisdmSubset::Train:
      return "train";
    case WisdmSubset::Val:
      return "val";
    case WisdmSubset::Test:
      return "test";
  }
  return "?";
}

WisdmSubset wisdm_subset(std::string_view name) {
  for (const WisdmSubset subset : kSubsets) {
    if (name == to_string(subset)) return subset;
  }
  throw UsageError(fmt::format("unknown WISDM subset '{}' (subsets: train, val, test)",
                               detail::printable(name, 60)));
}

torch::Tensor argmax_rows(const torch::Tensor& one_hot) {
  if (!one_hot.defined()) throw InputError("one-hot targets: undefined tensor");
  if (one_hot.dim() != 2) {
    throw InputError(fmt::format("one-hot targets: shape {}; expected 2-D (samples, classes)",
                                 numpy_shape_string(one_hot.sizes())));
  }
  if (one_hot.size(1) == 0) {
    throw InputError(fmt::format("one-hot targets: shape {} has no classes to take the argmax of",
                                 numpy_shape_string(one_hot.sizes())));
  }
  // Every dtype load_npy gives converts exactly: integers and bool to int64, float16/32/64 to
  // double, so no two values become equal that were not.
  if (torch::isFloatingType(one_hot.scalar_type())) {
    return argmax_as<double>(one_hot, torch::kFloat64);
  }
  return argmax_as<int64_t>(one_hot, torch::kInt64);
}

fs::path wisdm_file(const fs::path& path) {
  // NeuroBench: `path.endswith(".npz")`, case and all.
  if (detail::ends_with(path.string(), ".npz")) return path;
  return path / kWisdmFileName;
}

Wisdm::Wisdm(const fs::path& path, WisdmSubset subset, NpzReadOptions options)
    : file_(wisdm_file(path)), subset_(subset) {
  options.validate();
  try {
    (void)detail::check_regular_input(file_, "WISDM file");
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} (NeuroBench's WISDM data, {}, is in {})", e.what(),
                                 kWisdmFileName, kWisdmUrl));
  }
  NpzArchive archive(file_, options);
  for (const char* name : kArrays) {
    if (archive.contains(name)) continue;
    std::string names;
    for (const auto& found : archive.names()) {
      names += (names.empty() ? "" : ", ") + detail::printable(found, 200);
    }
    throw InputError(fmt::format(
        "{}: no array named '{}' (found: {}); a WISDM file holds arr_0..arr_5: the train, "
        "validation and test inputs, then their one-hot targets",
        file_.string(), name, names.empty() ? "none" : names));
  }
  const std::size_t k = position(subset);
  const std::string x_name = kArrays[k];
  const std::string y_name = kArrays[k + 3];
  const torch::Tensor x = archive.read(x_name);
  const torch::Tensor y = archive.read(y_name);
  if (x.dim() != 3) {
    throw InputError(fmt::format(
        "{}: array '{}' (the '{}' inputs) has shape {}; expected 3-D (windows, timesteps, "
        "channels)",
        file_.string(), x_name, to_string(subset), numpy_shape_string(x.sizes())));
  }
  if (y.dim() != 2) {
    throw InputError(fmt::format(
        "{}: array '{}' (the '{}' targets) has shape {}; expected 2-D one-hot (windows, classes)",
        file_.string(), y_name, to_string(subset), numpy_shape_string(y.sizes())));
  }
  if (y.size(1) == 0) {
    throw InputError(fmt::format(
        "{}: array '{}' (the '{}' targets) has shape {}: no classes to take the argmax of",
        file_.string(), y_name, to_string(subset), numpy_shape_string(y.sizes())));
  }
  if (x.size(0) != y.size(0)) {
    throw InputError(fmt::format(
        "{}: array '{}' has {} windows (shape {}) but its targets '{}' have {} (shape {})",
        file_.string(), x_name, x.size(0), numpy_shape_string(x.sizes()), y_name, y.size(0),
        numpy_shape_string(y.sizes())));
  }
  data_ = x.to(torch::kFloat32).contiguous();
  targets_ = argmax_rows(y);
  num_classes_ = y.size(1);
  sha256_ = detail::file_sha256(file_);
}

int64_t Wisdm::size() const { return data_.size(0); }

Batch Wisdm::get(const std::vector<int64_t>& indices) const {
  return detail::select_rows([this] { return describe(); }, "window", data_, targets_, {}, indices);
}

Batch Wisdm::slice(int64_t begin, int64_t end) const {
  return detail::slice_rows([this] { return describe(); }, data_, targets_, {}, begin, end);
}

std::string Wisdm::describe() const {
  return fmt::format("WISDM '{}' subset of {} ({} windows)", to_string(subset_), file_.string(),
                     size());
}

std::vector<NamedArray> Wisdm::arrays() const { return {{"data", data_}, {"targets", targets_}}; }

std::optional<std::string> Wisdm::source_sha256() const { return sha256_; }

std::vector<fs::path> Wisdm::input_files() const { return {file_}; }

}  // namespace neurobench::datasets
