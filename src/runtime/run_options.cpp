// SPDX-License-Identifier: Apache-2.0
// The ranges of a run's options (RunOptions and its parts; the timing pass's own are in
// src/metrics/timing_options.cpp).
#include <neurobench/run_options.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

void ProfileOptions::validate() const {
  if (warmup < 0 || warmup > kMaxWarmup) {
    throw UsageError(
        fmt::format("profile: 'warmup' must be 0 to {} runs, got {}", kMaxWarmup, warmup));
  }
  if (runs < 1 || runs > kMaxRuns) {
    throw UsageError(fmt::format("profile: 'runs' must be 1 to {}, got {}", kMaxRuns, runs));
  }
}

}  // namespace neurobench
