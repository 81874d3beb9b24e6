// SPDX-License-Identifier: Apache-2.0
// The metric bases: how a plain workload metric's batches make the run's value (the
// batch-size weighted mean), merged states, and the counts an activation call shares.
#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>

#include "metrics/counting.hpp"
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
  terms_ = Json::array();
}

void WorkloadMetric::add_batch(const WorkloadInput& input, double weight) {
  last_value_ = (*this)(input);
  add_weighted(sum_, last_value_, weight, name());
  terms_.push_back(Json::array({last_value_, weight}));
}

Json WorkloadMetric::run_value() const { return sum_.is_null() ? Json(0.0) : sum_; }

// The batches' values and weights: merging adds them in order, as add_batch() did, so that
// the sum is the one a single process makes.
Json WorkloadMetric::export_state() const {
  return Json{{"terms", terms_.is_null() ? Json::array() : terms_}};
}

void WorkloadMetric::merge_state(const Json& state) {
  const Json* terms = state.is_object() && state.contains("terms") ? &state["terms"] : nullptr;
  if (terms == nullptr || !terms->is_array()) {
    throw MetricError(fmt::format("{}: a shard's state has no 'terms' array", name()));
  }
  // Added to a copy of the sum: a state refused leaves the metric as it was.
  Json sum = sum_;
  for (const Json& term : *terms) {
    if (!term.is_array() || term.size() != 2 || !term[1].is_number()) {
      throw MetricError(fmt::format("{}: a shard's state holds a malformed term {}", name(),
                                    detail::json_excerpt(term)));
    }
    add_weighted(sum, term[0], term[1].get<double>(), name());
  }
  sum_ = std::move(sum);
  if (terms_.is_null()) terms_ = Json::array();
  terms_.insert(terms_.end(), terms->begin(), terms->end());
}

Json AccumulatedMetric::export_state() const {
  throw MetricError(fmt::format(
      "{} keeps state across batches and does not export it, so it cannot run sharded: "
      "override mergeable(), export_state() and merge_state() (docs/writing-a-metric.md)",
      name()));
}

void AccumulatedMetric::merge_state(const Json& /*state*/) { (void)export_state(); }

int64_t ActivationCall::nonzeros() const {
  if (nonzeros_cache < 0) {
    nonzeros_cache =
        output.device().is_cpu() ? detail::count_nonzero(output) : nonzero_count().item<int64_t>();
  }
  return nonzeros_cache;
}

const torch::Tensor& ActivationCall::nonzero_count() const {
  if (!nonzero_count_cache.defined()) {
    nonzero_count_cache = output.device().is_cpu() ? torch::scalar_tensor(nonzeros(), torch::kLong)
                                                   : detail::nonzeros(output).device;
  }
  return nonzero_count_cache;
}

}  // namespace neurobench
