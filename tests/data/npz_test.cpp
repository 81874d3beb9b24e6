// SPDX-License-Identifier: Apache-2.0
#include <neurobench/data/npz.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

namespace {

namespace fs = std::filesystem;
using neurobench::InputError;
using neurobench::load_npy;
using neurobench::load_npz;
using neurobench::NamedArray;
using neurobench::save_npy;
using neurobench::save_npz;

fs::path fixture(const std::string& name) {
  return fs::path(NEUROBENCH_TEST_FIXTURES) / "npz" / name;
}

/// A fresh directory under the system temporary directory, removed with its contents.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = fs::temp_directory_path() /
            fmt::format("neurobench_npz_test_{:08x}{:08x}", random(), random());
    fs::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  [[nodiscard]] fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  REQUIRE(out);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out);
}

std::uint32_t get_u32(const std::string& bytes, std::size_t offset) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i)
    value = (value << 8) | static_cast<std::uint8_t>(bytes.at(offset + i));
  return value;
}

void put_u32(std::string& bytes, std::size_t offset, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes.at(offset + i) = static_cast<char>((value >> (8 * i)) & 0xff);
}

/// Offset of the first central directory record of a zip without a comment or ZIP64 end record.
std::size_t first_central_record(const std::string& zip) {
  REQUIRE(zip.size() >= 22);
  REQUIRE(get_u32(zip, zip.size() - 22) == 0x06054b50);
  return get_u32(zip, zip.size() - 22 + 16);
}

