// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/idx.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "io/idx_files.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::load_idx;
using neurobench::test::Bytes;
using neurobench::test::gzip;
using neurobench::test::idx;
using neurobench::test::TempDir;
using neurobench::test::write;

namespace {

// Big-endian bytes of values of type T.
template <class T>
Bytes big_endian(const std::vector<T>& values) {
  Bytes out;
  for (T v : values) {
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &v, sizeof(T));
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      out.push_back(raw[__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? sizeof(T) - 1 - i : i]);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("an unsigned byte IDX file is read with its shape and values, plain or gzipped",
          "[io][idx]") {
  TempDir tmp;
  const Bytes file = idx(0x08, {2, 3}, {0, 1, 2, 253, 254, 255});
  const bool gz = GENERATE(false, true);
  const auto path = write(tmp / (gz ? "a.gz" : "a"), gz ? gzip(file) : file);
  const torch::Tensor t = load_idx(path);
  REQUIRE(t.scalar_type() == torch::kUInt8);
  REQUIRE(t.sizes() == torch::IntArrayRef{2, 3});
  CHECK(torch::equal(t, torch::tensor({0, 1, 2, 253, 254, 255}, torch::kUInt8).reshape({2, 3})));
}

TEST_CASE("every IDX dtype is read big-endian into the matching tensor dtype", "[io][idx]") {
  TempDir tmp;
  const bool gz = GENERATE(false, true);
  const auto read = [&](std::uint8_t dtype, const std::vector<std::uint32_t>& dims,
                        const Bytes& data) {
    const Bytes file = idx(dtype, dims, data);
    return load_idx(write(tmp / "f", gz ? gzip(file) : file));
  };
  SECTION("0x09 signed byte") {
    const torch::Tensor t = read(0x09, {3}, {0x80, 0xFF, 0x7F});
    REQUIRE(t.scalar_type() == torch::kInt8);
    CHECK(torch::equal(t, torch::tensor({-128, -1, 127}, torch::kInt8)));
  }
  SECTION("0x0B short") {
    const torch::Tensor t = read(0x0B, {2}, {0x01, 0x02, 0xFF, 0xFE});
    REQUIRE(t.scalar_type() == torch::kInt16);
    CHECK(torch::equal(t, torch::tensor({258, -2}, torch::kInt16)));
  }
  SECTION("0x0C int") {
    const torch::Tensor t = read(0x0C, {1, 2}, big_endian<std::int32_t>({-123456789, 2000000000}));
    REQUIRE(t.scalar_type() == torch::kInt32);
    CHECK(torch::equal(t, torch::tensor({-123456789, 2000000000}, torch::kInt32).reshape({1, 2})));
  }
  SECTION("0x0D float") {
    const torch::Tensor t = read(0x0D, {2}, {0x3F, 0xC0, 0x00, 0x00, 0xC1, 0x20, 0x00, 0x00});
    REQUIRE(t.scalar_type() == torch::kFloat32);
    CHECK(torch::equal(t, torch::tensor({1.5F, -10.0F})));
  }
  SECTION("0x0E double") {
    const torch::Tensor t = read(0x0E, {2, 1, 1}, big_endian<double>({0.1, -2.5e300}));
    REQUIRE(t.scalar_type() == torch::kFloat64);
    REQUIRE(t.sizes() == torch::IntArrayRef{2, 1, 1});
    CHECK(t[0][0][0].item<double>() == 0.1);
    CHECK(t[1][0][0].item<double>() == -2.5e300);
  }
}

TEST_CASE("a gzipped IDX file larger than one deflate block reads like the plain file",
          "[io][idx]") {
  TempDir tmp;
  Bytes data(3 * 70000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 31 % 251);
  const Bytes file = idx(0x08, {3, 70000}, data);
  const torch::Tensor plain = load_idx(write(tmp / "plain", file));
  const torch::Tensor gz = load_idx(write(tmp / "file.gz", gzip(file)));
  REQUIRE(plain.sizes() == torch::IntArrayRef{3, 70000});
  CHECK(torch::equal(plain, gz));
  CHECK(plain[2][69999].item<int>() == data.back());
}

TEST_CASE("an IDX file with a zero dimension gives an empty tensor of that shape", "[io][idx]") {
  TempDir tmp;
  const torch::Tensor t = load_idx(write(tmp / "empty", idx(0x0D, {0, 5}, {})));
  CHECK(t.scalar_type() == torch::kFloat32);
  CHECK(t.sizes() == torch::IntArrayRef{0, 5});
}

TEST_CASE("a missing IDX file is an InputError naming it", "[io][idx]") {
  TempDir tmp;
  const auto path = tmp / "nothing-idx1-ubyte";
  REQUIRE_THROWS_AS(load_idx(path), InputError);
  REQUIRE_THROWS_WITH(load_idx(path),
                      Catch::Contains(path.string()) && Catch::Contains("no such file"));
}

TEST_CASE("a bad IDX magic number is an InputError that shows it", "[io][idx]") {
  TempDir tmp;
  SECTION("non-zero leading bytes") {
    const auto path = write(tmp / "f", {0x1F, 0x00, 0x08, 0x01, 0, 0, 0, 0});
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains(path.string()) &&
                                            Catch::Contains("bad magic number 0x1F000801"));
  }
  SECTION("an unknown dtype") {
    const auto path = write(tmp / "f", idx(0x0A, {1}, {0}));
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains("unknown IDX dtype 0x0A"));
  }
  SECTION("no dimensions") {
    const auto path = write(tmp / "f", {0, 0, 0x08, 0});
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains("no dimensions"));
  }
  SECTION("a file shorter than the magic number") {
    const auto path = write(tmp / "f", {0, 0});
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains("truncated: 2 bytes"));
  }
}

