// SPDX-License-Identifier: Apache-2.0
#include "runtime/tf32_scope.hpp"

#include <ATen/Context.h>

namespace neurobench::detail {

// Each setting is written only when it changes: LibTorch 2.9 and later warn once when the
// legacy TF32 setters are used (they keep working), and a run that changes nothing says nothing.
Tf32Scope::Tf32Scope(const c10::Device& device, bool allow) : active_(device.is_cuda()) {
  if (!active_) return;
  at::Context& context = at::globalContext();
  cudnn_ = context.allowTF32CuDNN();
  cublas_ = context.allowTF32CuBLAS();
  if (cudnn_ != allow) context.setAllowTF32CuDNN(allow);
  if (cublas_ != allow) context.setAllowTF32CuBLAS(allow);
}

Tf32Scope::~Tf32Scope() {
  if (!active_) return;
  try {
    at::Context& context = at::globalContext();
    if (context.allowTF32CuDNN() != cudnn_) context.setAllowTF32CuDNN(cudnn_);
    if (context.allowTF32CuBLAS() != cublas_) context.setAllowTF32CuBLAS(cublas_);
  } catch (...) {  // a destructor must not throw; the settings read fine when the scope began
  }
}

}  // namespace neurobench::detail
