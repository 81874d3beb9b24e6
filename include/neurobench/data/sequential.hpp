// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Where one slot of one sequential batch reads: a recording and the time it starts at.
struct SequenceSlot {
  int64_t recording = -1;  ///< Index of the recording; -1 for padding (no recording).
  int64_t start_us = 0;    ///< Time of the batch's first bin in the recording (0 for padding).
  bool starts_recording = false;  ///< The recording begins in this batch: reset its state.

  /// True when the slot holds no recording.
  [[nodiscard]] bool padding() const { return recording < 0; }
};

/// How several recordings stream through the slots of sequential batches, as Prophesee's
/// `metavision_ml` Scheduler does for its SequentialDataLoader (unshuffled, padded, every
/// recording read from its start): recording `r` goes to slot `r % batch_size` and is read
/// there after the recordings `r - batch_size`, `r - 2 * batch_size`, ... of that slot; each
/// batch reads `num_tbins * delta_t_us` microseconds of each slot's recording. A recording's
/// duration is rounded down to whole batches (up when less than 1000 us short of one, as
/// metavision rounds); one shorter than a batch is never read. Batches run until the longest
/// slot is done; slots already done are padding.
///
/// ```cpp
/// neurobench::SequentialSchedule schedule({1200000, 600000, 1800000}, 50000, 12, 2);
/// schedule.num_batches();  // 2: slot 0 reads recording 0 then 2 (2 + 3 batches), ...
/// ```
class SequentialSchedule {
 public:
  /// Schedules recordings of `durations_us` in `batch_size` slots (fewer when there are fewer
  /// recordings). Throws UsageError when `delta_t_us`, `num_tbins` or `batch_size` is not
  /// positive, a duration is negative or the batch length overflows.
  SequentialSchedule(std::vector<int64_t> durations_us, int64_t delta_t_us, int64_t num_tbins,
                     int64_t batch_size);

  /// Number of batches.
  [[nodiscard]] int64_t num_batches() const { return num_batches_; }
  /// Slots per batch: the batch size asked for, at most the number of recordings.
  [[nodiscard]] int64_t batch_size() const { return batch_size_; }
  /// Time bins per batch.
  [[nodiscard]] int64_t num_tbins() const { return num_tbins_; }
  /// Microseconds per time bin.
  [[nodiscard]] int64_t delta_t_us() const { return delta_t_us_; }
  /// Number of recordings scheduled.
  [[nodiscard]] int64_t num_recordings() const { return static_cast<int64_t>(durations_.size()); }
  /// What slot `slot` of batch `batch` reads. Throws UsageError when either is out of range.
  [[nodiscard]] SequenceSlot at(int64_t batch, int64_t slot) const;

 private:
  std::vector<int64_t> durations_;                // rounded to whole batches
  std::vector<std::vector<int64_t>> cumulative_;  // per slot: running sum of its durations
  int64_t delta_t_us_ = 0;
  int64_t num_tbins_ = 0;
  int64_t batch_size_ = 0;
  int64_t num_batches_ = 0;
};

/// What a sequential data set reads for one slot of one batch: `num_tbins` time bins of one
/// recording from a given time.
struct SequenceChunk {
  at::Tensor data;              ///< `(num_tbins, features...)` float32.
  at::Tensor targets;           ///< `(rows, columns)` float32; column 0 is the time bin.
  at::Tensor frame_is_labeled;  ///< `(num_tbins)` bool: the bin has labels (even none kept).
};

/// A data set of recordings read in sequential batches (SequentialSchedule), for recurrent
/// models that keep their state from one batch to the next: a base class whose subclass reads
/// chunks (read_chunk()) and names recordings.
///
/// Its samples are the (batch, slot) pairs, `num_batches() * batch_size()` of them, and it
/// only hands out whole batches in order: get() and slice() take exactly the indices of one
/// batch, `[b * batch_size(), (b + 1) * batch_size())`, and fixed_batch_size() tells a
/// DataLoader to use batch_size() unshuffled. Batch `b`:
/// - `data`: `(batch, num_tbins, features...)` float32, zeros in padding slots;
/// - `targets`: `(rows, target_columns + 1)` float32: each chunk's target rows with the slot
///   inserted as column 1: `[tbin, slot, ...]`, in bin order, then slot order, then the chunk's
///   order;
/// - `extras`: `recording` int64 `(batch)` (-1 for padding), `padding` bool `(batch)`,
///   `tbin_start_us` int64 `(batch)`, `delta_t_us` int64 `(batch)` (0 for padding),
///   `frame_is_labeled` bool `(num_tbins, batch)`, `starts_recording` bool `(batch)`.
class SequentialDataset : public Dataset {
 public:
  /// Batches as `schedule` says. `chunk_shape` is one chunk's data shape `(num_tbins,
  /// features...)` (for padding slots) and `target_columns` the width of its targets (>= 1).
  /// Throws UsageError when the shape does not start with the schedule's `num_tbins`.
  SequentialDataset(SequentialSchedule schedule, std::vector<int64_t> chunk_shape,
                    int64_t target_columns);

  /// `num_batches() * batch_size()`.
  [[nodiscard]] int64_t size() const override;
  /// The batch whose indices `indices` are, in order. Throws UsageError for any other set.
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  /// The batch `[begin, end)` is. Throws UsageError when it is not exactly one batch.
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  /// batch_size().
  [[nodiscard]] std::optional<int64_t> fixed_batch_size() const override;

  /// Batch `index` (0-based). Throws UsageError when out of range, and what read_chunk() does.
  [[nodiscard]] Batch batch(int64_t index) const;
  /// Number of batches.
  [[nodiscard]] int64_t num_batches() const { return schedule_.num_batches(); }
  /// Slots per batch.
  [[nodiscard]] int64_t batch_size() const { return schedule_.batch_size(); }
  /// The schedule.
  [[nodiscard]] const SequentialSchedule& schedule() const { return schedule_; }
  /// The name of recording `index` (its file), for messages and results. Throws UsageError
  /// when out of range.
  [[nodiscard]] virtual std::string recording_name(int64_t index) const = 0;

 protected:
  /// Reads `num_tbins` bins of `recording` from `start_us`: data of chunk_shape, targets of
  /// target_columns columns (column 0 the bin, 0 to num_tbins - 1), frame_is_labeled.
  [[nodiscard]] virtual SequenceChunk read_chunk(int64_t recording, int64_t start_us) const = 0;

 private:
  SequentialSchedule schedule_;
  std::vector<int64_t> chunk_shape_;
  int64_t target_columns_ = 1;
};

}  // namespace neurobench
NEUROBENCH_API_END
