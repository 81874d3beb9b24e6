// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Reads an IDX file (the format of MNIST and Fashion-MNIST) into a new CPU tensor.
///
/// The file is a 4-byte magic number `00 00 <dtype> <ndims>`, then `ndims` big-endian 32-bit
/// dimension sizes, then the elements in C order, big-endian. Dtypes: `0x08` unsigned byte
/// (uint8), `0x09` signed byte (int8), `0x0B` short (int16), `0x0C` int (int32), `0x0D` float
/// (float32), `0x0E` double (float64). The tensor has the file's dimensions and dtype; a
/// dimension of size zero gives an empty tensor of that shape.
///
/// The file may be plain or gzip-compressed (`.gz`, recognised by its content, not its name).
///
/// Throws InputError naming the file when it is missing or unreadable, when the gzip stream is
/// corrupt or truncated, when the magic number is wrong (non-zero first bytes, an unknown
/// dtype, no dimensions), or when the file holds fewer or more bytes than its header promises.
///
/// ```cpp
/// at::Tensor labels = neurobench::load_idx("t10k-labels-idx1-ubyte.gz");  // (10000) uint8
/// ```
[[nodiscard]] at::Tensor load_idx(const std::filesystem::path& path);

}  // namespace neurobench
NEUROBENCH_API_END
