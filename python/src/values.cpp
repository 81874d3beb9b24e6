// SPDX-License-Identifier: Apache-2.0
// neurobench_cpp._core's values between Python and C++ (values.hpp).
#include "values.hpp"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/csrc/autograd/python_variable.h>

#include <neurobench/errors.hpp>

namespace neurobench_cpp {

nb::Json py_to_json(const py::handle& value, const std::string& what) {
  if (value.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (THPVariable_Check(value.ptr())) {
    const at::Tensor& t = THPVariable_Unpack(value.ptr());
    if (t.numel() != 1) {
      throw nb::MetricError(
          fmt::format("{}: returned a tensor of {} elements; expected a number", what, t.numel()));
    }
    if (t.is_floating_point()) return t.item<double>();
    if (t.scalar_type() == at::kBool) return t.item<bool>();
    return t.item<int64_t>();
  }
  if (py::isinstance<py::dict>(value)) {
    nb::Json out = nb::Json::object();
    for (const auto& [k, v] : value.cast<py::dict>()) {
      out[py::str(k).cast<std::string>()] = py_to_json(v, what);
    }
    return out;
  }
  if (py::hasattr(value, "item")) return py_to_json(value.attr("item")(), what);  // NumPy
  throw nb::MetricError(
      fmt::format("{}: returned a {}; expected a number or a dict of numbers", what,
                  py::str(value.get_type().attr("__name__")).cast<std::string>()));
}

py::object json_to_py(const nb::Json& value) {
  switch (value.type()) {
    case nb::Json::value_t::null:
      return py::none();
    case nb::Json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nb::Json::value_t::number_integer:
      return py::int_(value.get<int64_t>());
    case nb::Json::value_t::number_unsigned:
      return py::int_(value.get<uint64_t>());
    case nb::Json::value_t::number_float:
      return py::float_(value.get<double>());
    case nb::Json::value_t::string:
      return py::str(value.get<std::string>());
    case nb::Json::value_t::array: {
      py::list out;
      for (const auto& v : value) out.append(json_to_py(v));
      return std::move(out);
    }
    case nb::Json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : value.items()) out[py::str(k)] = json_to_py(v);
      return std::move(out);
    }
    default:
      return py::none();
  }
}

// JSON text from Python (the options benchmark.py gives as json.dumps).
nb::Json options_of(const py::handle& text) { return nb::Json::parse(text.cast<std::string>()); }

at::Tensor tensor_of(const py::handle& value, const std::string& what) {
  if (!THPVariable_Check(value.ptr())) {
    throw nb::InputError(
        fmt::format("{} is a {}; expected a torch.Tensor", what,
                    py::str(value.get_type().attr("__name__")).cast<std::string>()));
  }
  return THPVariable_Unpack(value.ptr());  // shares the tensor's storage: no copy
}

// A model input that is not one tensor ([x, (h, c)], as NeuroBench's recurrent test models
// take), as the IValue the module's forward takes: `type` is its argument's type (a tuple
// where it says Tuple, a list where it says List; tuples when unknown).
c10::IValue input_of(const py::handle& value, const c10::TypePtr& type, const std::string& what) {
  if (THPVariable_Check(value.ptr())) return THPVariable_Unpack(value.ptr());
  if (value.is_none()) return c10::IValue();
  c10::TypePtr expected = type;
  if (expected && expected->kind() == c10::TypeKind::OptionalType) {
    expected = expected->expectRef<c10::OptionalType>().getElementType();
  }
  if (!(py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value))) {
    throw nb::InputError(fmt::format(
        "{} holds a {}; a model input is a tensor or tensors in (nested) lists and tuples", what,
        py::str(value.get_type().attr("__name__")).cast<std::string>()));
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(value);
  if (expected && expected->kind() == c10::TypeKind::ListType) {
    const c10::TypePtr element = expected->expectRef<c10::ListType>().getElementType();
    c10::impl::GenericList list(element);
    for (std::size_t i = 0; i < seq.size(); ++i) {
      list.push_back(input_of(seq[i], element, fmt::format("{}[{}]", what, i)));
    }
    return list;
  }
  std::vector<c10::TypePtr> elements;
  if (expected && expected->kind() == c10::TypeKind::TupleType) {
    const auto& types = expected->expectRef<c10::TupleType>().elements();
    if (types.size() != seq.size()) {
      throw nb::InputError(fmt::format("{} has {} elements; the model's forward takes {}", what,
                                       seq.size(), expected->annotation_str()));
    }
    elements.assign(types.begin(), types.end());
  }
  std::vector<c10::IValue> out;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    out.push_back(
        input_of(seq[i], elements.empty() ? nullptr : elements[i], fmt::format("{}[{}]", what, i)));
  }
  return c10::ivalue::Tuple::create(std::move(out));
}

