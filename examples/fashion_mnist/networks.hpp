// SPDX-License-Identifier: Apache-2.0
// The Fashion-MNIST example's two networks: a ReLU CNN and a spiking MLP of leaky
// integrate-and-fire neurons. Trained here with LibTorch autograd, then copied into TorchScript
// modules built in C++ (no Python), which neurobench benchmarks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include <neurobench/data/dataset.hpp>

namespace neurobench::examples::fashion_mnist {

inline constexpr int64_t kClasses = 10;
inline constexpr int64_t kPixels = 28 * 28;

/// Deterministic rate coding: every pixel drives an integrate-and-fire encoder that adds its
/// intensity `b / 255` each timestep and spikes when the running sum crosses the next integer
/// (starting from one half). Over `timesteps` steps a pixel fires `round(T * b / 255)` times
/// (halves round down), evenly spread; black pixels never fire, white ones every step.
/// Computed in integers (spikes up to step t: `floor((t * b + 127) / 255)`), so the encoding is
/// the same on every machine and needs no random numbers.
///
/// `images`: float in [0, 1] (byte / 255, as neurobench::datasets::fashion_mnist gives),
/// `(N, ...)` with 784 values per sample. Returns uint8 spikes (0 or 1), `(N, timesteps, 784)`.
/// Throws UsageError for `timesteps < 1` or a sample that is not 784 values.
[[nodiscard]] torch::Tensor rate_encode(const torch::Tensor& images, int64_t timesteps);

/// The convolutional network: conv(1->16, 5x5, pad 2) - ReLU - maxpool 2 - conv(16->32, 3x3,
/// pad 1) - ReLU - maxpool 2 - linear(1568->128) - ReLU - linear(128->10).
struct CnnImpl : torch::nn::Module {
  CnnImpl();
  /// `(batch, 1, 28, 28)` images -> `(batch, 10)` logits. In training mode, dropout (p = 0.25)
  /// before the last layer; in eval mode exactly what the TorchScript module computes.
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Conv2d conv1{nullptr};
  torch::nn::Conv2d conv2{nullptr};
  torch::nn::Linear fc1{nullptr};
  torch::nn::Linear fc2{nullptr};
};
TORCH_MODULE(Cnn);

/// The spiking network's shape and neuron settings.
struct SnnOptions {
  int64_t hidden = 256;                      ///< Hidden leaky integrate-and-fire neurons.
  int64_t timesteps = 16;                    ///< Timesteps of the input encoding.
  double beta = 0.9;                         ///< Membrane decay per timestep.
  double threshold = 1.0;                    ///< Firing threshold.
  double slope = 25.0;                       ///< Fast-sigmoid surrogate gradient slope.
  std::string reset_mechanism = "subtract";  ///< `subtract` or `zero`, as in snnTorch.
};

/// The spiking network: linear(784->hidden) - Leaky - linear(hidden->10) - Leaky, neurons with
/// snnTorch 0.9's `Leaky` dynamics (reset computed from the previous membrane, fast-sigmoid
/// surrogate gradient).
struct SnnImpl : torch::nn::Module {
  explicit SnnImpl(SnnOptions options = {});
  /// Training: `(batch, timesteps, 784)` spikes -> `(batch, 10)` output spike counts, with
  /// surrogate gradients.
  torch::Tensor forward(const torch::Tensor& spikes);
  /// Inference one timestep at a time, op for op what the TorchScript module computes:
  /// `(batch, timesteps, 784)` spikes (any dtype) -> `(batch, timesteps, 10)` output spikes.
  torch::Tensor run_stepwise(const torch::Tensor& spikes);

  SnnOptions options;
  torch::nn::Linear fc1{nullptr};
  torch::nn::Linear fc2{nullptr};
  torch::Tensor beta;       ///< 0-d float32 buffer.
  torch::Tensor threshold;  ///< 0-d float32 buffer.
};
TORCH_MODULE(Snn);

/// The CNN as a TorchScript module (root `FashionCnn`; submodules `Conv2d`, `ReLU`, `Linear`)
/// holding copies of the trained weights. `forward` gives `(batch)` classes (the argmax of the
/// logits, so that accuracy needs no post-processor); the method `logits` gives `(batch, 10)`.
[[nodiscard]] torch::jit::Module to_torchscript(Cnn& cnn);
/// The SNN as a TorchScript module (root `FashionSnn` with `reset()` and an int attribute
/// `timesteps`; submodules `Linear` and `Leaky`). It takes ONE timestep `(batch, 784)`, of
/// any numeric dtype (cast to float32), and returns `(spikes, membrane)` of the output layer.
[[nodiscard]] torch::jit::Module to_torchscript(Snn& snn);

/// How a network is trained: Adam, cross-entropy, cosine learning-rate decay per epoch.
struct TrainOptions {
  int64_t epochs = 5;           ///< Passes over the training set.
  int64_t batch_size = 128;     ///< Samples per step.
  double learning_rate = 1e-3;  ///< Adam's initial learning rate.
  std::uint64_t seed = 0;       ///< Seeds weight initialisation and shuffling.
  int64_t max_batches = 0;      ///< Stop each epoch after this many batches; 0: no limit.
  /// Called after every epoch with (epoch, mean loss, seconds), e.g. to print progress.
  std::function<void(int64_t, double, double)> on_epoch;

  /// Throws UsageError naming the field when an option is invalid.
  void validate() const;
};

/// What training did.
struct TrainLog {
  std::vector<double> batch_losses;  ///< Loss of every step, in order.
  std::vector<double> epoch_losses;  ///< Mean loss of every epoch.
  double seconds = 0;                ///< Wall time.
};

/// Trains the CNN on `train` (data `(N, 1, 28, 28)` in [0, 1], int64 targets). The network is
/// created by the caller; seed it with torch::manual_seed(options.seed) before creating it for
/// reproducible initial weights.
TrainLog train(Cnn& cnn, const TensorDataset& train, const TrainOptions& options);
/// Trains the SNN on `train`, rate-encoding each batch with rate_encode.
TrainLog train(Snn& snn, const TensorDataset& train, const TrainOptions& options);

/// Test-set predictions of the CNN in eval mode: `(N)` classes.
[[nodiscard]] torch::Tensor predict(Cnn& cnn, const torch::Tensor& images,
                                    int64_t batch_size = 250);
/// Output spikes of the SNN on encoded data `(N, T, 784)`: `(N, T, 10)`, via run_stepwise.
[[nodiscard]] torch::Tensor output_spikes(Snn& snn, const torch::Tensor& spikes,
                                          int64_t batch_size = 250);

/// Limits LibTorch's intra-op threads and, when it is the loaded BLAS, OpenBLAS's own pool.
void set_threads(int threads);

}  // namespace neurobench::examples::fashion_mnist
