// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/npz.hpp>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

#include "io/npy_fixtures.hpp"
#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace neurobench::test;  // NOLINT: the fixture arrays and helpers
using neurobench::InputError;
using neurobench::load_npy;
using neurobench::load_npz;
using neurobench::NamedArray;
using neurobench::save_npy;
using neurobench::save_npz;

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

/// The arrays of savez.npz and savez_compressed.npz, in the order they were saved.
std::vector<NamedArray> npz_arrays() {
  return {{"zeta", f32()[0]},
          {"alpha", i64()},
          {"mid", b1()},
          {"scalar", torch::scalar_tensor(7, torch::kShort)},
          {"fortran", f64().reshape({2, 5})},
          {"big_endian", i32()}};
}

/// The arrays of zip64.npz.
std::vector<NamedArray> zip64_arrays() {
  return {{"stored", f32()}, {"deflated", i64()}, {"flags", b1()}};
}

bool same_arrays(const std::vector<NamedArray>& actual, const std::vector<NamedArray>& expected) {
  if (actual.size() != expected.size()) return false;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (actual[i].first != expected[i].first || !identical(actual[i].second, expected[i].second)) {
      return false;
    }
  }
  return true;
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

/// What load_npz makes of `path`: "read unaltered" (the `expected` arrays), "read altered",
/// "InputError", or what another exception says, so that a check on the outcome shows it.
std::string outcome_of(const fs::path& path, const std::vector<NamedArray>& expected) {
  try {
    return same_arrays(load_npz(path), expected) ? "read unaltered" : "read altered";
  } catch (const InputError&) {
    return "InputError";
  } catch (const std::exception& e) {
    return std::string("another exception: ") + e.what();
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Reading

TEST_CASE("load_npz reads np.savez archives with names in archive order", "[io][npz]") {
  require_same_arrays(load_npz(npz_fixture("savez.npz")), npz_arrays());
}

TEST_CASE("load_npz reads np.savez_compressed archives", "[io][npz]") {
  require_same_arrays(load_npz(npz_fixture("savez_compressed.npz")), npz_arrays());
}

TEST_CASE("load_npz reads an archive without arrays as an empty list", "[io][npz]") {
  CHECK(load_npz(npz_fixture("savez_empty.npz")).empty());
}

TEST_CASE("load_npz reads sizes and offsets from ZIP64 extra fields and end records", "[io][npz]") {
  require_same_arrays(load_npz(npz_fixture("zip64.npz")), zip64_arrays());
}

// ---------------------------------------------------------------------------------------------
// Writing

TEST_CASE("save_npz then load_npz round-trips names, order and values", "[io][npz]") {
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
          "[io][npz]") {
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

TEST_CASE("save_npz writes stored entries starting with a zip local header", "[io][npz]") {
  const TempDir dir;
  save_npz(dir / "out.npz", {{"x", f32()}});
  const std::string bytes = read_bytes(dir / "out.npz");
  CHECK(bytes.compare(0, 4, "PK\x03\x04") == 0);
  const std::size_t record = first_central_record(bytes);
  CHECK(get_u32(bytes, record) == 0x02014b50);
  CHECK((get_u32(bytes, record + 8) >> 16) == 0);  // compression method: stored
}

TEST_CASE("save_npz writes an empty archive that load_npz reads back as empty", "[io][npz]") {
  const TempDir dir;
  save_npz(dir / "empty.npz", {});
  CHECK(load_npz(dir / "empty.npz").empty());
  CHECK(read_bytes(dir / "empty.npz").size() == 22);
}

TEST_CASE("save_npz rejects two arrays with the same name and writes nothing", "[io][npz]") {
  const TempDir dir;
  const std::vector<NamedArray> arrays = {{"x", f32()}, {"y", i8()}, {"x", u8()}};
  REQUIRE_THROWS_AS(save_npz(dir / "dup.npz", arrays), InputError);
  REQUIRE_THROWS_WITH(save_npz(dir / "dup.npz", arrays),
                      Catch::Contains("array 'x'") && Catch::Contains("more than once"));
  CHECK_FALSE(fs::exists(dir / "dup.npz"));
}

TEST_CASE("save_npz rejects a name that is not UTF-8 or holds a NUL byte and writes nothing",
          "[io][npz]") {
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
          "[io][npz]") {
  const TempDir dir;
  write_bytes(dir / "out.npz", std::string(5000, 'x'));
  save_npz(dir / "out.npz", {{"x", f32()}});
  require_same_arrays(load_npz(dir / "out.npz"), {{"x", f32()}});
  save_npz(dir / "out.npz", {});
  CHECK(load_npz(dir / "out.npz").empty());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir.path())) files.push_back(entry.path());
  CHECK(files == std::vector<fs::path>{dir / "out.npz"});
}

TEST_CASE("save_npz rejects an array it cannot write, naming path and array, and writes nothing",
          "[io][npz]") {
  const TempDir dir;
  const fs::path npz = dir / "bad.npz";
  const std::vector<NamedArray> arrays = {{"fine", f32()},
                                          {"waves", torch::zeros({2}, torch::kComplexFloat)}};
  REQUIRE_THROWS_AS(save_npz(npz, arrays), InputError);
  REQUIRE_THROWS_WITH(save_npz(npz, arrays), Catch::Contains(npz.string()) &&
                                                 Catch::Contains("array 'waves'") &&
                                                 Catch::Contains("ComplexFloat"));
  CHECK_FALSE(fs::exists(npz));
}

TEST_CASE("save_npz throws an InputError naming a path it cannot open", "[io][npz]") {
  const TempDir dir;
  const fs::path npz = dir / "no_such_dir" / "out.npz";
  REQUIRE_THROWS_AS(save_npz(npz, {{"x", f32()}}), InputError);
  REQUIRE_THROWS_WITH(save_npz(npz, {{"x", f32()}}),
                      Catch::Contains(npz.string()) && Catch::Contains("cannot open for writing"));
}

// ---------------------------------------------------------------------------------------------
// Errors while reading

TEST_CASE("a missing .npz file is an InputError saying there is no such file", "[io][npz]") {
  const fs::path npz = npz_fixture("does_not_exist.npz");
  REQUIRE_THROWS_AS(load_npz(npz), InputError);
  REQUIRE_THROWS_WITH(load_npz(npz), npz.string() + ": no such file");
}

TEST_CASE("load_npz of a file that is not a zip archive is an InputError saying what was expected",
          "[io][npz]") {
  const TempDir dir;
  write_bytes(dir / "text.npz", "hello, world\n");
  REQUIRE_THROWS_AS(load_npz(dir / "text.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "text.npz"), Catch::Contains((dir / "text.npz").string()) &&
                                                      Catch::Contains("not a NumPy .npz file") &&
                                                      Catch::Contains("expected a zip archive"));
  REQUIRE_THROWS_AS(load_npz(npz_fixture("f32.npy")), InputError);
  REQUIRE_THROWS_WITH(load_npz(npz_fixture("f32.npy")), Catch::Contains("load_npy"));
}

TEST_CASE("a truncated array in an .npz is an InputError naming the archive and the array",
          "[io][npz]") {
  for (const char* name : {"truncated_entry.npz", "truncated_entry_deflated.npz"}) {
    INFO(name);
    const fs::path path = npz_fixture(name);
    REQUIRE_THROWS_AS(load_npz(path), InputError);
    REQUIRE_THROWS_WITH(load_npz(path), Catch::Contains(path.string() + ": array 'short'") &&
                                            Catch::Contains("needs 96 bytes, found 91"));
  }
}

TEST_CASE("an unsupported dtype in an .npz is an InputError naming the archive, array and dtype",
          "[io][npz]") {
  const fs::path path = npz_fixture("unsupported.npz");
  REQUIRE_THROWS_AS(load_npz(path), InputError);
  REQUIRE_THROWS_WITH(load_npz(path), Catch::Contains(path.string() + ": array 'text'") &&
                                          Catch::Contains("unsupported dtype '<U2'"));
}

TEST_CASE("a CRC-32 mismatch in an .npz entry is reported as corrupt", "[io][npz]") {
  const TempDir dir;
  SECTION("the directory's CRC-32 altered") {
    std::string bytes = read_bytes(npz_fixture("savez.npz"));
    bytes.at(first_central_record(bytes) + 16) ^= 0x01;
    write_bytes(dir / "crc.npz", bytes);
  }
  SECTION("a stored data byte altered") {
    std::string bytes = read_bytes(npz_fixture("savez.npz"));
    bytes.at(bytes.find("NUMPY") + 150) ^= 0x01;  // inside the first array's data
    write_bytes(dir / "crc.npz", bytes);
  }
  REQUIRE_THROWS_AS(load_npz(dir / "crc.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "crc.npz"),
                      Catch::Contains((dir / "crc.npz").string()) &&
                          Catch::Contains("entry 'zeta.npy'") &&
                          Catch::Contains("corrupt entry: CRC-32 mismatch"));
}

TEST_CASE("altered deflate data in an .npz entry is reported as corrupt", "[io][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(npz_fixture("savez_compressed.npz"));
  const std::size_t data = 30 + 8 + 20;  // first local header, "zeta.npy", ZIP64 extra
  for (std::size_t i = 0; i < 16; ++i) bytes.at(data + 20 + i) ^= 0x5a;
  write_bytes(dir / "bad.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "bad.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "bad.npz"),
                      Catch::Contains("entry 'zeta.npy'") && Catch::Contains("corrupt"));
}

TEST_CASE("an unsupported compression method is an InputError naming the entry and the method",
          "[io][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(npz_fixture("savez.npz"));
  bytes.at(first_central_record(bytes) + 10) = 12;  // bzip2
  write_bytes(dir / "bzip2.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "bzip2.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "bzip2.npz"),
                      Catch::Contains((dir / "bzip2.npz").string()) &&
                          Catch::Contains("entry 'zeta.npy' uses compression method 12 (bzip2)"));
}

TEST_CASE("an encrypted .npz entry is an InputError naming the entry", "[io][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(npz_fixture("savez.npz"));
  bytes.at(first_central_record(bytes) + 8) |= 0x01;
  write_bytes(dir / "encrypted.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "encrypted.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "encrypted.npz"),
                      Catch::Contains("entry 'zeta.npy' is encrypted"));
}

