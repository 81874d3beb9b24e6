// SPDX-License-Identifier: Apache-2.0
#include "metrics/counting.hpp"

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench::detail {

namespace {
template <class T>
int64_t nonzeros(const T* p, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += (p[i] != T(0));
  return count;
}

template <class T>
int64_t changed(const T* a, const T* b, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += ((a[i] - b[i]) != T(0));
  return count;
}

template <class T>
bool spiking(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T v = p[i];
    if (v != T(0) && v != T(1) && v != T(-1)) return false;
  }
  return true;
}
}  // namespace

int64_t count_nonzero(const torch::Tensor& t) {
  if (t.is_contiguous() && t.device().is_cpu()) {
    if (t.scalar_type() == torch::kFloat) return nonzeros(t.data_ptr<float>(), t.numel());
    if (t.scalar_type() == torch::kDouble) return nonzeros(t.data_ptr<double>(), t.numel());
  }
  return t.count_nonzero().item<int64_t>();
}

int64_t count_changed(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.sizes().equals(b.sizes())) {
    throw MetricError(fmt::format("membrane potential changed shape from [{}] to [{}] between calls",
                                  fmt::join(a.sizes(), ", "), fmt::join(b.sizes(), ", ")));
  }
  if (a.is_contiguous() && b.is_contiguous() && a.scalar_type() == b.scalar_type() &&
      a.device().is_cpu() && b.device().is_cpu()) {
    if (a.scalar_type() == torch::kFloat) {
      return changed(a.data_ptr<float>(), b.data_ptr<float>(), a.numel());
    }
    if (a.scalar_type() == torch::kDouble) {
      return changed(a.data_ptr<double>(), b.data_ptr<double>(), a.numel());
    }
  }
  return (a - b).count_nonzero().item<int64_t>();
}

bool is_spiking(const torch::Tensor& t) {
  if (t.is_contiguous() && t.device().is_cpu()) {
    if (t.scalar_type() == torch::kFloat) return spiking(t.data_ptr<float>(), t.numel());
    if (t.scalar_type() == torch::kDouble) return spiking(t.data_ptr<double>(), t.numel());
  }
  return torch::logical_or(t == 0, torch::logical_or(t == 1, t == -1)).all().item<bool>();
}

}  // namespace neurobench::detail
