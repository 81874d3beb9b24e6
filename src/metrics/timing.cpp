// SPDX-License-Identifier: Apache-2.0
// How the timing pass is set up (TimingOptions) and what it measured, summarised.
#include <neurobench/metrics/timing.hpp>

#include <time.h>

#include <algorithm>
#include <cmath>
#include <numeric>

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

namespace {

// The value at rank `p / 100 * (n - 1)` of sorted `v`, interpolated linearly.
double percentile(const std::vector<double>& sorted, double p) {
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw MetricError("no values to summarise");
  std::sort(values.begin(), values.end());
  Summary s;
  s.count = values.size();
  const double n = static_cast<double>(values.size());
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  s.median = percentile(values, 50);
  s.p90 = percentile(values, 90);
  s.p99 = percentile(values, 99);
  s.min = values.front();
  s.max = values.back();
  if (values.size() > 1) {
    double ss = 0;
    for (const double v : values) ss += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(ss / (n - 1));
  }
  return s;
}

double monotonic_clock_resolution() {
  timespec res{};
  if (clock_getres(CLOCK_MONOTONIC, &res) != 0) return 1e-9;
  const double r = static_cast<double>(res.tv_sec) + static_cast<double>(res.tv_nsec) * 1e-9;
  return r > 0 ? r : 1e-9;
}

}  // namespace neurobench
