// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/npy.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "io/npy_fixtures.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace neurobench::test;  // NOLINT: the fixture arrays and helpers
using neurobench::InputError;
using neurobench::load_npy;
using neurobench::save_npy;

/// "read" when `load` returns, "InputError" when it throws one; any other exception is reported
/// by what it says, so that a check on the outcome fails and shows it.
template <class Load>
std::string npy_outcome_of(Load load) {
  try {
    load();
    return "read";
  } catch (const InputError&) {
    return "InputError";
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading

TEST_CASE("load_npy reads every supported dtype with its exact values", "[io][npy]") {
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    CHECK(identical(load_npy(npz_fixture(name + ".npy")), expected));
  }
}

TEST_CASE("load_npy byte-swaps big-endian arrays to the values of their little-endian twins",
          "[io][npy]") {
  const std::vector<std::pair<std::string, torch::Tensor>> cases = {
      {"be_f16", f16()}, {"be_f32", f32()}, {"be_f64", f64()},
      {"be_i16", i16()}, {"be_i32", i32()}, {"be_i64", i64()}};
  for (const auto& [name, expected] : cases) {
    INFO(name);
    CHECK(identical(load_npy(npz_fixture(name + ".npy")), expected));
  }
}

TEST_CASE("load_npy returns Fortran-order arrays as C-contiguous tensors with the same values",
          "[io][npy]") {
  CHECK(identical(load_npy(npz_fixture("fortran_2d.npy")),
                  torch::arange(12, torch::kFloat).reshape({3, 4})));
  CHECK(identical(load_npy(npz_fixture("fortran_3d.npy")),
                  torch::arange(24, torch::kInt).reshape({2, 3, 4})));
  CHECK(identical(load_npy(npz_fixture("fortran_be_3d.npy")),
                  torch::arange(12, torch::kDouble).reshape({2, 3, 2})));
}

TEST_CASE("load_npy reads 0-d arrays as 0-d tensors", "[io][npy]") {
  const torch::Tensor f = load_npy(npz_fixture("scalar_f64.npy"));
  CHECK(f.dim() == 0);
  CHECK(f.scalar_type() == torch::kDouble);
  CHECK(f.item<double>() == 3.5);
  const torch::Tensor b = load_npy(npz_fixture("scalar_b1.npy"));
  CHECK(b.dim() == 0);
  CHECK(b.scalar_type() == torch::kBool);
  CHECK(b.item<bool>());
}

TEST_CASE("load_npy reads arrays with a zero dimension as empty tensors of that shape",
          "[io][npy]") {
  CHECK(identical(load_npy(npz_fixture("empty_f32.npy")), torch::empty({0}, torch::kFloat)));
  CHECK(identical(load_npy(npz_fixture("empty_i64_2d.npy")), torch::empty({3, 0}, torch::kLong)));
  CHECK(
      identical(load_npy(npz_fixture("empty_fortran.npy")), torch::empty({0, 4}, torch::kDouble)));
}

TEST_CASE("load_npy reads format versions 2.0 and 3.0", "[io][npy]") {
  CHECK(identical(load_npy(npz_fixture("v2_f32.npy")), f32()));
  CHECK(identical(load_npy(npz_fixture("v3_f32.npy")), f32()));
}

TEST_CASE("load_npy parses header dicts in any key order, spacing and quoting", "[io][npy]") {
  // Reordered keys without a trailing comma; double quotes, tabs and a trailing comma in the
  // shape; Python 2 long integers (3L); '=' (native) byte order.
  for (const char* name : {"header_reordered.npy", "header_spacing.npy", "header_long_ints.npy",
                           "header_native_order.npy"}) {
    INFO(name);
    CHECK(identical(load_npy(npz_fixture(name)), header_test_array()));
  }
  CHECK(identical(load_npy(npz_fixture("header_pipe_order.npy")),
                  torch::arange(6, torch::kLong).to(torch::kByte)));
}

TEST_CASE("load_npy reads any nonzero bool byte as true", "[io][npy]") {
  const TempDir dir;
  write_bytes(dir / "bools.npy",
              make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                       std::string("\x00\x01\x02\xff", 4)));
  const torch::Tensor loaded = load_npy(dir / "bools.npy");
  CHECK(identical(loaded, torch::tensor({false, true, true, true})));
  CHECK(identical(loaded.to(torch::kByte), torch::tensor({0, 1, 1, 1}, torch::kByte)));
}

