// SPDX-License-Identifier: Apache-2.0
#pragma once

// The end-of-central-directory record of a zip archive, read without libzip, to say exactly what
// is wrong when libzip refuses an archive: libzip reports a count that disagrees with itself as a
// multi-disk archive, or as no archive at all. Private to the library (src/).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace neurobench::detail {

/// What the end record of a zip file states (its ZIP64 version's values when there is one), and
/// how many central directory records are found where it says the directory starts.
struct ZipEndRecord {
  bool zip64 = false;                  ///< Values from the ZIP64 end record.
  std::uint32_t disk = 0;              ///< Number of this disk (0 in a single-file archive).
  std::uint32_t directory_disk = 0;    ///< Disk where the central directory starts.
  std::uint64_t entries_on_disk = 0;   ///< Central directory records on this disk.
  std::uint64_t entries = 0;           ///< Central directory records in all.
  std::uint64_t directory_size = 0;    ///< Bytes of the central directory.
  std::uint64_t directory_offset = 0;  ///< Where the central directory starts.
  std::uint64_t records_found = 0;     ///< Records read in a row from directory_offset.
  /// Where the walk over the records stopped at bytes that are no record's signature, when it
  /// stopped before `entries` records and inside the directory.
  std::optional<std::uint64_t> bad_signature_at;
};

/// The last end record of the file at `path`, or nothing when it has none or cannot be read.
[[nodiscard]] std::optional<ZipEndRecord> read_zip_end_record(const std::filesystem::path& path);

/// What is wrong with a single-file archive's end record or the directory it leads to, as a
/// clause for a message; nothing when it looks consistent or belongs to a split archive.
[[nodiscard]] std::optional<std::string> end_record_problem(const ZipEndRecord& record);

}  // namespace neurobench::detail
