// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every tensor a loaded TorchScript module holds, and the checks that each lies within its
// storage and each storage within the file record it was read from. LibTorch 1.13 takes a
// tensor's sizes, strides and offset, and its storage's size, from the archive's pickle without
// comparing them with the record's bytes (torch/csrc/jit/serialization/unpickler.cpp), so a
// damaged file would otherwise have the model read memory that is not its weights. Private to
// the library (src/).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/model/hooks.hpp>

namespace neurobench::detail {

/// Every tensor reachable from `module`, by name: the attributes of every module and object
/// (parameters, buffers and other tensors, `fc1.weight`), the elements of lists, tuples and
/// dicts among them (`layers[2]`, `table[key]`), and the tensor constants of every method's
/// graph (`constant 0 of Net.forward`). Objects reached twice are walked once.
[[nodiscard]] std::vector<NamedTensor> reachable_tensors(const torch::jit::Module& module);

/// The tensor constants of every method's graph in the module's compilation unit (`constant 0
/// of Net.forward`): what freezing and tracing fold into graphs.
[[nodiscard]] std::vector<NamedTensor> graph_tensor_constants(const torch::jit::Module& module);

/// Where a storage's memory was read from: a record of `bytes` bytes at `offset` in the file.
struct RecordRead {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
};

/// The record the `nbytes` bytes of memory at `data` were read from, or nothing when they were
/// not read from one (made at load time, for instance).
using RecordLookup =
    std::function<std::optional<RecordRead>(const void* data, std::uint64_t nbytes)>;

/// Throws InputError prefixed with `where` when a tensor's storage is larger than the record it
/// was read from, or when a tensor (offset, sizes and strides) reaches past the end of its
/// storage, naming the tensor and both sizes.
void check_tensor_storage(const std::vector<NamedTensor>& tensors, const RecordLookup& records,
                          const std::string& where);

}  // namespace neurobench::detail
