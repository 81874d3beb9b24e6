// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Reads one array from a NumPy `.npy` file into a new CPU tensor.
///
/// Accepts format versions 1.0, 2.0 and 3.0 with dtypes float16, float32, float64, int8, int16,
/// int32, int64, uint8 and bool in any byte order (big-endian data are byte-swapped). The result
/// is always C-contiguous: a Fortran-order array comes back with the same shape and values. A 0-d
/// array gives a 0-d tensor; an array with a zero dimension gives an empty tensor of that shape.
/// Bytes after the data are ignored, as NumPy ignores them.
///
/// Throws InputError when the file is missing, unreadable or not a regular file (a directory, a
/// FIFO or a device is refused by name before it is opened), is not a `.npy` file, has a malformed
/// header, holds an unsupported dtype (the message names the dtype string, e.g. `'<U5'` or
/// `'<u2'`), or holds fewer data bytes than its header promises.
///
/// ```cpp
/// at::Tensor spikes = neurobench::load_npy("data/spikes.npy");  // e.g. (batch, time, neurons)
/// ```
[[nodiscard]] at::Tensor load_npy(const std::filesystem::path& path);

/// Writes one tensor to a NumPy `.npy` file (format 1.0, little-endian, C order).
///
/// The header is padded so the data start on a 64-byte boundary, as NumPy does. The tensor must
/// be a dense CPU tensor of dtype float16, float32, float64, int8, int16, int32, int64, uint8 or
/// bool; it need not be contiguous. The file is written as write_output_file() writes
/// (<neurobench/io/output_file.hpp>): a regular file whole or not at all, through a temporary file
/// and a rename; a character device or FIFO in place.
///
/// Throws InputError naming the path when the tensor is undefined, not on the CPU, not dense or of
/// another dtype, or when the file cannot be opened or written.
void save_npy(const std::filesystem::path& path, const at::Tensor& array);

}  // namespace neurobench
NEUROBENCH_API_END