/// A .npy file with the given header dict text (padded as NumPy does) followed by `data`.
std::string make_npy(const std::string& dict, const std::string& data = "") {
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
bool identical(const torch::Tensor& actual, const torch::Tensor& expected) {
  return actual.scalar_type() == expected.scalar_type() && actual.sizes() == expected.sizes() &&
         actual.is_contiguous() && torch::equal(actual, expected);
}

// The fixture arrays, mirroring the formulas in tests/fixtures/npz/make_npz_fixtures.py.
torch::Tensor f16() {
  return ((torch::arange(12, torch::kDouble) - 6) * 0.5).to(torch::kHalf).reshape({3, 4});
}
torch::Tensor f32() {
  return ((torch::arange(24, torch::kDouble) - 12) * 0.25).to(torch::kFloat).reshape({2, 3, 4});
}
torch::Tensor f64() { return (torch::arange(10, torch::kDouble) - 5) / 8.0; }
torch::Tensor i8() {
  return torch::arange(-128, 128, torch::kLong).to(torch::kChar).reshape({16, 16});
}
torch::Tensor i16() { return (torch::arange(16, torch::kLong) * 4096 - 32768).to(torch::kShort); }
torch::Tensor i32() {
  return ((torch::arange(20, torch::kLong) - 10) * 100000000).to(torch::kInt).reshape({4, 5});
}
torch::Tensor i64() {
  return (torch::arange(10, torch::kLong) - 5) * std::int64_t{1000000000000000};
}
torch::Tensor u8() { return torch::arange(256, torch::kLong).to(torch::kByte); }
torch::Tensor b1() { return torch::arange(10, torch::kLong).remainder(3).eq(0); }
torch::Tensor header_test_array() {
  return (torch::arange(6, torch::kLong) - 2).to(torch::kShort).reshape({2, 3});
}

std::vector<std::pair<std::string, torch::Tensor>> dtype_fixtures() {
  return {{"f16", f16()}, {"f32", f32()}, {"f64", f64()}, {"i8", i8()}, {"i16", i16()},
          {"i32", i32()}, {"i64", i64()}, {"u8", u8()},   {"b1", b1()}};
}

/// The arrays of savez.npz and savez_compressed.npz, in the order they were saved.
std::vector<NamedArray> npz_arrays() {
  return {{"zeta", f32()[0]},
          {"alpha", i64()},
          {"mid", b1()},
          {"scalar", torch::scalar_tensor(7, torch::kShort)},
          {"fortran", f64().reshape({2, 5})},
          {"big_endian", i32()}};
}

void require_same_arrays(const std::vector<NamedArray>& actual,
                         const std::vector<NamedArray>& expected) {
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("array " << i << ": " << expected[i].first);
    CHECK(actual[i].first == expected[i].first);
    CHECK(identical(actual[i].second, expected[i].second));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading .npy

TEST_CASE("load_npy reads every supported dtype with its exact values", "[data][npz]") {
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    CHECK(identical(load_npy(fixture(name + ".npy")), expected));
  }
}

TEST_CASE("load_npy byte-swaps big-endian arrays to the values of their little-endian twins",
          "[data][npz]") {
  const std::vector<std::pair<std::string, torch::Tensor>> cases = {
      {"be_f16", f16()}, {"be_f32", f32()}, {"be_f64", f64()},
      {"be_i16", i16()}, {"be_i32", i32()}, {"be_i64", i64()}};
  for (const auto& [name, expected] : cases) {
    INFO(name);
    CHECK(identical(load_npy(fixture(name + ".npy")), expected));
  }
}

TEST_CASE("load_npy returns Fortran-order arrays as C-contiguous tensors with the same values",
          "[data][npz]") {
  CHECK(identical(load_npy(fixture("fortran_2d.npy")),
                  torch::arange(12, torch::kFloat).reshape({3, 4})));
  CHECK(identical(load_npy(fixture("fortran_3d.npy")),
                  torch::arange(24, torch::kInt).reshape({2, 3, 4})));
  CHECK(identical(load_npy(fixture("fortran_be_3d.npy")),
                  torch::arange(12, torch::kDouble).reshape({2, 3, 2})));
}

TEST_CASE("load_npy reads 0-d arrays as 0-d tensors", "[data][npz]") {
  const torch::Tensor f = load_npy(fixture("scalar_f64.npy"));
  CHECK(f.dim() == 0);
  CHECK(f.scalar_type() == torch::kDouble);
  CHECK(f.item<double>() == 3.5);
  const torch::Tensor b = load_npy(fixture("scalar_b1.npy"));
  CHECK(b.dim() == 0);
  CHECK(b.scalar_type() == torch::kBool);
  CHECK(b.item<bool>());
}

TEST_CASE("load_npy reads arrays with a zero dimension as empty tensors of that shape",
          "[data][npz]") {
  CHECK(identical(load_npy(fixture("empty_f32.npy")), torch::empty({0}, torch::kFloat)));
  CHECK(identical(load_npy(fixture("empty_i64_2d.npy")), torch::empty({3, 0}, torch::kLong)));
  CHECK(identical(load_npy(fixture("empty_fortran.npy")), torch::empty({0, 4}, torch::kDouble)));
}

TEST_CASE("load_npy reads format versions 2.0 and 3.0", "[data][npz]") {
  CHECK(identical(load_npy(fixture("v2_f32.npy")), f32()));
  CHECK(identical(load_npy(fixture("v3_f32.npy")), f32()));
}

TEST_CASE("load_npy parses header dicts in any key order, spacing and quoting", "[data][npz]") {
  // Reordered keys without a trailing comma; double quotes, tabs and a trailing comma in the
  // shape; Python 2 long integers (3L); '=' (native) byte order.
  for (const char* name : {"header_reordered.npy", "header_spacing.npy", "header_long_ints.npy",
                           "header_native_order.npy"}) {
    INFO(name);
    CHECK(identical(load_npy(fixture(name)), header_test_array()));
  }
  CHECK(identical(load_npy(fixture("header_pipe_order.npy")),
                  torch::arange(6, torch::kLong).to(torch::kByte)));
}

TEST_CASE("load_npy reads any nonzero bool byte as true", "[data][npz]") {
  const TempDir dir;
  write_bytes(dir / "bools.npy",
              make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }",
                       std::string("\x00\x01\x02\xff", 4)));
  const torch::Tensor loaded = load_npy(dir / "bools.npy");
  CHECK(identical(loaded, torch::tensor({false, true, true, true})));
  CHECK(identical(loaded.to(torch::kByte), torch::tensor({0, 1, 1, 1}, torch::kByte)));
}

TEST_CASE("load_npy ignores bytes after the data, as NumPy does", "[data][npz]") {
  const TempDir dir;
  write_bytes(dir / "extra.npy", read_bytes(fixture("i16.npy")) + "trailing");
  CHECK(identical(load_npy(dir / "extra.npy"), i16()));
}

