// SPDX-License-Identifier: Apache-2.0
// The Primate Reaching data set with the semantics of NeuroBench's PrimateReaching
// (neurobench/datasets/primate_reaching.py): how spikes are binned, where segments start, which
// steps make each subset, and what a sample holds. The NumPy, SciPy and torch operations it
// uses are reproduced to the bit (np.arange, np.histogram, convolve2d, torch.gradient).
#include <neurobench/datasets/primate_reaching.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "util/array_budget.hpp"
#include "io/hdf5_file.hpp"
#include "util/progress.hpp"
#include "util/sha256.hpp"

namespace neurobench::datasets {
namespace {

// The most values one dataset of the file may hold: the published sessions' largest, `t` and
// the spike times of a unit, hold a few hundred thousand.
constexpr std::uint64_t kMaxValues = std::uint64_t{1} << 31;

// The length of NumPy's arange(start, stop, step): ceil((stop - start) / step), 0 when not
// positive; a double, since it may be far more than a vector can hold.
double arange_length(double start, double stop, double step) {
  const double length = std::ceil((stop - start) / step);
  return length > 0 ? length : 0;
}

// NumPy's arange(start, stop, step) for doubles: the second value start + step, and the others
// start + i * delta with delta the difference of the first two (NumPy's fill), which need not
// equal step. `length` is arange_length()'s, already checked to fit in memory.
std::vector<double> numpy_arange(double start, double step, std::size_t length) {
  if (length == 0) return {};
  std::vector<double> out(length);
  out[0] = start;
  if (out.size() == 1) return out;
  out[1] = start + step;
  const double delta = out[1] - start;
  for (std::size_t i = 2; i < out.size(); ++i) out[i] = start + static_cast<double>(i) * delta;
  return out;
}

// The bin of np.histogram(values, bins=edges) that `value` falls in: [e[i], e[i+1]), the last
// bin closed; -1 outside the edges (NaN included).
std::ptrdiff_t histogram_bin(const std::vector<double>& edges, double value) {
  if (!(value >= edges.front()) || !(value <= edges.back())) return -1;
  const auto bins = static_cast<std::ptrdiff_t>(edges.size()) - 1;
  const std::ptrdiff_t i = std::upper_bound(edges.begin(), edges.end(), value) - edges.begin() - 1;
  return std::min(i, bins - 1);
}

// A dataset of one row or one column (`t`, which NeuroBench squeezes): its values.
std::vector<double> vector_of(detail::Hdf5Doubles array, const std::filesystem::path& path,
                              const std::string& name) {
  std::size_t long_dims = 0;
  for (const auto d : array.dims) long_dims += d != 1 ? 1 : 0;
  if (long_dims > 1 || array.values.size() < 2) {
    throw InputError(
        fmt::format("{}: dataset '{}' has shape ({}); expected a vector of at least 2 time steps",
                    path.string(), name, fmt::join(array.dims, ", ")));
  }
  return std::move(array.values);
}

// A dataset of shape (2, steps): `cursor_pos`, `target_pos` (MATLAB's steps x 2, transposed).
std::vector<double> two_rows(detail::Hdf5Doubles array, std::size_t steps,
                             const std::filesystem::path& path, const std::string& name) {
  if (array.dims.size() != 2 || array.dims[0] != 2 || array.dims[1] != steps) {
    throw InputError(fmt::format(
        "{}: dataset '{}' has shape ({}); expected (2, {}), x and y for each step of 't'",
        path.string(), name, fmt::join(array.dims, ", "), steps));
  }
  return std::move(array.values);
}

// NeuroBench's get_flag_index and split_into_segments: a segment ends where target_pos
// changes (the step before the change is the last of it).
std::vector<std::pair<int64_t, int64_t>> cut_segments(const std::vector<double>& target,
                                                      std::size_t steps) {
  std::vector<int64_t> bounds{0};
  for (std::size_t i = 0; i < steps; ++i) {
    const std::size_t next = i + 1 < steps ? i + 1 : steps - 1;
    const double dx = target[next] - target[i];
    const double dy = target[steps + next] - target[steps + i];
    // NumPy's sum of absolute differences, nonzero: NaN counts as a change.
    if (std::abs(dx) + std::abs(dy) != 0) bounds.push_back(static_cast<int64_t>(i));
  }
  bounds.push_back(static_cast<int64_t>(steps));
  std::vector<std::pair<int64_t, int64_t>> segments;
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k)
    segments.emplace_back(bounds[k], bounds[k + 1]);
  return segments;
}

}  // namespace

