// SPDX-License-Identifier: Apache-2.0
// Structured .npy arrays as one tensor per field, on files NumPy wrote
// (tests/fixtures/dvs_gesture/make_fixtures.py): padding, byte order, Fortran order, widened
// unsigned fields, and every field the reader refuses, named.
#include <neurobench/io/npy_fields.hpp>

#include <fstream>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

#include "support.hpp"

using neurobench::InputError;
using neurobench::test::fixture;
using neurobench::test::read_file;
using neurobench::test::TempDir;

namespace {

std::filesystem::path npy(const std::string& name) {
  return fixture("dvs_gesture/npy/" + name + ".npy");
}

std::vector<std::string> names(const std::vector<neurobench::NamedArray>& fields) {
  std::vector<std::string> out;
  for (const auto& field : fields) out.push_back(field.first);
  return out;
}

}  // namespace

TEST_CASE("load_npy_fields skips the padding of an aligned dtype", "[io][npy]") {
  const auto fields = neurobench::load_npy_fields(npy("aligned"));
  REQUIRE(names(fields) == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(fields[0].second.scalar_type() == torch::kByte);
  REQUIRE(fields[1].second.scalar_type() == torch::kInt);
  REQUIRE(fields[2].second.scalar_type() == torch::kDouble);
  REQUIRE(torch::equal(fields[0].second, torch::tensor({1, 2, 255}, torch::kByte)));
  REQUIRE(torch::equal(fields[1].second, torch::tensor({-5, 0, 7}, torch::kInt)));
  REQUIRE(torch::equal(fields[2].second, torch::tensor({0.5, -1.25, 3.0}, torch::kDouble)));
  REQUIRE(neurobench::is_structured_npy(npy("aligned")));
  REQUIRE_FALSE(neurobench::is_structured_npy(npy("plain")));
}

TEST_CASE("load_npy_fields reads big-endian fields and Fortran order in C order", "[io][npy]") {
  for (const char* name : {"big_endian_2d", "fortran_2d"}) {
    const auto fields = neurobench::load_npy_fields(npy(name));
    REQUIRE(names(fields) == std::vector<std::string>{"s", "d", "flag"});
    REQUIRE(torch::equal(fields[0].second,
                         torch::tensor({1, -2, 300, 4}, torch::kShort).reshape({2, 2})));
    REQUIRE(torch::equal(fields[1].second,
                         torch::tensor({1.5, 2.5, -3.5, 4.5}, torch::kDouble).reshape({2, 2})));
    REQUIRE(
        torch::equal(fields[2].second, torch::tensor({true, false, false, true}).reshape({2, 2})));
  }
}

TEST_CASE("load_npy_fields widens uint16 and uint32 fields", "[io][npy]") {
  const auto fields = neurobench::load_npy_fields(npy("unsigned"));
  REQUIRE(fields[0].second.scalar_type() == torch::kInt);
  REQUIRE(fields[1].second.scalar_type() == torch::kLong);
  REQUIRE(torch::equal(fields[0].second, torch::tensor({65535, 1}, torch::kInt)));
  REQUIRE(torch::equal(fields[1].second, torch::tensor({int64_t{4294967295}, int64_t{2}})));
}

TEST_CASE("load_npy_fields names the file and the field it cannot read", "[io][npy]") {
  REQUIRE_THROWS_AS(neurobench::load_npy_fields(npy("datetime_field")), InputError);
  REQUIRE_THROWS_WITH(neurobench::load_npy_fields(npy("datetime_field")),
                      Catch::Contains(npy("datetime_field").string()) &&
                          Catch::Contains("field 'when'") && Catch::Contains("<M8[us]"));
  REQUIRE_THROWS_WITH(neurobench::load_npy_fields(npy("subarray_field")),
                      Catch::Contains("field 'v'") && Catch::Contains("subarray"));
  REQUIRE_THROWS_WITH(neurobench::load_npy_fields(npy("plain")),
                      Catch::Contains("not a structured array") && Catch::Contains("<i2"));
  // The plain reader still refuses structured arrays, as before.
  REQUIRE_THROWS_WITH(neurobench::load_npy(npy("aligned")), Catch::Contains("structured"));
}

TEST_CASE("load_npy_fields refuses truncated data and malformed headers", "[io][npy]") {
  TempDir tmp;
  const std::string whole = read_file(npy("unsigned"));
  const auto cut = tmp / "cut.npy";
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() - 1);
  REQUIRE_THROWS_WITH(neurobench::load_npy_fields(cut),
                      Catch::Contains("truncated data") && Catch::Contains("needs 12 bytes"));
  const auto garbage = tmp / "garbage.npy";
  std::ofstream(garbage, std::ios::binary) << "not numpy at all";
  REQUIRE_THROWS_WITH(neurobench::load_npy_fields(garbage), Catch::Contains("not a NumPy .npy"));
  REQUIRE_THROWS_WITH(neurobench::is_structured_npy(garbage), Catch::Contains("not a NumPy .npy"));
  REQUIRE_THROWS_AS(neurobench::load_npy_fields(tmp / "missing.npy"), InputError);
}