// ---------------------------------------------------------------------------------------------
// Reading .npz

TEST_CASE("load_npz reads np.savez archives with names in archive order", "[data][npz]") {
  require_same_arrays(load_npz(fixture("savez.npz")), npz_arrays());
}

TEST_CASE("load_npz reads np.savez_compressed archives", "[data][npz]") {
  require_same_arrays(load_npz(fixture("savez_compressed.npz")), npz_arrays());
}

TEST_CASE("load_npz reads an archive without arrays as an empty list", "[data][npz]") {
  CHECK(load_npz(fixture("savez_empty.npz")).empty());
}

TEST_CASE("load_npz reads sizes and offsets from ZIP64 extra fields and end records",
          "[data][npz]") {
  require_same_arrays(load_npz(fixture("zip64.npz")),
                      {{"stored", f32()}, {"deflated", i64()}, {"flags", b1()}});
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST_CASE("save_npy then load_npy round-trips every supported dtype", "[data][npz]") {
  const TempDir dir;
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    const fs::path path = dir / (name + ".npy");
    save_npy(path, expected);
    CHECK(identical(load_npy(path), expected));
  }
}

TEST_CASE("save_npy writes a version 1.0 header with the data 64-byte aligned", "[data][npz]") {
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

TEST_CASE("save_npy writes the same bytes as NumPy for the fixture arrays", "[data][npz]") {
  // NumPy pads its header differently for some shapes, so this holds for these fixtures only.
  const TempDir dir;
  for (const auto& [name, expected] : dtype_fixtures()) {
    INFO(name);
    save_npy(dir / "out.npy", expected);
    CHECK(read_bytes(dir / "out.npy") == read_bytes(fixture(name + ".npy")));
  }
}

TEST_CASE("save_npy writes a non-contiguous tensor's values in C order", "[data][npz]") {
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

TEST_CASE("save_npy round-trips 0-d and empty tensors", "[data][npz]") {
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

TEST_CASE("save_npz then load_npz round-trips names, order and values", "[data][npz]") {
  const TempDir dir;
  std::vector<NamedArray> arrays = npz_arrays();
  arrays.emplace_back("non_contiguous", torch::arange(12, torch::kShort).reshape({3, 4}).t());
  arrays.emplace_back("empty", torch::empty({0, 2}, torch::kFloat));
  arrays.emplace_back("with.dots and spaces", u8());
  save_npz(dir / "out.npz", arrays);
  std::vector<NamedArray> expected = arrays;
  for (auto& [name, array] : expected) array = array.contiguous();
  require_same_arrays(load_npz(dir / "out.npz"), expected);
}

TEST_CASE("large arrays round-trip through save_npy, save_npz and a Fortran-order header",
          "[data][npz]") {
  const TempDir dir;
  const torch::Tensor large = torch::arange(1 << 21, torch::kFloat).reshape({1024, 2048});
  save_npy(dir / "large.npy", large);
  CHECK(identical(load_npy(dir / "large.npy"), large));
  save_npz(dir / "large.npz", {{"a", large}, {"b", large.t()}});
  require_same_arrays(load_npz(dir / "large.npz"), {{"a", large}, {"b", large.t().contiguous()}});
  // The same bytes declared Fortran-ordered with the reversed shape are the transpose.
  const std::string data(static_cast<const char*>(large.data_ptr()), large.nbytes());
  write_bytes(dir / "fortran.npy",
              make_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2048, 1024), }", data));
  CHECK(identical(load_npy(dir / "fortran.npy"), large.t().contiguous()));
}

TEST_CASE("save_npz writes stored entries starting with a zip local header", "[data][npz]") {
  const TempDir dir;
  save_npz(dir / "out.npz", {{"x", f32()}});
  const std::string bytes = read_bytes(dir / "out.npz");
  CHECK(bytes.compare(0, 4, "PK\x03\x04") == 0);
  const std::size_t record = first_central_record(bytes);
  CHECK(get_u32(bytes, record) == 0x02014b50);
  CHECK((get_u32(bytes, record + 8) >> 16) == 0);  // compression method: stored
}

TEST_CASE("save_npz writes an empty archive that load_npz reads back as empty", "[data][npz]") {
  const TempDir dir;
  save_npz(dir / "empty.npz", {});
  CHECK(load_npz(dir / "empty.npz").empty());
  CHECK(read_bytes(dir / "empty.npz").size() == 22);
}

TEST_CASE("save_npz rejects two arrays with the same name and writes nothing", "[data][npz]") {
  const TempDir dir;
  const std::vector<NamedArray> arrays = {{"x", f32()}, {"y", i8()}, {"x", u8()}};
  REQUIRE_THROWS_AS(save_npz(dir / "dup.npz", arrays), InputError);
  REQUIRE_THROWS_WITH(save_npz(dir / "dup.npz", arrays),
                      Catch::Contains("array 'x'") && Catch::Contains("more than once"));
  CHECK_FALSE(fs::exists(dir / "dup.npz"));
}

TEST_CASE("save_npz rejects a name that is not UTF-8 or holds a NUL byte and writes nothing",
          "[data][npz]") {
  const TempDir dir;
  const std::vector<NamedArray> latin1 = {{"x", f32()}, {"caf\xe9", i8()}};
  REQUIRE_THROWS_AS(save_npz(dir / "names.npz", latin1), InputError);
  REQUIRE_THROWS_WITH(save_npz(dir / "names.npz", latin1),
                      Catch::Contains((dir / "names.npz").string()) &&
                          Catch::Contains("array 'caf?'") && Catch::Contains("not valid UTF-8"));
  const std::vector<NamedArray> nul = {{std::string("a\0b", 3), f32()}};
  REQUIRE_THROWS_AS(save_npz(dir / "names.npz", nul), InputError);
  REQUIRE_THROWS_WITH(save_npz(dir / "names.npz", nul), Catch::Contains("holds a NUL byte"));
  CHECK_FALSE(fs::exists(dir / "names.npz"));
}

TEST_CASE("save_npz replaces an existing file whole and leaves no temporary file beside it",
          "[data][npz]") {
  const TempDir dir;
  write_bytes(dir / "out.npz", std::string(5000, 'x'));
  save_npz(dir / "out.npz", {{"x", f32()}});
  require_same_arrays(load_npz(dir / "out.npz"), {{"x", f32()}});
  save_npz(dir / "out.npz", {});
  CHECK(load_npz(dir / "out.npz").empty());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir / "")) files.push_back(entry.path());
  CHECK(files == std::vector<fs::path>{dir / "out.npz"});
}