TEST_CASE("load_npy ignores bytes after the data, as NumPy does", "[io][npy]") {
  const TempDir dir;
  write_bytes(dir / "extra.npy", read_bytes(npz_fixture("i16.npy")) + "trailing");
  CHECK(identical(load_npy(dir / "extra.npy"), i16()));
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST_CASE("save_npy then load_npy round-trips every supported dtype", "[io][npy]") {
  const TempDir dir;
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    const fs::path path = dir / (name + ".npy");
    save_npy(path, expected);
    CHECK(identical(load_npy(path), expected));
  }
}

TEST_CASE("save_npy writes a version 1.0 header with the data 64-byte aligned", "[io][npy]") {
  const TempDir dir;
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    const fs::path path = dir / (name + ".npy");
    save_npy(path, expected);
    const std::string bytes = read_bytes(path);
    REQUIRE(bytes.size() > 10);
    CHECK(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
    const std::size_t header_size =
        static_cast<std::uint8_t>(bytes[8]) |
        (static_cast<std::size_t>(static_cast<std::uint8_t>(bytes[9])) << 8);
    const std::size_t data_offset = 10 + header_size;
    CHECK(data_offset % 64 == 0);
    CHECK(bytes[data_offset - 1] == '\n');
    CHECK(bytes.size() - data_offset ==
          static_cast<std::size_t>(expected.numel()) * expected.element_size());
  }
}

TEST_CASE("save_npy writes the same bytes as NumPy for the fixture arrays", "[io][npy]") {
  // NumPy pads its header differently for some shapes, so this holds for these fixtures only.
  const TempDir dir;
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    save_npy(dir / "out.npy", expected);
    CHECK(read_bytes(dir / "out.npy") == read_bytes(npz_fixture(name + ".npy")));
  }
}

TEST_CASE("save_npy writes a non-contiguous tensor's values in C order", "[io][npy]") {
  const TempDir dir;
  const torch::Tensor base = torch::arange(24, torch::kInt).reshape({4, 6});
  const std::vector<std::pair<std::string, torch::Tensor>> views = {
      {"transposed", base.t()},
      {"strided", base.index({torch::indexing::Slice(), torch::indexing::Slice(1, 6, 2)})},
      {"expanded", torch::arange(3, torch::kDouble).expand({2, 3})}};
  for (const auto& [name, view] : views) {
    INFO(name);
    REQUIRE_FALSE(view.is_contiguous());
    save_npy(dir / (name + ".npy"), view);
    CHECK(identical(load_npy(dir / (name + ".npy")), view.contiguous()));
  }
}

TEST_CASE("save_npy round-trips 0-d and empty tensors", "[io][npy]") {
  const TempDir dir;
  const std::vector<torch::Tensor> tensors = {
      torch::scalar_tensor(2.5, torch::kFloat), torch::scalar_tensor(true, torch::kBool),
      torch::empty({0}, torch::kHalf), torch::empty({2, 0, 3}, torch::kLong)};
  for (const torch::Tensor& tensor : tensors) {
    INFO(tensor.sizes());
    save_npy(dir / "t.npy", tensor);
    CHECK(identical(load_npy(dir / "t.npy"), tensor));
  }
}

