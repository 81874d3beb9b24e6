// SPDX-License-Identifier: Apache-2.0
// The AEDAT 3.1 reader on a recording of the fixture release (written by
// tests/fixtures/dvs_gesture/make_fixtures.py): every valid polarity event, timestamps across
// the 2^31 overflow, packets of other types skipped; and every malformed file refused by name.
#include <neurobench/io/aedat.hpp>

#include <cstring>
#include <fstream>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy_fields.hpp>
#include <neurobench/io/npz.hpp>

#include "support.hpp"

using neurobench::InputError;
using neurobench::test::fixture;
using neurobench::test::read_file;
using neurobench::test::TempDir;

namespace {

const std::string kRecording = "dvs_gesture/release/user02_led.aedat";

void write_aedat_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string header_only() { return "#!AER-DAT3.1\r\n#Format: RAW\r\n#!END-HEADER\r\n"; }

std::string packet(std::int16_t type, std::int32_t size, std::int32_t ts_offset,
                   std::int32_t capacity, std::int32_t number) {
  std::string h(28, '\0');
  const std::int16_t source = 1;
  const std::int32_t fields[] = {size, ts_offset, 0, capacity, number, number};
  std::memcpy(h.data(), &type, 2);
  std::memcpy(h.data() + 2, &source, 2);
  std::memcpy(h.data() + 4, fields, sizeof fields);
  return h;
}

}  // namespace

TEST_CASE("read_aedat3_polarity reads every valid polarity event of a release recording",
          "[io][aedat]") {
  neurobench::AedatSummary summary;
  const neurobench::events::Events e =
      neurobench::read_aedat3_polarity(fixture(kRecording), &summary);
  torch::Tensor x, y, p, t;
  for (const auto& [name, column] :
       neurobench::load_npy_fields(fixture("dvs_gesture/expected/aedat_user02_led_events.npy"))) {
    if (name == "x") x = column;
    if (name == "y") y = column;
    if (name == "p") p = column;
    if (name == "t") t = column;
  }
  REQUIRE(static_cast<int64_t>(e.size()) == t.numel());
  for (std::size_t i = 0; i < e.size(); ++i) {
    const auto k = static_cast<int64_t>(i);
    REQUIRE(e.x[i] == x[k].item<int16_t>());
    REQUIRE(e.y[i] == y[k].item<int16_t>());
    REQUIRE(e.p[i] == (p[k].item<bool>() ? 1 : 0));
    REQUIRE(e.t[i] == t[k].item<int64_t>());
  }
  REQUIRE(e.t.front() < (int64_t{1} << 31));  // the recording crosses the overflow
  REQUIRE(e.t.back() > (int64_t{1} << 31));
  const auto counts = neurobench::load_npz(fixture("dvs_gesture/expected/aedat_user02_led.npz"));
  const torch::Tensor expected = counts.at(0).second;  // packets, skipped, invalid, data offset
  REQUIRE(summary.packets == expected[0].item<int64_t>());
  REQUIRE(summary.skipped_packets == 2);
  REQUIRE(summary.skipped_packets == expected[1].item<int64_t>());
  REQUIRE(summary.invalid_events == expected[2].item<int64_t>());
  REQUIRE(summary.invalid_events > 0);
  REQUIRE(static_cast<int64_t>(summary.data_offset) == expected[3].item<int64_t>());
}

TEST_CASE("read_aedat3_polarity names the byte offset of a truncated packet", "[io][aedat]") {
  TempDir tmp;
  const std::string whole = read_file(fixture(kRecording));
  const auto cut = tmp / "cut.aedat";
  write_aedat_file(cut, whole.substr(0, whole.size() - 3));
  REQUIRE_THROWS_AS(neurobench::read_aedat3_polarity(cut), InputError);
  REQUIRE_THROWS_WITH(
      neurobench::read_aedat3_polarity(cut),
      Catch::Contains(cut.string()) && Catch::Contains("truncated AEDAT packet at byte offset"));
  // A packet header cut short: 10 bytes after the header.
  const auto short_header = tmp / "short.aedat";
  write_aedat_file(short_header, header_only() + std::string(10, '\0'));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(short_header),
                      Catch::Contains("truncated AEDAT packet at byte offset 42") &&
                          Catch::Contains("a packet header is 28 bytes, 10 left"));
  // A polarity packet promising more events than there are bytes.
  const auto short_body = tmp / "body.aedat";
  write_aedat_file(short_body, header_only() + packet(1, 8, 4, 3, 3) + std::string(16, '\0'));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(short_body),
                      Catch::Contains("byte offset 42: 3 events of 8 bytes need 24 bytes") &&
                          Catch::Contains("16 left"));
}

TEST_CASE("read_aedat3_polarity refuses a bad eventSize and a file that is not AEDAT 3",
          "[io][aedat]") {
  TempDir tmp;
  const auto size12 = tmp / "size.aedat";
  write_aedat_file(size12, header_only() + packet(1, 12, 4, 1, 1) + std::string(12, '\0'));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(size12),
                      Catch::Contains("malformed polarity packet at byte offset 42") &&
                          Catch::Contains("eventSize 12"));
  const auto zero = tmp / "zero.aedat";
  write_aedat_file(zero, header_only() + packet(2, 0, 4, 1, 1));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(zero), Catch::Contains("eventSize 0"));
  const auto more = tmp / "more.aedat";
  write_aedat_file(more, header_only() + packet(1, 8, 4, 1, 2) + std::string(8, '\0'));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(more),
                      Catch::Contains("0 <= number <= capacity"));
  std::string negative = packet(1, 8, 4, 1, 1);
  negative[12] = '\xff';  // eventTSOverflow -1
  negative[13] = negative[14] = negative[15] = '\xff';
  const auto below = tmp / "below.aedat";
  write_aedat_file(below, header_only() + negative + std::string(8, '\0'));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(below),
                      Catch::Contains("eventTSOverflow -1"));
  const auto v2 = tmp / "v2.aedat";
  write_aedat_file(v2, "#!AER-DAT2.0\r\n" + std::string(8, '\0'));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(v2),
                      Catch::Contains("not an AEDAT 3.x file") && Catch::Contains("#!AER-DAT2.0"));
  REQUIRE_THROWS_WITH(neurobench::read_aedat3_polarity(tmp / "missing.aedat"),
                      Catch::Contains("no such AEDAT file"));
  // Header only: no events, no error.
  const auto empty = tmp / "empty.aedat";
  write_aedat_file(empty, header_only());
  REQUIRE(neurobench::read_aedat3_polarity(empty).empty());
}
