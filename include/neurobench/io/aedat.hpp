// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>

#include <neurobench/events/events.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// What read_aedat3_polarity() found besides the events, for messages and tests.
struct AedatSummary {
  std::int64_t packets = 0;          ///< Packets read, of every type.
  std::int64_t skipped_packets = 0;  ///< Packets of other event types than polarity.
  std::int64_t invalid_events = 0;   ///< Polarity events whose valid bit was clear.
  std::uint64_t data_offset = 0;     ///< Where the first packet starts (after the header).
};

/// Reads the polarity events of an AEDAT 3.1 file, as iniVation's cAER and jAER write it and
/// as the IBM DVS128 Gesture release (`userNN_lighting.aedat`) holds it.
///
/// The file is text header lines starting with `#` (the first `#!AER-DAT3.x`, the last
/// `#!END-HEADER`), then packets: a 28-byte little-endian header (eventType int16, eventSource
/// int16, eventSize int32, eventTSOffset int32, eventTSOverflow int32, eventCapacity int32,
/// eventNumber int32, eventValid int32) and eventCapacity events of eventSize bytes. Packets of
/// type 1 hold polarity events of 8 bytes: a data word (bit 0 valid, bit 1 polarity, bits 2-16
/// y, bits 17-31 x) and an int32 timestamp at eventTSOffset; the full timestamp in
/// microseconds is `(eventTSOverflow << 31) | timestamp`. Packets of other types are skipped;
/// of each polarity packet the first eventNumber events are read and those with the valid bit
/// set kept, in file order, `x` and `y` as the sensor gives them.
///
/// Throws InputError naming the file when it is missing or not a regular file, its header is
/// not AEDAT 3.x (naming the first line), or a packet is malformed: a truncated packet header
/// or packet body (naming the packet's byte offset and the bytes expected and left), a
/// polarity packet whose eventSize is not 8 or whose eventTSOffset is not 4, a negative
/// size, capacity, number or overflow, or more events than capacity.
[[nodiscard]] events::Events read_aedat3_polarity(const std::filesystem::path& path,
                                                  AedatSummary* summary = nullptr);

}  // namespace neurobench
NEUROBENCH_API_END
