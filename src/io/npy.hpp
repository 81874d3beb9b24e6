// SPDX-License-Identifier: Apache-2.0
#pragma once

// Reading and writing the array of a NumPy .npy file, from and to any byte stream; the .npz
// container (io/npz.cpp) reads its entries through the same reader. Private to the library (src/).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

namespace neurobench::detail {

/// Bytes to read an array from, in order: a file or an archive entry. Every read is exact or
/// throws InputError.
class ByteReader {
 public:
  virtual ~ByteReader() = default;
  /// Copies the next `count` bytes to `destination`.
  virtual void read(void* destination, std::uint64_t count) = 0;
  /// Moves past the next `count` bytes without reading them, where the source can (an archive
  /// entry stored uncompressed); false, and nothing moved, where it cannot.
  virtual bool seek_forward(std::uint64_t /*count*/) { return false; }
};

/// A binary input file, read straight into the caller's memory.
class FileReader final : public ByteReader {
 public:
  /// Opens `path`; throws InputError when it is missing, a directory or unreadable.
  explicit FileReader(const std::filesystem::path& path);
  /// The file's size in bytes.
  [[nodiscard]] std::uint64_t size() const { return size_; }
  void read(void* destination, std::uint64_t count) override;

 private:
  std::string where_;
  std::uint64_t size_ = 0;
  std::uint64_t offset_ = 0;
  std::ifstream in_;
};

/// What read_npy makes of bytes after the data that the header describes.
enum class NpyTrailingBytes {
  Ignore,  ///< Leave them unread, as NumPy does for a .npy file.
  Refuse,  ///< Throw before allocating: an .npz entry holds exactly one header and its data.
};

/// Rows [first, end) along an array's first dimension.
struct NpyRows {
  std::int64_t first = 0;
  std::int64_t end = 0;
  /// Only the rows' bytes are read, where the array's rows are contiguous (C order): the data
  /// before them are passed with ByteReader::seek_forward() (always called, with 0 bytes too,
  /// so that a reader sees where the rows begin; read through when it cannot seek) and the data
  /// after them are left unread. Without it, every byte of the array is read.
  bool rows_alone = false;
};

/// Reads the .npy array held in the next `size` bytes of `source` into a new C-contiguous tensor.
/// Reads no further than the data the header describes: later bytes are left unread (or refused,
/// as `trailing` says). Allocates only after the header has been checked against `size`. Throws
/// InputError prefixed with `where`. With `rows`, keeps only those rows of the array: the data
/// before and after them are read through (so that a reader can still check the whole), but
/// only the rows' memory is allocated (NpyRows::rows_alone: only the rows' bytes are read);
/// rows outside the array are an InputError.
[[nodiscard]] at::Tensor read_npy(ByteReader& source, std::uint64_t size, const std::string& where,
                                  NpyTrailingBytes trailing = NpyTrailingBytes::Ignore,
                                  const std::optional<NpyRows>& rows = std::nullopt);

/// The shape the .npy header in the next `size` bytes of `source` states, checked as read_npy
/// checks it; the data are left unread.
[[nodiscard]] std::vector<std::int64_t> read_npy_shape(
    ByteReader& source, std::uint64_t size, const std::string& where,
    NpyTrailingBytes trailing = NpyTrailingBytes::Ignore);

/// A tensor ready to be written as .npy: its header and its contiguous little-endian data.
struct NpyBlob {
  std::string header;  ///< Magic string, version, length and padded dict.
  at::Tensor data;     ///< Contiguous, on the CPU, in little-endian byte order.
  std::uint64_t nbytes = 0;
};

/// Checks that `array` can be written as .npy and prepares it; throws InputError prefixed with
/// `where` when it is undefined, not dense, not on the CPU or of another dtype.
[[nodiscard]] NpyBlob prepare_npy(const at::Tensor& array, const std::string& where);

}  // namespace neurobench::detail
