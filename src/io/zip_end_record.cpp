// SPDX-License-Identifier: Apache-2.0
#include "io/zip_end_record.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace neurobench::detail {
namespace {

// APPNOTE.TXT 4.3.16 (end of central directory), 4.3.14-15 (ZIP64 end record and locator),
// 4.3.12 (central directory header).
constexpr std::size_t kEndSize = 22;
constexpr std::size_t kLocatorSize = 20;
constexpr std::size_t kEnd64Size = 56;
constexpr std::size_t kCentralSize = 46;
constexpr std::size_t kMaxComment = 0xffff;

std::uint64_t little_endian(const unsigned char* bytes, int count) {
  std::uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

/// Reads `count` bytes at `offset`; false when the file is shorter.
bool read_at(std::ifstream& in, std::uint64_t offset, unsigned char* out, std::size_t count) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(count));
  return static_cast<std::size_t>(in.gcount()) == count;
}

/// Walks the central directory records from the stated offset, as a reader following it would,
/// until bytes that are not a record's signature (the end record, normally).
void count_records(std::ifstream& in, std::uint64_t file_size, ZipEndRecord& record) {
  std::uint64_t offset = record.directory_offset;
  unsigned char header[kCentralSize];
  // Each step moves at least 46 bytes forward, so the walk ends within the file.
  while (offset + kCentralSize <= file_size && read_at(in, offset, header, kCentralSize) &&
         std::memcmp(header, "PK\x01\x02", 4) == 0) {
    offset += kCentralSize + little_endian(header + 28, 2) + little_endian(header + 30, 2) +
              little_endian(header + 32, 2);
    ++record.records_found;
  }
  if (record.records_found < record.entries &&
      offset < record.directory_offset + record.directory_size) {
    record.bad_signature_at = offset;
  }
}

}  // namespace

std::optional<ZipEndRecord> read_zip_end_record(const std::filesystem::path& path) {
  std::error_code ec;
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec || file_size < kEndSize) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::uint64_t tail_size = std::min<std::uint64_t>(file_size, kEndSize + kMaxComment);
  std::vector<unsigned char> tail(static_cast<std::size_t>(tail_size));
  if (!read_at(in, file_size - tail_size, tail.data(), tail.size())) return std::nullopt;

  // The last signature whose comment ends the file; else the last signature at all.
  std::optional<std::size_t> found;
  for (std::size_t i = tail.size() - kEndSize + 1; i-- > 0;) {
    if (std::memcmp(&tail[i], "PK\x05\x06", 4) != 0) continue;
    if (!found) found = i;
    if (i + kEndSize + little_endian(&tail[i + 20], 2) == tail.size()) {
      found = i;
      break;
    }
  }
  if (!found) return std::nullopt;
  const unsigned char* end = &tail[*found];
  ZipEndRecord record;
  record.disk = static_cast<std::uint32_t>(little_endian(end + 4, 2));
  record.directory_disk = static_cast<std::uint32_t>(little_endian(end + 6, 2));
  record.entries_on_disk = little_endian(end + 8, 2);
  record.entries = little_endian(end + 10, 2);
  record.directory_size = little_endian(end + 12, 4);
  record.directory_offset = little_endian(end + 16, 4);

  const std::uint64_t end_offset = file_size - tail_size + *found;
  unsigned char locator[kLocatorSize];
  unsigned char end64[kEnd64Size];
  if (end_offset >= kLocatorSize && read_at(in, end_offset - kLocatorSize, locator, kLocatorSize) &&
      std::memcmp(locator, "PK\x06\x07", 4) == 0 &&
      read_at(in, little_endian(locator + 8, 8), end64, kEnd64Size) &&
      std::memcmp(end64, "PK\x06\x06", 4) == 0) {
    record.zip64 = true;
    record.disk = static_cast<std::uint32_t>(little_endian(end64 + 16, 4));
    record.directory_disk = static_cast<std::uint32_t>(little_endian(end64 + 20, 4));
    record.entries_on_disk = little_endian(end64 + 24, 8);
    record.entries = little_endian(end64 + 32, 8);
    record.directory_size = little_endian(end64 + 40, 8);
    record.directory_offset = little_endian(end64 + 48, 8);
  }
  count_records(in, file_size, record);
  return record;
}

std::optional<std::string> end_record_problem(const ZipEndRecord& record) {
  if (record.disk != 0 || record.directory_disk != 0) return std::nullopt;  // truly split
  const char* name =
      record.zip64 ? "ZIP64 end-of-central-directory record" : "end-of-central-directory record";
  if (record.entries_on_disk != record.entries) {
    return fmt::format(
        "the {} is corrupt: it states {} entries on this disk but {} in all (the same number "
        "twice in a single-file archive; this one is not split: its disk numbers are 0)",
        name, record.entries_on_disk, record.entries);
  }
  if (record.bad_signature_at) {
    return fmt::format(
        "bad central directory signature at byte {}: record {} of the {} entries the {} "
        "states",
        *record.bad_signature_at, record.records_found + 1, record.entries, name);
  }
  if (record.records_found != record.entries) {
    return fmt::format("the {} states {} entries, but the central directory holds {}", name,
                       record.entries, record.records_found);
  }
  return std::nullopt;
}

}  // namespace neurobench::detail
