// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where Debian's `dataset-fashion-mnist` package installs Fashion-MNIST.
inline constexpr const char* kFashionMnistFolder = "/usr/share/datasets/fashion-mnist";

/// A part of Fashion-MNIST.
enum class FashionMnistSplit {
  Train,  ///< 60,000 images: `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`.
  Test,   ///< 10,000 images: `t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte`.
};

/// The Fashion-MNIST split `split` from `folder`, which holds the standard IDX files, plain or
/// with a `.gz` suffix (the plain file is used when both exist).
///
/// Data: the images as float32 in [0, 1] (byte / 255), shape `(N, 1, 28, 28)`; targets: the
/// labels 0..9 as int64, shape `(N)`. For convolutional networks the `1` is the channel; for a
/// NeuroBench step-wise model it reads as one timestep.
///
/// Throws InputError naming the file when one is missing (saying which Debian package provides
/// it), is not a valid IDX file (see neurobench::load_idx), is not unsigned bytes of the expected
/// shape
/// (`(N, 28, 28)` images, `(N)` labels), holds a label above 9, or when images and labels
/// differ in number.
///
/// ```cpp
/// auto test = std::make_shared<neurobench::TensorDataset>(
///     neurobench::datasets::fashion_mnist(neurobench::datasets::FashionMnistSplit::Test));
/// ```
[[nodiscard]] TensorDataset fashion_mnist(const std::filesystem::path& folder,
                                          FashionMnistSplit split);

/// The Fashion-MNIST split `split` from kFashionMnistFolder; see the overload above.
[[nodiscard]] TensorDataset fashion_mnist(FashionMnistSplit split);

}  // namespace neurobench::datasets
NEUROBENCH_API_END
