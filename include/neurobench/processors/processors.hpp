// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>
#include <neurobench/registry.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Transforms a batch before inference: (data, targets) -> (data, targets).
class PreProcessor {
 public:
  virtual ~PreProcessor() = default;
  /// Returns the transformed batch; must not modify `batch`'s tensors in place.
  [[nodiscard]] virtual Batch operator()(const Batch& batch) = 0;
};

/// Transforms the model's predictions before the workload metrics see them.
class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  /// Returns the transformed predictions; must not modify `preds` in place.
  [[nodiscard]] virtual at::Tensor operator()(const at::Tensor& preds) = 0;
};

/// Wraps a callable as a PreProcessor.
[[nodiscard]] std::unique_ptr<PreProcessor> make_pre_processor(std::function<Batch(const Batch&)> f);
/// Wraps a callable as a PostProcessor.
[[nodiscard]] std::unique_ptr<PostProcessor> make_post_processor(
    std::function<at::Tensor(const at::Tensor&)> f);

/// The registry of pre-processors (built-ins included), for lookup by name.
[[nodiscard]] Registry<PreProcessor>& pre_processors();
/// The registry of post-processors (built-ins included), for lookup by name.
[[nodiscard]] Registry<PostProcessor>& post_processors();

namespace detail {
/// A processor's description from its registration line: one line, or a PluginDescription
/// (with options).
[[nodiscard]] inline PluginDescription processor_description(const char* one_line) {
  PluginDescription d;
  d.description = one_line;
  return d;
}
[[nodiscard]] inline PluginDescription processor_description(PluginDescription d) { return d; }

/// Registers `T` (see NEUROBENCH_REGISTER_PROCESSOR); never throws: a failed registration is
/// kept and reported by the registry accessors on first use.
template <class T>
bool register_processor(const char* class_text, PluginDescription d) noexcept {
  try {
    d.name = registered_class_name(class_text);
    d.source = registration_source();
    defer_registration([d] {
      check_takes_options<T>(d);
      if constexpr (std::is_base_of_v<PreProcessor, T>) {
        pre_processors().add(d, &make_plugin<T, PreProcessor>);
      } else {
        static_assert(std::is_base_of_v<PostProcessor, T>,
                      "NEUROBENCH_REGISTER_PROCESSOR needs a PreProcessor or PostProcessor");
        post_processors().add(d, &make_plugin<T, PostProcessor>);
      }
    });
  } catch (...) {
    record_registration_error(std::string("cannot register processor ") + class_text);
  }
  return true;
}
}  // namespace detail

/// Registers a pre- or post-processor class under its class name (namespaces dropped), for
/// `--pre`, `--post` and configs. Use once in a `.cpp` file; the description is one line or a
/// PluginDescription with options (taken by a constructor `T(const neurobench::Json&)`):
/// `NEUROBENCH_REGISTER_PROCESSOR(lab::Binarize, "spikes where the input exceeds 0.5");`
#define NEUROBENCH_REGISTER_PROCESSOR(Class, description)                                   \
  [[maybe_unused]] static const bool NEUROBENCH_PP_CAT(neurobench_registered_processor_,     \
                                                       __COUNTER__) =                        \
      ::neurobench::detail::register_processor<Class>(                                      \
          #Class, ::neurobench::detail::processor_description(description))

namespace processors {

/// Spike counts to class: sums `(batch, timesteps, classes)` over timesteps and returns the
/// index of the largest count per sample, shape `(batch)`. Throws InputError for fewer than
/// 3 dimensions.
class ChooseMaxCount final : public PostProcessor {
 public:
  [[nodiscard]] at::Tensor operator()(const at::Tensor& preds) override;
};

/// Sums `(batch, timesteps, ...)` over the timesteps, giving `(batch, ...)`. Throws
/// InputError for fewer than 2 dimensions.
class Aggregate final : public PostProcessor {
 public:
  [[nodiscard]] at::Tensor operator()(const at::Tensor& preds) override;
};

/// Scores to class: the index of the largest value along the last dimension, with every
/// dimension of size 1 then squeezed away, as Python's `preds.argmax(dim=-1).squeeze()` (the
/// post-processor of NeuroBench's GSC ANN example). Scores or log-probabilities
/// `(batch, classes)` give class indices `(batch)`, int64; ties go to the first class.
/// `(batch, timesteps, classes)` gives `(batch, timesteps)`, a class per timestep. As in
/// Python, the squeeze also removes a batch of one: `(1, classes)` gives a 0-d tensor, which
/// ClassificationAccuracy counts as that one sample. Throws InputError for a 0-d input or an
/// empty last dimension (no classes).
class Argmax final : public PostProcessor {
 public:
  [[nodiscard]] at::Tensor operator()(const at::Tensor& preds) override;
};

}  // namespace processors
}  // namespace neurobench
NEUROBENCH_API_END
