// SPDX-License-Identifier: Apache-2.0
// The script's own Python parts of a neurobench_cpp run (python_parts.hpp).
#include "python_parts.hpp"

#include <utility>

#include <fmt/format.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/csrc/utils/pybind.h>

#include <neurobench/errors.hpp>

namespace neurobench_cpp {

py::object PyContext::data_of(const nb::Batch& batch) const {
  if (stream) return stream->current();
  return tuple_of(batch, py::none());
}

py::object PyContext::kwargs() const { return stream ? stream->kwargs() : py::none(); }

namespace {

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

}  // namespace

std::unique_ptr<nb::PreProcessor> python_pre_processor(py::object fn, std::string name,
                                                       std::shared_ptr<PyContext> context) {
  return std::make_unique<PyPreProcessor>(std::move(fn), std::move(name), std::move(context));
}

std::unique_ptr<nb::PostProcessor> python_post_processor(py::object fn, std::string name,
                                                         std::shared_ptr<PyContext> context,
                                                         bool first) {
  return std::make_unique<PyPostProcessor>(std::move(fn), std::move(name), std::move(context),
                                           first);
}

std::unique_ptr<nb::WorkloadMetric> python_workload_metric(py::object update, py::object compute,
                                                           py::object reset, std::string name,
                                                           std::shared_ptr<PyContext> context) {
  if (compute.is_none()) {
    return std::make_unique<PyWorkloadMetric>(std::move(update), std::move(name),
                                              std::move(context));
  }
  return std::make_unique<PyAccumulatedMetric>(
      std::move(update), std::move(compute), std::move(reset), std::move(name), std::move(context));
}

}  // namespace neurobench_cpp
