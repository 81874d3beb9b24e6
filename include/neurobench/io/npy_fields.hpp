// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>
#include <neurobench/io/npz.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// Reads a NumPy `.npy` file holding a structured array (a dtype of named fields, such as
/// tonic's events `[('x', '<i2'), ('y', '<i2'), ('p', '|b1'), ('t', '<i8')]`) as one tensor per
/// field, each of the array's shape, in the order of the fields.
///
/// Fields may have the dtypes load_npy() takes (float16/32/64, int8/16/32/64, uint8, bool) in
/// either byte order, and uint16 and uint32, which come back widened to int32 and int64, and
/// uint64, which comes back as int64 (LibTorch 1.13 has no such unsigned types; a value of 2^63
/// or more is an InputError naming the field and item). Unnamed padding (NumPy's aligned dtypes) is
/// skipped; a Fortran-order array comes back in C order. Bytes after the data are ignored.
///
/// Throws InputError naming the file when it is missing, unreadable, not a `.npy` file, has a
/// malformed header, holds a plain (not structured) array (load_npy() reads those), holds
/// fewer data bytes than its header promises, or has a field that is nested, a subarray or of
/// another dtype (naming the field and its dtype string, e.g. `field 't': unsupported dtype
/// '<M8[us]'`).
///
/// ```cpp
/// for (const auto& [name, column] : neurobench::load_npy_fields("sample.npy")) { ... }
/// ```
[[nodiscard]] std::vector<NamedArray> load_npy_fields(const std::filesystem::path& path);

/// True when the `.npy` file at `path` holds a structured array (its header's dtype is a list
/// of fields), false for a plain one; reads the header only. Throws InputError as
/// load_npy_fields() for a file that is missing, not a `.npy` file or has a malformed header.
[[nodiscard]] bool is_structured_npy(const std::filesystem::path& path);

}  // namespace neurobench
NEUROBENCH_API_END
