// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>

namespace neurobench {

/// An array read from or written to a NumPy file, with its name.
using NamedArray = std::pair<std::string, torch::Tensor>;

/// Reads one array from a NumPy `.npy` file into a new CPU tensor.
///
/// Accepts format versions 1.0, 2.0 and 3.0 with dtypes float16, float32, float64, int8, int16,
/// int32, int64, uint8 and bool in any byte order (big-endian data are byte-swapped). The result
/// is always C-contiguous: a Fortran-order array comes back with the same shape and values. A 0-d
/// array gives a 0-d tensor; an array with a zero dimension gives an empty tensor of that shape.
///
/// Throws InputError when the file is missing or unreadable, is not a `.npy` file, has a malformed
/// header, holds an unsupported dtype (the message names the dtype string, e.g. `'<U5'` or
/// `'<u2'`), or holds fewer data bytes than its header promises.
///
/// ```cpp
/// torch::Tensor spikes = neurobench::load_npy("data/spikes.npy");  // e.g. (batch, time, neurons)
/// ```
torch::Tensor load_npy(const std::filesystem::path& path);

/// Reads every array of a NumPy `.npz` archive, as written by `np.savez` and `np.savez_compressed`.
///
/// Returns `(name, tensor)` pairs in archive order; a name is the archive entry's name without its
/// `.npy` suffix (`np.savez(f, data=x)` gives `"data"`). Entries may be stored or deflated; ZIP64
/// records are understood, every local header is checked against the central directory and every
/// entry's CRC-32 is checked (the zip container is read by libzip). Each array is read as by
/// load_npy.
///
/// Throws InputError naming the file, and the entry or array at fault where it is known, when the
/// file is missing, is not a zip archive, is truncated or corrupt (bad signature, CRC-32 mismatch,
/// sizes running past the end of the file, a local header that disagrees with the central
/// directory), uses encryption or a compression method other than stored/deflate, or holds an
/// array load_npy would reject.
///
/// ```cpp
/// for (const auto& [name, array] : neurobench::load_npz("data/test.npz")) { /* ... */ }
/// ```
std::vector<NamedArray> load_npz(const std::filesystem::path& path);

/// Writes one tensor to a NumPy `.npy` file (format 1.0, little-endian, C order).
///
/// The header is padded so the data start on a 64-byte boundary, as NumPy does. The tensor must
/// be a dense CPU tensor of dtype float16, float32, float64, int8, int16, int32, int64, uint8 or
/// bool; it need not be contiguous. An existing file is overwritten in place (not atomically).
///
/// Throws InputError naming the path when the tensor is undefined, not on the CPU, not dense or of
/// another dtype, or when the file cannot be opened or written.
void save_npy(const std::filesystem::path& path, const torch::Tensor& array);

/// Writes tensors to an uncompressed (stored) NumPy `.npz` archive, readable by `numpy.load`.
///
/// Each pair becomes the entry `<name>.npy`, in the given order, written as by save_npy. ZIP64
/// records are added only where an array or the archive outgrows 4 GiB. The entries carry a
/// fixed 1980-01-01 timestamp, so equal inputs give byte-identical files. The archive is written
/// whole or not at all: to a temporary file beside `path`, renamed over it when complete.
///
/// Throws InputError naming the path when two arrays share a name, a name is longer than 65531
/// bytes, is not valid UTF-8 or holds a NUL byte, an array is rejected as by save_npy (the message
/// names it), or the file cannot be opened or written.
void save_npz(const std::filesystem::path& path, const std::vector<NamedArray>& arrays);

}  // namespace neurobench
