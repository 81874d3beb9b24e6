// SPDX-License-Identifier: Apache-2.0
// NeuroBench's THOR EEG motor imagery data: a subset's trials and labels from two .npy files, as
// NeuroBench's ThorEEGMI builds them with np.load and torch.tensor.
#include <neurobench/datasets/thor_eeg_mi.hpp>

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

#include "data/rows.hpp"
#include "io/input_file.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {
namespace {

namespace fs = std::filesystem;

using detail::numpy_shape_string;

constexpr std::array<ThorEegMiSubset, 2> kThorSubsets = {ThorEegMiSubset::Train,
                                                         ThorEegMiSubset::Val};

// Refuses a missing or irregular file before anything is read, saying where the data are.
void check_thor_file(const fs::path& file) {
  try {
    (void)detail::check_regular_input(file, "THOR EEG MI file");
  } catch (const InputError& e) {
    throw InputError(fmt::format(
        "{} (NeuroBench's THOR EEG motor imagery data, train_X.npy, train_y.npy, val_X.npy and "
        "val_y.npy, are at {})",
        e.what(), kThorEegMiUrl));
  }
}

[[noreturn]] void bad_thor_label(const fs::path& file, int64_t trial, const std::string& value) {
  throw InputError(fmt::format(
      "{}: the label of trial {} is {}; a label is a class index, a whole number from 0 "
      "(NeuroBench's torch.tensor(y, dtype=torch.long) would silently make another number of it)",
      file.string(), trial, value));
}

// `torch.tensor(y, dtype=torch.long)` where that gives the labels the file holds. It truncates
// fractions and makes NaN, infinities and values beyond int64 into arbitrary integers, and
// keeps negative values that no class index can match: those are refused instead.
torch::Tensor thor_class_labels(const torch::Tensor& y, const fs::path& file) {
  if (torch::isFloatingType(y.scalar_type())) {
    // float16/32/64 to double is exact, and so is a whole double below 2^63 to int64.
    const torch::Tensor values = y.to(torch::kFloat64).contiguous();
    const double* v = values.data_ptr<double>();
    for (int64_t i = 0; i < values.numel(); ++i) {
      if (!(v[i] >= 0.0 && v[i] < 9223372036854775808.0 && v[i] == std::trunc(v[i]))) {
        bad_thor_label(file, i, fmt::format("{}", v[i]));
      }
    }
    return values.to(torch::kInt64);
  }
  const torch::Tensor labels = y.to(torch::kInt64).contiguous();
  const int64_t* v = labels.data_ptr<int64_t>();
  for (int64_t i = 0; i < labels.numel(); ++i) {
    if (v[i] < 0) bad_thor_label(file, i, fmt::format("{}", v[i]));
  }
  return labels;
}

}  // namespace

std::string_view to_string(ThorEegMiSubset subset) {
  switch (subset) {
    case ThorEegMiSubset::Train:
      return "train";
    case ThorEegMiSubset::Val:
      return "val";
  }
  return "?";
}

ThorEegMiSubset thor_eeg_mi_subset(std::string_view name) {
  for (const ThorEegMiSubset subset : kThorSubsets) {
    if (name == to_string(subset)) return subset;
  }
  throw UsageError(fmt::format("unknown THOR EEG MI subset '{}' (subsets: train, val)",
                               detail::printable(name, 60)));
}

fs::path thor_eeg_mi_inputs_file(const fs::path& folder, ThorEegMiSubset subset) {
  return folder / (std::string(to_string(subset)) + "_X.npy");
}

fs::path thor_eeg_mi_targets_file(const fs::path& folder, ThorEegMiSubset subset) {
  return folder / (std::string(to_string(subset)) + "_y.npy");
}

ThorEegMi::ThorEegMi(const fs::path& folder, ThorEegMiSubset subset)
    : folder_(folder), subset_(subset) {
  const fs::path x_file = thor_eeg_mi_inputs_file(folder, subset);
  const fs::path y_file = thor_eeg_mi_targets_file(folder, subset);
  // NeuroBench looks for both files before it reads either.
  check_thor_file(x_file);
  check_thor_file(y_file);
  const torch::Tensor x = load_npy(x_file);
  if (x.dim() != 3) {
    throw InputError(
        fmt::format("{}: the '{}' trials have shape {}; expected 3-D (trials, timesteps, channels)",
                    x_file.string(), to_string(subset), numpy_shape_string(x.sizes())));
  }
  const torch::Tensor y = load_npy(y_file);
  if (y.dim() != 1) {
    throw InputError(fmt::format(
        "{}: the '{}' labels have shape {}; expected 1-D (trials), one class index per trial",
        y_file.string(), to_string(subset), numpy_shape_string(y.sizes())));
  }
  if (x.size(0) != y.size(0)) {
    throw InputError(fmt::format("{} holds {} trials (shape {}) but {} holds {} labels (shape {})",
                                 x_file.string(), x.size(0), numpy_shape_string(x.sizes()),
                                 y_file.string(), y.size(0), numpy_shape_string(y.sizes())));
  }
  targets_ = thor_class_labels(y, y_file);
  data_ = x.to(torch::kFloat32).contiguous();
  const std::string listing = fmt::format("thor-eeg-mi {}\n{}  {}\n{}  {}\n", to_string(subset),
                                          detail::file_sha256(x_file), x_file.filename().string(),
                                          detail::file_sha256(y_file), y_file.filename().string());
  sha256_ = detail::sha256_hex(listing.data(), listing.size());
}

int64_t ThorEegMi::size() const { return data_.size(0); }

int64_t ThorEegMi::num_classes() const {
  return targets_.numel() == 0 ? 0 : targets_.max().item<int64_t>() + 1;
}

Batch ThorEegMi::get(const std::vector<int64_t>& indices) const {
  return detail::select_rows([this] { return describe(); }, "trial", data_, targets_, {}, indices);
}

Batch ThorEegMi::slice(int64_t begin, int64_t end) const {
  return detail::slice_rows([this] { return describe(); }, data_, targets_, {}, begin, end);
}

std::string ThorEegMi::describe() const {
  return fmt::format("THOR EEG MI '{}' subset of {} ({} trials)", to_string(subset_),
                     folder_.string(), size());
}

std::vector<NamedArray> ThorEegMi::arrays() const {
  return {{"data", data_}, {"targets", targets_}};
}

std::optional<std::string> ThorEegMi::source_sha256() const { return sha256_; }

std::vector<fs::path> ThorEegMi::input_files() const {
  return {thor_eeg_mi_inputs_file(folder_, subset_), thor_eeg_mi_targets_file(folder_, subset_)};
}

}  // namespace neurobench::datasets
