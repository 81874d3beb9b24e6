// SPDX-License-Identifier: Apache-2.0
#pragma once

// Built-in pre-processors on a device (docs/devices.md): the audio transforms and the spike
// encoders compute on the CPU (their loops read memory directly; the rate encoder draws from its
// CPU generator), so a batch on a device goes there and back. Their results are then those of a
// CPU run, bit for bit. Private to the library.

#include <utility>

#include <neurobench/data/dataset.hpp>

namespace neurobench::detail {

/// When `batch.data` is on a device: `process` runs on a copy of the batch whose data is on the
/// CPU, and the output's data goes back to that device (targets and extras stay as they are).
/// On the CPU: `process(batch)`.
template <class Process>
Batch via_cpu(const Batch& batch, Process&& process) {
  if (!batch.data.defined() || batch.data.device().is_cpu()) {
    return std::forward<Process>(process)(batch);
  }
  const c10::Device device = batch.data.device();
  Batch on_cpu = batch;
  on_cpu.data = batch.data.to(c10::kCPU);
  Batch out = std::forward<Process>(process)(on_cpu);
  if (out.data.defined()) out.data = out.data.to(device);
  return out;
}

}  // namespace neurobench::detail