TEST_CASE("an IDX file holding more or fewer bytes than its header promises is an InputError",
          "[io][idx]") {
  TempDir tmp;
  SECTION("a cut header") {
    const auto path = write(tmp / "f", {0, 0, 0x08, 3, 0, 0, 0, 2});
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains("the header needs 16 bytes for 3 "
                                                        "dimensions, the file holds 8"));
  }
  SECTION("cut data") {
    const auto path = write(tmp / "f", idx(0x0B, {2, 2}, {0, 1, 0, 2, 0, 3}));
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains(path.string()) &&
                                            Catch::Contains("truncated") &&
                                            Catch::Contains("(2, 2) short elements (8 bytes)") &&
                                            Catch::Contains("holds 6 data bytes"));
  }
  SECTION("dimensions no file could hold") {
    const auto path = write(tmp / "f", idx(0x0E, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, {1, 2}));
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains("truncated"));
  }
  SECTION("bytes after the data") {
    const auto path = write(tmp / "f", idx(0x08, {2}, {1, 2, 3}));
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains("1 bytes after the data"));
  }
}

TEST_CASE("a corrupt or cut gzip stream is an InputError naming the file", "[io][idx]") {
  TempDir tmp;
  Bytes gz = gzip(idx(0x08, {4}, {1, 2, 3, 4}));
  SECTION("a wrong checksum") {
    gz[gz.size() - 8] ^= 0xFF;
    const auto path = write(tmp / "f.gz", gz);
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains(path.string()) && Catch::Contains("gzip"));
  }
  SECTION("a stream cut short") {
    gz.resize(gz.size() - 10);
    const auto path = write(tmp / "f.gz", gz);
    REQUIRE_THROWS_AS(load_idx(path), InputError);
    REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains(path.string()) &&
                                            Catch::Contains("truncated or corrupt gzip"));
  }
}

TEST_CASE("IDX dimensions whose byte count overflows 64 bits are an InputError, not an allocation",
          "[io][idx]") {
  // 2^31 x 2^31 doubles: the element count fits in 64 bits, the byte count does not.
  TempDir tmp;
  const auto path = write(tmp / "f", idx(0x0E, {0x80000000, 0x80000000}, {}));
  REQUIRE_THROWS_AS(load_idx(path), InputError);
  REQUIRE_THROWS_WITH(load_idx(path), Catch::Contains(path.string()) &&
                                          Catch::Contains("(2147483648, 2147483648) double") &&
                                          Catch::Contains("far more than the 0 data bytes"));
}
