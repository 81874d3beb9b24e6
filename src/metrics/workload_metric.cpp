// SPDX-License-Identifier: Apache-2.0
// How a plain workload metric's batches make the run's value: the batch-size weighted mean.
#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>

#include "util/text.hpp"

namespace neurobench {

namespace {

// Adds `value * weight` into `sum` (numbers, or objects of numbers key by key).
void add_weighted(Json& sum, const Json& value, double weight, const std::string& metric) {
  if (value.is_number()) {
    sum = (sum.is_number() ? sum.get<double>() : 0.0) + value.get<double>() * weight;
    return;
  }
  if (value.is_object()) {
    if (!sum.is_object()) sum = Json::object();
    for (const auto& [key, v] : value.items()) {
      if (!v.is_number()) {
        throw MetricError(fmt::format("{}: value '{}' is not a number", metric, key));
      }
      Json& slot = sum[key];
      slot = (slot.is_number() ? slot.get<double>() : 0.0) + v.get<double>() * weight;
    }
    return;
  }
  throw MetricError(
      fmt::format("{}: a plain workload metric must give a number or an object of "
                  "numbers, got {}",
                  metric, detail::json_excerpt(value)));
}

}  // namespace

void WorkloadMetric::begin_run() {
  sum_ = nullptr;
  last_value_ = nullptr;
}

void WorkloadMetric::add_batch(const WorkloadInput& input, double weight) {
  last_value_ = (*this)(input);
  add_weighted(sum_, last_value_, weight, name());
}

Json WorkloadMetric::run_value() const { return sum_.is_null() ? Json(0.0) : sum_; }

}  // namespace neurobench
