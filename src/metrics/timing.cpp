// SPDX-License-Identifier: Apache-2.0
// How the timing pass is set up (TimingOptions) and what it measured, summarised.
#include <neurobench/metrics/timing.hpp>

#include <time.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

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
