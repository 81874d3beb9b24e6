// SPDX-License-Identifier: Apache-2.0
#include <neurobench/io/npz.hpp>

#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>
#include <zlib.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>

#include "util/array_budget.hpp"
#include "io/npy_fixtures.hpp"
#include "io/zip_bytes.hpp"
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
std::string npz_outcome_of(const fs::path& path, const std::vector<NamedArray>& expected) {
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
                          Catch::Contains("array 'caf\\xe9'") &&
                          Catch::Contains("not valid UTF-8"));
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
      CHECK_THAT(npz_outcome_of(dir / "corrupt", expected),
                 Catch::Equals("read unaltered") || Catch::Equals("InputError"));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Reading selectively, within limits, and refusing ambiguous archives

namespace {

using neurobench::NpzArchive;
using neurobench::NpzReadOptions;

/// A float32 .npy of `count` values, each `value`.
std::string f32_npy(std::int64_t count, float value = 0.0F) {
  std::string data(static_cast<std::size_t>(count) * sizeof(float), '\0');
  for (std::int64_t i = 0; i < count; ++i) {
    std::memcpy(&data[static_cast<std::size_t>(i) * sizeof(float)], &value, sizeof(float));
  }
  return make_npy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }",
      data);
}

/// An object array as NumPy pickles a list of two strings (np.save(..., allow_pickle=True)).
std::string object_npy() {
  // PROTO 2, EMPTY_LIST, MARK, two BINUNICODE strings, APPENDS, STOP.
  const std::string pickle =
      std::string("\x80\x02](X\x01\0\0\0", 9) + "a" + std::string("X\x01\0\0\0", 5) + "b" + "e.";
  return make_npy("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", pickle);
}

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

}  // namespace

TEST_CASE("NpzArchive lists every array and reads only those asked for", "[io][npz]") {
  const TempDir dir;
  // `zeros` states 16 MiB and deflates to a few kB; `objects` is a pickled object array.
  write_bytes(dir / "mixed.npz", make_zip({{"data.npy", f32_npy(4, 1.5F)},
                                           {"objects.npy", object_npy()},
                                           {"zeros.npy", f32_npy(4 * kMiB), true},
                                           {"targets.npy", f32_npy(4, 2.0F), true}}));
  NpzReadOptions options;
  options.max_array_bytes = kMiB;
  NpzArchive archive(dir / "mixed.npz", options);
  CHECK(archive.names() == std::vector<std::string>{"data", "objects", "zeros", "targets"});
  CHECK(archive.contains("zeros"));
  CHECK_FALSE(archive.contains("zeros.npy"));
  CHECK(torch::equal(archive.read("data"), torch::full({4}, 1.5F)));
  CHECK(torch::equal(archive.read("targets"), torch::full({4}, 2.0F)));
  // Asked for, the others fail, each naming itself; unasked, they cost nothing.
  REQUIRE_THROWS_AS(archive.read("objects"), InputError);
  REQUIRE_THROWS_WITH(archive.read("objects"),
                      Catch::Contains("array 'objects'") && Catch::Contains("'|O'"));
  REQUIRE_THROWS_AS(archive.read("zeros"), InputError);
  REQUIRE_THROWS_WITH(archive.read("zeros"),
                      Catch::Contains((dir / "mixed.npz").string() + ": array 'zeros'") &&
                          Catch::Contains("16777344 bytes") &&
                          Catch::Contains("more than the limit of 1048576 bytes") &&
                          Catch::Contains("nothing of it was read"));
  REQUIRE_THROWS_AS(archive.read("labels"), InputError);
  REQUIRE_THROWS_WITH(archive.read("labels"),
                      Catch::Contains("no array named 'labels'") &&
                          Catch::Contains("found: data, objects, zeros, targets"));
  // The limit is a size, not a ratio: the same array reads whole under a higher one.
  options.max_array_bytes = 17 * kMiB;
  CHECK(NpzArchive(dir / "mixed.npz", options).read("zeros").numel() ==
        static_cast<std::int64_t>(4 * kMiB));
}

