// SPDX-License-Identifier: Apache-2.0
#include "util/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <neurobench/stop.hpp>

namespace neurobench::detail {

Progress::Progress(bool enabled, std::size_t total, std::string unit, bool stops, bool lines)
    : enabled_(enabled && (lines || isatty(fileno(stderr)) != 0)),
      stops_(stops),
      lines_(lines),
      total_(total),
      unit_(std::move(unit)),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

void Progress::update(std::size_t done) {
  if (stops_ && stop_requested()) {
    if (shown_) std::fputc('\n', stderr);
    throw_if_stop_requested(
        fmt::format("while the data set was opened, after {} of {} {}", done, total_, unit_));
  }
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (lines_) {
    // A line each time another tenth of the total is done: the tenth tenth is the end, said
    // once (below the end, done * 10 / total stays under 10).
    const std::size_t tenths = total_ == 0 ? 10 : std::min<std::size_t>(10, done * 10 / total_);
    if (tenths <= tenths_) return;
    tenths_ = tenths;
    std::fprintf(stderr, "%zu/%zu %s (%.0f%%) %.1fs\n", done, total_, unit_.c_str(),
                 total_ == 0 ? 100.0 : 100.0 * static_cast<double>(std::min(done, total_)) /
                                           static_cast<double>(total_),
                 elapsed);
    std::fflush(stderr);
    return;
  }
  if (elapsed < 0.5 && done < total_) return;  // work shorter than a moment shows nothing
  // Redrawn at most ten times a second: an index of 100,000 files updates it for each file.
  if (shown_ && done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  shown_ = true;
  last_ = now;
  const int width = 30;
  const auto filled =
      static_cast<int>(width * std::min(done, total_) / std::max<std::size_t>(total_, 1));
  std::fprintf(stderr, "\r[%-*s] %zu/%zu %s %.1fs", width,
               std::string(static_cast<std::size_t>(filled), '#').c_str(), done, total_,
               unit_.c_str(), elapsed);
  std::fflush(stderr);
}

Progress::~Progress() {
  if (shown_) std::fprintf(stderr, "\n");
}

}  // namespace neurobench::detail
