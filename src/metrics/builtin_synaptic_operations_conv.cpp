// SPDX-License-Identifier: Apache-2.0
// SynapticOperations: convolution calls (Linear, the batch's kept inputs, the metric's value and
// state: builtin_synaptic_operations.cpp).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "metrics/builtin_synaptic_operations.hpp"
#include "metrics/counting.hpp"

namespace neurobench::metrics {

namespace synaptic {

// Runs `conv` of `input` with `kernel` (one output channel), honouring the layer's stride,
// padding (numbers or 'same'/'valid'), dilation; groups are folded into the kernel.
torch::Tensor counting_conv(std::string_view op, const detail::ConvolutionArgs& conv,
                            const torch::Tensor& input, const torch::Tensor& kernel,
                            int64_t spatial) {
  const bool full = op == "aten::_convolution";
  const auto& stride = conv.stride;
  const auto& dilation = conv.dilation;
  if (!conv.padding_mode.empty()) {
    const std::string& mode = conv.padding_mode;
    switch (spatial) {
      case 1:
        return torch::conv1d(input, kernel, {}, stride, mode, dilation, 1);
      case 2:
        return torch::conv2d(input, kernel, {}, stride, mode, dilation, 1);
      default:
        return torch::conv3d(input, kernel, {}, stride, mode, dilation, 1);
    }
  }
  const auto& pad = conv.padding;
  if (full) {
    return at::_convolution(input, kernel, {}, stride, pad, dilation, false,
                            std::vector<int64_t>(static_cast<std::size_t>(spatial), 0), 1, false,
                            false, true, true);
  }
  switch (spatial) {
    case 1:
      return torch::conv1d(input, kernel, {}, stride, pad, dilation, 1);
    case 2:
      return torch::conv2d(input, kernel, {}, stride, pad, dilation, 1);
    default:
      return torch::conv3d(input, kernel, {}, stride, pad, dilation, 1);
  }
}

}  // namespace synaptic

using detail::shape_string;
using synaptic::counting_conv;
using synaptic::Counts;
using synaptic::key_of;
using synaptic::tensor_arg;
using synaptic::weighted_nonzeros;
using synaptic::WeightKey;

namespace {

// count_kernel[0, g*in_per_group + j, k] = #{oc in group g : w[oc, j, k] != 0}, in `type`.
torch::Tensor count_kernel_of(const torch::Tensor& w, int64_t groups, torch::ScalarType type) {
  const int64_t in_per_group = w.size(1);
  const int64_t out_per_group = w.size(0) / groups;
  const torch::Tensor nz = (w != 0).to(type);
  std::vector<int64_t> grouped_shape = {groups, out_per_group, in_per_group};
  for (int64_t d = 2; d < w.dim(); ++d) grouped_shape.push_back(w.size(d));
  const torch::Tensor per_channel = nz.reshape(grouped_shape).sum(1);  // (groups, in_pg, k...)
  std::vector<int64_t> kernel_shape = {1, in_per_group * groups};
  for (int64_t d = 2; d < w.dim(); ++d) kernel_shape.push_back(w.size(d));
  return per_channel.reshape(kernel_shape).contiguous();
}

// For one sample of shape `sample` (C, spatial...): the weight of each input element, the
// number of (output element, non-zero weight) pairs that read it, as int64 on the CPU (the
// gradient of the counting convolution's sum: whole numbers in float64); and the sample's dense
// count. Computed on the CPU from the float64 counting kernel.
std::pair<torch::Tensor, int64_t> conv_per_sample(std::string_view op,
                                                  const detail::ConvolutionArgs& conv,
                                                  const torch::Tensor& kernel_cpu,
                                                  c10::IntArrayRef sample, int64_t spatial,
                                                  int64_t out_per_group) {
  const c10::InferenceMode normal_tensors(/*enabled=*/false);  // autograd, inside a run
  const torch::AutoGradMode grad(true);
  const torch::Tensor kernel = kernel_cpu.clone();
  std::vector<int64_t> shape = {1};
  shape.insert(shape.end(), sample.begin(), sample.end());
  const torch::Tensor x =
      torch::zeros(shape, torch::TensorOptions().dtype(torch::kDouble)).requires_grad_(true);
  counting_conv(op, conv, x, kernel, spatial).sum().backward();
  const torch::Tensor weights = x.grad().reshape({-1}).to(torch::kLong).contiguous();
  const torch::NoGradGuard no_grad;
  const auto dense = static_cast<int64_t>(
      counting_conv(op, conv, torch::ones(shape, torch::kDouble),
                    torch::full_like(kernel, static_cast<double>(out_per_group)), spatial)
          .sum()
          .item<double>());
  return {weights, dense};
}

}  // namespace

// The per-sample weights and dense count of a convolution for inputs of one sample shape,
// computed once per weight and shape from the float64 counting kernel on the CPU.
const std::pair<torch::Tensor, int64_t>& SynapticOperations::State::conv_sample(
    ConvCache& cache, std::string_view op, const detail::ConvolutionArgs& conv,
    const torch::Tensor& w, c10::IntArrayRef sample) {
  const int64_t groups = conv.groups;
  const int64_t spatial = w.dim() - 2;
  if (!cache.count_kernel_cpu.defined()) {
    cache.count_kernel_cpu = count_kernel_of(w.to(torch::kCPU), groups, torch::kDouble);
  }
  const std::vector<int64_t> sample_shape(sample.begin(), sample.end());
  auto found = cache.per_sample.find(sample_shape);
  if (found == cache.per_sample.end()) {
    found = cache.per_sample
                .emplace(sample_shape, conv_per_sample(op, conv, cache.count_kernel_cpu, sample,
                                                       spatial, w.size(0) / groups))
                .first;
  }
  return found->second;
}

// spec: Synaptic operations, Conv: one single-channel convolution of the binarised input with
// the per-input-channel count of non-zero weights (stride, padding, dilation and groups kept);
// the dense count depends only on the input shape and is cached. That convolution's sum is
// linear in the input: it is counted as the binarised input weighted element by element by the
// sum's gradient, in one pass on the CPU, or on a device with the batch's other tensors in the
// run's tally. An input of another form, or on a device outside a run, goes through the
// counting convolution itself.
Counts SynapticOperations::State::conv_counts(const ConnectionCall& call) {
  const torch::Tensor& x = tensor_arg(call, 0, "input");
  const torch::Tensor& w = tensor_arg(call, 1, "weight");
  const detail::ConvolutionArgs conv_args = detail::convolution_args(call.op, call.args);
  if (conv_args.transposed) {
    throw MetricError(
        fmt::format("SynapticOperations: layer '{}': transposed convolutions are "
                    "not supported",
                    call.layer));
  }
  const int64_t groups = conv_args.groups;
  const int64_t spatial = w.dim() - 2;
  if (spatial < 1 || spatial > 3 || groups <= 0) {
    throw MetricError(fmt::format("SynapticOperations: layer '{}': unexpected weight shape {}",
                                  call.layer, shape_string(w)));
  }
  const int64_t out_per_group = w.size(0) / groups;
  auto& cache = detail::find_or_add(conv, call.layer);
  const WeightKey key = key_of(w);
  if (!(cache.key == key)) {
    cache = ConvCache{};
    cache.key = key;
  }

  Counts c;
  // One pass over the input, each element weighted by the non-zero weights that read it: on the
  // CPU at once, on a device with the batch's tally.
  const bool batched = x.dim() == spatial + 2;
  detail::DeviceTally* tally = x.device().is_cpu() ? nullptr : detail::current_tally();
  if (x.numel() > 0 && (batched || x.dim() == spatial + 1) &&
      (x.device().is_cpu() || tally != nullptr)) {
    const c10::IntArrayRef sample = batched ? x.sizes().slice(1) : x.sizes();
    const auto& [weights, dense_one] = conv_sample(cache, call.op, conv_args, w, sample);
    const int64_t rows = batched ? x.size(0) : 1;
    c.dense.host = dense_one * rows;
    if (tally == nullptr) {
      c.effective.host = weighted_nonzeros(x, rows, weights, c.spiking.host);
      return c;
    }
    if (auto handle = tally->add(x, batched, weights)) {
      tallied.push_back(std::move(*handle));
      return c;
    }
  }

  // Each output element of the counting convolutions is a whole number. On the CPU they are
  // computed in float32 (exact below 2^24); on a device in float64, which no TF32 mode rounds.
  const torch::ScalarType count_type = x.device().is_cpu() ? torch::kFloat : torch::kDouble;
  if (!cache.count_kernel.defined() || cache.count_kernel.scalar_type() != count_type) {
    cache.count_kernel = count_kernel_of(w, groups, count_type);
    cache.dense_by_shape.clear();
  }
  if (x.device().is_cpu()) {
    c.spiking = detail::spiking(x);
    // Each output element is an exact integer (far below 2^24); sum in double.
    const torch::Tensor binary = (x != 0).to(count_type);
    c.effective = count_of(
        counting_conv(call.op, conv_args, binary, cache.count_kernel, spatial).sum(torch::kDouble));
  } else {  // at the end of the batch
    keep(call.layer, Kept{std::string(call.op), cache.count_kernel, conv_args, spatial, {}}, x);
  }

  // The dense count depends on the shape alone: computed (and on a device, read back) once
  // per shape.
  const std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  auto found = cache.dense_by_shape.find(shape);
  if (found == cache.dense_by_shape.end()) {
    const torch::Tensor ones_kernel = torch::full_like(cache.count_kernel, out_per_group);
    const auto dense = static_cast<int64_t>(
        counting_conv(call.op, conv_args, torch::ones_like(x, count_type), ones_kernel, spatial)
            .sum(torch::kDouble)
            .item<double>());
    found = cache.dense_by_shape.emplace(shape, dense).first;
  }
  c.dense.host = found->second;
  return c;
}

void SynapticOperations::State::keep(std::string_view layer, Kept what,
                                     const torch::Tensor& input) {
  auto it = kept.find(layer);
  if (it == kept.end()) it = kept.emplace(std::string(layer), std::move(what)).first;
  it->second.inputs.push_back(input);
  kept_bytes += input.numel() * static_cast<int64_t>(input.element_size());
  if (kept_bytes > CountSum::kMaxKeptBytes) count_kept();  // memory stays bounded
}

}  // namespace neurobench::metrics
