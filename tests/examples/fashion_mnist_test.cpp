// SPDX-License-Identifier: Apache-2.0
// The Fashion-MNIST example's networks (examples/fashion_mnist/networks.hpp) and its committed
// models.
#include "fashion_mnist/networks.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/datasets/fashion_mnist.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

#include "support.hpp"

namespace fm = neurobench::examples::fashion_mnist;
using neurobench::test::TempDir;

namespace {

// The committed models, found from the test fixtures folder (tests/fixtures -> the repository).
std::filesystem::path committed_model(const std::string& name) {
  return std::filesystem::path(NEUROBENCH_TEST_FIXTURES).parent_path().parent_path() / "examples" /
         "fashion_mnist" / "models" / name;
}

// A tiny stand-in for Fashion-MNIST: `n` random images (bytes / 255) with labels 0..9.
neurobench::TensorDataset synthetic_images(int64_t n, uint64_t seed) {
  torch::manual_seed(seed);
  torch::Tensor images = torch::randint(0, 256, {n, 1, 28, 28}).to(torch::kFloat32) / 255.0F;
  torch::Tensor labels = torch::arange(n, torch::kInt64).remainder(10);
  return neurobench::TensorDataset(images, labels, {}, "synthetic images");
}

std::multiset<std::string> type_names(const neurobench::NeuroBenchModel& model) {
  std::multiset<std::string> names;
  for (const auto& m : model.modules()) names.insert(m.type_name);
  return names;
}

fm::TrainOptions few_steps() {
  fm::TrainOptions o;
  o.epochs = 1;
  o.batch_size = 16;
  o.max_batches = 3;
  o.seed = 5;
  return o;
}

}  // namespace

