// SPDX-License-Identifier: Apache-2.0
#include <neurobench/processors/processors.hpp>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/processors/audio.hpp>
#include <neurobench/processors/detection.hpp>
#include <neurobench/processors/encoders.hpp>

#include <typeinfo>

#include <neurobench/metrics/metric.hpp>

#include "util/text.hpp"

namespace neurobench {

using detail::shape_string;

namespace {

class CallablePre final : public PreProcessor {
 public:
  explicit CallablePre(std::function<Batch(const Batch&)> f) : f_(std::move(f)) {}
  Batch operator()(const Batch& batch) override { return f_(batch); }

 private:
  std::function<Batch(const Batch&)> f_;
};

class CallablePost final : public PostProcessor {
 public:
  explicit CallablePost(std::function<torch::Tensor(const torch::Tensor&)> f) : f_(std::move(f)) {}
  torch::Tensor operator()(const torch::Tensor& preds) override { return f_(preds); }

 private:
  std::function<torch::Tensor(const torch::Tensor&)> f_;
};


}  // namespace

std::unique_ptr<PreProcessor> make_pre_processor(std::function<Batch(const Batch&)> f) {
  if (!f) throw UsageError("make_pre_processor: empty callable");
  return std::make_unique<CallablePre>(std::move(f));
}

std::unique_ptr<PostProcessor> make_post_processor(
    std::function<torch::Tensor(const torch::Tensor&)> f) {
  if (!f) throw UsageError("make_post_processor: empty callable");
  return std::make_unique<CallablePost>(std::move(f));
}

namespace processors {

torch::Tensor ChooseMaxCount::operator()(const torch::Tensor& preds) {
  if (preds.dim() < 3) {
    throw InputError(fmt::format("ChooseMaxCount: predictions must be (batch, timesteps, "
                                 "classes), got shape {}",
                                 shape_string(preds)));
  }
  return preds.sum(1).argmax(1);
}

torch::Tensor Aggregate::operator()(const torch::Tensor& preds) {
  if (preds.dim() < 2) {
    throw InputError(fmt::format(
        "Aggregate: predictions must be (batch, timesteps, ...), got shape {}", shape_string(preds)));
  }
  return preds.sum(1);
}

// NeuroBench's GSC ANN example: `output.argmax(dim=-1).squeeze()`.
torch::Tensor Argmax::operator()(const torch::Tensor& preds) {
  if (preds.dim() == 0) {
    throw InputError(fmt::format("Argmax: predictions must have a class dimension, such as "
                                 "(batch, classes), got a 0-d tensor (shape {})",
                                 shape_string(preds)));
  }
  if (preds.size(-1) == 0) {
    throw InputError(fmt::format("Argmax: predictions have no classes: the last dimension of "
                                 "shape {} is empty",
                                 shape_string(preds)));
  }
  return preds.argmax(-1).squeeze();
}

}  // namespace processors

namespace {

template <class T, class Base>
void add_builtin(Registry<Base>& registry, const char* description) {
  PluginDescription d;
  d.name = detail::short_type_name(typeid(T).name());
  d.description = description;
  d.source = "built-in";
  registry.add(std::move(d), &detail::make_plugin<T, Base>);
}

// A built-in that describes itself (name, one line, options) with a static describe().
template <class T, class Base>
void add_described(Registry<Base>& registry) {
  PluginDescription d = T::describe();
  d.source = "built-in";
  registry.add(std::move(d), &detail::make_plugin<T, Base>);
}

}  // namespace

Registry<PreProcessor>& pre_processors() {
  static Registry<PreProcessor> registry = [] {
    using namespace processors;  // NOLINT(google-build-using-namespace)
    Registry<PreProcessor> r("pre-processor");
    add_described<S2SPreProcessor>(r);
    add_described<MFCCPreProcessor>(r);
    add_described<Resample>(r);
    add_described<DeltaEncoder>(r);
    add_described<RateEncoder>(r);
    add_described<LatencyEncoder>(r);
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

Registry<PostProcessor>& post_processors() {
  static Registry<PostProcessor> registry = [] {
    using namespace processors;  // NOLINT(google-build-using-namespace)
    Registry<PostProcessor> r("post-processor");
    add_builtin<ChooseMaxCount>(
        r, "spike counts (batch, timesteps, classes) -> class with most spikes");
    add_builtin<Aggregate>(
        r, "sum over the timestep dimension: (batch, timesteps, ...) -> (batch, ...)");
    add_builtin<Argmax>(r,
                        "scores (batch, classes) -> class with the largest score: argmax over "
                        "the last dimension, then squeeze");
    add_described<BoxNms>(r);
    return r;
  }();
  detail::check_registration_errors();
  return registry;
}

}  // namespace neurobench