TEST_CASE("load_npz applies the array limit to every array and refuses a zero limit", "[io][npz]") {
  const TempDir dir;
  write_bytes(dir / "two.npz",
              make_zip({{"small.npy", f32_npy(4)}, {"large.npy", f32_npy(64 * 1024), true}}));
  NpzReadOptions options;
  options.max_array_bytes = 64 * 1024;
  REQUIRE_THROWS_AS(load_npz(dir / "two.npz", options), InputError);
  REQUIRE_THROWS_WITH(load_npz(dir / "two.npz", options),
                      Catch::Contains("array 'large'") && Catch::Contains("limit of 65536"));
  options.max_array_bytes = 0;
  REQUIRE_THROWS_AS(load_npz(dir / "two.npz", options), neurobench::UsageError);
  REQUIRE_THROWS_WITH(load_npz(dir / "two.npz", options), Catch::Contains("max_array_bytes"));
}

TEST_CASE("an array larger than the memory available is refused before it is allocated",
          "[io][npz]") {
  using neurobench::detail::check_array_bytes;
  const std::string where = "x.npz: array 'a'";
  const std::uint64_t gib = std::uint64_t{1} << 30;
  REQUIRE_NOTHROW(check_array_bytes(gib, 16 * gib, 2 * gib, where));
  REQUIRE_NOTHROW(check_array_bytes(gib, 16 * gib, std::nullopt, where));
  REQUIRE_THROWS_AS(check_array_bytes(64 * gib, 128 * gib, 8 * gib, where), InputError);
  REQUIRE_THROWS_WITH(check_array_bytes(64 * gib, 128 * gib, 8 * gib, where),
                      Catch::StartsWith(where) && Catch::Contains("68719476736 bytes (64.0 GiB)") &&
                          Catch::Contains("more than the 8589934592 bytes (8.0 GiB) of memory "
                                          "available"));
  REQUIRE_THROWS_WITH(check_array_bytes(64 * gib, 16 * gib, std::nullopt, where),
                      Catch::Contains("more than the limit of 17179869184 bytes (16.0 GiB)"));
  const std::optional<std::uint64_t> available = neurobench::detail::available_memory();
  REQUIRE(available.has_value());
  CHECK(*available > 0);
}

TEST_CASE("an .npy header stating 64 GiB in a small entry is refused without allocating it",
          "[io][npz]") {
  const TempDir dir;
  // 2^34 float32 values: 64 GiB that are not there. Allocating them first would fail the test
  // with std::bad_alloc (or worse), not with the InputError checked here.
  write_bytes(dir / "bomb.npz", make_zip({{"bomb.npy",
                                           make_npy("{'descr': '<f4', 'fortran_order': False, "
                                                    "'shape': (17179869184,), }",
                                                    std::string(4096, '\0')),
                                           true}}));
  REQUIRE_THROWS_AS(load_npz(dir / "bomb.npz"), InputError);
  REQUIRE_THROWS_WITH(
      load_npz(dir / "bomb.npz"),
      Catch::Contains("array 'bomb'") && Catch::Contains("needs 68719476736 bytes, found 4096"));
}

TEST_CASE("an entry whose stream inflates to more or fewer bytes than stated is refused",
          "[io][npz]") {
  const TempDir dir;
  const std::string npy = f32_npy(64, 3.0F);
  const auto stated = static_cast<std::uint32_t>(npy.size());
  SECTION("more: reading stops one byte past the stated size") {
    write_bytes(dir / "lie.npz",
                make_zip({{"a.npy", npy + std::string(100000, '\0'), true, stated}}));
    REQUIRE_THROWS_AS(load_npz(dir / "lie.npz"), InputError);
    REQUIRE_THROWS_WITH(
        load_npz(dir / "lie.npz"),
        Catch::Contains("entry 'a.npy'") &&
            Catch::Contains("inflates to more than the " + std::to_string(stated) + " bytes"));
  }
  SECTION("fewer") {
    write_bytes(dir / "lie.npz",
                make_zip({{"a.npy", npy.substr(0, npy.size() - 40), true, stated}}));
    REQUIRE_THROWS_AS(load_npz(dir / "lie.npz"), InputError);
    REQUIRE_THROWS_WITH(
        load_npz(dir / "lie.npz"),
        Catch::Contains("entry 'a.npy'") &&
            Catch::Contains("inflates to " + std::to_string(npy.size() - 40) +
                            " bytes, but its directory record states " + std::to_string(stated)));
  }
}

