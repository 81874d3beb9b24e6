// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/state.hpp>

#include "util/text.hpp"

namespace neurobench::metrics {

using detail::shape_string;

namespace {


// Predictions whose shape does not match the targets are bad input (the model or the
// post-processors produce the wrong thing), not a metric failure.
void check_shapes(const char* metric, const WorkloadInput& in) {
  if (!in.preds.sizes().equals(in.batch.targets.sizes())) {
    throw InputError(fmt::format("{}: predictions of shape {} do not match targets of shape {}",
                                 metric, shape_string(in.preds), shape_string(in.batch.targets)));
  }
}

// Integer predictions and targets (class indices) are compared in float32, so that MSE and
// SMAPE of them are defined; floating-point tensors keep their dtype (the reference's numbers).
torch::Tensor as_real(const torch::Tensor& t) {
  return at::isFloatingType(t.scalar_type()) ? t : t.to(torch::kFloat);
}

}  // namespace

// spec: Workload metrics, ClassificationAccuracy (float32 mean, as the reference)
Json ClassificationAccuracy::operator()(const WorkloadInput& in) {
  // A batch of one that Argmax (Python's `argmax(-1).squeeze()`) made 0-d is that one sample:
  // `preds == labels` broadcasts it in Python. NeuroBench 2.3's shape check would reject the
  // batch; failing a run because its last batch holds one sample helps nobody.
  if (in.preds.dim() == 0 && in.batch.targets.sizes().equals({1})) {
    const torch::Tensor preds = in.preds.reshape({1});
    return (*this)(WorkloadInput{in.model, preds, in.batch});
  }
  check_shapes("ClassificationAccuracy", in);
  return torch::eq(in.preds, in.batch.targets).to(torch::kFloat).mean().item<double>();
}

// spec: Workload metrics, MSE
Json MSE::operator()(const WorkloadInput& in) {
  check_shapes("MSE", in);
  return (as_real(in.preds) - as_real(in.batch.targets)).pow(2).mean().item<double>();
}

// spec: Workload metrics, SMAPE; NaN is replaced after the mean, as the reference does.
Json SMAPE::operator()(const WorkloadInput& in) {
  check_shapes("SMAPE", in);
  const auto p = as_real(in.preds);
  const auto t = as_real(in.batch.targets);
  const double value =
      (200 * ((p - t).abs() / (p.abs() + t.abs())).mean()).item<double>();
  return std::isnan(value) ? 200.0 : value;
}

// spec: Workload metrics, R2: squared errors summed per batch (tensor dtype) into doubles,
// labels pooled; the final formula in the labels' dtype, as the reference.
void R2::reset() {
  preds_.clear();
  targets_.clear();
}

void R2::update(const WorkloadInput& in) {
  check_shapes("R2", in);
  if (in.preds.dim() != 2 || in.preds.size(1) != 2) {
    throw InputError(fmt::format("R2: needs 2-column targets (samples, 2), got shape {}",
                                 shape_string(in.batch.targets)));
  }
  // Kept on the CPU: the formula at the end runs there, on the same tensors whatever the
  // device (one copy per batch, no read per value).
  preds_.push_back(in.preds.to(torch::kCPU));
  targets_.push_back(in.batch.targets.to(torch::kCPU));
}

Json R2::compute() const {
  if (targets_.empty()) return 0.0;
  double sse[2] = {0, 0};
  for (std::size_t b = 0; b < targets_.size(); ++b) {
    for (int c = 0; c < 2; ++c) {
      sse[c] += (targets_[b].select(1, c) - preds_[b].select(1, c)).pow(2).sum().item<double>();
    }
  }
  torch::Tensor r2 = torch::zeros({}, targets_.front().options());
  for (int c = 0; c < 2; ++c) {
    // The reference keeps the first batch's column (a strided view) and concatenates the
    // columns of later ones; var() may round differently on a view and on a copy.
    std::vector<torch::Tensor> columns;
    for (const auto& t : targets_) columns.push_back(t.select(1, c));
    const torch::Tensor column = columns.size() == 1 ? columns.front() : torch::cat(columns);
    const torch::Tensor den = column.var(/*unbiased=*/false) * column.size(0);
    // Python's `float / tensor` is `tensor.reciprocal() * float`, which rounds differently
    // from a division (NeuroBench's R2 differed in the last bit on a Primate Reaching run).
    r2 = r2 + (1 - den.reciprocal() * sse[c]);
  }
  return (r2 / 2).item<double>();
}

// Sharded runs: the batches' predictions and targets themselves, so that the merged R2 is
// computed on the same tensors, in the same order, as a single process's.
Json R2::export_state() const {
  Json preds = Json::array();
  Json targets = Json::array();
  for (const auto& p : preds_) preds.push_back(tensor_state(p));
  for (const auto& t : targets_) targets.push_back(tensor_state(t));
  return Json{{"preds", std::move(preds)}, {"targets", std::move(targets)}};
}

void R2::merge_state(const Json& state) {
  if (!state.is_object() || !state.contains("preds") || !state.contains("targets") ||
      !state["preds"].is_array() || state["preds"].size() != state["targets"].size()) {
    throw MetricError("R2: a shard's state needs as many 'preds' as 'targets'");
  }
  // Read whole before anything is kept: a state refused leaves the batches as they were.
  std::vector<torch::Tensor> preds;
  std::vector<torch::Tensor> targets;
  for (std::size_t b = 0; b < state["preds"].size(); ++b) {
    preds.push_back(tensor_from_state(state["preds"][b], "R2"));
    targets.push_back(tensor_from_state(state["targets"][b], "R2"));
  }
  preds_.insert(preds_.end(), preds.begin(), preds.end());
  targets_.insert(targets_.end(), targets.begin(), targets.end());
}

MetricDescription ClassificationAccuracy::describe() {
  return MetricDescription("fraction of predictions equal to the targets")
      .with_unit("fraction")
      .higher_is_better();
}

MetricDescription MSE::describe() {
  // The square of the targets' unit, whatever that is (the data set says, not the metric).
  return MetricDescription("mean squared error")
      .with_unit("squared target units")
      .lower_is_better();
}

MetricDescription SMAPE::describe() {
  return MetricDescription("symmetric mean absolute percentage error, 0-200")
      .with_unit("%")
      .lower_is_better();
}

MetricDescription R2::describe() {
  return MetricDescription("coefficient of determination, 2-column targets").higher_is_better();
}

}  // namespace neurobench::metrics
