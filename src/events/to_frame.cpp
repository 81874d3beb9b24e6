// SPDX-License-Identifier: Apache-2.0
// tonic's ToFrame (tonic/transforms.py, tonic/functional/to_frame.py) over its slicers
// (tonic/slicers.py): which events land in which frame, including those on bin edges.
#include <neurobench/events/to_frame.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "events/columns.hpp"
#include "util/array_budget.hpp"

namespace neurobench::events {
namespace {

constexpr const char* kToFrame = "to_frame";

using Slices = std::vector<std::pair<std::size_t, std::size_t>>;

// NumPy's searchsorted(t, value, side='left') for an int64 array and a float64 value: both are
// compared as float64.
std::size_t first_not_before(const std::vector<std::int64_t>& t, double value) {
  const auto it = std::lower_bound(t.begin(), t.end(), value, [](std::int64_t a, double v) {
    return static_cast<double>(a) < v;
  });
  return static_cast<std::size_t>(it - t.begin());
}

// SliceByTimeBins.get_slice_metadata.
Slices time_bins(const std::vector<std::int64_t>& t, std::int64_t bins, double overlap) {
  const std::int64_t span = t.back() - t.front();  // >= 0: timestamps are checked sorted
  const double window = static_cast<double>(span / bins) * (1 + overlap);
  const double stride = window * (1 - overlap);
  Slices slices;
  for (std::int64_t i = 0; i < bins; ++i) {
    const double start = static_cast<double>(i) * stride + static_cast<double>(t.front());
    slices.emplace_back(first_not_before(t, start), first_not_before(t, start + window));
  }
  return slices;
}

// SliceByTime.get_slice_metadata with the first and last event as start and end.
Slices time_windows(const std::vector<std::int64_t>& t, double window, double overlap,
                    bool include_incomplete) {
  const double stride = window - overlap;
  const auto duration = static_cast<double>(t.back() - t.front());
  const double count = (duration - window) / stride;
  auto n =
      static_cast<std::int64_t>((include_incomplete ? std::ceil(count) : std::floor(count)) + 1);
  n = std::max<std::int64_t>(n, 1);
  Slices slices;
  for (std::int64_t i = 0; i < n; ++i) {
    const double start = static_cast<double>(i) * stride + static_cast<double>(t.front());
    slices.emplace_back(first_not_before(t, start), first_not_before(t, start + window));
  }
  return slices;
}

// SliceByEventCount.get_slice_metadata; Python's slicing clips the ends to the events.
Slices event_counts(std::size_t n_events, std::int64_t count, double overlap,
                    bool include_incomplete) {
  const auto n = static_cast<std::int64_t>(n_events);
  const std::int64_t per_frame = std::min(count, n);
  const double stride = static_cast<double>(count) - overlap;
  const double slices_minus_one = static_cast<double>(n - per_frame) / stride;
  const auto total = static_cast<std::int64_t>(
      (include_incomplete ? std::ceil(slices_minus_one) : std::floor(slices_minus_one)) + 1);
  Slices slices;
  for (std::int64_t i = 0; i < total; ++i) {
    // NumPy: (arange(n) * stride).astype(int), truncation toward zero.
    const auto start = static_cast<std::int64_t>(static_cast<double>(i) * stride);
    const std::int64_t end = start + per_frame;
    slices.emplace_back(static_cast<std::size_t>(std::clamp<std::int64_t>(start, 0, n)),
                        static_cast<std::size_t>(std::clamp<std::int64_t>(end, 0, n)));
  }
  return slices;
}

// SliceByEventBins.get_slice_metadata.
Slices event_bins(std::size_t n_events, std::int64_t bins, double overlap) {
  const auto n = static_cast<std::int64_t>(n_events);
  const auto per_bin = static_cast<std::int64_t>(static_cast<double>(n / bins) * (1 + overlap));
  const auto stride = static_cast<std::int64_t>(static_cast<double>(per_bin) * (1 - overlap));
  Slices slices;
  for (std::int64_t i = 0; i < bins; ++i) {
    const std::int64_t start = i * stride;
    slices.emplace_back(static_cast<std::size_t>(std::min(start, n)),
                        static_cast<std::size_t>(std::min(start + per_bin, n)));
  }
  return slices;
}

// How many frames the slicing makes, as the slicers above count them, in double precision
// (an option may ask for more than any vector holds): checked before they allocate.
double planned_frames(const std::vector<std::int64_t>& t, const FrameOptions& o) {
  if (o.n_time_bins) return static_cast<double>(*o.n_time_bins);
  if (o.n_event_bins) return static_cast<double>(*o.n_event_bins);
  if (t.empty()) return 1;
  const auto round = [&](double v) { return o.include_incomplete ? std::ceil(v) : std::floor(v); };
  if (o.time_window) {
    const double stride = *o.time_window - o.overlap;
    const auto duration = static_cast<double>(t.back() - t.front());
    return std::max(1.0, round((duration - *o.time_window) / stride) + 1);
  }
  const auto n = static_cast<double>(t.size());
  const double per_frame = std::min(static_cast<double>(*o.event_count), n);
  return std::max(0.0,
                  round((n - per_frame) / (static_cast<double>(*o.event_count) - o.overlap)) + 1);
}

// The option that sets the number of frames, and its value, for messages.
std::string frame_option(const FrameOptions& o) {
  if (o.n_time_bins) return fmt::format("n_time_bins = {}", *o.n_time_bins);
  if (o.n_event_bins) return fmt::format("n_event_bins = {}", *o.n_event_bins);
  if (o.time_window) return fmt::format("time_window = {:g}", *o.time_window);
  return fmt::format("event_count = {}", *o.event_count);
}

int set_count(const FrameOptions& o) {
  return static_cast<int>(o.time_window.has_value()) + static_cast<int>(o.event_count.has_value()) +
         static_cast<int>(o.n_time_bins.has_value()) + static_cast<int>(o.n_event_bins.has_value());
}

}  // namespace

void FrameOptions::validate() const {
  if (set_count(*this) != 1) {
    throw UsageError(
        "frame options: set exactly one of time_window, event_count, n_time_bins and "
        "n_event_bins");
  }
  if (!std::isfinite(overlap) || overlap < 0) {
    throw UsageError(
        fmt::format("frame options: overlap must be finite and not negative, got {}", overlap));
  }
  if (time_window) {
    detail::check_positive(*time_window, "frame options", "time_window");
    if (!(*time_window - overlap > 0)) {
      throw UsageError(
          fmt::format("frame options: overlap {} leaves no positive stride for time_window {}",
                      overlap, *time_window));
    }
  }
  if (event_count) {
    if (*event_count <= 0) {
      throw UsageError(
          fmt::format("frame options: event_count must be positive, got {}", *event_count));
    }
    if (!(static_cast<double>(*event_count) - overlap > 0)) {
      throw UsageError(
          fmt::format("frame options: overlap {} leaves no positive stride for event_count {}",
                      overlap, *event_count));
    }
  }
  for (const auto& [name, bins] :
       {std::pair{"n_time_bins", n_time_bins}, std::pair{"n_event_bins", n_event_bins}}) {
    if (!bins) continue;
    if (*bins <= 0) {
      throw UsageError(fmt::format("frame options: {} must be positive, got {}", name, *bins));
    }
    if (overlap >= 1) {
      throw UsageError(
          fmt::format("frame options: with {} the overlap is a fraction of a bin below 1, got {}",
                      name, overlap));
    }
  }
  if ((n_time_bins || n_event_bins) && include_incomplete) {
    throw UsageError("frame options: include_incomplete applies to time_window and event_count");
  }
}

void check_frame_memory(double frames, const SensorSize& sensor, const FrameOptions& options) {
  constexpr double kAskMemoryAbove = 64.0 * 1024 * 1024;
  // Each frame takes its float32 planes and its slice (two indices).
  const double bytes =
      frames * (static_cast<double>(sensor.polarities) * static_cast<double>(sensor.height) *
                    static_cast<double>(sensor.width) * 4.0 +
                16.0);
  if (bytes <= kAskMemoryAbove && bytes <= static_cast<double>(options.max_bytes)) return;
  neurobench::detail::check_array_bytes(
      bytes, options.max_bytes,
      // /proc/meminfo is read only for frames that could matter: this runs for every sample.
      bytes > kAskMemoryAbove ? neurobench::detail::available_memory() : std::nullopt,
      fmt::format("{}: frame option {} makes {:g} frames of {} x {} x {} float32", kToFrame,
                  frame_option(options), frames, sensor.polarities, sensor.height, sensor.width));
}

torch::Tensor to_frame(const Events& events, const SensorSize& sensor,
                       const FrameOptions& options) {
  options.validate();
  detail::check_columns(events, kToFrame);
  if (sensor.width <= 0 || sensor.height <= 0 ||
      (sensor.polarities != 1 && sensor.polarities != 2)) {
    throw UsageError(
        fmt::format("{}: sensor size ({}, {}, {}) must have a positive width and height and 1 or 2 "
                    "polarities",
                    kToFrame, sensor.width, sensor.height, sensor.polarities));
  }
  const std::vector<std::int64_t>& t = events.t;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] < t[i - 1]) {
      throw InputError(
          fmt::format("{}: timestamps must not decrease, but event {} at {} follows one at {}",
                      kToFrame, i, t[i], t[i - 1]));
    }
  }
  bool on = false;
  bool off = false;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events.x[i] < 0 || events.x[i] >= sensor.width || events.y[i] < 0 ||
        events.y[i] >= sensor.height || events.p[i] > 1) {
      throw InputError(fmt::format(
          "{}: event {} (x {}, y {}, p {}) lies outside the sensor of width {}, height {} and "
          "polarities 0 and 1",
          kToFrame, i, events.x[i], events.y[i], events.p[i], sensor.width, sensor.height));
    }
    (events.p[i] != 0 ? on : off) = true;
  }
  if (sensor.polarities == 1 && on && off) {
    throw InputError(
        fmt::format("{}: a sensor of one polarity, but the events have both polarities", kToFrame));
  }

  check_frame_memory(planned_frames(t, options), sensor, options);
  Slices slices;
  if (events.empty()) {
    const std::int64_t frames = options.n_time_bins    ? *options.n_time_bins
                                : options.n_event_bins ? *options.n_event_bins
                                                       : 1;
    slices.assign(static_cast<std::size_t>(frames), {0, 0});
  } else if (options.time_window) {
    slices = time_windows(t, *options.time_window, options.overlap, options.include_incomplete);
  } else if (options.event_count) {
    slices = event_counts(events.size(), *options.event_count, options.overlap,
                          options.include_incomplete);
  } else if (options.n_time_bins) {
    slices = time_bins(t, *options.n_time_bins, options.overlap);
  } else {
    slices = event_bins(events.size(), *options.n_event_bins, options.overlap);
  }

  const auto n_frames = static_cast<std::int64_t>(slices.size());
  torch::Tensor frames;
  try {
    frames =
        torch::zeros({n_frames, sensor.polarities, sensor.height, sensor.width}, torch::kFloat32);
  } catch (const c10::Error& e) {
    throw UsageError(fmt::format("{}: cannot allocate {} frames of {} x {} x {}: {}", kToFrame,
                                 n_frames, sensor.polarities, sensor.height, sensor.width,
                                 e.what_without_backtrace()));
  }
  float* out = frames.data_ptr<float>();
  const std::int64_t plane = sensor.height * sensor.width;
  for (std::int64_t f = 0; f < n_frames; ++f) {
    const auto [begin, end] = slices[static_cast<std::size_t>(f)];
    float* frame = out + f * sensor.polarities * plane;
    for (std::size_t i = begin; i < end; ++i) {
      const std::int64_t polarity = sensor.polarities == 1 ? 0 : events.p[i];
      frame[polarity * plane + events.y[i] * sensor.width + events.x[i]] += 1.0F;
    }
  }
  return frames;
}

}  // namespace neurobench::events