TEST_CASE("rate coding fires each pixel round(T * intensity) times, black never, white always",
          "[examples][fashion_mnist]") {
  // Bytes 0, 1, 127, 128, 200, 255 in the first six pixels, the rest black.
  torch::Tensor bytes = torch::zeros({1, 784});
  const float values[] = {0, 1, 127, 128, 200, 255};
  for (int p = 0; p < 6; ++p) bytes[0][p] = values[p];
  const int64_t steps = 10;
  const torch::Tensor spikes = fm::rate_encode(bytes / 255.0F, steps);
  REQUIRE(spikes.scalar_type() == torch::kUInt8);
  REQUIRE(spikes.sizes() == torch::IntArrayRef{1, steps, 784});
  REQUIRE(spikes.max().item<int>() <= 1);
  const torch::Tensor counts = spikes.to(torch::kInt64).sum(1)[0];
  const int64_t expected[] = {0, 0, 5, 5, 8, 10};  // floor((10 b + 127) / 255)
  for (int p = 0; p < 6; ++p) CHECK(counts[p].item<int64_t>() == expected[p]);
  CHECK(counts.slice(0, 6).sum().item<int64_t>() == 0);
  // Evenly spread: about half intensity fires every other step, 128 from the first step on.
  CHECK(torch::equal(spikes[0].select(1, 2),
                     torch::tensor({0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, torch::kUInt8)));
  CHECK(torch::equal(spikes[0].select(1, 3),
                     torch::tensor({1, 0, 1, 0, 1, 0, 1, 0, 1, 0}, torch::kUInt8)));
  // The same images give the same spikes: the encoding is deterministic.
  CHECK(torch::equal(spikes, fm::rate_encode(bytes / 255.0F, steps)));
}

TEST_CASE("rate coding rejects a timestep count below one and images of another size",
          "[examples][fashion_mnist]") {
  REQUIRE_THROWS_AS(fm::rate_encode(torch::zeros({2, 784}), 0), neurobench::UsageError);
  REQUIRE_THROWS_WITH(fm::rate_encode(torch::zeros({2, 784}), 0), Catch::Contains("at least 1"));
  REQUIRE_THROWS_AS(fm::rate_encode(torch::zeros({2, 1, 27, 28}), 4), neurobench::UsageError);
  REQUIRE_THROWS_WITH(fm::rate_encode(torch::zeros({2, 1, 27, 28}), 4),
                      Catch::Contains("784 pixels") && Catch::Contains("2x1x27x28"));
}

TEST_CASE("a few CNN training steps give finite losses and a TorchScript module neurobench runs",
          "[examples][fashion_mnist]") {
  const neurobench::TensorDataset data = synthetic_images(64, 1);
  torch::manual_seed(2);
  fm::Cnn cnn;
  const fm::TrainLog log = fm::train(cnn, data, few_steps());
  REQUIRE(log.batch_losses.size() == 3);
  for (double loss : log.batch_losses) CHECK(std::isfinite(loss));
  REQUIRE(log.epoch_losses.size() == 1);

  TempDir tmp;
  fm::to_torchscript(cnn).save((tmp / "cnn.pt").string());
  neurobench::TorchScriptModel model(tmp / "cnn.pt");
  CHECK(type_names(model) == std::multiset<std::string>{"FashionCnn", "Conv2d", "Conv2d", "ReLU",
                                                        "ReLU", "ReLU", "Linear", "Linear"});
  const torch::Tensor x = data.data().slice(0, 0, 8);
  const torch::Tensor classes = model.forward(x);
  REQUIRE(classes.sizes() == torch::IntArrayRef{8});
  CHECK(torch::equal(classes, fm::predict(cnn, x)));
  torch::jit::Module module = model.module();
  torch::NoGradGuard no_grad;
  const torch::Tensor logits = module.run_method("logits", x).toTensor();
  CHECK(torch::equal(logits, cnn->forward(x)));
}

TEST_CASE("a few SNN training steps give finite losses and a step-wise module equal to the net",
          "[examples][fashion_mnist]") {
  const neurobench::TensorDataset data = synthetic_images(48, 3);
  fm::SnnOptions options;
  options.hidden = 32;
  options.timesteps = 5;
  torch::manual_seed(4);
  fm::Snn snn(options);
  const fm::TrainLog log = fm::train(snn, data, few_steps());
  REQUIRE(log.batch_losses.size() == 3);
  for (double loss : log.batch_losses) CHECK(std::isfinite(loss));

  TempDir tmp;
  fm::to_torchscript(snn).save((tmp / "snn.pt").string());
  neurobench::TorchScriptOptions stepwise;
  stepwise.stepwise = true;
  auto model = std::make_shared<neurobench::TorchScriptModel>(tmp / "snn.pt", stepwise);
  CHECK(type_names(*model) ==
        std::multiset<std::string>{"FashionSnn", "Linear", "Leaky", "Linear", "Leaky"});
  CHECK(model->module().attr("timesteps").toInt() == 5);

  const torch::Tensor spikes = fm::rate_encode(data.data(), options.timesteps);
  model->begin_batch();
  const torch::Tensor out = model->forward(spikes);
  REQUIRE(out.sizes() == torch::IntArrayRef{48, 5, 10});
  CHECK(torch::equal(out, fm::output_spikes(snn, spikes)));

  // Benchmarked: binary input makes every synaptic operation an accumulate.
  auto encoded = std::make_shared<neurobench::TensorDataset>(spikes, data.targets());
  std::vector<std::unique_ptr<neurobench::PostProcessor>> post;
  post.push_back(std::make_unique<neurobench::processors::ChooseMaxCount>());
  neurobench::Benchmark bench(
      model, neurobench::DataLoader(encoded), {}, std::move(post),
      neurobench::MetricSet::from_names(
          {"Footprint"}, {"ClassificationAccuracy", "SynapticOperations", "MembraneUpdates"}));
  neurobench::RunOptions quiet;
  quiet.quiet = true;
  const neurobench::Results r = bench.run(quiet);
  REQUIRE(r.ok());
  CHECK(r.warnings.empty());
  CHECK(r.values["SynapticOperations"]["Effective_MACs"].get<double>() == 0.0);
  CHECK(r.values["SynapticOperations"]["Effective_ACs"].get<double>() > 0.0);
  CHECK(r.values["SynapticOperations"]["Dense"].get<double>() == 5.0 * (784 * 32 + 32 * 10));
  CHECK(r.values["MembraneUpdates"].get<double>() <= 5.0 * (32 + 10));
}

TEST_CASE("the TorchScript Leaky follows snnTorch: reset from the previous membrane",
          "[examples][fashion_mnist]") {
  const std::string mechanism = GENERATE(as<std::string>{}, "subtract", "zero");
  fm::SnnOptions options;
  options.hidden = 3;
  options.timesteps = 3;
  options.reset_mechanism = mechanism;
  fm::Snn snn(options);
  torch::jit::Module module = fm::to_torchscript(snn);
  torch::jit::Module lif = module.attr("lif1").toModule();
  CHECK(lif.attr("_reset_mechanism").toStringRef() == mechanism);
  CHECK(lif.attr("mem").toTensor().sizes() == torch::IntArrayRef{0});

  // beta 0.9, threshold 1, a constant input of 0.6:
  // mem 0.6, then 0.9 * 0.6 + 0.6 = 1.14 (spike), then the reset applies.
  const torch::Tensor input = torch::full({1, 3}, 0.6F);
  const auto step = [&] { return lif.forward({input}).toTuple()->elements(); };
  auto first = step();
  CHECK(first[0].toTensor().sum().item<float>() == 0.0F);
  CHECK(first[1].toTensor()[0][0].item<float>() == Approx(0.6).epsilon(1e-6));
  auto second = step();
  CHECK(second[0].toTensor().sum().item<float>() == 3.0F);
  CHECK(second[1].toTensor()[0][0].item<float>() == Approx(1.14).epsilon(1e-6));
  auto third = step();
  const double expected = mechanism == "subtract" ? 0.9 * 1.14 + 0.6 - 1.0 : 0.6;
  CHECK(third[0].toTensor().sum().item<float>() == 0.0F);
  CHECK(third[1].toTensor()[0][0].item<float>() == Approx(expected).epsilon(1e-6));

  // reset() zeroes every membrane; a batch of another size starts from zeros too.
  module.run_method("reset");
  CHECK(lif.attr("mem").toTensor().abs().sum().item<float>() == 0.0F);
  lif.forward({torch::full({2, 3}, 0.6F)});
  CHECK(lif.attr("mem").toTensor()[1][2].item<float>() == Approx(0.6).epsilon(1e-6));
}

TEST_CASE("the committed models load and give the expected output shapes",
          "[examples][fashion_mnist]") {
  neurobench::TorchScriptModel cnn(committed_model("cnn.pt"));
  const torch::Tensor classes = cnn.forward(torch::zeros({2, 1, 28, 28}));
  CHECK(classes.sizes() == torch::IntArrayRef{2});
  CHECK(classes.scalar_type() == torch::kInt64);
  torch::jit::Module cnn_module = cnn.module();
  CHECK(cnn_module.run_method("logits", torch::zeros({2, 1, 28, 28})).toTensor().sizes() ==
        torch::IntArrayRef{2, 10});

  neurobench::TorchScriptOptions stepwise;
  stepwise.stepwise = true;
  neurobench::TorchScriptModel snn(committed_model("snn.pt"), stepwise);
  const int64_t steps = snn.module().attr("timesteps").toInt();
  REQUIRE(steps >= 1);
  snn.begin_batch();
  const torch::Tensor spikes = snn.forward(torch::ones({2, steps, 784}, torch::kUInt8));
  CHECK(spikes.sizes() == torch::IntArrayRef{2, steps, 10});
  CHECK(spikes.scalar_type() == torch::kFloat32);
}

TEST_CASE("the committed models classify real test images as well as the README says",
          "[examples][fashion_mnist]") {
  if (!std::filesystem::exists(std::filesystem::path(neurobench::datasets::kFashionMnistFolder) /
                               "t10k-labels-idx1-ubyte.gz")) {
    WARN("Debian's dataset-fashion-mnist is not installed (scripts/setup installs it): skipped");
    return;
  }
  const neurobench::TensorDataset test =
      neurobench::datasets::fashion_mnist(neurobench::datasets::FashionMnistSplit::Test);
  const int64_t n = 500;
  const torch::Tensor images = test.data().slice(0, 0, n);
  const torch::Tensor targets = test.targets().slice(0, 0, n);

  neurobench::TorchScriptModel cnn(committed_model("cnn.pt"));
  const double cnn_accuracy =
      cnn.forward(images).eq(targets).to(torch::kFloat64).mean().item<double>();
  CHECK(cnn_accuracy > 0.85);

  neurobench::TorchScriptOptions stepwise;
  stepwise.stepwise = true;
  neurobench::TorchScriptModel snn(committed_model("snn.pt"), stepwise);
  snn.begin_batch();
  const torch::Tensor spikes =
      snn.forward(fm::rate_encode(images, snn.module().attr("timesteps").toInt()));
  const torch::Tensor predicted = neurobench::processors::ChooseMaxCount{}(spikes);
  const double snn_accuracy = predicted.eq(targets).to(torch::kFloat64).mean().item<double>();
  CHECK(snn_accuracy > 0.8);
}
