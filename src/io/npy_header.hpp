// SPDX-License-Identifier: Apache-2.0
#pragma once

// The header of a NumPy .npy file: magic string, version, length, and the Python dict literal that
// describes the array. Private to the library (src/).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <c10/core/ScalarType.h>
#include <c10/util/ArrayRef.h>

namespace neurobench::detail {

/// The dtypes the .npy reader and writer take, for messages.
inline constexpr std::string_view kNpySupportedDtypes =
    "float16, float32, float64, int8, int16, int32, int64, uint8, bool";

/// The magic string every .npy file starts with.
inline constexpr std::uint8_t kNpyMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/// Bytes before the header dict: magic, version, and up to a 4-byte header length.
inline constexpr std::size_t kNpyPrefixSize = 12;

/// True when the `size` bytes at `data` start with `expected`.
[[nodiscard]] bool starts_with_bytes(const std::uint8_t* data, std::uint64_t size,
                                     std::string_view expected);

/// The element type of a .npy array as LibTorch sees it.
struct NpyDtype {
  c10::ScalarType scalar_type = c10::ScalarType::Float;
  std::size_t itemsize = 0;
  bool byteswap = false;  ///< Stored in the other byte order than this machine's.
};

/// Where the header dict and the data of a .npy file are.
struct NpyLayout {
  std::size_t header_offset = 0;
  std::size_t header_size = 0;
  std::uint64_t data_offset = 0;
};

/// What a .npy header says about its array.
struct NpyHeader {
  std::string descr;  ///< The dtype string as written, e.g. `<f4`.
  NpyDtype dtype;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::uint64_t numel = 1;
  std::uint64_t nbytes = 0;
};

/// Checks the magic string and version in the first `min(total, kNpyPrefixSize)` bytes of a .npy
/// file of `total` bytes and finds its header. Throws InputError prefixed with `where`.
[[nodiscard]] NpyLayout read_npy_prefix(const std::uint8_t* prefix, std::uint64_t total,
                                        const std::string& where);

/// Parses the header dict `text` (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`).
/// Throws InputError prefixed with `where` when it is malformed or names an unsupported dtype.
[[nodiscard]] NpyHeader parse_npy_header(std::string_view text, const std::string& where);

/// One named field of a structured .npy dtype (`('x', '<i2')`).
struct NpyField {
  std::string name;
  std::string descr;  ///< The field's dtype string as written, e.g. `<i2`.
  NpyDtype dtype;     ///< As LibTorch holds it; `<u2`, `<u4`, `<u8` to int32, int64, int64.
  std::size_t stored_itemsize = 0;  ///< Bytes of the field in the file.
  bool unsigned_64 = false;         ///< `<u8`, read as int64: values of 2^63 and more refused.
  std::size_t offset = 0;           ///< Bytes from the start of an item.
};

/// What a .npy header says about a structured array (one whose `descr` is a list of fields).
struct NpyStructHeader {
  std::vector<NpyField> fields;  ///< Named fields, in order; padding (`''` names) left out.
  std::size_t itemsize = 0;      ///< Bytes of one item, padding included.
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::uint64_t numel = 1;
  std::uint64_t nbytes = 0;
};

/// Parses the header dict `text` of a structured array: `descr` a list of `(name, dtype)`
/// pairs, each dtype one parse_npy_header() takes or `<u2`, `<u4` (widened), `<u8` (as int64);
/// unnamed `|Vn` padding is skipped. Throws InputError prefixed with `where`: a malformed header, a
/// `descr` that is a plain dtype (saying so), a field that is nested, a subarray or of another
/// dtype (naming the field and its dtype), no named fields, or two fields of one name.
[[nodiscard]] NpyStructHeader parse_npy_struct_header(std::string_view text,
                                                      const std::string& where);

/// True when the header dict `text` describes a structured array (its `descr` is a list).
/// Throws InputError prefixed with `where` when it is malformed.
[[nodiscard]] bool is_struct_npy_header(std::string_view text, const std::string& where);

/// The .npy dtype string NumPy writes for `type` (`<f4`), or nothing for an unsupported type.
[[nodiscard]] std::optional<std::string_view> npy_descr(c10::ScalarType type);

/// The bytes before the data of a C-order .npy file: magic, version 1.0 (2.0 if the dict needs
/// it), length and the dict, padded as NumPy pads it so that the data start 64-byte aligned.
[[nodiscard]] std::string format_npy_header(std::string_view descr, c10::IntArrayRef shape);

}  // namespace neurobench::detail
