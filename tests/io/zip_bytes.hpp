// SPDX-License-Identifier: Apache-2.0
#pragma once

// Zip archives built byte by byte, for tests that need what no well-behaved writer makes: two
// entries of one name, sizes that lie about the data, end records whose counts disagree.

#include <zlib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

namespace neurobench::test {

/// `data` compressed as a raw deflate stream (zip method 8).
inline std::string raw_deflate(const std::string& data) {
  z_stream stream{};
  REQUIRE(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) ==
          Z_OK);
  std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

/// One entry of a zip built by make_zip().
struct ZipEntry {
  ZipEntry(std::string entry_name, std::string contents, bool deflated = false,
           std::optional<std::uint32_t> stated = std::nullopt)
      : name(std::move(entry_name)),
        data(std::move(contents)),
        deflate(deflated),
        stated_size(stated) {}

  std::string name;
  std::string data;  ///< The entry's contents, uncompressed.
  bool deflate = false;
  /// The uncompressed size the headers state, when it should not be `data`'s size.
  std::optional<std::uint32_t> stated_size;
};

inline void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

/// A zip archive of `entries` in order (no ZIP64), with correct CRC-32s of the data given.
/// `stated_entries`, when set, replaces the two entry counts of the end record with its values
/// (on this disk, in all).
inline std::string make_zip(
    const std::vector<ZipEntry>& entries,
    std::optional<std::pair<std::uint16_t, std::uint16_t>> stated_entries = std::nullopt) {
  std::string zip;
  std::string directory;
  for (const ZipEntry& entry : entries) {
    const std::string stored = entry.deflate ? raw_deflate(entry.data) : entry.data;
    const auto crc =
        static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(entry.data.data()),
                                         static_cast<uInt>(entry.data.size())));
    const std::uint32_t size =
        entry.stated_size ? *entry.stated_size : static_cast<std::uint32_t>(entry.data.size());
    const std::uint16_t method = entry.deflate ? 8 : 0;
    const auto offset = static_cast<std::uint32_t>(zip.size());
    std::string common;  // version needed .. extra length, shared by both headers
    put_le(common, 20, 2);
    put_le(common, 0, 2);  // flags
    put_le(common, method, 2);
    put_le(common, 0, 2);     // time
    put_le(common, 0x21, 2);  // date: 1980-01-01
    put_le(common, crc, 4);
    put_le(common, stored.size(), 4);
    put_le(common, size, 4);
    put_le(common, entry.name.size(), 2);
    put_le(common, 0, 2);  // extra length
    put_le(zip, 0x04034b50, 4);
    zip += common + entry.name + stored;
    put_le(directory, 0x02014b50, 4);
    put_le(directory, 20, 2);  // version made by
    directory += common;
    put_le(directory, 0, 2);  // comment length
    put_le(directory, 0, 2);  // disk
    put_le(directory, 0, 2);  // internal attributes
    put_le(directory, 0, 4);  // external attributes
    put_le(directory, offset, 4);
    directory += entry.name;
  }
  const auto directory_offset = static_cast<std::uint32_t>(zip.size());
  zip += directory;
  const auto count = static_cast<std::uint16_t>(entries.size());
  put_le(zip, 0x06054b50, 4);
  put_le(zip, 0, 2);  // this disk
  put_le(zip, 0, 2);  // disk of the central directory
  put_le(zip, stated_entries ? stated_entries->first : count, 2);
  put_le(zip, stated_entries ? stated_entries->second : count, 2);
  put_le(zip, directory.size(), 4);
  put_le(zip, directory_offset, 4);
  put_le(zip, 0, 2);  // comment length
  return zip;
}

}  // namespace neurobench::test
