// SPDX-License-Identifier: Apache-2.0
#pragma once

// LibTorch's lazy tensor device with its TorchScript backend, which runs on the CPU: the device
// `lazy` (docs/devices.md). Private to the library.

namespace neurobench::detail {

/// Starts the TorchScript backend of the lazy device, once per process; later calls do nothing.
void init_lazy_device();

/// Executes the pending operations of the lazy device and waits for them.
void synchronize_lazy_device();

}  // namespace neurobench::detail
