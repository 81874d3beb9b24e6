// SPDX-License-Identifier: Apache-2.0
#include "audio/checks.hpp"

#include "util/text.hpp"

namespace neurobench::audio::detail {

torch::Tensor float32_signal(const torch::Tensor& x, std::string_view what) {
  if (!x.defined()) throw InputError(fmt::format("{}: the input is an undefined tensor", what));
  if (x.dim() == 0) {
    throw InputError(
        fmt::format("{}: expected a signal (..., time), got a 0-d tensor (shape [])", what));
  }
  if (!x.device().is_cpu()) {
    throw InputError(fmt::format(
        "{}: the audio transforms compute on the CPU, but the signal is on {} (shape {}): move "
        "it with .to(torch::kCPU) (the audio pre-processors do this themselves)",
        what, x.device().str(), neurobench::detail::shape_string(x)));
  }
  if (!at::isFloatingType(x.scalar_type())) {
    throw InputError(fmt::format("{}: expected floating-point samples, got {} (shape {})", what,
                                 c10::toString(x.scalar_type()),
                                 neurobench::detail::shape_string(x)));
  }
  return x.scalar_type() == torch::kFloat ? x : x.to(torch::kFloat);
}

}  // namespace neurobench::audio::detail
