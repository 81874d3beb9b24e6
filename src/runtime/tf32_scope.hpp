// SPDX-License-Identifier: Apache-2.0
#pragma once

// TF32 on CUDA for the length of a run (RunOptions::tf32). Private to the library.

#include <c10/core/Device.h>

namespace neurobench::detail {

/// For a run on a CUDA device: sets whether cuDNN's float32 convolutions and cuBLAS's float32
/// matrix products may use TF32, and restores LibTorch's settings when it ends. Nothing on
/// other devices. LibTorch's defaults allow TF32 in cuDNN (not in cuBLAS): a run that does not
/// allow it computes in full float32, as the CPU does.
class Tf32Scope {
 public:
  Tf32Scope(const c10::Device& device, bool allow);
  ~Tf32Scope();
  Tf32Scope(const Tf32Scope&) = delete;
  Tf32Scope& operator=(const Tf32Scope&) = delete;

 private:
  bool active_ = false;
  bool cudnn_ = false;  // the settings before
  bool cublas_ = false;
};

}  // namespace neurobench::detail