TEST_CASE("a truncated .npz archive is an InputError naming the file", "[io][npz]") {
  const TempDir dir;
  const std::string bytes = read_bytes(npz_fixture("savez.npz"));
  write_bytes(dir / "cut.npz", bytes.substr(0, bytes.size() / 2));
  REQUIRE_THROWS_AS(load_npz(dir / "cut.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "cut.npz"),
                      Catch::Contains((dir / "cut.npz").string()) &&
                          Catch::Contains("no end-of-central-directory record"));
}

TEST_CASE("an .npz entry whose sizes run past the end of the file is an InputError naming it",
          "[io][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(npz_fixture("savez.npz"));
  const std::size_t record = first_central_record(bytes);
  put_u32(bytes, record + 20, 0x7fff0000);  // compressed size
  put_u32(bytes, record + 24, 0x7fff0000);  // uncompressed size
  write_bytes(dir / "long.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "long.npz"), InputError);
  REQUIRE_THROWS_WITH(
      load_npz(dir / "long.npz"),
      Catch::Contains("entry 'zeta.npy'") && Catch::Contains("run past the end of the file"));
}

TEST_CASE("a deflated .npz entry claiming an impossible size is an InputError", "[io][npz]") {
  const TempDir dir;
  std::string bytes = read_bytes(npz_fixture("savez_compressed.npz"));
  put_u32(bytes, first_central_record(bytes) + 24, 0xfffffff0);  // uncompressed size
  write_bytes(dir / "bomb.npz", bytes);
  REQUIRE_THROWS_AS(load_npz(dir / "bomb.npz"), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "bomb.npz"),
                      Catch::Contains("entry 'zeta.npy'") && Catch::Contains("cannot inflate"));
}

TEST_CASE("bad zip signatures in an .npz are InputErrors naming the file", "[io][npz]") {
  const TempDir dir;
  const std::string original = read_bytes(npz_fixture("savez.npz"));
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

TEST_CASE("every truncation of an .npz file is an InputError, never a crash", "[io][npz]") {
  const TempDir dir;
  for (const char* name : {"savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    const std::string bytes = read_bytes(npz_fixture(name));
    for (std::size_t size = 0; size < bytes.size(); ++size) {
      INFO(name << " cut to " << size << " bytes");
      write_bytes(dir / "cut", bytes.substr(0, size));
      REQUIRE_THROWS_AS(load_npz(dir / "cut"), InputError);
    }
  }
}

TEST_CASE(
    "every single-byte corruption of an .npz file gives its arrays unaltered or an InputError",
    "[io][npz]") {
  // The CRC-32 covers every byte of an entry and libzip checks every local header against the
  // central directory, so no corruption can alter a name or a value unnoticed.
  const TempDir dir;
  const std::vector<std::pair<std::string, std::vector<NamedArray>>> files = {
      {"savez.npz", npz_arrays()},
      {"savez_compressed.npz", npz_arrays()},
      {"zip64.npz", zip64_arrays()}};
  for (const auto& [name, expected] : files) {
    const std::string original = read_bytes(npz_fixture(name));
    for (std::size_t i = 0; i < original.size(); ++i) {
      INFO(name << " with byte " << i << " altered");
      std::string bytes = original;
      bytes[i] = static_cast<char>(bytes[i] ^ 0xff);
      write_bytes(dir / "corrupt", bytes);
      CHECK_THAT(outcome_of(dir / "corrupt", expected),
                 Catch::Equals("read unaltered") || Catch::Equals("InputError"));
    }
  }
}