TEST_CASE("an .npz entry holding bytes after its array is refused", "[io][npz]") {
  const TempDir dir;
  const std::string npy = f32_npy(4);
  for (const bool deflate : {false, true}) {
    INFO("deflated: " << deflate);
    write_bytes(dir / "tail.npz", make_zip({{"a.npy", npy + "trailing", deflate}}));
    REQUIRE_THROWS_AS(load_npz(dir / "tail.npz"), InputError);
    REQUIRE_THROWS_WITH(load_npz(dir / "tail.npz"),
                        Catch::Contains("array 'a'") &&
                            Catch::Contains("holds " + std::to_string(npy.size() + 8) + " bytes") &&
                            Catch::Contains("make " + std::to_string(npy.size())));
  }
}

TEST_CASE("an .npz holding two entries for one array is refused, naming both", "[io][npz]") {
  const TempDir dir;
  SECTION("two entries of one name") {
    write_bytes(dir / "twice.npz", make_zip({{"data.npy", f32_npy(2, 1.0F)},
                                             {"targets.npy", f32_npy(2)},
                                             {"data.npy", f32_npy(2, 9.0F)}}));
    REQUIRE_THROWS_AS(NpzArchive(dir / "twice.npz"), InputError);
    REQUIRE_THROWS_WITH(NpzArchive(dir / "twice.npz"),
                        Catch::Contains((dir / "twice.npz").string()) &&
                            Catch::Contains("entries 1 'data.npy' and 3 'data.npy' both hold an "
                                            "array named 'data'"));
  }
  SECTION("one name with and without .npy") {
    write_bytes(dir / "twice.npz",
                make_zip({{"data", f32_npy(2, 1.0F)}, {"data.npy", f32_npy(2, 9.0F)}}));
    REQUIRE_THROWS_AS(load_npz(dir / "twice.npz"), InputError);
    REQUIRE_THROWS_WITH(load_npz(dir / "twice.npz"),
                        Catch::Contains("entries 1 'data' and 2 'data.npy' both hold an array "
                                        "named 'data'"));
  }
}

TEST_CASE("an end record whose entry counts disagree is called corrupt, not split", "[io][npz]") {
  const TempDir dir;
  const std::vector<neurobench::test::ZipEntry> entries = {
      {"a.npy", f32_npy(2)}, {"b.npy", f32_npy(3)}, {"c.npy", f32_npy(4)}};
  SECTION("on this disk and in all differ") {
    for (const auto& counts : {std::pair<std::uint16_t, std::uint16_t>{2, 3},
                               std::pair<std::uint16_t, std::uint16_t>{3, 2},
                               std::pair<std::uint16_t, std::uint16_t>{3, 7}}) {
      INFO(counts.first << " on this disk, " << counts.second << " in all");
      write_bytes(dir / "count.npz", make_zip(entries, counts));
      REQUIRE_THROWS_AS(load_npz(dir / "count.npz"), InputError);
      REQUIRE_THROWS_WITH(
          load_npz(dir / "count.npz"),
          Catch::Contains("end-of-central-directory record is corrupt: it states " +
                          std::to_string(counts.first) + " entries on this disk but " +
                          std::to_string(counts.second) + " in all") &&
              !Catch::Contains("multi-disk"));
    }
  }
  SECTION("both agree, with each other but not with the directory") {
    write_bytes(dir / "count.npz",
                make_zip(entries, std::pair<std::uint16_t, std::uint16_t>{2, 2}));
    REQUIRE_THROWS_AS(load_npz(dir / "count.npz"), InputError);
    REQUIRE_THROWS_WITH(load_npz(dir / "count.npz"),
                        Catch::Contains("states 2 entries, but the central directory holds 3"));
  }
  SECTION("in the ZIP64 end record") {
    std::string bytes = read_bytes(npz_fixture("zip64.npz"));
    const std::size_t end64 = bytes.rfind("PK\x06\x06");
    REQUIRE(end64 != std::string::npos);
    bytes.at(end64 + 24) = 5;  // entries on this disk: 5 of 3
    write_bytes(dir / "count.npz", bytes);
    REQUIRE_THROWS_AS(load_npz(dir / "count.npz"), InputError);
    REQUIRE_THROWS_WITH(load_npz(dir / "count.npz"),
                        Catch::Contains("ZIP64 end-of-central-directory record is corrupt: it "
                                        "states 5 entries on this disk but 3 in all") &&
                            !Catch::Contains("multi-disk"));
  }
  SECTION("a split archive is still called one") {
    std::string bytes = make_zip(entries);
    bytes.at(bytes.size() - 22 + 4) = 1;  // number of this disk
    write_bytes(dir / "split.npz", bytes);
    REQUIRE_THROWS_WITH(load_npz(dir / "split.npz"), Catch::Contains("multi-disk (split)"));
  }
}

