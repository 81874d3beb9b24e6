// SPDX-License-Identifier: Apache-2.0
// The timing pass's options and their ranges.
#include <neurobench/metrics/timing_options.hpp>

#include <fmt/format.h>

#include <neurobench/data/dataloader.hpp>
#include <neurobench/errors.hpp>

namespace neurobench {

namespace {

// "timing: warmup: -1 is out of range; expected an integer from 0 to 1000000".
template <class T>
void check_range(const char* field, T value, T min, T max, const char* expected) {
  if (!(value >= min && value <= max)) {
    throw UsageError(fmt::format("timing: {}: {} is out of range; expected {} from {} to {}", field,
                                 value, expected, min, max));
  }
}

}  // namespace

void TimingOptions::validate() const {
  check_range<int64_t>("warmup", warmup, 0, kMaxWarmup, "an integer");
  check_range<int64_t>("runs", runs, 0, kMaxRuns, "an integer");
  check_range<double>("min_time", min_time_s, 0, kMaxSeconds, "a number of seconds");
  check_range<double>("max_time", max_time_s, 0, kMaxSeconds, "a number of seconds");
  check_range<int64_t>("batch_size", batch_size, 0, LoaderOptions::kMaxBatchSize, "an integer");
  check_range<int64_t>("startup_runs", startup_runs, 1, kMaxStartupRuns, "an integer");
  if (runs == 0 && min_time_s > max_time_s) {
    throw UsageError(fmt::format(
        "timing: min_time ({:g} s) is more than max_time ({:g} s), which would stop the timed "
        "runs first: lower min_time or raise max_time",
        min_time_s, max_time_s));
  }
}

}  // namespace neurobench
