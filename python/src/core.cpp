// SPDX-License-Identifier: Apache-2.0
// neurobench_cpp._core: the C++ harness (neurobench::Benchmark) for Python (docs/python.md).
//
// python/neurobench_cpp/benchmark.py turns what NeuroBench's Benchmark accepts into the plain
// description `run()` takes here; this file runs it. Batches of a Python iterable are read one
// at a time by a Dataset whose given_batch() takes the GIL only to fetch the next one, and their
// tensors cross without a copy; Python pre- and post-processors and workload metrics are C++
// adapters that take the GIL for their call. The rest of the run holds no GIL.
//
// An exception raised by the user's Python (a processor, a metric, the iterable) is kept and
// raised again by run() once the harness has unwound, so Python sees its own type, with a note
// saying where it was raised.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/utils/pybind.h>

#include <neurobench/benchmark.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

namespace py = pybind11;
namespace nb = neurobench;

namespace {

// --- values between Python and JSON ----------------------------------------------------------

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

// --- the user's Python exceptions -------------------------------------------------------------

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
nb::Batch batch_of(const py::handle& item, const std::string& what,
                   const c10::TypePtr* input_type = nullptr, py::object* structured = nullptr) {
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
py::tuple tuple_of(const nb::Batch& batch, const py::object& kwargs,
                   const py::object& structured = py::none()) {
  const py::object data = structured.is_none() ? py::cast(batch.data) : structured;
  if (!kwargs.is_none()) return py::make_tuple(data, batch.targets, kwargs);
  if (batch.extras.empty()) return py::make_tuple(data, batch.targets);
  py::dict extras;
  for (const auto& [k, v] : batch.extras) extras[py::str(k)] = v;
  return py::make_tuple(data, batch.targets, extras);
}

// --- a Python iterable of batches as a data set -----------------------------------------------

// Batches handed out in order, each fetched from the Python iterator when the run asks for it.
// Holds Python objects: made, and destroyed, with the GIL held.
class PyBatchStream final : public nb::Dataset {
 public:
  // `keep`: hold on to every batch (their tensors, not copies) for the timing pass, which
  // reads the data set again after the workload pass.
  PyBatchStream(py::object iterator, std::size_t batches, int64_t samples, std::string name,
                bool keep, std::shared_ptr<PyErrorSlot> errors)
      : iterator_(std::move(iterator)),
        batches_(batches),
        samples_(samples),
        name_(std::move(name)),
        keep_(keep),
        errors_(std::move(errors)) {}

  [[nodiscard]] int64_t size() const override { return samples_; }
  [[nodiscard]] nb::Batch get(const std::vector<int64_t>& /*indices*/) const override {
    throw no_random_access();
  }
  [[nodiscard]] nb::Batch slice(int64_t /*begin*/, int64_t /*end*/) const override {
    throw no_random_access();
  }
  [[nodiscard]] std::string describe() const override { return name_; }
  [[nodiscard]] std::optional<std::size_t> given_batches() const override { return batches_; }

  [[nodiscard]] nb::Batch given_batch(std::size_t index) const override {
    if (index < kept_.size()) return kept_[index];
    if (index != next_) throw no_random_access();
    py::gil_scoped_acquire gil;
    const std::string what = fmt::format("{}: batch {}", name_, index);
    py::object item;
    try {
      // Ctrl-C while C++ runs: Python's handler only set a flag; it is raised here, between
      // batches, and comes back as KeyboardInterrupt once the run has unwound.
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      item = py::reinterpret_steal<py::object>(PyIter_Next(iterator_.ptr()));
      if (!item && PyErr_Occurred()) throw py::error_already_set();
    } catch (py::error_already_set& e) {
      throw nb::InputError(errors_->keep(e, "reading " + what));
    }
    if (!item) {
      throw nb::InputError(fmt::format("{}: the iterable ended after {} batches; its len() is {}",
                                       name_, index, batches_));
    }
    nb::Batch batch = batch_of(item, what);
    current_ = item;
    kwargs_ = py::none();
    if (py::len(item) == 3) kwargs_ = py::reinterpret_borrow<py::sequence>(item)[2];
    ++next_;
    if (keep_) kept_.push_back(batch);
    return batch;
  }

  // The current batch as the iterable gave it, and its kwargs (None without): GIL held.
  [[nodiscard]] const py::object& current() const { return current_; }
  [[nodiscard]] const py::object& kwargs() const { return kwargs_; }

 private:
  [[nodiscard]] nb::UsageError no_random_access() const {
    return nb::UsageError(fmt::format(
        "{}: a Python iterable is read once, batch by batch, in order (its batches are kept "
        "for the timing metrics to read again); the per-layer profile reads a data set in "
        "batches of its own: give it a data set kind (neurobench_cpp.DatasetKind)",
        name_));
  }

  py::object iterator_;
  std::size_t batches_;
  int64_t samples_;
  std::string name_;
  bool keep_ = false;
  std::shared_ptr<PyErrorSlot> errors_;
  mutable std::size_t next_ = 0;
  mutable std::vector<nb::Batch> kept_;
  mutable py::object current_ = py::none();
  mutable py::object kwargs_ = py::none();
};

// What the Python adapters share: the stream (null for a data set kind) and the error slot.
struct PyContext {
  std::shared_ptr<PyBatchStream> stream;
  std::shared_ptr<PyErrorSlot> errors;
  // The model's forward argument type, for pre-processors that return a structured input;
  // null when the model is not known (the data are then tensors only).
  c10::TypePtr input_type;
  bool takes_structured = false;  // set with input_type
  // The Python object of the current batch's structured input (a pre-processor's), or None.
  py::object structured = py::none();
  // The model, whose whole output (a tuple: (logits, state)) the first post-processor gets
  // when it is Python, as NeuroBench hands the model's output to its post-processors.
  std::shared_ptr<nb::TorchScriptModel> model;

  // The batch as NeuroBench gives it to metrics: the iterable's own, else `batch` as a tuple.
  [[nodiscard]] py::object data_of(const nb::Batch& batch) const {
    if (stream) return stream->current();
    return tuple_of(batch, py::none());
  }
  [[nodiscard]] py::object kwargs() const { return stream ? stream->kwargs() : py::none(); }
};

// --- Python processors ------------------------------------------------------------------------

class PyPreProcessor final : public nb::PreProcessor {
 public:
  PyPreProcessor(py::object fn, std::string name, std::shared_ptr<PyContext> context)
      : fn_(std::move(fn)), name_(std::move(name)), context_(std::move(context)) {}
  ~PyPreProcessor() override {
    py::gil_scoped_acquire gil;
    fn_ = py::object();
  }

  nb::Batch operator()(const nb::Batch& batch) override {
    py::gil_scoped_acquire gil;
    try {
      const py::object given = batch.input ? context_->structured : py::object(py::none());
      py::object out = fn_(tuple_of(batch, context_->kwargs(), given));
      py::object structured = py::none();
      nb::Batch result =
          batch_of(out, "pre-processor " + name_ + "'s result",
                   context_->takes_structured ? &context_->input_type : nullptr, &structured);
      context_->structured = structured;
      return result;
    } catch (py::error_already_set& e) {
      throw nb::InputError(context_->errors->keep(e, "pre-processor " + name_));
    }
  }

 private:
  py::object fn_;
  std::string name_;
  std::shared_ptr<PyContext> context_;
};

class PyPostProcessor final : public nb::PostProcessor {
 public:
  // `first`: the chain's first post-processor, which gets the model's whole output.
  PyPostProcessor(py::object fn, std::string name, std::shared_ptr<PyContext> context, bool first)
      : fn_(std::move(fn)), name_(std::move(name)), context_(std::move(context)), first_(first) {}
  ~PyPostProcessor() override {
    py::gil_scoped_acquire gil;
    fn_ = py::object();
  }

  at::Tensor operator()(const at::Tensor& preds) override {
    py::gil_scoped_acquire gil;
    try {
      py::object given = py::cast(preds);
      if (first_ && context_->model) {
        const c10::IValue& whole = context_->model->last_output();
        if (!whole.isTensor() && !whole.isNone()) given = torch::jit::toPyObject(whole);
      }
      return tensor_of(fn_(given), "post-processor " + name_ + "'s result");
    } catch (py::error_already_set& e) {
      throw nb::InputError(context_->errors->keep(e, "post-processor " + name_));
    }
  }

 private:
  py::object fn_;
  std::string name_;
  std::shared_ptr<PyContext> context_;
  bool first_ = false;
};

// --- Python workload metrics ------------------------------------------------------------------

// `update(preds, data)` gives the batch's value (NeuroBench's WorkloadMetric.__call__).
class PyWorkloadMetric final : public nb::WorkloadMetric {
 public:
  PyWorkloadMetric(py::object update, std::string name, std::shared_ptr<PyContext> context)
      : update_(std::move(update)), name_(std::move(name)), context_(std::move(context)) {}
  ~PyWorkloadMetric() override {
    py::gil_scoped_acquire gil;
    update_ = py::object();
  }
  [[nodiscard]] std::string name() const override { return name_; }
  nb::Json operator()(const nb::WorkloadInput& input) override {
    py::gil_scoped_acquire gil;
    try {
      return py_to_json(update_(input.preds, context_->data_of(input.batch)), name_);
    } catch (py::error_already_set& e) {
      throw nb::MetricError(fmt::format("{}: {}", name_, e.what()));
    }
  }

 private:
  py::object update_;
  std::string name_;
  std::shared_ptr<PyContext> context_;
};

// NeuroBench's AccumulatedMetric: reset(), __call__ per batch, compute() at the end.
class PyAccumulatedMetric final : public nb::AccumulatedMetric {
 public:
  PyAccumulatedMetric(py::object update, py::object compute, py::object reset, std::string name,
                      std::shared_ptr<PyContext> context)
      : update_(std::move(update)),
        compute_(std::move(compute)),
        reset_(std::move(reset)),
        name_(std::move(name)),
        context_(std::move(context)) {}
  ~PyAccumulatedMetric() override {
    py::gil_scoped_acquire gil;
    update_ = compute_ = reset_ = py::object();
  }
  [[nodiscard]] std::string name() const override { return name_; }
  void reset() override {
    call([&] { reset_(); });
  }
  void update(const nb::WorkloadInput& input) override {
    call([&] { update_(input.preds, context_->data_of(input.batch)); });
  }
  [[nodiscard]] nb::Json compute() const override {
    nb::Json value;
    call([&] { value = py_to_json(compute_(), name_); });
    return value;
  }

 private:
  template <class F>
  void call(F&& f) const {
    py::gil_scoped_acquire gil;
    try {
      f();
    } catch (py::error_already_set& e) {
      throw nb::MetricError(fmt::format("{}: {}", name_, e.what()));
    }
  }

  py::object update_, compute_, reset_;
  std::string name_;
  std::shared_ptr<PyContext> context_;
};

// --- the run ----------------------------------------------------------------------------------

// NeuroBench keeps only the input of what its pre-processors return: its metrics get the batch as
// the loader gave it (`input, target = preprocess(data)`; `target` is not used). A pair of
// these, first and last in a chain holding Python pre-processors, gives the workload metrics the
// targets the chain was given.
class KeepTargets final : public nb::PreProcessor {
 public:
  KeepTargets(std::shared_ptr<at::Tensor> slot, bool restore)
      : slot_(std::move(slot)), restore_(restore) {}
  nb::Batch operator()(const nb::Batch& batch) override {
    nb::Batch out = batch;
    if (restore_) {
      out.targets = *slot_;
    } else {
      *slot_ = batch.targets;
    }
    return out;
  }

 private:
  std::shared_ptr<at::Tensor> slot_;
  bool restore_;
};

std::vector<std::unique_ptr<nb::PreProcessor>> pre_processors_of(
    const py::list& items, const std::shared_ptr<PyContext>& context) {
  std::vector<std::unique_ptr<nb::PreProcessor>> out;
  bool python = false;
  for (const auto& item : items)
    python = python || item.cast<py::tuple>()[0].cast<std::string>() == "py";
  auto slot = std::make_shared<at::Tensor>();
  if (python) out.push_back(std::make_unique<KeepTargets>(slot, false));
  for (const auto& item : items) {
    const auto t = item.cast<py::tuple>();
    if (t[0].cast<std::string>() == "cpp") {
      out.push_back(nb::pre_processors().create(t[1].cast<std::string>(), options_of(t[2])));
    } else {
      out.push_back(std::make_unique<PyPreProcessor>(py::reinterpret_borrow<py::object>(t[1]),
                                                     t[2].cast<std::string>(), context));
    }
  }
  if (python) out.push_back(std::make_unique<KeepTargets>(slot, true));
  return out;
}

std::vector<std::unique_ptr<nb::PostProcessor>> post_processors_of(
    const py::list& items, const std::shared_ptr<PyContext>& context) {
  std::vector<std::unique_ptr<nb::PostProcessor>> out;
  for (const auto& item : items) {
    const auto t = item.cast<py::tuple>();
    if (t[0].cast<std::string>() == "cpp") {
      out.push_back(nb::post_processors().create(t[1].cast<std::string>(), options_of(t[2])));
    } else {
      out.push_back(std::make_unique<PyPostProcessor>(py::reinterpret_borrow<py::object>(t[1]),
                                                      t[2].cast<std::string>(), context,
                                                      out.empty()));
    }
  }
  return out;
}

std::vector<nb::MetricSpec> specs_of(const py::list& items) {
  std::vector<nb::MetricSpec> out;
  for (const auto& item : items) {
    const auto t = item.cast<py::tuple>();
    out.emplace_back(t[0].cast<std::string>(), options_of(t[1]));
  }
  return out;
}

// The metrics: C++ ones by name ((name, options JSON) tuples), then the Python workload metrics
// ((update, compute or None, reset or None, name) tuples).
nb::MetricSet metrics_of(const py::dict& spec, const std::shared_ptr<PyContext>& context) {
  nb::MetricSet set = nb::MetricSet::from_specs(specs_of(spec["static"].cast<py::list>()),
                                                specs_of(spec["workload"].cast<py::list>()));
  for (const auto& item : spec["python_workload"].cast<py::list>()) {
    const auto t = item.cast<py::tuple>();
    auto update = py::reinterpret_borrow<py::object>(t[0]);
    const auto name = t[3].cast<std::string>();
    if (t[1].is_none()) {
      set.workload_metrics.push_back(
          std::make_unique<PyWorkloadMetric>(std::move(update), name, context));
    } else {
      set.workload_metrics.push_back(std::make_unique<PyAccumulatedMetric>(
          std::move(update), py::reinterpret_borrow<py::object>(t[1]),
          py::reinterpret_borrow<py::object>(t[2]), name, context));
    }
  }
  return set;
}

std::shared_ptr<const nb::Dataset> dataset_of(const py::dict& spec, PyContext& context) {
  if (spec.contains("dataset_kind")) {
    nb::DatasetSpec d;
    d.kind = spec["dataset_kind"].cast<std::string>();
    d.path = spec["dataset_path"].cast<std::string>();
    d.options = options_of(spec["dataset_options"]);
    nb::DatasetOpenOptions open;
    open.quiet = spec["quiet"].cast<bool>();
    return nb::dataset_kinds().open(d, open);
  }
  context.stream = std::make_shared<PyBatchStream>(
      spec["batches"].cast<py::object>(), spec["num_batches"].cast<std::size_t>(),
      spec["dataset_len"].cast<int64_t>(), spec["data_name"].cast<std::string>(),
      spec["keep_batches"].cast<bool>(), context.errors);
  return context.stream;
}

py::dict results_of(const nb::Results& r, const std::vector<std::string>& names) {
  py::dict out;
  out["values"] = json_to_py(r.values);
  py::list failures;
  for (const auto& f : r.failures) failures.append(py::make_tuple(f.metric, f.message));
  out["failures"] = failures;
  out["warnings"] = py::cast(r.warnings);
  out["samples"] = r.samples;
  out["batches"] = r.batches;
  out["run"] = json_to_py(r.run);
  out["metrics"] = json_to_py(r.metrics);
  out["names"] = py::cast(names);
  return out;
}

// The registered names the metric specs found, in their order (results are keyed by them).
std::vector<std::string> registered_names(const py::dict& spec) {
  std::vector<std::string> names;
  for (const char* key : {"static", "workload"}) {
    for (const auto& s : specs_of(spec[key].cast<py::list>())) {
      const nb::MetricDescription* d = nb::find_metric(s.name);
      names.push_back(d != nullptr ? d->name : s.name);
    }
  }
  return names;
}

// The model's input for the first batch of a data set kind: batch 0 through the pre-processors
// (what an eager network is exported on, when the data are read in C++).
at::Tensor example_input(const py::dict& spec) {
  PyContext context;
  context.errors = std::make_shared<PyErrorSlot>();
  nb::LoaderOptions loader_options;
  loader_options.batch_size = spec["batch_size"].cast<int64_t>();
  const nb::DataLoader loader(dataset_of(spec, context), loader_options);
  auto shared = std::make_shared<PyContext>(context);
  auto pre = pre_processors_of(spec["pre"].cast<py::list>(), shared);
  nb::Batch batch;
  {
    py::gil_scoped_release release;
    batch = loader.batch(0);
    for (auto& p : pre) batch = (*p)(batch);
  }
  return batch.data;
}

// Rethrows the user's own Python exception kept in `errors` (raised by a processor, a metric
// or the iterable while C++ ran) as itself, with a note saying where; else returns.
void core_rethrow_python_error(PyErrorSlot& slot, const std::exception& e) {
  if (!slot.error) return;
  py::error_already_set error = std::move(*slot.error);
  slot.error.reset();
  if (py::hasattr(error.value(), "add_note")) {
    error.value().attr("add_note")(
        fmt::format("neurobench_cpp: raised by {} ({})", slot.where, e.what()));
  }
  throw error;
}

// The model's input for one batch given in Python: the batch through the pre-processor chain
// (C++ and Python ones, as run() chains them). An eager network is exported on it: a tensor,
// or the structured input ([x, state]) a Python pre-processor returned, as it returned it.
py::object apply_pre(const py::list& pre, const py::handle& item) {
  auto context = std::make_shared<PyContext>();
  context->errors = std::make_shared<PyErrorSlot>();
  context->takes_structured = true;  // the model is not known yet: tuples and lists as given
  nb::Batch batch = batch_of(item, "the example batch");
  auto chain = pre_processors_of(pre, context);
  try {
    py::gil_scoped_release release;  // Python pre-processors take it for their call
    for (auto& p : chain) batch = (*p)(batch);
  } catch (const std::exception& e) {
    core_rethrow_python_error(*context->errors, e);
    throw;
  }
  if (batch.input) return context->structured;
  return py::cast(batch.data);
}

// The buffers given as (name, tensor) pairs: the state the eager network holds now.
std::vector<nb::NamedTensor> buffers_of(const py::handle& items) {
  std::vector<nb::NamedTensor> out;
  for (const auto& item : items.cast<py::list>()) {
    const auto t = item.cast<py::tuple>();
    const auto name = t[0].cast<std::string>();
    out.push_back({name, tensor_of(t[1], "buffer " + name)});
  }
  return out;
}

// TorchScript's simple graph executor while a CPU run lasts, then the executor as it was.
// The profiling executor runs a new graph twice slowly (profiling, then optimising) before its
// optimised plan; on the CPU, where it has nothing to fuse, the simple executor reaches the same
// speed at once, which is most of a first run's extra time on a small data set. Graphs first
// run meanwhile keep the simple executor; the user's own TorchScript keeps its own.
class SimpleExecutorScope {
 public:
  explicit SimpleExecutorScope(bool on) : on_(on) {
    if (!on_) return;
    executor_ = torch::jit::getExecutorMode().exchange(false);
    profiling_ = torch::jit::getProfilingMode().exchange(false);
  }
  ~SimpleExecutorScope() {
    if (!on_) return;
    torch::jit::getExecutorMode() = executor_;
    torch::jit::getProfilingMode() = profiling_;
  }
  SimpleExecutorScope(const SimpleExecutorScope&) = delete;
  SimpleExecutorScope& operator=(const SimpleExecutorScope&) = delete;

 private:
  bool on_ = false;
  bool executor_ = true;
  bool profiling_ = true;
};

// A TorchScript model loaded once and run again by each run() given it: later runs skip the
// load, the instrumentation and TorchScript's first optimising runs.
struct LoadedModel {
  std::shared_ptr<nb::TorchScriptModel> model;
};

LoadedModel load_model(const std::string& path, bool stepwise) {
  nb::TorchScriptOptions options;
  options.stepwise = stepwise;
  return LoadedModel{std::make_shared<nb::TorchScriptModel>(path, options)};
}

py::dict run(const py::dict& spec) {
  auto context = std::make_shared<PyContext>();
  context->errors = std::make_shared<PyErrorSlot>();
  std::optional<nb::Benchmark> bench;
  nb::RunOptions options;
  options.quiet = spec["quiet"].cast<bool>();
  options.verbose = spec["verbose"].cast<bool>();
  options.device = nb::parse_device(spec["device"].cast<std::string>());
  // NeuroBench's metrics see the model's __net__(); a submodule of the run network is scoped.
  if (spec.contains("metrics_scope")) {
    options.metrics_scope = spec["metrics_scope"].cast<std::string>();
  }
  // The model a Benchmark loaded for its earlier runs (its module compiled and instrumented
  // already), else the file.
  std::shared_ptr<nb::TorchScriptModel> model;
  if (spec.contains("loaded") && !spec["loaded"].is_none()) {
    model = spec["loaded"].cast<LoadedModel&>().model;
  } else {
    model = load_model(spec["model_path"].cast<std::string>(), spec["stepwise"].cast<bool>())
                .model;
  }
  // The state the eager network holds now (what NeuroBench's run starts from), and the type
  // its forward takes, for inputs such as [x, (h, c)].
  if (spec.contains("buffers")) model->set_buffers(buffers_of(spec["buffers"]));
  {
    const auto& arguments =
        model->module().get_method("forward").function().getSchema().arguments();
    if (arguments.size() >= 2) context->input_type = arguments[1].type();
    context->takes_structured = true;
  }
  const std::shared_ptr<nb::TorchScriptModel> ran = model;
  context->model = model;
  nb::LoaderOptions loader_options;
  loader_options.batch_size = spec["batch_size"].cast<int64_t>();
  nb::LayerSetup layers = nb::Benchmark::default_layers();
  if (!spec["activation_modules"].is_none()) {
    layers.activation_types = spec["activation_modules"].cast<std::vector<std::string>>();
  }
  bench.emplace(std::move(model), nb::DataLoader(dataset_of(spec, *context), loader_options),
                pre_processors_of(spec["pre"].cast<py::list>(), context),
                post_processors_of(spec["post"].cast<py::list>(), context),
                metrics_of(spec, context), std::move(layers));
  const std::vector<std::string> names = registered_names(spec);
  std::optional<nb::Results> results;
  try {
    py::gil_scoped_release release;  // the loops hold no GIL; adapters take it for their call
    const SimpleExecutorScope executor(options.device.is_cpu());
    results = bench->run(options);
  } catch (const std::exception& e) {
    core_rethrow_python_error(*context->errors, e);  // the user's own exception, as itself
    throw;
  }
  py::dict out = results_of(*results, names);
  // The network's state after the run (NeuroBench's eager network keeps its own): copies on the
  // CPU, made outside inference mode so that Python may use them as it likes.
  py::list buffers;
  for (const nb::NamedTensor& b : ran->live_buffers()) {
    buffers.append(py::make_tuple(b.name, b.value.to(at::kCPU).clone()));
  }
  out["buffers"] = buffers;
  return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() =
      "The C++ harness of neurobench_cpp (neurobench-cpp's Benchmark); use "
      "neurobench_cpp.Benchmark";
  auto error = py::register_exception<nb::Error>(m, "Error", PyExc_RuntimeError);
  py::register_exception<nb::MetricError>(m, "MetricError", error.ptr());
  py::register_exception<nb::UsageError>(m, "UsageError", PyExc_ValueError);
  py::register_exception<nb::InputError>(m, "InputError", PyExc_ValueError);
  m.def("example_input", &example_input, py::arg("spec"),
        "The model's input of a data set kind's first batch, after the pre-processors");
  m.def("apply_pre", &apply_pre, py::arg("pre"), py::arg("batch"),
        "One batch given in Python through the pre-processor chain (C++ and Python ones, "
        "entries as in run()'s spec); returns the model's input");
  py::class_<LoadedModel>(m, "LoadedModel",
                          "A TorchScript model loaded once, for run()'s spec key 'loaded'");
  m.def("load_model", &load_model, py::arg("path"), py::arg("stepwise"),
        "Loads a TorchScript file for several runs (run()'s spec key 'loaded')");
  m.def("run", &run, py::arg("spec"),
        "Runs one benchmark described by neurobench_cpp.benchmark; returns the results");
  m.def(
      "metric_names",
      [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const nb::MetricDescription* d : nb::all_metrics()) out.emplace_back(d->name, d->kind);
        return out;
      },
      "Every registered metric as (name, kind: static, workload or timing)");
  m.def(
      "processor_names",
      [](const std::string& stage) {
        std::vector<std::string> out;
        if (stage == "pre") {
          for (const auto& e : nb::pre_processors().entries()) out.push_back(e.name);
        } else {
          for (const auto& e : nb::post_processors().entries()) out.push_back(e.name);
        }
        return out;
      },
      py::arg("stage"), "The registered pre- (stage 'pre') or post-processors ('post')");
}
