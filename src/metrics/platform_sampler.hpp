// SPDX-License-Identifier: Apache-2.0
#pragma once

// The platform sampler: one background thread that reads the platform metrics' sources (RAPL,
// CPU clock, temperatures, CPU time, a GPU through NVML) while the timing pass's timed runs
// execute, and summarises them per metric. Private to the library.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <neurobench/json.hpp>
#include <neurobench/metrics/timing.hpp>

namespace neurobench::detail {

/// The GPU the run's model is on (a CUDA device), which the sampler reads through NVML.
struct PlatformGpuTarget {
  bool use = false;        ///< False on the CPU: no GPU source is asked for.
  int index = 0;           ///< The CUDA device's index (NVML's index when no bus id is known).
  std::string pci_bus_id;  ///< The CUDA device's PCI bus id (`0000:3B:00.0`), or empty.
};

/// Samples the sources asked for by each metric, in one thread (see PlatformSampling).
class PlatformSampler {
 public:
  /// Finds each metric's sources (listing folders, opening NVML); nothing is sampled yet.
  /// Throws UsageError for an interval outside PlatformSampling's range.
  PlatformSampler(const std::vector<std::pair<std::string, PlatformSampling>>& requests,
                  const PlatformGpuTarget& gpu);
  ~PlatformSampler();  ///< Stops the thread if stop() was not called.
  PlatformSampler(const PlatformSampler&) = delete;
  PlatformSampler& operator=(const PlatformSampler&) = delete;

  /// Reads every source once, then starts the thread.
  void start();
  /// Stops the thread, reads every source once more, and returns each metric's record (metric
  /// name -> object) for the `samples` samples in `batches` timed runs made meanwhile.
  [[nodiscard]] Json stop(int64_t samples, int64_t batches);
  /// The thread's interval, ms: the shortest asked for.
  [[nodiscard]] double interval_ms() const { return interval_ms_; }

 private:
  struct Probe;
  struct Shared;
  std::vector<std::unique_ptr<Probe>> probes_;
  std::unique_ptr<Shared> shared_;
  double interval_ms_ = 100;
};

}  // namespace neurobench::detail