TEST_CASE("save_npy and save_npz reject tensors they cannot write, naming path and array",
          "[data][npz]") {
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

  const fs::path npz = dir / "bad.npz";
  const std::vector<NamedArray> arrays = {{"fine", f32()}, {"waves", complex}};
  REQUIRE_THROWS_AS(save_npz(npz, arrays), InputError);
  REQUIRE_THROWS_WITH(save_npz(npz, arrays), Catch::Contains(npz.string()) &&
                                                 Catch::Contains("array 'waves'") &&
                                                 Catch::Contains("ComplexFloat"));
  CHECK_FALSE(fs::exists(npz));
}

TEST_CASE("save_npy and save_npz throw an InputError naming a path they cannot open",
          "[data][npz]") {
  const TempDir dir;
  const fs::path npy = dir / "no_such_dir" / "out.npy";
  REQUIRE_THROWS_AS(save_npy(npy, f32()), InputError);
  REQUIRE_THROWS_WITH(save_npy(npy, f32()),
                      Catch::Contains(npy.string()) && Catch::Contains("cannot open for writing"));
  const fs::path npz = dir / "no_such_dir" / "out.npz";
  REQUIRE_THROWS_AS(save_npz(npz, {{"x", f32()}}), InputError);
  REQUIRE_THROWS_WITH(save_npz(npz, {{"x", f32()}}),
                      Catch::Contains(npz.string()) && Catch::Contains("cannot open for writing"));
}

// ---------------------------------------------------------------------------------------------
// Errors while reading

