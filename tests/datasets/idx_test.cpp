// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/idx.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "support.hpp"

using neurobench::InputError;
using neurobench::datasets::fashion_mnist;
using neurobench::datasets::FashionMnistSplit;
using neurobench::datasets::load_idx;
using neurobench::test::TempDir;

namespace {

using Bytes = std::vector<std::uint8_t>;

void put_u32_be(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// An IDX file: magic 00 00 dtype ndims, big-endian dims, then `data` as given (already
// big-endian: the tests spell out the bytes, independently of the reader).
Bytes idx(std::uint8_t dtype, const std::vector<std::uint32_t>& dims, const Bytes& data) {
  Bytes out = {0, 0, dtype, static_cast<std::uint8_t>(dims.size())};
  for (std::uint32_t d : dims) put_u32_be(out, d);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::uint32_t crc32(const Bytes& data) {
  std::uint32_t crc = 0xFFFFFFFFU;
  for (std::uint8_t byte : data) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320U & (0U - (crc & 1U)));
  }
  return ~crc;
}

void put_u32_le(Bytes& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// A gzip member (RFC 1952) holding `data` in stored deflate blocks (RFC 1951): written here
// without zlib, so the reader is checked against an independent writer.
Bytes gzip(const Bytes& data) {
  Bytes out = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  std::size_t at = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, data.size() - at);
    const bool last = at + len == data.size();
    out.push_back(last ? 1 : 0);  // BFINAL, BTYPE = 00 (stored), padded to the byte
    out.push_back(static_cast<std::uint8_t>(len));
    out.push_back(static_cast<std::uint8_t>(len >> 8));
    out.push_back(static_cast<std::uint8_t>(~len));
    out.push_back(static_cast<std::uint8_t>(~len >> 8));
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(at),
               data.begin() + static_cast<std::ptrdiff_t>(at + len));
    at += len;
  } while (at < data.size());
  put_u32_le(out, crc32(data));
  put_u32_le(out, static_cast<std::uint32_t>(data.size()));
  return out;
}

std::filesystem::path write(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

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

// Fake Fashion-MNIST files: `n_images` 28x28 images (pixel p of image i is (i * 7 + p) % 256)
// and `labels`.
void write_fashion(const std::filesystem::path& dir, const std::string& prefix,
                   std::uint32_t n_images, const Bytes& labels, bool gz,
                   std::vector<std::uint32_t> image_dims = {}) {
  if (image_dims.empty()) image_dims = {n_images, 28, 28};
  std::size_t count = 1;
  for (auto d : image_dims) count *= d;
  Bytes pixels(count);
  for (std::size_t k = 0; k < count; ++k)
    pixels[k] = static_cast<std::uint8_t>((k / 784 * 7 + k % 784) % 256);
  const Bytes images = idx(0x08, image_dims, pixels);
  const Bytes label_file = idx(0x08, {static_cast<std::uint32_t>(labels.size())}, labels);
  const std::string suffix = gz ? ".gz" : "";
  write(dir / (prefix + "-images-idx3-ubyte" + suffix), gz ? gzip(images) : images);
  write(dir / (prefix + "-labels-idx1-ubyte" + suffix), gz ? gzip(label_file) : label_file);
}

}  // namespace

TEST_CASE("an unsigned byte IDX file is read with its shape and values, plain or gzipped",
          "[datasets][idx]") {
  TempDir tmp;
  const Bytes file = idx(0x08, {2, 3}, {0, 1, 2, 253, 254, 255});
  const bool gz = GENERATE(false, true);
  const auto path = write(tmp / (gz ? "a.gz" : "a"), gz ? gzip(file) : file);
  const torch::Tensor t = load_idx(path);
  REQUIRE(t.scalar_type() == torch::kUInt8);
  REQUIRE(t.sizes() == torch::IntArrayRef{2, 3});
  CHECK(torch::equal(t, torch::tensor({0, 1, 2, 253, 254, 255}, torch::kUInt8).reshape({2, 3})));
}

