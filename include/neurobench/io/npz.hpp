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

/// Reads every array of a NumPy `.npz` archive, as written by `np.savez` and `np.savez_compressed`.
///
/// Returns `(name, tensor)` pairs in archive order; a name is the archive entry's name without its
/// `.npy` suffix (`np.savez(f, data=x)` gives `"data"`). Entries may be stored or deflated; ZIP64
/// records are understood, every local header is checked against the central directory and every
/// entry's CRC-32 is checked (the zip container is read by libzip). Each array is read as by
/// load_npy.
///
/// Throws InputError naming the file, and the entry or array at fault where it is known, when the
/// file is missing, is not a regular file (a directory, FIFO or device is refused by name before
/// it is opened), is not a zip archive, is truncated or corrupt (bad signature, CRC-32 mismatch,
/// sizes running past the end of the file, a local header that disagrees with the central
/// directory), uses encryption or a compression method other than stored/deflate, or holds an
/// array load_npy would reject.
///
/// ```cpp
/// for (const auto& [name, array] : neurobench::load_npz("data/test.npz")) { /* ... */ }
/// ```
[[nodiscard]] std::vector<NamedArray> load_npz(const std::filesystem::path& path);

/// Writes tensors to an uncompressed (stored) NumPy `.npz` archive, readable by `numpy.load`.
///
/// Each pair becomes the entry `<name>.npy`, in the given order, written as by save_npy. ZIP64
/// records are added only where an array or the archive outgrows 4 GiB. The entries carry a
/// fixed 1980-01-01 timestamp, so equal inputs give byte-identical files. The archive is built in
/// memory and written as write_output_file() writes (<neurobench/io/output_file.hpp>): a regular
/// file whole or not at all, through a temporary file and a rename; a device or FIFO in place.
///
/// Throws InputError naming the path when two arrays share a name, a name is longer than 65531
/// bytes, is not valid UTF-8 or holds a NUL byte, an array is rejected as by save_npy (the message
/// names it), or the file cannot be opened or written.
void save_npz(const std::filesystem::path& path, const std::vector<NamedArray>& arrays);

}  // namespace neurobench
