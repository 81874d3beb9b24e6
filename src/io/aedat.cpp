// SPDX-License-Identifier: Apache-2.0
// AEDAT 3.1 (iniVation's format of cAER and jAER) polarity events, as the IBM DVS128 Gesture
// release stores them.
#include <neurobench/io/aedat.hpp>

#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

constexpr std::size_t kPacketHeader = 28;
constexpr std::int16_t kPolarityEvent = 1;
constexpr std::int32_t kPolaritySize = 8;
constexpr std::int32_t kPolarityTsOffset = 4;
// The largest file read: the release's largest recording is about 150 MB.
constexpr std::uint64_t kMaxAedatBytes = std::uint64_t{4} << 30;

std::int32_t get_i32(const std::string& data, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data() + at);
  return static_cast<std::int32_t>(
      static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
      (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24));
}

std::int16_t get_i16(const std::string& data, std::size_t at) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data() + at);
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
}

// The offset of the first packet: after the `#!END-HEADER` line, or, in files that leave it
// out, at the first line that does not start with '#'.
std::size_t skip_header(const std::string& data, const std::string& where) {
  const std::size_t first_end = data.find('\n');
  const std::string_view first =
      std::string_view(data).substr(0, first_end == std::string::npos ? 80 : first_end);
  if (first.substr(0, 10) != "#!AER-DAT3") {
    throw InputError(
        fmt::format("{}: not an AEDAT 3.x file: expected a first line '#!AER-DAT3.1', found '{}'",
                    where, detail::printable(first, 60)));
  }
  std::size_t at = 0;
  while (at < data.size() && data[at] == '#') {
    const std::size_t end = data.find('\n', at);
    if (end == std::string::npos) {
      throw InputError(fmt::format(
          "{}: truncated AEDAT header: no end of line after byte offset {}", where, at));
    }
    const std::string_view line = std::string_view(data).substr(at, end - at);
    at = end + 1;
    if (line.substr(0, 12) == "#!END-HEADER") break;
  }
  return at;
}

}  // namespace

events::Events read_aedat3_polarity(const std::filesystem::path& path, AedatSummary* summary) {
  const std::string where = path.string();
  const std::string data = detail::read_input_file(path, "AEDAT file", kMaxAedatBytes);
  AedatSummary found;
  std::size_t at = skip_header(data, where);
  found.data_offset = at;
  events::Events out;
  while (at < data.size()) {
    const std::size_t left = data.size() - at;
    if (left < kPacketHeader) {
      throw InputError(fmt::format(
          "{}: truncated AEDAT packet at byte offset {}: a packet header is {} bytes, {} left",
          where, at, kPacketHeader, left));
    }
    const std::int16_t type = get_i16(data, at);
    const std::int32_t size = get_i32(data, at + 4);
    const std::int32_t ts_offset = get_i32(data, at + 8);
    const std::int32_t overflow = get_i32(data, at + 12);
    const std::int32_t capacity = get_i32(data, at + 16);
    const std::int32_t number = get_i32(data, at + 20);
    if (size <= 0 || capacity < 0 || number < 0 || number > capacity || overflow < 0) {
      throw InputError(fmt::format(
          "{}: malformed AEDAT packet at byte offset {}: eventSize {}, eventCapacity {}, "
          "eventNumber {}, eventTSOverflow {} (expected a positive size, 0 <= number <= "
          "capacity and an overflow count not below 0)",
          where, at, size, capacity, number, overflow));
    }
    if (type == kPolarityEvent && (size != kPolaritySize || ts_offset != kPolarityTsOffset)) {
      throw InputError(fmt::format(
          "{}: malformed polarity packet at byte offset {}: eventSize {} and eventTSOffset {} "
          "(expected {} and {})",
          where, at, size, ts_offset, kPolaritySize, kPolarityTsOffset));
    }
    const std::uint64_t body =
        static_cast<std::uint64_t>(capacity) * static_cast<std::uint64_t>(size);
    if (body > left - kPacketHeader) {
      throw InputError(fmt::format(
          "{}: truncated AEDAT packet at byte offset {}: {} events of {} bytes need {} bytes "
          "after the 28-byte header, {} left",
          where, at, capacity, size, body, left - kPacketHeader));
    }
    ++found.packets;
    const std::size_t events_at = at + kPacketHeader;
    if (type != kPolarityEvent) {
      ++found.skipped_packets;
    } else {
      const std::int64_t high = static_cast<std::int64_t>(overflow) << 31;
      for (std::int32_t i = 0; i < number; ++i) {
        const std::size_t e = events_at + static_cast<std::size_t>(i) * kPolaritySize;
        const auto word = static_cast<std::uint32_t>(get_i32(data, e));
        if ((word & 1U) == 0) {
          ++found.invalid_events;
          continue;
        }
        const auto ts = static_cast<std::uint32_t>(get_i32(data, e + kPolarityTsOffset));
        out.push_back(static_cast<std::int32_t>((word >> 17) & 0x7FFFU),
                      static_cast<std::int32_t>((word >> 2) & 0x7FFFU),
                      static_cast<std::uint8_t>((word >> 1) & 1U),
                      high | static_cast<std::int64_t>(ts));
      }
    }
    at = events_at + static_cast<std::size_t>(body);
  }
  if (summary != nullptr) *summary = found;
  return out;
}

}  // namespace neurobench