TEST_CASE("save_npy rejects tensors it cannot write, naming the path and the dtype", "[io][npy]") {
  const TempDir dir;
  const fs::path path = dir / "bad.npy";
  const torch::Tensor complex = torch::zeros({2}, torch::kComplexFloat);
  REQUIRE_THROWS_AS(save_npy(path, complex), InputError);
  REQUIRE_THROWS_WITH(save_npy(path, complex),
                      Catch::Contains(path.string()) && Catch::Contains("ComplexFloat"));
  const torch::Tensor bfloat = torch::zeros({2}, torch::kBFloat16);
  REQUIRE_THROWS_AS(save_npy(path, bfloat), InputError);
  REQUIRE_THROWS_WITH(save_npy(path, bfloat), Catch::Contains("BFloat16"));
  REQUIRE_THROWS_AS(save_npy(path, torch::Tensor()), InputError);
  REQUIRE_THROWS_WITH(save_npy(path, torch::Tensor()), Catch::Contains("undefined tensor"));
  const torch::Tensor sparse = torch::eye(3).to_sparse();
  REQUIRE_THROWS_AS(save_npy(path, sparse), InputError);
  REQUIRE_THROWS_WITH(save_npy(path, sparse), Catch::Contains("only dense tensors"));
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("save_npy throws an InputError naming a path it cannot open", "[io][npy]") {
  const TempDir dir;
  const fs::path npy = dir / "no_such_dir" / "out.npy";
  REQUIRE_THROWS_AS(save_npy(npy, f32()), InputError);
  REQUIRE_THROWS_WITH(save_npy(npy, f32()),
                      Catch::Contains(npy.string()) && Catch::Contains("cannot open for writing"));
}

// ---------------------------------------------------------------------------------------------
// Errors while reading

TEST_CASE("a missing .npy file is an InputError saying there is no such file", "[io][npy]") {
  const fs::path path = npz_fixture("does_not_exist.npy");
  REQUIRE_THROWS_AS(load_npy(path), InputError);
  REQUIRE_THROWS_WITH(load_npy(path), path.string() + ": no such file");
}

TEST_CASE("load_npy of a file that is not .npy is an InputError saying what was expected",
          "[io][npy]") {
  const TempDir dir;
  write_bytes(dir / "text.npy", "hello, world\n");
  REQUIRE_THROWS_AS(load_npy(dir / "text.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "text.npy"), Catch::Contains((dir / "text.npy").string()) &&
                                                      Catch::Contains("not a NumPy .npy file") &&
                                                      Catch::Contains("expected the magic string"));
  write_bytes(dir / "empty.npy", "");
  REQUIRE_THROWS_AS(load_npy(dir / "empty.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "empty.npy"), Catch::Contains("an empty file"));
  REQUIRE_THROWS_AS(load_npy(npz_fixture("savez.npz")), InputError);
  REQUIRE_THROWS_WITH(load_npy(npz_fixture("savez.npz")), Catch::Contains("load_npz"));
  REQUIRE_THROWS_AS(load_npy(fs::path(NEUROBENCH_TEST_FIXTURES)), InputError);
  REQUIRE_THROWS_WITH(load_npy(fs::path(NEUROBENCH_TEST_FIXTURES)),
                      Catch::Contains("is a directory"));
}

TEST_CASE("truncated .npy data is an InputError with expected and found byte counts", "[io][npy]") {
  const TempDir dir;
  const std::string bytes = read_bytes(npz_fixture("f32.npy"));  // 128-byte header, 96 data bytes
  REQUIRE(bytes.size() == 224);
  write_bytes(dir / "cut.npy", bytes.substr(0, bytes.size() - 5));
  REQUIRE_THROWS_AS(load_npy(dir / "cut.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "cut.npy"), Catch::Contains((dir / "cut.npy").string()) &&
                                                     Catch::Contains("truncated data") &&
                                                     Catch::Contains("(2, 3, 4)") &&
                                                     Catch::Contains("needs 96 bytes, found 91"));
}

TEST_CASE("a truncated .npy header is an InputError with expected and found byte counts",
          "[io][npy]") {
  const TempDir dir;
  const std::string bytes = read_bytes(npz_fixture("f32.npy"));
  write_bytes(dir / "cut.npy", bytes.substr(0, 40));
  REQUIRE_THROWS_AS(load_npy(dir / "cut.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "cut.npy"),
                      Catch::Contains("truncated .npy header: expected 128 bytes, found 40"));
  write_bytes(dir / "cut.npy", bytes.substr(0, 7));
  REQUIRE_THROWS_AS(load_npy(dir / "cut.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "cut.npy"), Catch::Contains("truncated .npy header"));
}

TEST_CASE("an unknown .npy format version is an InputError naming it", "[io][npy]") {
  const TempDir dir;
  std::string bytes = read_bytes(npz_fixture("f32.npy"));
  bytes[6] = '\x04';
  write_bytes(dir / "v4.npy", bytes);
  REQUIRE_THROWS_AS(load_npy(dir / "v4.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "v4.npy"),
                      Catch::Contains("unsupported .npy format version 4.0"));
}

TEST_CASE("an unsupported dtype is an InputError naming the file and the dtype string",
          "[io][npy]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"unsupported_u16.npy", "'<u2' (uint16): LibTorch 1.13 has no uint16 tensor type"},
      {"unsupported_u32.npy", "'<u4' (uint32): LibTorch 1.13 has no uint32 tensor type"},
      {"unsupported_u64.npy", "'<u8' (uint64): LibTorch 1.13 has no uint64 tensor type"},
      {"unsupported_str.npy", "unsupported dtype '<U5' (unicode string)"},
      {"unsupported_complex.npy", "unsupported dtype '<c8' (complex)"},
      {"unsupported_object.npy", "unsupported dtype '|O' (Python object)"},
      {"unsupported_structured.npy", "unsupported dtype [('a', '<i4'), ('b', '<f4')]"}};
  for (const auto& [name, message] : cases) {
    INFO(name);
    REQUIRE_THROWS_AS(load_npy(npz_fixture(name)), InputError);
    REQUIRE_THROWS_WITH(load_npy(npz_fixture(name)),
                        Catch::Contains(npz_fixture(name).string()) && Catch::Contains(message));
  }
}

TEST_CASE("a malformed .npy header is an InputError saying what is wrong", "[io][npy]") {
  const TempDir dir;
  const std::string data(8, '\0');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{'descr': '<i2', 'fortran_order': False, }", "no 'shape' key"},
      {"{'shape': (4,), 'fortran_order': False, }", "no 'descr' key"},
      {"{'descr': '<i2', 'shape': (4,), }", "no 'fortran_order' key"},
      // NumPy reads these three keys and refuses any other.
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4,), 'order': 'C', }",
       "key 'order' is not one of 'descr', 'fortran_order' and 'shape'"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4,), 3: 1, }", "key 3 is not one of"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4), }",
       "'shape' must be a tuple of non-negative integers, found (4)"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (-4,), }",
       "'shape' must be a tuple of non-negative integers"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (2.5,), }", "expected an integer"},
      {"{'descr': '<i2', 'fortran_order': 'no', 'shape': (4,), }",
       "'fortran_order' must be True or False, found 'no'"},
      {"{'descr': '<i2, 'fortran_order': False, 'shape': (4,), }", "expected ',' or '}'"},
      {"{'descr' '<i2', 'fortran_order': False, 'shape': (4,), }", "expected ':'"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4,), 'x': 'abc}", "unterminated string"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4,), ", "unexpected end of header"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4,), } x", "unexpected text"},
      {"{'descr': '<i2', 'fortran_order': Nope, 'shape': (4,), }", "unexpected name 'Nope'"},
      {"['descr', '<i2']", "expected a dictionary"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (99999999999999999999,), }",
       "integer out of range"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
       "too large"},
      {"{'descr': '<i2', 'fortran_order': False, 'shape': " + std::string(100, '(') + "}",
       "nesting too deep"}};
  for (const auto& [header, message] : cases) {
    INFO(header);
    write_bytes(dir / "bad.npy", make_npy(header, data));
    REQUIRE_THROWS_AS(load_npy(dir / "bad.npy"), InputError);
    REQUIRE_THROWS_WITH(load_npy(dir / "bad.npy"),
                        Catch::Contains((dir / "bad.npy").string()) && Catch::Contains(message));
  }
}

TEST_CASE("every truncation of an .npy file is an InputError, never a crash", "[io][npy]") {
  const TempDir dir;
  const std::string bytes = read_bytes(npz_fixture("f32.npy"));
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    INFO("f32.npy cut to " << size << " bytes");
    write_bytes(dir / "cut", bytes.substr(0, size));
    REQUIRE_THROWS_AS(load_npy(dir / "cut"), InputError);
  }
}

TEST_CASE("every single-byte corruption of an .npy file is read or an InputError", "[io][npy]") {
  const TempDir dir;
  const std::string original = read_bytes(npz_fixture("f32.npy"));
  for (std::size_t i = 0; i < original.size(); ++i) {
    INFO("f32.npy with byte " << i << " altered");
    std::string bytes = original;
    bytes[i] = static_cast<char>(bytes[i] ^ 0xff);
    write_bytes(dir / "corrupt", bytes);
    // Altered data bytes are read as they are: a .npy file has no checksum.
    CHECK_THAT(npy_outcome_of([&] { (void)load_npy(dir / "corrupt"); }),
               Catch::Equals("read") || Catch::Equals("InputError"));
  }
}