TEST_CASE("NpzArchive::read_rows keeps rows of an array and still checks the whole entry",
          "[io][npz][rows]") {
  for (const char* file : {"savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    neurobench::NpzArchive archive(npz_fixture(file));
    for (const std::string& name : archive.names()) {
      const torch::Tensor whole = archive.read(name);
      INFO(file << ": " << name << " of shape " << whole.sizes());
      CHECK(archive.shape(name) == whole.sizes().vec());
      if (whole.dim() == 0) {
        REQUIRE_THROWS_WITH(archive.read_rows(name, 0, 0), Catch::Contains("is a scalar"));
        continue;
      }
      const int64_t n = whole.size(0);
      // Every range of an array's rows, the empty ones at each end included; Fortran-order and
      // big-endian arrays among them.
      for (int64_t first = 0; first <= n; ++first) {
        for (int64_t end = first; end <= n; ++end) {
          CHECK(
              identical(archive.read_rows(name, first, end), whole.narrow(0, first, end - first)));
        }
      }
      REQUIRE_THROWS_AS(archive.read_rows(name, 0, n + 1), InputError);
      REQUIRE_THROWS_WITH(archive.read_rows(name, 1, 0),
                          Catch::Contains("array '" + name + "'") &&
                              Catch::Contains("rows [1, 0) asked for, but the array has"));
    }
  }
}

namespace {

/// The 16 rows of 4 floats (0 to 63) that the rows tests save as `data`.
torch::Tensor sixteen_rows() { return torch::arange(64, torch::kFloat).reshape({16, 4}); }

/// `path`, an .npz of sixteen_rows() as `data` (stored), with its bytes then changed by `damage`.
void save_damaged_rows(const fs::path& path, const std::function<void(std::string&)>& damage) {
  save_npz(path, {{"data", sixteen_rows()}});
  std::string bytes = read_bytes(path);
  damage(bytes);
  write_bytes(path, bytes);
}

/// The CRC-32 of a first part and the rest together, as the ranks of a sharded run combine them.
std::uint32_t combined_crc32(const neurobench::NpzRowsPart& head,
                             const neurobench::NpzRowsPart& tail) {
  return static_cast<std::uint32_t>(
      crc32_combine64(head.crc32, tail.crc32, static_cast<z_off64_t>(tail.end - tail.begin)));
}

}  // namespace

TEST_CASE("NpzArchive::read_rows reports a CRC-32 mismatch outside the rows it keeps",
          "[io][npz][rows]") {
  const TempDir dir;
  const fs::path path = dir / "rows.npz";
  save_damaged_rows(path, [](std::string& bytes) {
    bytes.at(bytes.size() - 200) ^= 0x01;  // in the last rows' data, before the directory
  });
  neurobench::NpzArchive archive(path);
  REQUIRE_THROWS_WITH(archive.read_rows("data", 0, 2),
                      Catch::Contains("corrupt entry: CRC-32 mismatch"));
}

TEST_CASE("NpzArchive::read_rows_alone reads a stored entry's rows and no other data",
          "[io][npz][rows]") {
  for (const char* file : {"savez.npz", "savez_compressed.npz", "zip64.npz"}) {
    neurobench::NpzArchive archive(npz_fixture(file));
    int read_alone = 0;
    for (const std::string& name : archive.names()) {
      const torch::Tensor whole = archive.read(name);
      if (whole.dim() == 0) continue;
      INFO(file << ": " << name << " of shape " << whole.sizes());
      const int64_t n = whole.size(0);
      const auto all = archive.read_rows_alone(name, 0, n, true);
      if (std::string(file) == "savez_compressed.npz") {
        CHECK_FALSE(all);  // deflated: read_rows() then
        continue;
      }
      if (!all) continue;  // a Fortran-order array: its rows are not one run of bytes
      ++read_alone;
      // The first part of every rows: the whole entry, whose CRC-32 the directory states.
      CHECK(identical(all->rows, whole));
      CHECK(all->begin == 0);
      CHECK(all->end == all->entry_bytes);
      CHECK(all->crc32 == all->entry_crc32);
      CHECK(all->entry == name + ".npy");
      // Every split into a first part and the rest: the rest begins where the first ends, and
      // their CRC-32s combined make the entry's.
      for (int64_t k = 0; k <= n; ++k) {
        const auto head = archive.read_rows_alone(name, 0, k, true);
        const auto tail = archive.read_rows_alone(name, k, n, false);
        REQUIRE(head);
        REQUIRE(tail);
        CHECK(identical(head->rows, whole.narrow(0, 0, k)));
        CHECK(identical(tail->rows, whole.narrow(0, k, n - k)));
        CHECK(head->end == tail->begin);
        CHECK(tail->end == all->entry_bytes);
        CHECK(combined_crc32(*head, *tail) == all->entry_crc32);
      }
      CHECK_THROWS_WITH(archive.read_rows_alone(name, 1, n + 1, false),
                        Catch::Contains("array '" + name + "'"));
    }
    if (std::string(file) != "savez_compressed.npz") CHECK(read_alone > 0);
  }
}

TEST_CASE("NpzArchive::read_rows_alone leaves damage outside its rows to the parts' check",
          "[io][npz][rows]") {
  const TempDir dir;
  const fs::path path = dir / "rows.npz";
  save_damaged_rows(path, [](std::string& bytes) {
    bytes.at(bytes.size() - 200) ^= 0x01;  // in the last rows' data, before the directory
  });
  neurobench::NpzArchive archive(path);
  const auto head = archive.read_rows_alone("data", 0, 2, true);
  REQUIRE(head);
  CHECK(identical(head->rows, sixteen_rows().narrow(0, 0, 2)));
  const auto tail = archive.read_rows_alone("data", 2, 16, false);
  REQUIRE(tail);
  // The damage is in the tail's rows: the parts together do not make the entry's CRC-32.
  CHECK(combined_crc32(*head, *tail) != head->entry_crc32);
}

TEST_CASE("NpzArchive::read_rows_alone reports a damaged .npy header as read() does",
          "[io][npz][rows]") {
  const TempDir dir;
  const fs::path path = dir / "header.npz";
  save_damaged_rows(path, [](std::string& bytes) {
    const std::size_t descr = bytes.find("'descr'");
    REQUIRE(descr != std::string::npos);
    bytes.at(descr + 1) = 'X';  // the key no longer parses; the CRC-32 shows the damage
  });
  neurobench::NpzArchive archive(path);
  REQUIRE_THROWS_WITH(archive.read("data"), Catch::Contains("corrupt entry: CRC-32 mismatch"));
  for (const bool from_start : {true, false}) {
    REQUIRE_THROWS_WITH(archive.read_rows_alone("data", 4, 8, from_start),
                        Catch::Contains("corrupt entry: CRC-32 mismatch"));
  }
}