// The first tensor of a structured input, depth first: the batch's size and device.
at::Tensor first_tensor_of(const c10::IValue& value) {
  if (value.isTensor()) return value.toTensor();
  if (value.isTuple()) {
    for (const c10::IValue& e : value.toTupleRef().elements()) {
      if (at::Tensor t = first_tensor_of(e); t.defined()) return t;
    }
  }
  if (value.isList()) {
    for (const c10::IValue& e : value.toList()) {
      if (at::Tensor t = first_tensor_of(e); t.defined()) return t;
    }
  }
  return {};
}

// The batch a Python object is: (data, targets) or (data, targets, kwargs). Tensors in
// kwargs become extras; other values stay on the Python side. With `input_type` (the model's
// forward argument), data may also be tensors in lists and tuples (Batch::input); `structured`
// then receives the Python object itself.
nb::Batch batch_of(const py::handle& item, const std::string& what, const c10::TypePtr* input_type,
                   py::object* structured) {
  if (!(py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item))) {
    throw nb::InputError(
        fmt::format("{} is a {}; expected (data, targets) or (data, targets, kwargs)", what,
                    py::str(item.get_type().attr("__name__")).cast<std::string>()));
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(item);
  if (seq.size() != 2 && seq.size() != 3) {
    throw nb::InputError(
        fmt::format("{} has {} elements; expected (data, targets) or (data, targets, kwargs)", what,
                    seq.size()));
  }
  nb::Batch batch;
  if (input_type != nullptr && !THPVariable_Check(seq[0].ptr()) &&
      (py::isinstance<py::list>(seq[0]) || py::isinstance<py::tuple>(seq[0]))) {
    auto input = std::make_shared<const c10::IValue>(
        input_of(seq[0], *input_type, what + "'s data (element 0)"));
    batch.data = first_tensor_of(*input);
    if (!batch.data.defined()) {
      throw nb::InputError(fmt::format("{}'s data (element 0) holds no tensor", what));
    }
    batch.input = std::move(input);
    if (structured != nullptr) *structured = py::reinterpret_borrow<py::object>(seq[0]);
  } else {
    batch.data = tensor_of(seq[0], what + "'s data (element 0)");
  }
  batch.targets = tensor_of(seq[1], what + "'s targets (element 1)");
  if (batch.data.dim() == 0) {
    throw nb::InputError(fmt::format("{}'s data is a 0-d tensor; expected (batch, ...)", what));
  }
  if (seq.size() == 3 && py::isinstance<py::dict>(seq[2])) {
    for (const auto& [k, v] : seq[2].cast<py::dict>()) {
      if (THPVariable_Check(v.ptr())) batch.extras[py::str(k)] = THPVariable_Unpack(v.ptr());
    }
  }
  return batch;
}

// A batch as Python gets it; `structured`: its data when the batch has a structured input (the
// Python object a pre-processor returned), else None.
py::tuple tuple_of(const nb::Batch& batch, const py::object& kwargs, const py::object& structured) {
  const py::object data = structured.is_none() ? py::cast(batch.data) : structured;
  if (!kwargs.is_none()) return py::make_tuple(data, batch.targets, kwargs);
  if (batch.extras.empty()) return py::make_tuple(data, batch.targets);
  py::dict extras;
  for (const auto& [k, v] : batch.extras) extras[py::str(k)] = v;
  return py::make_tuple(data, batch.targets, extras);
}

void rethrow_python_error(PyErrorSlot& slot, const std::exception& e) {
  if (!slot.error) return;
  py::error_already_set error = std::move(*slot.error);
  slot.error.reset();
  if (py::hasattr(error.value(), "add_note")) {
    error.value().attr("add_note")(
        fmt::format("neurobench_cpp: raised by {} ({})", slot.where, e.what()));
  }
  throw error;
}

}  // namespace neurobench_cpp
