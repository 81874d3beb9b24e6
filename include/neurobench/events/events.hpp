// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::events {

/// Events of an event camera as columns (tonic's structured array `x, y, p, t` held column by
/// column): pixel column `x`, pixel row `y`, polarity `p` (0 off, 1 on) and timestamp `t`
/// (microseconds in the data sets of this library). Every column has size() entries; the
/// transforms (denoise(), downsample(), to_frame()) expect timestamps in non-decreasing order,
/// as a camera writes them.
struct Events {
  std::vector<std::int32_t> x;  ///< Pixel column, from 0.
  std::vector<std::int32_t> y;  ///< Pixel row, from 0.
  std::vector<std::uint8_t> p;  ///< Polarity: 0 or 1.
  std::vector<std::int64_t> t;  ///< Timestamp.

  /// Number of events (the length of `t`).
  [[nodiscard]] std::size_t size() const { return t.size(); }
  /// True when there are no events.
  [[nodiscard]] bool empty() const { return t.empty(); }
  /// Makes room for `n` events in every column.
  void reserve(std::size_t n) {
    x.reserve(n);
    y.reserve(n);
    p.reserve(n);
    t.reserve(n);
  }
  /// Appends one event.
  void push_back(std::int32_t ex, std::int32_t ey, std::uint8_t ep, std::int64_t et) {
    x.push_back(ex);
    y.push_back(ey);
    p.push_back(ep);
    t.push_back(et);
  }
};

/// The size of a sensor as tonic gives it: `(width, height, polarities)`.
struct SensorSize {
  std::int64_t width = 0;       ///< Pixel columns: `x` runs over [0, width).
  std::int64_t height = 0;      ///< Pixel rows: `y` runs over [0, height).
  std::int64_t polarities = 2;  ///< 2, or 1 for a sensor whose events carry one polarity.
};

}  // namespace neurobench::events
NEUROBENCH_API_END
