// SPDX-License-Identifier: Apache-2.0
#include "runtime/finite_check.hpp"

#include <cmath>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/model/model.hpp>

#include "data/npz_shard.hpp"

namespace neurobench::detail {
namespace {

std::string value_text(double value) {
  if (std::isnan(value)) return "nan";
  return value > 0 ? "inf" : "-inf";
}

void scan(const std::string& source, const char* kind, const std::string& name,
          const at::Tensor& tensor, std::vector<NonFiniteValues>& out) {
  if (std::optional<NonFiniteValues> found = find_non_finite(tensor)) {
    found->source = source;
    found->kind = kind;
    found->tensor = name;
    out.push_back(std::move(*found));
  }
}

// Which of a model's tensors may hold NaN or Inf: those whose sum is not finite. For tensors on
// a device, every sum is made there and read back at once (one wait, not one per tensor).
std::vector<bool> may_be_non_finite(const std::vector<NamedTensor>& tensors) {
  std::vector<bool> out(tensors.size(), true);
  std::vector<std::size_t> on_device;
  std::vector<at::Tensor> sums;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i].value;
    if (!t.defined() || t.device().is_cpu() || t.layout() != c10::kStrided ||
        !t.is_floating_point() || t.numel() == 0 ||
        (!sums.empty() && t.device() != sums.front().device())) {
      continue;  // find_non_finite() looks at these itself
    }
    on_device.push_back(i);
    sums.push_back(t.sum().to(torch::kDouble).reshape({1}));
  }
  if (sums.empty()) return out;
  const at::Tensor finite = torch::isfinite(torch::cat(sums)).to(torch::kCPU);
  for (std::size_t k = 0; k < on_device.size(); ++k) {
    out[on_device[k]] = !finite[static_cast<int64_t>(k)].item<bool>();
  }
  return out;
}

void scan_model(const std::string& source, const char* kind,
                const std::vector<NamedTensor>& tensors, std::vector<NonFiniteValues>& out) {
  const std::vector<bool> look = may_be_non_finite(tensors);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (look[i]) scan(source, kind, tensors[i].name, tensors[i].value, out);
  }
}

}  // namespace

std::string NonFiniteValues::message() const {
  std::string index;
  for (const std::int64_t i : first_index) index += (index.empty() ? "" : ", ") + std::to_string(i);
  const std::string of_rows =
      rows ? fmt::format(" in rows [{}, {})", rows->first, rows->second) : std::string();
  return fmt::format(
      "{}: {} '{}' holds {} non-finite value{} ({} NaN, {} infinite) of {}{}; the first is "
      "{}[{}] = {}",
      source, kind, tensor, count, count == 1 ? "" : "s", nan, count - nan, numel, of_rows, tensor,
      index, first_value);
}

Json NonFiniteValues::to_json() const {
  Json record{
      {"tensor", tensor}, {"kind", kind},       {"source", source},          {"count", count},
      {"nan", nan},       {"inf", count - nan}, {"first_index", first_index}};
  if (rows) record["rows"] = {rows->first, rows->second};
  return record;
}

std::optional<NonFiniteValues> find_non_finite(const at::Tensor& tensor) {
  if (!tensor.defined() || tensor.layout() != c10::kStrided || tensor.numel() == 0 ||
      !(tensor.is_floating_point() || tensor.is_complex())) {
    return std::nullopt;
  }
  c10::InferenceMode guard;
  // A sum is finite only when every term is (NaN and Inf propagate); a finite sum is the
  // common case and costs one pass. An infinite one may be an overflow: look closer.
  const at::Tensor sum = tensor.sum();
  const bool finite_sum =
      tensor.is_complex() ? torch::isfinite(sum).item<bool>() : std::isfinite(sum.item<double>());
  if (finite_sum) return std::nullopt;
  // The rare tensor that may hold some is looked at on the CPU, whatever device holds it.
  if (!tensor.device().is_cpu()) return find_non_finite(tensor.to(torch::kCPU));
  const at::Tensor bad = torch::isfinite(tensor).logical_not_().flatten();
  NonFiniteValues found;
  found.count = bad.sum().item<std::int64_t>();
  if (found.count == 0) return std::nullopt;  // the sum overflowed
  found.nan = torch::isnan(tensor).sum().item<std::int64_t>();
  found.numel = tensor.numel();
  // argmax gives the first of equal maxima: the first non-finite value in row-major order.
  const std::int64_t first_flat = bad.to(torch::kUInt8).argmax().item<std::int64_t>();
  found.first_index.assign(static_cast<std::size_t>(tensor.dim()), 0);
  std::int64_t rest = first_flat;
  for (int64_t d = tensor.dim() - 1; d >= 0; --d) {
    found.first_index[static_cast<std::size_t>(d)] = rest % tensor.size(d);
    rest /= tensor.size(d);
  }
  const at::Tensor first = tensor.flatten()[first_flat];
  found.first_value = tensor.is_complex()
                          ? std::string(torch::isnan(first).item<bool>() ? "nan" : "inf")
                          : value_text(first.item<double>());
  return found;
}

std::vector<NonFiniteValues> find_non_finite_inputs(const NeuroBenchModel& model,
                                                    const Dataset* dataset) {
  std::vector<NonFiniteValues> out;
  if (dataset != nullptr) {
    // A sharded run's rank holds its shard's rows of an `.npz` alone: found there, said so.
    const auto* shard = dynamic_cast<const NpzShardDataset*>(dataset);
    for (const auto& [name, array] : dataset->arrays()) {
      const std::size_t before = out.size();
      scan(dataset->describe(), "array", name, array, out);
      if (shard == nullptr || out.size() == before) continue;
      const auto [first, end] = shard->rows();
      if (first == 0 && end == dataset->size()) continue;
      out.back().rows = std::make_pair(first, end);
      if (!out.back().first_index.empty()) out.back().first_index.front() += first;
    }
  }
  const std::string source = model.describe();
  scan_model(source, "parameter", model.parameters(), out);
  scan_model(source, "buffer", model.buffers(), out);
  return out;
}

}  // namespace neurobench::detail
