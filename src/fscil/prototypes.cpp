// SPDX-License-Identifier: Apache-2.0
// Prototypes of classes from a model's features, written into its readout in place, as
// NeuroBench's examples/mswc_fscil does.
#include <neurobench/fscil.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>

#include "util/text.hpp"

namespace neurobench {

namespace {

using detail::shape_string;

struct FscilReadout {
  torch::Tensor weight;  // (classes, features)
  torch::Tensor bias;    // (classes)
};

// The readout's parameters as the module holds them: written in place, they are the tensors
// every clone of the module (the instrumented one that hooks run on) shares.
FscilReadout fscil_find_readout(const TorchScriptModel& model, const std::string& path) {
  const torch::jit::Module& root = model.module();
  for (const auto& item : root.named_modules()) {
    if (item.name != path) continue;
    const torch::jit::Module& m = item.value;
    FscilReadout r;
    if (m.hasattr("weight") && m.attr("weight").isTensor()) r.weight = m.attr("weight").toTensor();
    if (m.hasattr("bias") && m.attr("bias").isTensor()) r.bias = m.attr("bias").toTensor();
    if (!r.weight.defined() || r.weight.dim() != 2) {
      throw InputError(fmt::format(
          "{}: readout '{}' has no 2-d weight (classes, features) to write prototypes into",
          model.describe(), path));
    }
    if (!r.bias.defined() || r.bias.dim() != 1 || r.bias.size(0) != r.weight.size(0)) {
      throw InputError(fmt::format(
          "{}: readout '{}' has no bias of {} rows (weight {}, bias {}): prototypes need one; "
          "build the readout with bias=True",
          model.describe(), path, r.weight.size(0), shape_string(r.weight),
          r.bias.defined() ? shape_string(r.bias) : std::string("none")));
    }
    return r;
  }
  std::string names;
  for (const auto& item : root.named_modules()) {
    if (!item.name.empty()) names += (names.empty() ? "" : ", ") + item.name;
  }
  throw InputError(fmt::format("{}: no module '{}' to use as the FSCIL readout (its modules: {})",
                               model.describe(), path, names.empty() ? "none" : names));
}

torch::Tensor fscil_features(const TorchScriptModel& model, const torch::Tensor& data,
                             const std::string& method) {
  torch::jit::Module m = model.module();  // a handle: the model's own module
  const auto found = m.find_method(method);
  if (!found) {
    throw InputError(fmt::format(
        "{}: no TorchScript method '{}': the FSCIL protocol computes prototypes from it (export "
        "it with @torch.jit.export, or name the model's features method in the config's "
        "fscil.features)",
        model.describe(), method));
  }
  c10::IValue out;
  try {
    c10::InferenceMode guard;
    out = (*found)({data});
  } catch (const c10::Error& e) {
    throw InputError(fmt::format("{}: method '{}' failed on data of shape {}: {}", model.describe(),
                                 method, shape_string(data), e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("{}: method '{}' failed on data of shape {}: {}", model.describe(),
                                 method, shape_string(data), e.what()));
  }
  if (!out.isTensor()) {
    throw InputError(fmt::format("{}: method '{}' returned {}, expected a tensor of features",
                                 model.describe(), method, out.tagKind()));
  }
  return out.toTensor();
}

}  // namespace

void FscilOptions::validate() const {
  if (features.empty()) throw UsageError("fscil.features: the features method's name is empty");
  if (readout.empty()) throw UsageError("fscil.readout: the readout module's path is empty");
  if (base_classes < 1) {
    throw UsageError(
        fmt::format("fscil.base_classes: {} is out of range; expected 1 or more", base_classes));
  }
}

void check_fscil_model(const TorchScriptModel& model, const FscilOptions& options) {
  options.validate();
  if (!model.module().find_method(options.features)) {
    throw InputError(fmt::format(
        "{}: no TorchScript method '{}': the FSCIL protocol computes prototypes from it (export "
        "it with @torch.jit.export, or name the model's features method in the config's "
        "fscil.features)",
        model.describe(), options.features));
  }
  const FscilReadout readout = fscil_find_readout(model, options.readout);
  // Before anything is made for the base classes: a count the readout cannot hold is refused
  // at once, whatever its size.
  if (options.base_classes > readout.weight.size(0)) {
    throw UsageError(fmt::format(
        "fscil.base_classes: {} base classes but readout '{}' of {} has {} rows (weight {}), "
        "one per class",
        options.base_classes, options.readout, model.describe(), readout.weight.size(0),
        shape_string(readout.weight)));
  }
}

std::vector<int64_t> write_prototypes(TorchScriptModel& model, const Batch& batch,
                                      const FscilOptions& options) {
  options.validate();
  const FscilReadout readout = fscil_find_readout(model, options.readout);
  const torch::Tensor features = fscil_features(model, batch.data, options.features);
  const int64_t n =
      batch.targets.defined() && batch.targets.dim() == 1 ? batch.targets.size(0) : -1;
  if ((features.dim() != 2 && features.dim() != 3) || features.size(0) != n) {
    throw InputError(fmt::format(
        "{}: method '{}' returned features of shape {} for {} samples; expected (batch, "
        "features) or (batch, timesteps, features) with a row per sample",
        model.describe(), options.features, shape_string(features),
        n < 0 ? std::string("targets of shape ") + shape_string(batch.targets)
              : std::to_string(n)));
  }
  if (features.size(-1) != readout.weight.size(1)) {
    throw InputError(
        fmt::format("{}: method '{}' gives {} features but readout '{}' takes {} (weight {})",
                    model.describe(), options.features, features.size(-1), options.readout,
                    readout.weight.size(1), shape_string(readout.weight)));
  }
  // Each class's rows, in the order of its first sample (NeuroBench: `y_shot.tolist()`).
  const torch::Tensor targets = batch.targets.to(torch::kCPU, torch::kLong).contiguous();
  const int64_t* t = targets.data_ptr<int64_t>();
  std::vector<int64_t> classes;
  std::map<int64_t, std::vector<int64_t>> rows;
  for (int64_t i = 0; i < n; ++i) {
    auto& r = rows[t[i]];
    if (r.empty()) classes.push_back(t[i]);
    r.push_back(i);
  }
  const int64_t num_rows = readout.weight.size(0);
  for (int64_t c : classes) {
    if (c < 0 || c >= num_rows) {
      throw InputError(fmt::format("{}: class {} has no row in readout '{}' of {} classes",
                                   model.describe(), c, options.readout, num_rows));
    }
  }
  torch::NoGradGuard no_grad;
  for (int64_t c : classes) {
    const std::vector<int64_t>& r = rows[c];
    const torch::Tensor index = torch::tensor(r, torch::kLong).to(features.device());
    const torch::Tensor f = features.index_select(0, index);
    const auto count = static_cast<int64_t>(r.size());
    // NeuroBench's arithmetic, operation for operation, so that the rows are bit-equal:
    // `torch.sum(features[rows], dim=0) / NUM_SHOTS`, `2 * mean`, `-torch.matmul(mean, mean.t())`;
    // the spiking variant sums dims [0, 1] at once and divides the bias by the timesteps.
    torch::Tensor mean, bias;
    if (f.dim() == 2) {
      mean = torch::sum(f, at::IntArrayRef{0}) / count;
      bias = -torch::matmul(mean, mean.t());
    } else {
      mean = torch::sum(f, at::IntArrayRef{0, 1}) / count;
      bias = -torch::matmul(mean, mean.t()) / f.size(1);
    }
    // In place: copy_ bumps the version counter that weight caches (SynapticOperations) key on.
    readout.weight.select(0, c).copy_(2 * mean);
    readout.bias.select(0, c).copy_(bias);
  }
  return classes;
}

}  // namespace neurobench
