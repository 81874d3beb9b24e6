// SPDX-License-Identifier: Apache-2.0
// The per-layer profile (ProfileOptions): first one pass over the data set with the layer
// probe's hooks, counting each connection layer's synaptic operations with a SynapticOperations
// of its own and each activation layer's sparsity with ActivationSparsityByLayer, so that the
// rows add up to those metrics' values; then timed forward calls on the timing pass's batches,
// first without hooks, then with a clock read at the entry and exit of every submodule (kind
// `other` for those neither a connection nor an activation layer: pooling, flattening,
// containers) or, in an inlined model, of the layers' operators. Each row's time is its own: a
// module called inside another is taken out of the outer one's, so that the rows' times and
// `other_s` (the root module's own code, outside every submodule) add up to the forward.
#include "runtime/profile_pass.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "metrics/layer_probe.hpp"
#include "util/progress.hpp"

namespace neurobench {

namespace detail {

namespace {

using ProfileClock = std::chrono::steady_clock;

// One layer of the profile: what the counting pass counted and what the clocks measured.
struct ProfileLayer {
  std::string name;
  std::string kind;  // connection, activation or other
  std::string type;
  int64_t order = -1;  // rank of the first entry the clocks saw; -1: none seen
  std::unique_ptr<metrics::SynapticOperations> ops;  // connection layers
  std::vector<int64_t> shape;
  bool has_shape = false;
  int64_t calls = 0;  // calls in the timed runs with clocks
  double self_s = 0;  // their time, nested layers' time taken out
};

// The layers in the order first seen, counted or clocked.
class ProfileLayers {
 public:
  ProfileLayer& find_or_add(std::string_view name, std::string_view kind, std::string_view type) {
    const auto it = index_.find(name);
    if (it != index_.end()) return *layers_[it->second];
    auto layer = std::make_unique<ProfileLayer>();
    layer->name = std::string(name);
    layer->kind = std::string(kind);
    layer->type = std::string(type);
    index_.emplace(layer->name, layers_.size());
    layers_.push_back(std::move(layer));
    return *layers_.back();
  }
  [[nodiscard]] const std::vector<std::unique_ptr<ProfileLayer>>& all() const { return layers_; }
  // The clocks saw `layer` entered: the first time fixes its place in execution order.
  void entered(ProfileLayer& layer) {
    if (layer.order < 0) layer.order = next_order_++;
  }
  // In execution order (entry order, so an outer module before the modules it calls); layers
  // the clocks never saw (only counted) last, in the order first counted.
  [[nodiscard]] std::vector<const ProfileLayer*> in_order() const {
    std::vector<const ProfileLayer*> out;
    for (const auto& l : layers_) out.push_back(l.get());
    const auto rank = [](const ProfileLayer* l) {
      return l->order < 0 ? std::numeric_limits<int64_t>::max() : l->order;
    };
    std::stable_sort(out.begin(), out.end(), [&rank](const ProfileLayer* a, const ProfileLayer* b) {
      return rank(a) < rank(b);
    });
    return out;
  }

 private:
  std::vector<std::unique_ptr<ProfileLayer>> layers_;
  int64_t next_order_ = 0;
  std::map<std::string, std::size_t, std::less<>> index_;
};

// Receives the probe's layer events of the counting pass.
class ProfileCounter final : public WorkloadMetric {
 public:
  explicit ProfileCounter(ProfileLayers& layers) : layers_(layers) { sparsity_.reset(); }
  [[nodiscard]] std::string name() const override { return "profile"; }
  [[nodiscard]] LayerEvents observes() const override {
    return LayerEvents::kActivations | LayerEvents::kConnections;
  }
  void begin_batch() override {
    sparsity_.begin_batch();
    for (const auto& l : layers_.all()) {
      if (l->ops) l->ops->begin_batch();
    }
  }
  void on_activation(const ActivationCall& call) override {
    (void)layers_.find_or_add(call.layer, "activation", call.type_name);
    sparsity_.on_activation(call);
  }
  void on_connection(const ConnectionCall& call) override {
    ProfileLayer& l = layers_.find_or_add(call.layer, "connection", call.type_name);
    if (!l.ops) {
      l.ops = std::make_unique<metrics::SynapticOperations>();
      l.ops->reset();
    }
    l.ops->on_connection(call);
  }
  // The end of a batch: the counts of every layer seen so far.
  [[nodiscard]] Json operator()(const WorkloadInput& input) override {
    for (const auto& l : layers_.all()) {
      if (l->ops) l->ops->update(input);
    }
    sparsity_.update(input);
    samples_ += input.batch.size();
    return nullptr;
  }
  [[nodiscard]] Json sparsity() const { return sparsity_.compute(); }
  // SynapticOperations' sample count starts when its layer is first called: the counts are
  // divided by the pass's samples instead, as the metric of the whole model divides them.
  [[nodiscard]] int64_t samples() const { return samples_; }

