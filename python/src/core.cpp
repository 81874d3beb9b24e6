// SPDX-License-Identifier: Apache-2.0
// neurobench_cpp._core: the C++ harness for Python (docs/python.md).
//
// python/neurobench_cpp/benchmark.py describes a run as the command line's config does (the
// documented keys of BenchmarkConfig, as JSON) and gives the parts only Python has: the loaded
// model, the network's state, the Python iterable, and the script's own processors and metrics
// (python_parts.hpp). run() assembles them with PreparedRun, as `neurobench run` and the
// examples do, so the results carry the same `_run` record. Batches of a Python iterable are
// read one at a time (batch_stream.hpp); Python processors and metrics take the GIL for their
// call; the rest of the run holds no GIL.
//
// An exception raised by the user's Python (a processor, a metric, the iterable) is kept and
// raised again by run() once the harness has unwound, so Python sees its own type, with a note
// saying where it was raised.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/csrc/utils/pybind.h>

#include <neurobench/config.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/processors/processors.hpp>
#include <neurobench/run_keys.hpp>

#include "batch_stream.hpp"
#include "python_parts.hpp"
#include "values.hpp"

namespace neurobench_cpp {
namespace {

// A TorchScript model loaded once and run again by each run() given it: later runs skip the
// load, the instrumentation and TorchScript's first optimising runs.
struct LoadedModel {
  std::shared_ptr<nb::TorchScriptModel> model;
};

// `nir`: for a NIR graph, the config's keys nir_time, nir_dt and nir_reset (JSON text).
LoadedModel load_model(const std::string& path, bool stepwise, const std::string& nir) {
  nb::TorchScriptOptions options;
  options.stepwise = stepwise;
  if (!nir.empty()) {
    nb::BenchmarkConfig config;
    const nb::Json keys = nb::Json::parse(nir);
    for (const auto& [key, value] : keys.items()) config.set_key(key, value);
    config.validate();
    options.nir = config.nir_options();
  }
  return LoadedModel{std::make_shared<nb::TorchScriptModel>(path, options)};
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

// The run's description: the config's documented keys, as JSON text from Python.
nb::BenchmarkConfig config_of(const py::handle& text) {
  return nb::BenchmarkConfig::from_json(options_of(text), {}, "neurobench_cpp's run");
}

// Factories of the Python processors of `parts[key]` ((name, callable) pairs, named as the
// config's chain names them). They hold Python objects: called, copied and destroyed with the
// GIL held (run() and example_input() hold it while the run is assembled).
template <class Processor, class Make>
std::map<std::string, std::function<std::unique_ptr<Processor>()>, std::less<>> python_processors(
    const py::dict& parts, const char* key, Make make) {
  std::map<std::string, std::function<std::unique_ptr<Processor>()>, std::less<>> out;
  if (!parts.contains(key)) return out;
  for (const auto& item : parts[key].cast<py::list>()) {
    const auto t = item.cast<py::tuple>();
    const auto name = t[0].cast<std::string>();
    auto fn = py::reinterpret_borrow<py::object>(t[1]);
    out.emplace(name, [make, fn, name] { return make(fn, name); });
  }
  return out;
}

// The parts of `parts` a run or its first batch needs beside the config: the script's own
// processors and metrics, the model, its state and the Python iterable.
nb::RunParts run_parts(const nb::BenchmarkConfig& config, const py::dict& parts,
                       const std::shared_ptr<PyContext>& context) {
  nb::RunParts out;
  out.pre_processors = python_processors<nb::PreProcessor>(
      parts, "pre", [context](const py::object& fn, const std::string& name) {
        return python_pre_processor(fn, name, context);
      });
  // The model's whole output goes to the first post-processor when it is Python.
  const std::string first_post = config.post.empty() ? "" : config.post.front().name;
  out.post_processors = python_processors<nb::PostProcessor>(
      parts, "post", [context, first_post](const py::object& fn, const std::string& name) {
        return python_post_processor(fn, name, context, name == first_post);
      });
  if (parts.contains("metrics")) {
    for (const auto& item : parts["metrics"].cast<py::list>()) {
      const auto t = item.cast<py::tuple>();
      auto update = py::reinterpret_borrow<py::object>(t[0]);
      auto compute = py::reinterpret_borrow<py::object>(t[1]);
      auto reset = py::reinterpret_borrow<py::object>(t[2]);
      const auto name = t[3].cast<std::string>();
      out.workload_metrics.push_back([update, compute, reset, name, context] {
        return python_workload_metric(update, compute, reset, name, context);
      });
    }
  }
  out.metrics_optional = true;  // a script may compute only Python static metrics
  if (parts.contains("loaded")) out.model = context->model;
  if (parts.contains("batches")) {
    context->stream = std::make_shared<PyBatchStream>(
        parts["batches"].cast<py::object>(), parts["num_batches"].cast<std::size_t>(),
        parts["dataset_len"].cast<int64_t>(), parts["data_name"].cast<std::string>(),
        parts["keep_batches"].cast<bool>(), context->errors);
    out.data = context->stream;
  }
  return out;
}

// The model of `parts` ready for a run: the state the eager network holds now (what
// NeuroBench's run starts from) set, and the type its forward takes known to the context (for
// inputs such as [x, (h, c)]).
void ready_model(const py::dict& parts, PyContext& context) {
  context.takes_structured = true;
  if (!parts.contains("loaded")) return;
  context.model = parts["loaded"].cast<LoadedModel&>().model;
  if (parts.contains("buffers")) {
    std::vector<nb::NamedTensor> buffers;
    for (const auto& item : parts["buffers"].cast<py::list>()) {
      const auto t = item.cast<py::tuple>();
      const auto name = t[0].cast<std::string>();
      buffers.push_back({name, tensor_of(t[1], "buffer " + name)});
    }
    context.model->set_buffers(buffers);
  }
  const auto& arguments =
      context.model->module().get_method("forward").function().getSchema().arguments();
  if (arguments.size() >= 2) context.input_type = arguments[1].type();
}

// The registered names of the config's C++ metrics, static then workload, in their order
// (results are keyed by them).
std::vector<std::string> registered_names(const nb::BenchmarkConfig& config) {
  std::vector<std::string> names;
  for (const auto* specs : {&config.static_metrics, &config.workload_metrics}) {
    for (const auto& s : *specs) {
      const nb::MetricDescription* d = nb::find_metric(s.name);
      names.push_back(d != nullptr ? d->name : s.name);
    }
  }
  return names;
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

// The pre-processor chain of `config`, its Python entries from `parts`.
std::vector<std::unique_ptr<nb::PreProcessor>> pre_chain(const nb::BenchmarkConfig& config,
                                                         const nb::RunParts& parts) {
  std::vector<std::unique_ptr<nb::PreProcessor>> chain;
  for (const auto& p : config.pre) {
    const auto found = parts.pre_processors.find(p.name);
    chain.push_back(found != parts.pre_processors.end()
                        ? found->second()
                        : nb::pre_processors().create(p.name, p.options));
  }
  return chain;
}

// One batch through the config's pre-processor chain (C++ and Python ones, as a run chains
// them): the model's input an eager network is exported on, a tensor or the structured input
// ([x, state]) a Python pre-processor returned, as it returned it. `item` is a batch given in
// Python; None: batch 0 of the config's data set kind.
py::object example_input(const py::handle& config_text, const py::dict& parts,
                         const py::handle& item) {
  const nb::BenchmarkConfig config = config_of(config_text);
  auto context = std::make_shared<PyContext>();
  context->errors = std::make_shared<PyErrorSlot>();
  context->takes_structured = true;  // the model is not known yet: tuples and lists as given
  nb::RunParts run = run_parts(config, parts, context);
  auto chain = pre_chain(config, run);
  nb::Batch batch;
  try {
    if (item.is_none()) {
      nb::DatasetOpenOptions open;
      open.quiet = config.quiet;
      const nb::DataLoader loader(nb::dataset_kinds().open(config.dataset, open),
                                  config.loader_options());
      py::gil_scoped_release release;
      batch = loader.batch(0);
    } else {
      batch = batch_of(item, "the example batch");
    }
    py::gil_scoped_release release;  // Python pre-processors take it for their call
    for (auto& p : chain) batch = (*p)(batch);
  } catch (const std::exception& e) {
    rethrow_python_error(*context->errors, e);
    throw;
  }
  if (batch.input) return context->structured;
  return py::cast(batch.data);
}

// Runs the benchmark `config_text` describes with `parts`; returns what the harness computed,
// and the network's state after the run.
py::dict run(const py::handle& config_text, const py::dict& parts) {
  const nb::BenchmarkConfig config = config_of(config_text);
  auto context = std::make_shared<PyContext>();
  context->errors = std::make_shared<PyErrorSlot>();
  ready_model(parts, *context);
  nb::RunParts run_parts_ = run_parts(config, parts, context);
  // NeuroBench's metrics compare with the loader's targets, whatever the pre-processors return.
  nb::RunOptions options = config.run_options();
  options.targets_from_loader = true;
  // NeuroBench iterates the loader even for static metrics alone: a script's seeded loaders
  // and the random draws after the run count on it.
  options.static_only_reads_no_data = false;
  run_parts_.options = options;
  std::optional<nb::PreparedRun> prepared;
  std::optional<nb::Results> results;
  try {
    prepared.emplace(nb::PreparedRun::from_config(config, std::move(run_parts_)));
    py::gil_scoped_release release;  // the loops hold no GIL; adapters take it for their call
    const SimpleExecutorScope executor(options.device.is_cpu());
    results = prepared->run();
  } catch (const std::exception& e) {
    rethrow_python_error(*context->errors, e);  // the user's own exception, as itself
    throw;
  }
  py::dict out = results_of(*results, registered_names(config));
  // The network's state after the run (NeuroBench's eager network keeps its own): copies on the
  // CPU, made outside inference mode so that Python may use them as it likes.
  py::list buffers;
  if (context->model) {
    for (const nb::NamedTensor& b : context->model->live_buffers()) {
      buffers.append(py::make_tuple(b.name, b.value.to(at::kCPU).clone()));
    }
  }
  out["buffers"] = buffers;
  return out;
}

}  // namespace
}  // namespace neurobench_cpp

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  namespace nb = neurobench;
  using namespace neurobench_cpp;  // NOLINT(google-build-using-namespace): this file's own
  m.doc() =
      "The C++ harness of neurobench_cpp (neurobench-cpp's PreparedRun); use "
      "neurobench_cpp.Benchmark";
  // The library's exceptions as Python's, each message as the command line prints it
  // (describe_error(): control characters escaped, bounded).
  static py::exception<nb::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<nb::MetricError> metric_error(m, "MetricError", error.ptr());
  static py::exception<nb::UsageError> usage_error(m, "UsageError", PyExc_ValueError);
  static py::exception<nb::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    const auto say = [&p](const py::object& type) {
      PyErr_SetString(type.ptr(), nb::describe_error(p).message.c_str());
    };
    try {
      std::rethrow_exception(p);
    } catch (const nb::MetricError&) {
      say(metric_error);
    } catch (const nb::UsageError&) {
      say(usage_error);
    } catch (const nb::InputError&) {
      say(input_error);
    } catch (const nb::Error&) {
      say(error);
    }
  });
  py::class_<LoadedModel>(m, "LoadedModel",
                          "A TorchScript model loaded once, for run()'s parts key 'loaded'");
  m.def("load_model", &load_model, py::arg("path"), py::arg("stepwise"), py::arg("nir") = "",
        "Loads a TorchScript file or a NIR graph (with the JSON of nir_time, nir_dt, nir_reset) "
        "for several runs (run()'s parts key 'loaded')");
  m.def("example_input", &example_input, py::arg("config"), py::arg("parts"),
        py::arg("batch") = py::none(),
        "One batch (given in Python, or batch 0 of the config's data set kind) through the "
        "config's pre-processor chain; returns the model's input");
  m.def("run", &run, py::arg("config"), py::arg("parts"),
        "Runs the benchmark the config (JSON text: BenchmarkConfig's keys) describes with the "
        "parts only Python has (the loaded model, its state, the iterable, the script's own "
        "processors and metrics); returns the results");
  m.def(
      "metric_names",
      [] {
        std::vector<std::pair<std::string, std::string>> out;
        for (const nb::MetricDescription* d : nb::all_metrics()) out.emplace_back(d->name, d->kind);
        return out;
      },
      "Every registered metric as (name, kind: static, workload or timing)");
  m.def(
      "run_keys",
      [] {
        static const char* const kinds[] = {"path",    "boolean",    "integer", "seconds", "text",
                                            "device",  "names",      "metrics", "processors",
                                            "dataset", "outputs",    "options", "choice"};
        py::list out;
        for (const nb::RunKey& k : nb::run_keys()) {
          py::dict row;
          row["key"] = std::string(k.key);
          row["flag"] = std::string(k.flag);
          row["value"] = kinds[static_cast<int>(k.value)];
          row["help"] = std::string(k.help);
          row["suite_may_set"] = k.suite_may_set;
          out.append(row);
        }
        return out;
      },
      "Every key of a run (the core's table, docs/cli.md \"Every key of a run\"): dicts with "
      "key, flag, value (its kind), help and suite_may_set");
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
