// SPDX-License-Identifier: Apache-2.0
#include <neurobench/datasets/fashion_mnist.hpp>

#include <cstdint>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/idx.hpp>

#include "util/text.hpp"

namespace neurobench::datasets {

using detail::numpy_shape_string;

namespace {

const char* split_prefix(FashionMnistSplit split) {
  return split == FashionMnistSplit::Train ? "train" : "t10k";
}

// The plain file when present, else its gzip twin.
std::filesystem::path find_file(const std::filesystem::path& folder, const std::string& name) {
  std::error_code ec;
  const std::filesystem::path plain = folder / name;
  if (std::filesystem::exists(plain, ec)) return plain;
  const std::filesystem::path gz = folder / (name + ".gz");
  if (std::filesystem::exists(gz, ec)) return gz;
  throw InputError(fmt::format(
      "{}[.gz]: no such file; Fashion-MNIST comes with Debian's dataset-fashion-mnist package "
      "(apt-get install dataset-fashion-mnist puts it in {})",
      plain.string(), kFashionMnistFolder));
}

}  // namespace

TensorDataset fashion_mnist(const std::filesystem::path& folder, FashionMnistSplit split) {
  const std::string prefix = split_prefix(split);
  const std::filesystem::path image_file = find_file(folder, prefix + "-images-idx3-ubyte");
  const std::filesystem::path label_file = find_file(folder, prefix + "-labels-idx1-ubyte");
  const torch::Tensor images = neurobench::load_idx(image_file);
  const torch::Tensor labels = neurobench::load_idx(label_file);

  if (images.scalar_type() != torch::kUInt8 || images.dim() != 3 || images.size(1) != 28 ||
      images.size(2) != 28) {
    throw InputError(fmt::format(
        "{}: expected unsigned byte images shaped (N, 28, 28), found {} {}", image_file.string(),
        c10::toString(images.scalar_type()), numpy_shape_string(images.sizes())));
  }
  if (labels.scalar_type() != torch::kUInt8 || labels.dim() != 1) {
    throw InputError(fmt::format("{}: expected unsigned byte labels shaped (N), found {} {}",
                                 label_file.string(), c10::toString(labels.scalar_type()),
                                 numpy_shape_string(labels.sizes())));
  }
  if (images.size(0) != labels.size(0)) {
    throw InputError(fmt::format("{} holds {} images but {} holds {} labels", image_file.string(),
                                 images.size(0), label_file.string(), labels.size(0)));
  }
  if (labels.numel() > 0) {
    const int64_t top = labels.max().item<int64_t>();
    if (top > 9) {
      throw InputError(
          fmt::format("{}: label {} found, expected classes 0..9", label_file.string(), top));
    }
  }
  torch::Tensor data = images.to(torch::kFloat32).div_(255.0F).unsqueeze(1).contiguous();
  torch::Tensor targets = labels.to(torch::kInt64);
  TensorDataset dataset(
      std::move(data), std::move(targets), {},
      fmt::format("Fashion-MNIST {} split ({})",
                  split == FashionMnistSplit::Train ? "training" : "test", folder.string()));
  dataset.set_input_files({image_file, label_file});
  return dataset;
}

TensorDataset fashion_mnist(FashionMnistSplit split) {
  return fashion_mnist(std::filesystem::path(kFashionMnistFolder), split);
}

}  // namespace neurobench::datasets