std::string_view to_string(PrimateReachingSubset subset) {
  switch (subset) {
    case PrimateReachingSubset::Train:
      return "train";
    case PrimateReachingSubset::Validation:
      return "val";
    case PrimateReachingSubset::Test:
      return "test";
  }
  return "unknown";
}

PrimateReachingSubset primate_reaching_subset(std::string_view name) {
  if (name == "train") return PrimateReachingSubset::Train;
  if (name == "val" || name == "valid" || name == "validation") {
    return PrimateReachingSubset::Validation;
  }
  if (name == "test") return PrimateReachingSubset::Test;
  throw UsageError(fmt::format(
      "unknown Primate Reaching subset '{}' (valid: train, val, test; NeuroBench's ind_train, "
      "ind_val, ind_test)",
      name));
}

void PrimateReachingOptions::validate() const {
  const auto bad = [](const std::string& what) {
    return UsageError("Primate Reaching option " + what);
  };
  if (num_steps < 1) throw bad(fmt::format("num_steps = {}: must be at least 1", num_steps));
  if (!(train_ratio >= 0 && train_ratio <= 1)) {
    throw bad(fmt::format("train_ratio = {}: must lie in [0, 1]", train_ratio));
  }
  if (biological_delay < 0) {
    throw bad(fmt::format("biological_delay = {}: must be 0 or more steps", biological_delay));
  }
  for (const auto& [name, seconds] :
       {std::pair{"stride", stride}, std::pair{"bin_width", bin_width}}) {
    if (!(seconds >= PrimateReaching::kSamplingRate && seconds <= kMaxSeconds)) {
      throw bad(
          fmt::format("{} = {}: must be at least 0.004 s (the sampling interval) and at "
                      "most {:g} s",
                      name, seconds, kMaxSeconds));
    }
  }
  if (max_segment_length < 0) {
    throw bad(fmt::format("max_segment_length = {}: must be 0 or more", max_segment_length));
  }
  if (split_num < 1) throw bad(fmt::format("split_num = {}: must be at least 1", split_num));
}

