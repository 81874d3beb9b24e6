// SPDX-License-Identifier: Apache-2.0
#pragma once

// A progress bar on stderr, for any layer: the workload pass counts batches with it, a data set
// being indexed counts files. Private to the library (src/).

#include <chrono>
#include <cstddef>
#include <string>

namespace neurobench::detail {

/// A progress bar of `total` steps on stderr (`[####    ] 12/40 batches 1.5s`), shown only on a
/// terminal and only for work longer than half a second; or, with `lines`, a line at each tenth
/// of the steps and at the end (`12/40 batches (30%) 1.5s`), on any stderr: for logs and
/// notebooks, where a bar redrawn in place is noise.
class Progress {
 public:
  /// `unit` names the steps in the bar ("batches", "files"). With `stops`, update() throws
  /// Interrupted when a stop was requested (a signal), shown or not: for the long loops that
  /// open a data set, which no batch loop polls.
  Progress(bool enabled, std::size_t total, std::string unit = "batches", bool stops = false,
           bool lines = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  /// `done` steps of the total are finished.
  void update(std::size_t done);

 private:
  bool enabled_;
  bool stops_;
  bool lines_;
  std::size_t tenths_ = 0;  // lines: the tenths of the total already said
  bool shown_ = false;
  std::size_t total_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace neurobench::detail
