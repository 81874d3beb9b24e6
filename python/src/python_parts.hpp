// SPDX-License-Identifier: Apache-2.0
#pragma once

// The script's own Python parts of a neurobench_cpp run, as the harness's: pre- and
// post-processors and workload metrics that take the GIL for their call, and what they share.
// Private to python/src.

#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include <neurobench/metrics/metric.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

#include "batch_stream.hpp"
#include "values.hpp"

namespace neurobench_cpp {

/// What the Python parts of one run share. Made, and destroyed, with the GIL held.
struct PyContext {
  std::shared_ptr<PyBatchStream> stream;  ///< The Python iterable read; null for a data set kind.
  std::shared_ptr<PyErrorSlot> errors;    ///< The first exception of the user's Python.
  /// The model's forward argument type, for pre-processors that return a structured input
  /// ([x, state]); null when the model is not known (tuples then).
  c10::TypePtr input_type;
  bool takes_structured = false;  ///< Pre-processors may return a structured input.
  /// The Python object of the current batch's structured input (a pre-processor's), or None.
  py::object structured = py::none();
  /// The model, whose whole output (a tuple: (logits, state)) the first post-processor gets
  /// when it is Python, as NeuroBench hands the model's output to its post-processors.
  std::shared_ptr<nb::TorchScriptModel> model;

  /// The batch as NeuroBench gives it to metrics: the iterable's own, else `batch` as a tuple.
  [[nodiscard]] py::object data_of(const nb::Batch& batch) const;
  /// The current batch's kwargs (None without).
  [[nodiscard]] py::object kwargs() const;
};

/// A Python pre-processor: `fn((data, targets[, kwargs]))` returns the batch, its data a tensor
/// or a structured input. Its exceptions are kept in the context and unwind the run as
/// InputError naming `name`.
[[nodiscard]] std::unique_ptr<nb::PreProcessor> python_pre_processor(
    py::object fn, std::string name, std::shared_ptr<PyContext> context);
/// A Python post-processor: `fn(preds)` returns a tensor; `first` in the chain, it gets the
/// model's whole output when that is a tuple.
[[nodiscard]] std::unique_ptr<nb::PostProcessor> python_post_processor(
    py::object fn, std::string name, std::shared_ptr<PyContext> context, bool first);
/// A Python workload metric named `name`: `update(preds, data)` per batch; with `compute` and
/// `reset` (not None) an accumulated metric, else a plain one weighed by batch size.
[[nodiscard]] std::unique_ptr<nb::WorkloadMetric> python_workload_metric(
    py::object update, py::object compute, py::object reset, std::string name,
    std::shared_ptr<PyContext> context);

}  // namespace neurobench_cpp