PrimateReaching::PrimateReaching(const std::filesystem::path& path, PrimateReachingSubset subset,
                                 PrimateReachingOptions options)
    : path_(path), subset_(subset), options_(options) {
  options_.validate();
  const detail::Hdf5File file(path);
  const std::vector<double> t = vector_of(file.read_doubles("t", kMaxValues), path, "t");
  const std::size_t steps = t.size();
  const std::vector<double> cursor =
      two_rows(file.read_doubles("cursor_pos", kMaxValues), steps, path, "cursor_pos");
  const std::vector<double> target =
      two_rows(file.read_doubles("target_pos", kMaxValues), steps, path, "target_pos");
  const detail::Hdf5References spikes = file.read_references("spikes", kMaxValues);
  if (spikes.dims.size() != 2 || spikes.refs.empty()) {
    throw InputError(
        fmt::format("{}: dataset 'spikes' has shape ({}); expected a cell array (units, channels)",
                    path.string(), fmt::join(spikes.dims, ", ")));
  }
  const std::size_t units = spikes.dims[0];
  channels_ = static_cast<int64_t>(spikes.dims[1]);
  if (!std::isfinite(t.front()) || !std::isfinite(t.back()) || !(t.back() > t.front())) {
    throw InputError(fmt::format(
        "{}: dataset 't' runs from {} to {}; expected increasing finite times in seconds",
        path.string(), t.front(), t.back()));
  }

  // The spike train: a 1 at the step after each non-empty histogram bin, as NeuroBench marks
  // a bin's upper edge; the units of a channel merged (its bitwise_or over units).
  // The spike trains take a byte per 4 ms step and channel: checked against the budget before
  // anything is allocated, as the span of 't' and bin_width decide their length.
  const double start = t.front() - options_.bin_width;
  const double length = arange_length(start, t.back(), kSamplingRate);
  const std::string binning = fmt::format(
      "{}: the spike trains of {} channels over dataset 't' ({:g} s to {:g} s) and a bin_width of "
      "{:g} "
      "s, at 0.004 s steps",
      path.string(), channels_, t.front(), t.back(), options_.bin_width);
  detail::check_array_bytes(length * static_cast<double>(std::max<int64_t>(channels_, 1)),
                            options_.max_array_bytes, detail::available_memory(), binning);
  ratio_ = static_cast<int64_t>(std::nearbyint(options_.bin_width / kSamplingRate));
  const std::vector<double> edges =
      numpy_arange(start, kSamplingRate, static_cast<std::size_t>(length));
  if (edges.size() < 2 || static_cast<int64_t>(edges.size()) < ratio_) {
    throw InputError(
        fmt::format("{}: dataset 't' spans {} s, too short for a binning window of {} s",
                    path.string(), t.back() - t.front(), options_.bin_width));
  }
  const auto columns = static_cast<int64_t>(edges.size());
  spikes_.assign(edges.size() * static_cast<std::size_t>(channels_), 0);
  detail::Progress progress(!options_.quiet, spikes.refs.size(), "cells", /*stops=*/true);
  for (std::size_t u = 0; u < units; ++u) {
    for (std::size_t c = 0; c < static_cast<std::size_t>(channels_); ++c) {
      const std::size_t cell = u * static_cast<std::size_t>(channels_) + c;
      const detail::Hdf5Doubles times = file.read_referenced_doubles(
          spikes.refs[cell], fmt::format("dataset 'spikes', cell ({}, {})", u, c), kMaxValues);
      for (const double v : times.values) {
        const std::ptrdiff_t bin = histogram_bin(edges, v);
        if (bin >= 0) spikes_[(static_cast<std::size_t>(bin) + 1) * channels_ + c] = 1;
      }
      progress.update(cell + 1);
    }
  }

  // Velocity: torch.gradient of the float32 positions, as NeuroBench computes it; then the
  // delay, which drops the last windows and the first velocities.
  const torch::Tensor position = torch::from_blob(const_cast<double*>(cursor.data()),
                                                  {2, static_cast<int64_t>(steps)}, torch::kFloat64)
                                     .to(torch::kFloat32);
  torch::Tensor velocity = at::gradient(position, c10::nullopt, int64_t{1}, 1)[0];
  const int64_t delay = options_.biological_delay;
  window_columns_ = std::max<int64_t>(0, columns - ratio_ + 1 - delay);
  velocity_ = velocity.slice(1, std::min<int64_t>(delay, static_cast<int64_t>(steps))).contiguous();
  const int64_t label_columns = velocity_.size(1);

  // NeuroBench's split_data, its quirks included: the validity test uses a segment's index
  // within its chunk, and the segments after the last whole chunk belong to no subset.
  segments_ = cut_segments(target, steps);
  const auto total = static_cast<int64_t>(segments_.size());
  std::vector<bool> valid(static_cast<std::size_t>(total), true);
  if (options_.remove_segments_inactive && options_.max_segment_length > 0) {
    for (int64_t k = 0; k < total; ++k) {
      const auto& [start, end] = segments_[static_cast<std::size_t>(k)];
      valid[static_cast<std::size_t>(k)] = end - start < options_.max_segment_length;
    }
  }
  const int64_t sub_length = total / options_.split_num;
  const auto stride = static_cast<int64_t>(options_.stride / kSamplingRate);
  const auto train_len =
      static_cast<int64_t>(std::floor(options_.train_ratio * static_cast<double>(sub_length)));
  const int64_t val_len = (sub_length - train_len) / 2;
  const int64_t reach = (options_.num_steps - 1) * ratio_;
  // More chunks than segments leaves every chunk empty, and every subset, as in NeuroBench:
  // nothing to loop over (10^18 chunks once did, for ever).
  const int64_t chunks = sub_length > 0 ? options_.split_num : 0;
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    for (int64_t i = 0; i < sub_length; ++i) {
      if (i >= total || !valid[static_cast<std::size_t>(i)]) continue;
      const PrimateReachingSubset owner = i < train_len ? PrimateReachingSubset::Train
                                          : i < train_len + val_len
                                              ? PrimateReachingSubset::Validation
                                              : PrimateReachingSubset::Test;
      if (owner != subset_) continue;
      const auto& [start, end] = segments_[static_cast<std::size_t>(chunk * sub_length + i)];
      for (int64_t step = start; step < end; step += stride) {
        // NeuroBench indexes its tensors with step - k * ratio: negative values wrap, values
        // out of range raise IndexError there; those steps are left out here.
        const bool windows_ok = step < window_columns_ && step - reach >= -window_columns_;
        const bool labels_ok =
            step < label_columns && (!options_.label_series || step - reach >= -label_columns);
        if (windows_ok && labels_ok) {
          steps_.push_back(step);
        } else {
          ++dropped_;
        }
      }
    }
  }
  sha256_ = detail::file_sha256(path);
}