 private:
  ProfileLayers& layers_;
  metrics::ActivationSparsityByLayer sparsity_;
  int64_t samples_ = 0;
};

// The counting pass: every batch of the data set, as the workload pass runs them. A count that
// fails leaves `error` set; the profile's times are still made.
void profile_count(const PassInput& in, ProfileCounter& counter, const RunOptions& options,
                   RunState& state, std::string& error) {
  LayerProbe probe(in.model, in.layers, {&counter},
                   [&](WorkloadMetric& /*metric*/, const std::string& message) {
                     if (error.empty()) error = message;
                   });
  for (const auto& w : probe.warnings()) state.warn_once(w);
  const std::size_t batches = in.loader.num_batches();
  Progress progress(!options.quiet && options.progress != ProgressMode::Off, batches, "batches",
                    /*stops=*/false, options.progress == ProgressMode::Lines);
  for (std::size_t b = 0; b < batches; ++b) {
    stop_if_requested([&] {
      return fmt::format("during the profile's counting pass, after {} of {} batches", b, batches);
    });
    Batch batch = pre_process(in.pre, to_device(in.loader.batch(b), in.device, b), b);
    counter.begin_batch();
    ready_model_for_batch(in.model, batch, b == 0, b);
    const torch::Tensor preds = post_process(in.post, infer(in.model, batch), b);
    progress.update(b + 1);
    if (!error.empty()) continue;
    try {
      (void)counter(WorkloadInput{in.model, preds, batch});
    } catch (const c10::Error& e) {
      error = what_of(e);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
}

// The first tensor of a layer's output (element 0 of a tuple: a spiking layer's spikes).
torch::Tensor profile_first_tensor(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor();
  if (v.isTuple()) {
    const auto& elements = v.toTupleRef().elements();
    if (!elements.empty() && elements[0].isTensor()) return elements[0].toTensor();
  }
  return {};
}

// A module's kind in the profile: a connection or activation layer by its class, else other.
const char* profile_module_kind(const LayerSetup& setup, const std::string& type) {
  const auto has = [&](const std::vector<std::string>& types) {
    return std::find(types.begin(), types.end(), type) != types.end();
  };
  if (has(setup.connection_types)) return "connection";
  if (has(setup.activation_types)) return "activation";
  return "other";
}

// Clocks at each submodule's (an inlined model: each layer operator's) entry and exit, through
// the model's hooks while it lives.
class LayerClocks {
 public:
  LayerClocks(NeuroBenchModel& model, const LayerSetup& setup, ProfileLayers& layers,
              const c10::Device& device)
      : model_(model), layers_(layers), device_(device) {
    if (!model.is_inlined()) {
      // Every module but the root, whatever its class: the root's own code is `other_s`.
      std::vector<std::string> paths;
      for (const ModuleInfo& m : model.modules()) {
        if (!m.path.empty()) paths.push_back(m.path);
      }
      if (paths.empty()) return;
      const ModuleSelector where = ModuleSelector::by_path(std::move(paths));
      handles_.push_back(
          model.register_forward_pre_hook(where, [this, &setup](const ModuleCall& call) {
            enter(call.module.path, profile_module_kind(setup, call.module.type_name),
                  call.module.type_name);
          }));
      handles_.push_back(model.register_forward_hook(
          where, [this](const ModuleCall& call) { leave(call.module.path, call.output); }));
      return;
    }
    // Inlined: the operators that stand for the layers, as the probe finds them.
    std::vector<std::string> ops = activation_operators_of(setup.activation_types);
    const std::vector<std::string>& connection_ops = connection_operators();
    ops.insert(ops.end(), connection_ops.begin(), connection_ops.end());
    handles_.push_back(model.register_operator_hook(
        OperatorSelector{ops, {}, /*after=*/false},
        [this, &connection_ops](const OperatorCall& call) {
          const bool connection = std::find(connection_ops.begin(), connection_ops.end(),
                                            call.op) != connection_ops.end();
          enter(call.site, connection ? "connection" : "activation", call.op);
        }));
    handles_.push_back(model.register_operator_hook(
        OperatorSelector{ops, {}, /*after=*/true},
        [this](const OperatorCall& call) { leave(call.site, call.output); }));
  }
  ~LayerClocks() {
    for (const HookHandle h : handles_) {
      try {
        model_.remove_hook(h);
      } catch (...) {  // a destructor must not throw
      }
    }
  }
  LayerClocks(const LayerClocks&) = delete;
  LayerClocks& operator=(const LayerClocks&) = delete;

  // Timed runs add their calls and times; warm-up runs only find the layers and shapes.
  void set_timed(bool timed) {
    timed_ = timed;
    stack_.clear();
  }

 private:
  struct Frame {
    ProfileLayer* layer;
    ProfileClock::time_point start;
    double nested_s;
  };
  void enter(std::string_view name, std::string_view kind, std::string_view type) {
    ProfileLayer& layer = layers_.find_or_add(name, kind, type);
    layers_.entered(layer);
    synchronize(device_);  // the work queued before the layer is not the layer's
    stack_.push_back({&layer, ProfileClock::now(), 0.0});
  }
  void leave(std::string_view name, const c10::IValue* output) {
    synchronize(device_);
    const auto end = ProfileClock::now();
    if (stack_.empty() || stack_.back().layer->name != name) return;
    const Frame frame = stack_.back();
    stack_.pop_back();
    const double elapsed = std::chrono::duration<double>(end - frame.start).count();
    if (!stack_.empty()) stack_.back().nested_s += elapsed;
    ProfileLayer& layer = *frame.layer;
    if (!layer.has_shape && output != nullptr) {
      const torch::Tensor t = profile_first_tensor(*output);
      if (t.defined()) layer.shape = t.sizes().vec();
      layer.has_shape = true;
    }
    if (!timed_) return;
    ++layer.calls;
    layer.self_s += elapsed - frame.nested_s;
  }

  NeuroBenchModel& model_;
  ProfileLayers& layers_;
  c10::Device device_;
  std::vector<HookHandle> handles_;
  std::vector<Frame> stack_;
  bool timed_ = false;
};

// The timing pass's batch size (TimingOptions::batch_size, else the loader's; a sequential data
// set's own), at most the data set's size.
int64_t profile_batch_size(const PassInput& in, const TimingOptions& timing) {
  if (const auto fixed = in.loader.dataset().fixed_batch_size()) return *fixed;
  const int64_t size = in.loader.dataset().size();
  const int64_t batch_size =
      timing.batch_size > 0 ? timing.batch_size : in.loader.options().batch_size;
  return std::min(batch_size, size);
}

// `warmup` untimed forward calls, then `runs` timed ones on full batches cycling through the
// data in order; returns the mean seconds per forward call (pre-processing not included).
double profile_forwards(const PassInput& in, const DataLoader& batches, std::size_t full,
                        const ProfileOptions& o, LayerClocks* clocks, const char* what) {
  std::size_t next = 0;
  auto run_once = [&]() {
    const std::size_t b = next++ % full;
    Batch batch = pre_process(in.pre, to_device(batches.batch(b), in.device, b), b);
    ready_model_for_batch(in.model, batch, b == 0, b);
    synchronize(in.device);
    const auto start = ProfileClock::now();
    (void)infer(in.model, batch);
    synchronize(in.device);
    return std::chrono::duration<double>(ProfileClock::now() - start).count();
  };
  if (clocks != nullptr) clocks->set_timed(false);
  for (int64_t k = 0; k < o.warmup; ++k) {
    stop_if_requested([&] {
      return fmt::format("during the profile's {} warm-up runs, after {} of {}", what, k, o.warmup);
    });
    (void)run_once();
  }
  if (clocks != nullptr) clocks->set_timed(true);
  double total = 0;
  for (int64_t k = 0; k < o.runs; ++k) {
    stop_if_requested([&] {
      return fmt::format("during the profile's {} timed runs, after {} of {}", what, k, o.runs);
    });
    total += run_once();
  }
  if (clocks != nullptr) clocks->set_timed(false);
  return total / static_cast<double>(o.runs);
}

// A per-sample count of a layer's SynapticOperations, or null when the counts failed.
Json profile_per_sample(const Json& state, const char* key, int64_t samples, bool failed) {
  if (failed) return nullptr;
  if (samples == 0) return 0.0;
  return state.at(key).get<double>() / static_cast<double>(samples);
}

Json profile_rows(const ProfileLayers& layers, const ProfileCounter& counter, bool count_failed,
                  int64_t runs, double profiled_s) {
  const Json sparsity = count_failed ? Json::object() : counter.sparsity();
  Json rows = Json::array();
  for (const ProfileLayer* l : layers.in_order()) {
    Json row = Json::object();
    row["layer"] = l->name;
    row["kind"] = l->kind;
    row["type"] = l->type;
    row["output_shape"] = l->has_shape ? Json(l->shape) : Json(nullptr);
    const double per_run = l->self_s / static_cast<double>(runs);
    row["calls_per_run"] = static_cast<double>(l->calls) / static_cast<double>(runs);
    row["time_per_call_s"] =
        l->calls > 0 ? Json(l->self_s / static_cast<double>(l->calls)) : Json(nullptr);
    row["time_per_run_s"] = per_run;
    row["share"] = profiled_s > 0 ? per_run / profiled_s : 0.0;
    if (l->kind == "connection") {
      const Json state =
          l->ops ? l->ops->export_state() : Json{{"macs", 0}, {"acs", 0}, {"dense", 0}};
      row["dense_ops"] = profile_per_sample(state, "dense", counter.samples(), count_failed);
      row["effective_macs"] = profile_per_sample(state, "macs", counter.samples(), count_failed);
      row["effective_acs"] = profile_per_sample(state, "acs", counter.samples(), count_failed);
      row["activation_sparsity"] = nullptr;
    } else {  // activation and other modules: no operations counted
      row["dense_ops"] = nullptr;
      row["effective_macs"] = nullptr;
      row["effective_acs"] = nullptr;
      row["activation_sparsity"] = l->kind == "activation" && sparsity.contains(l->name)
                                       ? sparsity.at(l->name)
                                       : Json(nullptr);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

Json profile_pass(const PassInput& in, const RunOptions& run_options, RunState& state) {
  const ProfileOptions& options = run_options.profile;
  const TimingOptions& timing = run_options.timing;
  options.validate();
  ProfileLayers layers;
  ProfileCounter counter(layers);
  std::string count_error;
  profile_count(in, counter, run_options, state, count_error);
  if (!count_error.empty()) {
    state.warn_once("profile: counting the layers' operations and sparsity failed (" + count_error +
                    "); the profile shows times only");
  }

  const int64_t batch_size = profile_batch_size(in, timing);
  if (batch_size <= 0) throw InputError("profile: the data set has no samples to time");
  LoaderOptions loader_options;
  loader_options.batch_size = batch_size;
  const DataLoader batches(in.loader.shared_dataset(), loader_options);
  const auto full = static_cast<std::size_t>(in.loader.dataset().size() / batch_size);
  const double plain_s = profile_forwards(in, batches, full, options, nullptr, "plain");
  double profiled_s = 0;
  {
    LayerClocks clocks(in.model, in.layers, layers, in.device);
    profiled_s = profile_forwards(in, batches, full, options, &clocks, "profiled");
  }  // the clocks' hooks are removed here

  Json out = Json::object();
  out["batch_size"] = batch_size;
  out["warmup"] = options.warmup;
  out["runs"] = options.runs;
  out["samples"] = counter.samples();
  out["plain_forward_s"] = plain_s;
  out["profiled_forward_s"] = profiled_s;
  out["overhead"] = plain_s > 0 ? profiled_s / plain_s - 1 : 0.0;
  double layers_s = 0;
  for (const auto& l : layers.all()) layers_s += l->self_s;
  layers_s /= static_cast<double>(options.runs);
  out["layers_s"] = layers_s;
  out["other_s"] = profiled_s - layers_s;
  if (!count_error.empty()) out["count_error"] = count_error;
  out["layers"] = profile_rows(layers, counter, !count_error.empty(), options.runs, profiled_s);
  return out;
}

}  // namespace detail

}  // namespace neurobench
