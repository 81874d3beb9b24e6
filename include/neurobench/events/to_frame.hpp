// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <optional>

#include <ATen/core/Tensor.h>

#include <neurobench/events/events.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::events {

/// How to_frame() slices the events into frames: exactly one of `time_window`, `event_count`,
/// `n_time_bins` and `n_event_bins` is set (tonic's `ToFrame` parameters of the same names).
struct FrameOptions {
  std::optional<double> time_window;         ///< Frames of this duration (timestamp units).
  std::optional<std::int64_t> event_count;   ///< Frames of this many events.
  std::optional<std::int64_t> n_time_bins;   ///< This many frames of equal duration.
  std::optional<std::int64_t> n_event_bins;  ///< This many frames of equal event counts.
  /// Overlap of consecutive frames: in timestamp units with `time_window`, in events with
  /// `event_count`, as a fraction of a bin in [0, 1) with the bin counts.
  double overlap = 0.0;
  /// With `time_window` or `event_count`: keep the last, incomplete frame.
  bool include_incomplete = false;
  /// The most bytes the frames of one sample may take (`--max-array-bytes` for data set kinds):
  /// the frames an option asks for are counted and checked against it and the memory available
  /// before anything is allocated (InputError naming the option).
  std::uint64_t max_bytes = std::uint64_t{16} << 30;

  /// Throws UsageError naming the field when not exactly one slicing is set, a count or window
  /// is not positive, or the overlap leaves no positive stride.
  void validate() const;
};

/// Throws InputError, naming the frame option, when `frames` frames of `sensor` (float32) would
/// take more than `options.max_bytes` or than the memory available. to_frame() calls it before
/// slicing; a data set whose options fix the count (n_time_bins, n_event_bins) calls it when it
/// is opened, before any sample is read.
void check_frame_memory(double frames, const SensorSize& sensor, const FrameOptions& options);

/// tonic's `ToFrame(sensor_size, ...)` (`tonic.functional.to_frame_numpy` over
/// `tonic.slicers`): the events summed per frame, polarity and pixel, as float32 counts of shape
/// `(frames, polarities, height, width)`. Frame for frame as tonic:
///
/// - `n_time_bins = n`: with `t0`, `t1` the first and last timestamps, each bin lasts
///   `w = floor((t1 - t0) / n) * (1 + overlap)`, bin `i` starts at `s = i * w * (1 - overlap)
///   + t0` and holds the events with `s <= t < s + w` (NumPy's searchsorted, in double
///   precision). An event on a bin edge belongs to the later bin; events at or after
///   `t0 + n * w` (always the last event with no overlap) are in no frame; when
///   `t1 - t0 < n` every frame is empty.
/// - `time_window = w`: windows start every `w - overlap` from `t0`, hold `s <= t < s + w`;
///   `floor((t1 - t0 - w) / stride) + 1` of them (`ceil` with `include_incomplete`), at least one.
/// - `event_count = c`: frames of events `[i * stride, i * stride + min(c, n))`, stride
///   `c - overlap`; `floor((n - min(c, n)) / stride) + 1` of them (`ceil` with
///   `include_incomplete`, the last one shorter).
/// - `n_event_bins = b`: bins of `floor(floor(n / b) * (1 + overlap))` events, stride
///   `floor(that * (1 - overlap))`.
/// - No events: `n_time_bins` (or `n_event_bins`) empty frames, else one (tonic's `ToFrame`).
/// - A sensor of one polarity takes events of one polarity only, counted as polarity 0.
///
/// Throws UsageError as FrameOptions::validate(), for a sensor size that is not positive
/// (polarities 1 or 2) and when the frames cannot be allocated (a tiny window on a long
/// recording); InputError when timestamps decrease, an event lies outside the sensor
/// (naming it and the size), or two polarities meet a one-polarity sensor.
[[nodiscard]] at::Tensor to_frame(const Events& events, const SensorSize& sensor,
                                  const FrameOptions& options);

}  // namespace neurobench::events
NEUROBENCH_API_END
