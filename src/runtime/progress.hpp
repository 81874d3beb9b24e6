// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstddef>

namespace neurobench::detail {

/// A progress bar of batches on stderr, shown only on a terminal and only for runs longer
/// than half a second.
class Progress {
 public:
  Progress(bool enabled, std::size_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// `done` batches of the total are finished.
  void update(std::size_t done);

 private:
  bool enabled_;
  bool shown_ = false;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace neurobench::detail
