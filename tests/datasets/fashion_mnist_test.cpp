// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/fashion_mnist.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "io/idx_files.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::datasets::fashion_mnist;
using neurobench::datasets::FashionMnistSplit;
using neurobench::test::Bytes;
using neurobench::test::gzip;
using neurobench::test::idx;
using neurobench::test::TempDir;
using neurobench::test::write;

namespace {

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

TEST_CASE("fashion_mnist gives float images in [0, 1] shaped (N, 1, 28, 28) and int64 labels",
          "[datasets][fashion_mnist]") {
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
          "[datasets][fashion_mnist]") {
  TempDir tmp;
  write_fashion(tmp.path(), "train", 2, {1, 2}, true);
  write_fashion(tmp.path(), "train", 1, {7}, false);
  const neurobench::TensorDataset train = fashion_mnist(tmp.path(), FashionMnistSplit::Train);
  REQUIRE(train.size() == 1);
  CHECK(train.targets()[0].item<int64_t>() == 7);
}

TEST_CASE("a missing Fashion-MNIST file is an InputError naming it and its Debian package",
          "[datasets][fashion_mnist]") {
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
          "[datasets][fashion_mnist]") {
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
          "[datasets][fashion_mnist]") {
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