TEST_CASE("a missing file is an InputError saying there is no such file", "[data][npz]") {
  const fs::path path = fixture("does_not_exist.npy");
  REQUIRE_THROWS_AS(load_npy(path), InputError);
  REQUIRE_THROWS_WITH(load_npy(path), path.string() + ": no such file");
  const fs::path npz = fixture("does_not_exist.npz");
  REQUIRE_THROWS_AS(load_npz(npz), InputError);
  REQUIRE_THROWS_WITH(load_npz(npz), npz.string() + ": no such file");
}

TEST_CASE("load_npy of a file that is not .npy is an InputError saying what was expected",
          "[data][npz]") {
  const TempDir dir;
  write_bytes(dir / "text.npy", "hello, world\n");
  REQUIRE_THROWS_AS(load_npy(dir / "text.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "text.npy"), Catch::Contains((dir / "text.npy").string()) &&
                                                      Catch::Contains("not a NumPy .npy file") &&
                                                      Catch::Contains("expected the magic string"));
  write_bytes(dir / "empty.npy", "");
  REQUIRE_THROWS_AS(load_npy(dir / "empty.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "empty.npy"), Catch::Contains("an empty file"));
  REQUIRE_THROWS_AS(load_npy(fixture("savez.npz")), InputError);
  REQUIRE_THROWS_WITH(load_npy(fixture("savez.npz")), Catch::Contains("load_npz"));
  REQUIRE_THROWS_AS(load_npy(fs::path(NEUROBENCH_TEST_FIXTURES)), InputError);
  REQUIRE_THROWS_WITH(load_npy(fs::path(NEUROBENCH_TEST_FIXTURES)),
                      Catch::Contains("is a directory"));
}

TEST_CASE("load_npz of a file that is not a zip archive is an InputError saying what was expected",
          "[data][npz]") {
  const TempDir dir;
  write_bytes(dir / "text.npz", "hello, world\n");
  REQUIRE_THROWS_AS(load_npz(dir / "text.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "text.npz"), Catch::Contains((dir / "text.npz").string()) &&
                                                      Catch::Contains("not a NumPy .npz file") &&
                                                      Catch::Contains("expected a zip archive"));
  REQUIRE_THROWS_AS(load_npz(fixture("f32.npy")), InputError);
  REQUIRE_THROWS_WITH(load_npz(fixture("f32.npy")), Catch::Contains("load_npy"));
}

TEST_CASE("truncated .npy data is an InputError with expected and found byte counts",
          "[data][npz]") {
  const TempDir dir;
  const std::string bytes = read_bytes(fixture("f32.npy"));  // 128-byte header, 96 data bytes
  REQUIRE(bytes.size() == 224);
  write_bytes(dir / "cut.npy", bytes.substr(0, bytes.size() - 5));
  REQUIRE_THROWS_AS(load_npy(dir / "cut.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "cut.npy"), Catch::Contains((dir / "cut.npy").string()) &&
                                                     Catch::Contains("truncated data") &&
                                                     Catch::Contains("(2, 3, 4)") &&
                                                     Catch::Contains("needs 96 bytes, found 91"));
}

TEST_CASE("a truncated array in an .npz is an InputError naming the archive and the array",
          "[data][npz]") {
  for (const char* name : {"truncated_entry.npz", "truncated_entry_deflated.npz"}) {
    INFO(name);
    const fs::path path = fixture(name);
    REQUIRE_THROWS_AS(load_npz(path), InputError);
    REQUIRE_THROWS_WITH(load_npz(path), Catch::Contains(path.string() + ": array 'short'") &&
                                            Catch::Contains("needs 96 bytes, found 91"));
  }
}

TEST_CASE("a truncated .npy header is an InputError with expected and found byte counts",
          "[data][npz]") {
  const TempDir dir;
  const std::string bytes = read_bytes(fixture("f32.npy"));
  write_bytes(dir / "cut.npy", bytes.substr(0, 40));
  REQUIRE_THROWS_AS(load_npy(dir / "cut.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "cut.npy"),
                      Catch::Contains("truncated .npy header: expected 128 bytes, found 40"));
  write_bytes(dir / "cut.npy", bytes.substr(0, 7));
  REQUIRE_THROWS_AS(load_npy(dir / "cut.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "cut.npy"), Catch::Contains("truncated .npy header"));
}

TEST_CASE("an unknown .npy format version is an InputError naming it", "[data][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(fixture("f32.npy"));
  bytes[6] = '\x04';
  write_bytes(dir / "v4.npy", bytes);
  REQUIRE_THROWS_AS(load_npy(dir / "v4.npy"), InputError);
  REQUIRE_THROWS_WITH(load_npy(dir / "v4.npy"),
                      Catch::Contains("unsupported .npy format version 4.0"));
}

TEST_CASE("an unsupported dtype is an InputError naming the file and the dtype string",
          "[data][npz]") {
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
    REQUIRE_THROWS_AS(load_npy(fixture(name)), InputError);
    REQUIRE_THROWS_WITH(load_npy(fixture(name)),
                        Catch::Contains(fixture(name).string()) && Catch::Contains(message));
  }
}

TEST_CASE("an unsupported dtype in an .npz is an InputError naming the archive, array and dtype",
          "[data][npz]") {
  const fs::path path = fixture("unsupported.npz");
  REQUIRE_THROWS_AS(load_npz(path), InputError);
  REQUIRE_THROWS_WITH(load_npz(path), Catch::Contains(path.string() + ": array 'text'") &&
                                          Catch::Contains("unsupported dtype '<U2'"));
}

TEST_CASE("a malformed .npy header is an InputError saying what is wrong", "[data][npz]") {
  const TempDir dir;
  const std::string data(8, '\0');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{'descr': '<i2', 'fortran_order': False, }", "no 'shape' key"},
      {"{'shape': (4,), 'fortran_order': False, }", "no 'descr' key"},
      {"{'descr': '<i2', 'shape': (4,), }", "no 'fortran_order' key"},
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

TEST_CASE("a CRC-32 mismatch in an .npz entry is reported as corrupt", "[data][npz]") {
  const TempDir dir;
  SECTION("the directory's CRC-32 altered") {
    std::string bytes = read_bytes(fixture("savez.npz"));
    bytes.at(first_central_record(bytes) + 16) ^= 0x01;
    write_bytes(dir / "crc.npz", bytes);
  }
  SECTION("a stored data byte altered") {
    std::string bytes = read_bytes(fixture("savez.npz"));
    bytes.at(bytes.find("NUMPY") + 150) ^= 0x01;  // inside the first array's data
    write_bytes(dir / "crc.npz", bytes);
  }
  REQUIRE_THROWS_AS(load_npz(dir / "crc.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "crc.npz"),
                      Catch::Contains((dir / "crc.npz").string()) &&
                          Catch::Contains("entry 'zeta.npy'") &&
                          Catch::Contains("corrupt entry: CRC-32 mismatch"));
}

TEST_CASE("altered deflate data in an .npz entry is reported as corrupt", "[data][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(fixture("savez_compressed.npz"));
  const std::size_t data = 30 + 8 + 20;  // first local header, "zeta.npy", ZIP64 extra
  for (std::size_t i = 0; i < 16; ++i) bytes.at(data + 20 + i) ^= 0x5a;
  write_bytes(dir / "bad.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "bad.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "bad.npz"),
                      Catch::Contains("entry 'zeta.npy'") && Catch::Contains("corrupt"));
}

TEST_CASE("an unsupported compression method is an InputError naming the entry and the method",
          "[data][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(fixture("savez.npz"));
  bytes.at(first_central_record(bytes) + 10) = 12;  // bzip2
  write_bytes(dir / "bzip2.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "bzip2.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "bzip2.npz"),
                      Catch::Contains((dir / "bzip2.npz").string()) &&
                          Catch::Contains("entry 'zeta.npy' uses compression method 12 (bzip2)"));
}

TEST_CASE("an encrypted .npz entry is an InputError naming the entry", "[data][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(fixture("savez.npz"));
  bytes.at(first_central_record(bytes) + 8) |= 0x01;
  write_bytes(dir / "encrypted.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "encrypted.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "encrypted.npz"),
                      Catch::Contains("entry 'zeta.npy' is encrypted"));
}

TEST_CASE("a truncated .npz archive is an InputError naming the file", "[data][npz]") {
  const TempDir dir;
  const std::string bytes = read_bytes(fixture("savez.npz"));
  write_bytes(dir / "cut.npz", bytes.substr(0, bytes.size() / 2));
  REQUIRE_THROWS_AS(load_npz(dir / "cut.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "cut.npz"),
                      Catch::Contains((dir / "cut.npz").string()) &&
                          Catch::Contains("no end-of-central-directory record"));
}

TEST_CASE("an .npz entry whose sizes run past the end of the file is an InputError naming it",
          "[data][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(fixture("savez.npz"));
  const std::size_t record = first_central_record(bytes);
  put_u32(bytes, record + 20, 0x7fff0000);  // compressed size
  put_u32(bytes, record + 24, 0x7fff0000);  // uncompressed size
  write_bytes(dir / "long.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "long.npz"), InputError);
  REQUIRE_THROWS_WITH(
      load_npz(dir / "long.npz"),
      Catch::Contains("entry 'zeta.npy'") && Catch::Contains("run past the end of the file"));
}

TEST_CASE("a deflated .npz entry claiming an impossible size is an InputError", "[data][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(fixture("savez_compressed.npz"));
  put_u32(bytes, first_central_record(bytes) + 24, 0xfffffff0);  // uncompressed size
  write_bytes(dir / "bomb.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "bomb.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "bomb.npz"),
                      Catch::Contains("entry 'zeta.npy'") && Catch::Contains("cannot inflate"));
}

TEST_CASE("bad zip signatures in an .npz are InputErrors naming the file", "[data][npz]") {
  const TempDir dir;
  const std::string original = read_bytes(fixture("savez.npz"));
  SECTION("central directory record") {
    std::string bytes = original;
    bytes.at(first_central_record(bytes)) = 'X';
    write_bytes(dir / "bad.npz", bytes);
    REQUIRE_THROWS_AS(load_npz(dir / "bad.npz"), InputError);
    REQUIRE_THROWS_WITH(load_npz(dir / "bad.npz"),
                        Catch::Contains((dir / "bad.npz").string()) &&
                            Catch::Contains("bad central directory signature"));
  }
  SECTION("local header of the second entry") {
    std::string bytes = original;
    const std::size_t second = bytes.find("PK\x03\x04", 4);
    REQUIRE(second != std::string::npos);
    bytes.at(second + 3) = 'X';
    write_bytes(dir / "bad.npz", bytes);
    // libzip checks local headers archive-wide (ZIP_CHECKCONS) and does not say which failed.
    REQUIRE_THROWS_AS(load_npz(dir / "bad.npz"), InputError);
    REQUIRE_THROWS_WITH(load_npz(dir / "bad.npz"),
                        Catch::Contains((dir / "bad.npz").string()) &&
                            Catch::Contains("bad local header signature"));
  }
}

TEST_CASE("every truncation of an .npy or .npz file is an InputError, never a crash",
          "[data][npz]") {
  const TempDir dir;
  for (const char* name : {"f32.npy", "savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    const std::string bytes = read_bytes(fixture(name));
    const bool npz = std::string(name).find(".npz") != std::string::npos;
    for (std::size_t size = 0; size < bytes.size(); ++size) {
      INFO(name << " cut to " << size << " bytes");
      write_bytes(dir / "cut", bytes.substr(0, size));
      if (npz) {
        REQUIRE_THROWS_AS(load_npz(dir / "cut"), InputError);
      } else {
        REQUIRE_THROWS_AS(load_npy(dir / "cut"), InputError);
      }
    }
  }
}

TEST_CASE("every single-byte corruption of an .npy or .npz file is read or an InputError",
          "[data][npz]") {
  const TempDir dir;
  for (const char* name : {"f32.npy", "savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    const std::string original = read_bytes(fixture(name));
    const bool npz = std::string(name).find(".npz") != std::string::npos;
    for (std::size_t i = 0; i < original.size(); ++i) {
      INFO(name << " with byte " << i << " altered");
      std::string bytes = original;
      bytes[i] = static_cast<char>(bytes[i] ^ 0xff);
      write_bytes(dir / "corrupt", bytes);
      try {
        if (npz) {
          (void)load_npz(dir / "corrupt");
        } else {
          (void)load_npy(dir / "corrupt");
        }
      } catch (const InputError&) {
        // Expected for most bytes; anything else escapes and fails the test.
      }
    }
  }
}
