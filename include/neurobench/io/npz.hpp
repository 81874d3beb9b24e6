// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// An array read from or written to a NumPy file, with its name.
using NamedArray = std::pair<std::string, at::Tensor>;

/// Rows of an array read alone by NpzArchive::read_rows_alone(), and the bytes of its entry
/// that held them: [begin, end) of the entry's `entry_bytes` (its `.npy` header and data).
struct NpzRowsPart {
  at::Tensor rows;
  std::string entry;              ///< The entry's name, e.g. "data.npy".
  std::uint64_t begin = 0;        ///< The part's first byte in the entry.
  std::uint64_t end = 0;          ///< One past its last byte.
  std::uint32_t crc32 = 0;        ///< CRC-32 of the entry's bytes [begin, end).
  std::string sha256;             ///< SHA-256 of those bytes, in hex.
  std::uint32_t entry_crc32 = 0;  ///< What the archive's directory states for the whole entry.
  std::uint64_t entry_bytes = 0;  ///< The entry's size.
};

/// The largest array an .npz reader takes by default: 16 GiB, as the archive entry states it.
inline constexpr std::uint64_t kDefaultMaxArrayBytes = std::uint64_t{16} << 30;

/// What reading an .npz may cost.
struct NpzReadOptions {
  /// The largest array read, in bytes as its archive entry states them (the `.npy` header and
  /// data); a larger one is refused before any of it is inflated. An array larger than the memory
  /// the system has available (`MemAvailable`) is refused the same way, whatever this says.
  std::uint64_t max_array_bytes = kDefaultMaxArrayBytes;

  /// Throws UsageError when `max_array_bytes` is 0.
  void validate() const;
};

/// A NumPy `.npz` archive (`np.savez`, `np.savez_compressed`) opened for reading arrays by name:
/// only the arrays asked for are read, so that others cost nothing, however large or whatever
/// their dtype.
///
/// Opening reads the zip container's central directory (through libzip) with its consistency
/// check, and refuses an archive that holds two entries for one array name. read() checks the
/// entry before inflating any of it: method stored or deflate, no encryption, sizes within the
/// file and possible for deflate, and a size within `max_array_bytes` and the memory available;
/// then the `.npy` header must describe exactly the entry's size, the stream must inflate to
/// exactly that size (reading stops one byte past it), and its CRC-32 must match.
///
/// ```cpp
/// neurobench::NpzArchive archive("test.npz");
/// for (const std::string& name : archive.names()) std::cout << name << "\n";
/// at::Tensor data = archive.read("data");
/// ```
class NpzArchive {
 public:
  /// Opens `path`. Throws UsageError for invalid options, and InputError naming the file when
  /// it is missing, not a zip archive, truncated or corrupt (the message says what is damaged,
  /// and names the entry where it is known), or holds two entries for one array name (naming
  /// both entries).
  explicit NpzArchive(const std::filesystem::path& path, NpzReadOptions options = {});
  ~NpzArchive();
  NpzArchive(NpzArchive&&) noexcept;
  NpzArchive& operator=(NpzArchive&&) noexcept;
  NpzArchive(const NpzArchive&) = delete;
  NpzArchive& operator=(const NpzArchive&) = delete;

  /// The arrays' names, in archive order: each entry's name without its `.npy` suffix
  /// (`np.savez(f, data=x)` gives `"data"`).
  [[nodiscard]] const std::vector<std::string>& names() const;
  /// True when the archive holds an array named `name`.
  [[nodiscard]] bool contains(const std::string& name) const;
  /// Reads the array `name`, as load_npy reads a file. Throws InputError naming the file and the
  /// array when there is no such array (listing those there are), the entry is damaged or larger
  /// than the limits allow, or it holds an array load_npy would reject.
  [[nodiscard]] at::Tensor read(const std::string& name);

  /// Reads rows [first, end) along the first dimension of array `name`. The whole entry is read
  /// through and checked as read() checks it, its CRC-32 included, but only those rows are kept
  /// in memory: a rank of a sharded run reads its shard so. Throws as read() does, and
  /// InputError when the array is a scalar or the rows are not within it.
  [[nodiscard]] at::Tensor read_rows(const std::string& name, std::int64_t first, std::int64_t end);

  /// Reads rows [first, end) of array `name` and no other data of its entry, where that can be
  /// done: the entry is stored uncompressed (as `np.savez` writes) and the array is in C order.
  /// Returns std::nullopt where it cannot (a deflated entry, a Fortran-order array): read_rows()
  /// then. The part is the entry's bytes [begin, end): its `.npy` header and the rows when
  /// `from_start` (the first part of an entry), the rows alone otherwise. The entry's CRC-32
  /// cannot be checked from one part: parts that tile [0, entry_bytes) can, their CRC-32s
  /// combined in order (zlib's crc32_combine) against `entry_crc32`. Throws as read_rows() does.
  [[nodiscard]] std::optional<NpzRowsPart> read_rows_alone(const std::string& name,
                                                           std::int64_t first, std::int64_t end,
                                                           bool from_start);

  /// The shape of array `name`, as its `.npy` header states it (checked as read() checks it);
  /// its data are not read. Throws as read() does.
  [[nodiscard]] std::vector<std::int64_t> shape(const std::string& name);
  /// The archive's path.
  [[nodiscard]] const std::filesystem::path& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads every array of a NumPy `.npz` archive, as written by `np.savez` and `np.savez_compressed`.
///
/// Returns `(name, tensor)` pairs in archive order, each read as NpzArchive::read reads it;
/// to read only some arrays, use NpzArchive. Entries may be stored or deflated; ZIP64 records
/// are understood, every local header is checked against the central directory and every
/// entry's CRC-32 is checked (the zip container is read by libzip).
///
/// Throws InputError naming the file, and the entry or array at fault where it is known, when the
/// file is missing, is not a regular file (a directory, FIFO or device is refused by name before
/// it is opened), is not a zip archive, is truncated or corrupt (bad signature, CRC-32 mismatch,
/// sizes running past the end of the file, a local header that disagrees with the central
/// directory, an end record whose entry counts disagree), holds two entries for one name, uses
/// encryption or a compression method other than stored/deflate, holds an array larger than
/// `options` or the available memory allow, or holds an array load_npy would reject.
///
/// ```cpp
/// for (const auto& [name, array] : neurobench::load_npz("data/test.npz")) { /* ... */ }
/// ```
[[nodiscard]] std::vector<NamedArray> load_npz(const std::filesystem::path& path,
                                               NpzReadOptions options = {});

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
NEUROBENCH_API_END
