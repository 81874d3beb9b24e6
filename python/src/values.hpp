// SPDX-License-Identifier: Apache-2.0
#pragma once

// neurobench_cpp._core's values between Python and C++: JSON, tensors, batches (with a model
// input of tensors in tuples), and the user's own Python exceptions kept across the harness.
// Private to python/src.

#include <optional>
#include <string>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <torch/script.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/json.hpp>

namespace neurobench_cpp {

namespace py = pybind11;
namespace nb = neurobench;

/// A Python number, bool, None, tensor of one element, NumPy scalar or dict of them as JSON;
/// MetricError starting with `what` for anything else.
nb::Json py_to_json(const py::handle& value, const std::string& what);
/// JSON as Python values.
py::object json_to_py(const nb::Json& value);
/// JSON text from Python (json.dumps of options).
nb::Json options_of(const py::handle& text);

/// The tensor a Python object is, without a copy; InputError naming `what` for anything else.
at::Tensor tensor_of(const py::handle& value, const std::string& what);
/// A model input of tensors in (nested) lists and tuples as the IValue the module's forward
/// takes (`type`: its argument's type; tuples when null); InputError naming `what`.
c10::IValue input_of(const py::handle& value, const c10::TypePtr& type, const std::string& what);
/// The first tensor of a structured input, depth first.
at::Tensor first_tensor_of(const c10::IValue& value);
/// The batch a Python object is: (data, targets) or (data, targets, kwargs), kwargs' tensors as
/// extras. With `input_type`, data may be tensors in lists and tuples (Batch::input); then
/// `structured` receives the Python object. InputError naming `what` for another layout.
nb::Batch batch_of(const py::handle& item, const std::string& what,
                   const c10::TypePtr* input_type = nullptr, py::object* structured = nullptr);
/// A batch as Python gets it: `structured`, when not None, is its data (a structured input as
/// Python gave it).
py::tuple tuple_of(const nb::Batch& batch, const py::object& kwargs,
                   const py::object& structured = py::none());

// The first exception the user's Python raised during a run, with where it was raised.
struct PyErrorSlot {
  std::optional<py::error_already_set> error;
  std::string where;

  // Keeps `e` (the first only) and returns the message for the C++ error that unwinds the run.
  std::string keep(py::error_already_set& e, const std::string& at) {
    std::string message = fmt::format("{}: {}", at, e.what());
    if (!error) {
      error = std::move(e);
      where = at;
    }
    return message;
  }
};

/// Rethrows the user's own Python exception kept in `slot` (raised by a processor, a metric or
/// the iterable while C++ ran) as itself, with a note saying where and what the harness said
/// (`e`); returns when there is none.
void rethrow_python_error(PyErrorSlot& slot, const std::exception& e);

}  // namespace neurobench_cpp
