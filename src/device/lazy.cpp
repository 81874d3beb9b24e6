// SPDX-License-Identifier: Apache-2.0
#include "device/lazy.hpp"

#include <mutex>

#include <c10/core/InferenceMode.h>

#include <torch/csrc/lazy/backend/backend_device.h>
#include <torch/csrc/lazy/core/lazy_graph_executor.h>
#include <torch/csrc/lazy/ts_backend/ts_backend_impl.h>

namespace neurobench::detail {

void init_lazy_device() {
  static std::once_flag once;
  std::call_once(once, [] { torch::lazy::InitTorchScriptBackend(); });
}

void synchronize_lazy_device() {
  init_lazy_device();
  // The pending graphs run here: in inference mode, as Benchmark::run runs lazy graphs, since
  // LibTorch 1.13's oneDNN convolution refuses to run outside it (an internal assert).
  const c10::InferenceMode inference;
  const torch::lazy::BackendDevice device =
      torch::lazy::atenDeviceToBackendDevice(c10::Device(c10::DeviceType::Lazy, 0));
  torch::lazy::LazyGraphExecutor* executor = torch::lazy::LazyGraphExecutor::Get();
  executor->SyncLiveTensorsGraph(&device, {}, /*wait=*/true);
  executor->MarkStep(device);
}

}  // namespace neurobench::detail
