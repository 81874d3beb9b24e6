// SPDX-License-Identifier: Apache-2.0
#pragma once

// Helpers shared by the .npy and .npz tests: the fixture files and arrays of
// tests/fixtures/npz/make_npz_fixtures.py, and byte-level file access.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include "support.hpp"

namespace neurobench::test {

/// A file written by tests/fixtures/npz/make_npz_fixtures.py.
inline std::filesystem::path npz_fixture(const std::string& name) {
  return std::filesystem::path(NEUROBENCH_TEST_FIXTURES) / "npz" / name;
}

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// A .npy file with the given header dict text (padded as NumPy does) followed by `data`.
inline std::string make_npy(const std::string& dict, const std::string& data = "") {
  std::string header = dict;
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  return file + header + data;
}

/// Same dtype, same shape, same values, C-contiguous.
inline bool identical(const torch::Tensor& actual, const torch::Tensor& expected) {
  return actual.scalar_type() == expected.scalar_type() && actual.sizes() == expected.sizes() &&
         actual.is_contiguous() && torch::equal(actual, expected);
}

// The fixture arrays, mirroring the formulas in tests/fixtures/npz/make_npz_fixtures.py.
inline torch::Tensor f16() {
  return ((torch::arange(12, torch::kDouble) - 6) * 0.5).to(torch::kHalf).reshape({3, 4});
}
inline torch::Tensor f32() {
  return ((torch::arange(24, torch::kDouble) - 12) * 0.25).to(torch::kFloat).reshape({2, 3, 4});
}
inline torch::Tensor f64() { return (torch::arange(10, torch::kDouble) - 5) / 8.0; }
inline torch::Tensor i8() {
  return torch::arange(-128, 128, torch::kLong).to(torch::kChar).reshape({16, 16});
}
inline torch::Tensor i16() {
  return (torch::arange(16, torch::kLong) * 4096 - 32768).to(torch::kShort);
}
inline torch::Tensor i32() {
  return ((torch::arange(20, torch::kLong) - 10) * 100000000).to(torch::kInt).reshape({4, 5});
}
inline torch::Tensor i64() {
  return (torch::arange(10, torch::kLong) - 5) * std::int64_t{1000000000000000};
}
inline torch::Tensor u8() { return torch::arange(256, torch::kLong).to(torch::kByte); }
inline torch::Tensor b1() { return torch::arange(10, torch::kLong).remainder(3).eq(0); }
inline torch::Tensor header_test_array() {
  return (torch::arange(6, torch::kLong) - 2).to(torch::kShort).reshape({2, 3});
}

/// One fixture file `<name>.npy` per supported dtype, with its array.
inline std::vector<std::pair<std::string, torch::Tensor>> dtype_fixtures() {
  return {{"f16", f16()}, {"f32", f32()}, {"f64", f64()}, {"i8", i8()}, {"i16", i16()},
          {"i32", i32()}, {"i64", i64()}, {"u8", u8()},   {"b1", b1()}};
}

}  // namespace neurobench::test