TEST_CASE("every IDX dtype is read big-endian into the matching tensor dtype", "[datasets][idx]") {
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
          "[datasets][idx]") {
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

TEST_CASE("an IDX file with a zero dimension gives an empty tensor of that shape",
          "[datasets][idx]") {
  TempDir tmp;
  const torch::Tensor t = load_idx(write(tmp / "empty", idx(0x0D, {0, 5}, {})));
  CHECK(t.scalar_type() == torch::kFloat32);
  CHECK(t.sizes() == torch::IntArrayRef{0, 5});
}

TEST_CASE("a missing IDX file is an InputError naming it", "[datasets][idx]") {
  TempDir tmp;
  const auto path = tmp / "nothing-idx1-ubyte";
  REQUIRE_THROWS_AS(load_idx(path), InputError);
  REQUIRE_THROWS_WITH(load_idx(path),
                      Catch::Contains(path.string()) && Catch::Contains("no such file"));
}

TEST_CASE("a bad IDX magic number is an InputError that shows it", "[datasets][idx]") {
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
          "[datasets][idx]") {
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

TEST_CASE("a corrupt or cut gzip stream is an InputError naming the file", "[datasets][idx]") {
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

TEST_CASE("fashion_mnist gives float images in [0, 1] shaped (N, 1, 28, 28) and int64 labels",
          "[datasets][idx]") {
  TempDir tmp;
  const bool gz = GENERATE(false, true);
  write_fashion(tmp.path(), "t10k", 3, {9, 0, 4}, gz);
  const neurobench::TensorDataset test = fashion_mnist(tmp.path(), FashionMnistSplit::Test);
  REQUIRE(test.size() == 3);
  REQUIRE(test.data().scalar_type() == torch::kFloat32);
  REQUIRE(test.data().sizes() == torch::IntArrayRef{3, 1, 28, 28});
  REQUIRE(test.targets().scalar_type() == torch::kInt64);
  CHECK(torch::equal(test.targets(), torch::tensor({9, 0, 4}, torch::kInt64)));
  // Pixel p of image i is (i * 7 + p) % 256.
  CHECK(test.data()[1][0][0][3].item<float>() == 10.0F / 255.0F);
  CHECK(test.data()[0][0][9][3].item<float>() == 1.0F);  // pixel 255 of image 0
  CHECK(test.data()[2][0][9][3].item<float>() == 13.0F / 255.0F);
  CHECK(test.data().min().item<float>() >= 0.0F);
  CHECK(test.data().max().item<float>() <= 1.0F);
}

TEST_CASE("fashion_mnist prefers the plain file when the gzipped one is there too",
          "[datasets][idx]") {
  TempDir tmp;
  write_fashion(tmp.path(), "train", 2, {1, 2}, true);
  write_fashion(tmp.path(), "train", 1, {7}, false);
  const neurobench::TensorDataset train = fashion_mnist(tmp.path(), FashionMnistSplit::Train);
  REQUIRE(train.size() == 1);
  CHECK(train.targets()[0].item<int64_t>() == 7);
}

TEST_CASE("a missing Fashion-MNIST file is an InputError naming it and its Debian package",
          "[datasets][idx]") {
  TempDir tmp;
  write_fashion(tmp.path(), "t10k", 1, {0}, false);
  std::filesystem::remove(tmp / "t10k-labels-idx1-ubyte");
  const auto load = [&] { return fashion_mnist(tmp.path(), FashionMnistSplit::Test); };
  REQUIRE_THROWS_AS(load(), InputError);
  REQUIRE_THROWS_WITH(load(), Catch::Contains((tmp / "t10k-labels-idx1-ubyte").string()) &&
                                  Catch::Contains("dataset-fashion-mnist"));
  // The training split is looked for under its own names.
  REQUIRE_THROWS_WITH(fashion_mnist(tmp.path(), FashionMnistSplit::Train),
                      Catch::Contains("train-images-idx3-ubyte[.gz]: no such file"));
}

TEST_CASE("Fashion-MNIST files that do not fit together are an InputError saying why",
          "[datasets][idx]") {
  TempDir tmp;
  const auto load = [&] { return fashion_mnist(tmp.path(), FashionMnistSplit::Test); };
  SECTION("images and labels differ in number") {
    write_fashion(tmp.path(), "t10k", 3, {1, 2}, false);
    REQUIRE_THROWS_AS(load(), InputError);
    REQUIRE_THROWS_WITH(load(),
                        Catch::Contains("holds 3 images") && Catch::Contains("holds 2 labels"));
  }
  SECTION("images of another size") {
    write_fashion(tmp.path(), "t10k", 2, {1, 2}, false, {2, 27, 28});
    REQUIRE_THROWS_AS(load(), InputError);
    REQUIRE_THROWS_WITH(load(), Catch::Contains("t10k-images-idx3-ubyte") &&
                                    Catch::Contains("(N, 28, 28)") &&
                                    Catch::Contains("(2, 27, 28)"));
  }
  SECTION("a label beyond the ten classes") {
    write_fashion(tmp.path(), "t10k", 2, {1, 12}, true);
    REQUIRE_THROWS_AS(load(), InputError);
    REQUIRE_THROWS_WITH(load(), Catch::Contains("label 12") && Catch::Contains("0..9"));
  }
}

TEST_CASE("the installed Fashion-MNIST test split has 10,000 images, 1,000 per class",
          "[datasets][idx]") {
  if (!std::filesystem::exists(std::filesystem::path(neurobench::datasets::kFashionMnistFolder) /
                               "t10k-labels-idx1-ubyte.gz")) {
    WARN("Debian's dataset-fashion-mnist is not installed (scripts/setup installs it): skipped");
    return;
  }
  const neurobench::TensorDataset test = fashion_mnist(FashionMnistSplit::Test);
  REQUIRE(test.data().sizes() == torch::IntArrayRef{10000, 1, 28, 28});
  CHECK(torch::equal(torch::bincount(test.targets()), torch::full({10}, 1000, torch::kInt64)));
  CHECK(test.data().max().item<float>() == 1.0F);
  CHECK(test.data().min().item<float>() == 0.0F);
}
