// SPDX-License-Identifier: Apache-2.0
#include "runtime/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace neurobench::detail {

Progress::Progress(bool enabled, std::size_t total)
    : enabled_(enabled && isatty(fileno(stderr)) != 0),
      total_(total),
      start_(std::chrono::steady_clock::now()) {}

void Progress::update(std::size_t done) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < 0.5 && done < total_) return;  // runs shorter than a moment show nothing
  shown_ = true;
  const int width = 30;
  const auto filled = static_cast<int>(width * done / std::max<std::size_t>(total_, 1));
  std::fprintf(stderr, "\r[%-*s] %zu/%zu batches %.1fs", width,
               std::string(static_cast<std::size_t>(filled), '#').c_str(), done, total_, elapsed);
  std::fflush(stderr);
}

Progress::~Progress() {
  if (shown_) std::fprintf(stderr, "\n");
}

}  // namespace neurobench::detail