int64_t PrimateReaching::size() const { return static_cast<int64_t>(steps_.size()); }

Batch PrimateReaching::get(const std::vector<int64_t>& indices) const {
  const auto n = static_cast<int64_t>(indices.size());
  const int64_t rows = options_.num_steps;
  torch::Tensor data = torch::zeros({n, rows, channels_}, torch::kFloat32);
  torch::Tensor targets = options_.label_series ? torch::empty({n, rows, 2}, torch::kFloat32)
                                                : torch::empty({n, 2}, torch::kFloat32);
  float* out = data.data_ptr<float>();
  float* target_out = targets.data_ptr<float>();
  const float* velocity = velocity_.data_ptr<float>();
  const int64_t label_columns = velocity_.size(1);
  const auto c_count = static_cast<std::size_t>(channels_);
  for (int64_t b = 0; b < n; ++b) {
    const int64_t index = indices[static_cast<std::size_t>(b)];
    if (index < 0 || index >= size()) {
      throw UsageError(
          fmt::format("{}: sample {} out of range (size {})", describe(), index, size()));
    }
    const int64_t step = steps_[static_cast<std::size_t>(index)];
    for (int64_t k = 0; k < rows; ++k) {
      int64_t column = step - k * ratio_;
      if (column < 0) column += window_columns_;
      float* row = out + (b * rows + k) * channels_;
      // SciPy's convolve2d(..., ones((1, ratio)), 'valid'): a window sums `ratio` steps.
      for (int64_t j = 0; j < ratio_; ++j) {
        const std::uint8_t* spike = spikes_.data() + static_cast<std::size_t>(column + j) * c_count;
        for (std::size_t c = 0; c < c_count; ++c) row[c] += static_cast<float>(spike[c]);
      }
      if (options_.label_series) {
        int64_t label = step - k * ratio_;
        if (label < 0) label += label_columns;
        target_out[(b * rows + k) * 2] = velocity[label];
        target_out[(b * rows + k) * 2 + 1] = velocity[label_columns + label];
      }
    }
    if (!options_.label_series) {
      target_out[b * 2] = velocity[step];
      target_out[b * 2 + 1] = velocity[label_columns + step];
    }
  }
  return Batch{data, targets, {}};
}

std::vector<NamedArray> PrimateReaching::arrays() const {
  return {{"velocity (targets, from cursor_pos)", velocity_}};
}

std::string PrimateReaching::describe() const {
  return fmt::format("Primate Reaching '{}' subset of {} ({} samples, {} channels)",
                     to_string(subset_), path_.string(), size(), channels_);
}

std::optional<std::string> PrimateReaching::source_sha256() const { return sha256_; }

std::vector<std::filesystem::path> PrimateReaching::input_files() const { return {path_}; }

}  // namespace neurobench::datasets
