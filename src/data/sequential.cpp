// SPDX-License-Identifier: Apache-2.0
// Sequential batches: metavision_ml's Scheduler (recordings streamed through the slots of a
// batch, unshuffled, padded) and the data set base that assembles a batch from its slots.
#include <neurobench/data/sequential.hpp>

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

namespace neurobench {
namespace {

// metavision rounds a duration down to whole batches, or up when it is at most this many
// microseconds short of one (its `_rounding`, `rounding_tolerance=1000`).
constexpr int64_t kSequenceRoundingToleranceUs = 1000;

int64_t rounded_to_batches(int64_t duration, int64_t batch_us) {
  int64_t excess = duration % batch_us;
  // Python's `duration % -batch_us`: the negative remainder, which rounds up.
  if (batch_us - excess <= kSequenceRoundingToleranceUs)
    excess = excess == 0 ? 0 : excess - batch_us;
  return duration - excess;
}

}  // namespace

SequentialSchedule::SequentialSchedule(std::vector<int64_t> durations_us, int64_t delta_t_us,
                                       int64_t num_tbins, int64_t batch_size)
    : delta_t_us_(delta_t_us), num_tbins_(num_tbins) {
  if (delta_t_us <= 0) {
    throw UsageError(fmt::format("delta_t: {} us; expected a positive number", delta_t_us));
  }
  if (num_tbins <= 0) throw UsageError(fmt::format("num_tbins: {}; expected >= 1", num_tbins));
  if (batch_size <= 0) throw UsageError(fmt::format("batch_size: {}; expected >= 1", batch_size));
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 4;
  if (delta_t_us > kMax / num_tbins) {
    throw UsageError(
        fmt::format("delta_t * num_tbins: {} * {} us overflows", delta_t_us, num_tbins));
  }
  const int64_t batch_us = delta_t_us * num_tbins;
  durations_.reserve(durations_us.size());
  for (std::size_t i = 0; i < durations_us.size(); ++i) {
    if (durations_us[i] < 0 || durations_us[i] > kMax) {
      throw UsageError(
          fmt::format("recording {}: duration {} us is out of range", i, durations_us[i]));
    }
    durations_.push_back(rounded_to_batches(durations_us[i], batch_us));
  }
  const auto n = static_cast<int64_t>(durations_.size());
  batch_size_ = std::min(batch_size, n);  // metavision: fewer slots than recordings
  cumulative_.resize(static_cast<std::size_t>(batch_size_));
  for (int64_t r = 0; r < n; ++r) {
    auto& column = cumulative_[static_cast<std::size_t>(r % batch_size_)];
    const int64_t before = column.empty() ? 0 : column.back();
    if (durations_[static_cast<std::size_t>(r)] > kMax - before) {
      throw UsageError("the recordings' durations overflow");
    }
    column.push_back(before + durations_[static_cast<std::size_t>(r)]);
  }
  int64_t longest = 0;
  for (const auto& column : cumulative_) longest = std::max(longest, column.back());
  num_batches_ = longest / batch_us;
}

SequenceSlot SequentialSchedule::at(int64_t batch, int64_t slot) const {
  if (batch < 0 || batch >= num_batches_ || slot < 0 || slot >= batch_size_) {
    throw UsageError(fmt::format("sequential batch {}, slot {}: out of range ({} batches of {})",
                                 batch, slot, num_batches_, batch_size_));
  }
  const int64_t batch_us = delta_t_us_ * num_tbins_;
  const int64_t end_us = (batch + 1) * batch_us;
  const auto& column = cumulative_[static_cast<std::size_t>(slot)];
  if (end_us > column.back()) return {};  // this slot's recordings are done: padding
  // The first recording of the slot whose running end reaches the batch's end (searchsorted,
  // side left): recordings too short for one batch (duration 0) are never chosen.
  const auto found = std::lower_bound(column.begin(), column.end(), end_us);
  const auto rel = static_cast<int64_t>(found - column.begin());
  const int64_t elapsed = rel == 0 ? 0 : column[static_cast<std::size_t>(rel - 1)];
  SequenceSlot out;
  out.recording = slot + batch_size_ * rel;
  out.start_us = end_us - batch_us - elapsed;
  out.starts_recording = out.start_us == 0;
  return out;
}

SequentialDataset::SequentialDataset(SequentialSchedule schedule, std::vector<int64_t> chunk_shape,
                                     int64_t target_columns)
    : schedule_(std::move(schedule)),
      chunk_shape_(std::move(chunk_shape)),
      target_columns_(target_columns) {
  if (chunk_shape_.empty() || chunk_shape_[0] != schedule_.num_tbins()) {
    throw UsageError(
        fmt::format("sequential data set: chunk shape ({}) does not start with the "
                    "schedule's {} time bins",
                    fmt::join(chunk_shape_, ", "), schedule_.num_tbins()));
  }
  if (target_columns_ < 1) {
    throw UsageError(
        fmt::format("sequential data set: {} target columns; expected >= 1 (the "
                    "time bin first)",
                    target_columns_));
  }
}

int64_t SequentialDataset::size() const { return num_batches() * batch_size(); }

std::optional<int64_t> SequentialDataset::fixed_batch_size() const { return batch_size(); }

Batch SequentialDataset::slice(int64_t begin, int64_t end) const {
  const int64_t b = batch_size();
  if (b == 0 || begin % b != 0 || end - begin != b || begin < 0 || end > size()) {
    throw UsageError(fmt::format(
        "{}: samples [{}, {}) asked for; a sequential data set hands out whole batches only, "
        "[k * {}, (k + 1) * {}) for k from 0 to {}, in order (load it with a DataLoader)",
        describe(), begin, end, b, b, num_batches() - 1));
  }
  return batch(begin / b);
}

Batch SequentialDataset::get(const std::vector<int64_t>& indices) const {
  const int64_t b = batch_size();
  const int64_t begin = indices.empty() ? 0 : indices.front();
  bool whole = static_cast<int64_t>(indices.size()) == b;
  for (std::size_t i = 0; whole && i < indices.size(); ++i) {
    whole = indices[i] == begin + static_cast<int64_t>(i);
  }
  return slice(begin, whole ? begin + b : begin - 1);  // slice() refuses what is not a batch
}

namespace {

// Checks that a subclass's chunk has the shapes it promised.
void check_sequence_chunk(const SequenceChunk& chunk, const std::vector<int64_t>& shape,
                          int64_t columns, const std::string& recording) {
  const auto bad = [&](const std::string& what) {
    return InputError(fmt::format("{}: {}", recording, what));
  };
  if (!chunk.data.defined() || chunk.data.sizes().vec() != shape ||
      chunk.data.scalar_type() != torch::kFloat32) {
    throw bad(fmt::format("chunk data {}; expected float32 ({})",
                          chunk.data.defined() ? fmt::format("{}", chunk.data.sizes()) : "none",
                          fmt::join(shape, ", ")));
  }
  if (!chunk.targets.defined() || chunk.targets.dim() != 2 || chunk.targets.size(1) != columns ||
      chunk.targets.scalar_type() != torch::kFloat32) {
    throw bad(fmt::format("chunk targets are not float32 (rows, {})", columns));
  }
  const torch::Tensor bins = chunk.targets.select(1, 0);
  if (bins.numel() > 0 &&
      !(bins.eq(bins.floor()).all().item<bool>() && bins.ge(0).all().item<bool>() &&
        bins.lt(static_cast<double>(shape[0])).all().item<bool>())) {
    throw bad(fmt::format("chunk targets have time bins outside 0 to {}", shape[0] - 1));
  }
  if (!chunk.frame_is_labeled.defined() ||
      chunk.frame_is_labeled.sizes().vec() != std::vector<int64_t>{shape[0]} ||
      chunk.frame_is_labeled.scalar_type() != torch::kBool) {
    throw bad(fmt::format("chunk frame_is_labeled is not bool ({})", shape[0]));
  }
}

}  // namespace

Batch SequentialDataset::batch(int64_t index) const {
  if (index < 0 || index >= num_batches()) {
    throw UsageError(
        fmt::format("{}: batch {} out of range (there are {})", describe(), index, num_batches()));
  }
  const int64_t slots = batch_size();
  const int64_t tbins = schedule_.num_tbins();
  const auto i64 = torch::TensorOptions().dtype(torch::kInt64);
  const auto flag = torch::TensorOptions().dtype(torch::kBool);
  Batch out;
  out.extras["recording"] = torch::full({slots}, -1, i64);
  out.extras["padding"] = torch::zeros({slots}, flag);
  out.extras["tbin_start_us"] = torch::zeros({slots}, i64);
  out.extras["delta_t_us"] = torch::zeros({slots}, i64);
  out.extras["frame_is_labeled"] = torch::zeros({tbins, slots}, flag);
  out.extras["starts_recording"] = torch::zeros({slots}, flag);
  std::vector<torch::Tensor> data;
  std::vector<torch::Tensor> targets;  // per slot
  for (int64_t s = 0; s < slots; ++s) {
    const SequenceSlot slot = schedule_.at(index, s);
    if (slot.padding()) {
      out.extras["padding"][s] = true;
      data.push_back(torch::zeros(chunk_shape_, torch::kFloat32));
      targets.push_back(torch::zeros({0, target_columns_}, torch::kFloat32));
      continue;
    }
    SequenceChunk chunk = read_chunk(slot.recording, slot.start_us);
    check_sequence_chunk(chunk, chunk_shape_, target_columns_, recording_name(slot.recording));
    out.extras["recording"][s] = slot.recording;
    out.extras["tbin_start_us"][s] = slot.start_us;
    out.extras["delta_t_us"][s] = schedule_.delta_t_us();
    out.extras["starts_recording"][s] = slot.starts_recording;
    out.extras["frame_is_labeled"].select(1, s).copy_(chunk.frame_is_labeled);
    data.push_back(std::move(chunk.data));
    targets.push_back(chunk.targets.contiguous());
  }
  out.data = torch::stack(data, 0);
  // Rows in bin order, then slot order, then each chunk's order, with the slot as column 1.
  std::vector<float> rows;
  int64_t count = 0;
  for (int64_t t = 0; t < tbins; ++t) {
    for (int64_t s = 0; s < slots; ++s) {
      const torch::Tensor& chunk = targets[static_cast<std::size_t>(s)];
      const float* p = chunk.data_ptr<float>();
      for (int64_t r = 0; r < chunk.size(0); ++r) {
        const float* row = p + r * target_columns_;
        if (row[0] != static_cast<float>(t)) continue;
        rows.push_back(row[0]);
        rows.push_back(static_cast<float>(s));
        rows.insert(rows.end(), row + 1, row + target_columns_);
        ++count;
      }
    }
  }
  out.targets =
      torch::from_blob(rows.data(), {count, target_columns_ + 1}, torch::kFloat32).clone();
  return out;
}

}  // namespace neurobench
