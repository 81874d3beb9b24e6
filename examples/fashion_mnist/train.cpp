// SPDX-License-Identifier: Apache-2.0
// Trains the Fashion-MNIST example's two networks in C++ (LibTorch autograd) and saves them as
// TorchScript modules built in C++: cnn.pt (ReLU CNN) and snn.pt (spiking MLP, one timestep
// per call). The committed models/ were made by the command in README.md beside this file.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/command_line.hpp"

#include <neurobench/datasets/fashion_mnist.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>
#include <neurobench/reporters/results.hpp>

#include "fashion_mnist/networks.hpp"

namespace fs = std::filesystem;
namespace fm = neurobench::examples::fashion_mnist;
using Json = nlohmann::ordered_json;

namespace {

// Test images per forward call when checking the saved modules: small enough that the
// activations stay below glibc's mmap threshold (large ones page-fault on every call).
constexpr int64_t kChunk = 250;

struct Args {
  std::string data_dir = neurobench::datasets::kFashionMnistFolder;
  std::string out = "fashion_mnist_models";
  std::string only;  // "", "cnn" or "snn"
  int64_t cnn_epochs = 15;
  int64_t snn_epochs = 15;
  int64_t batch_size = 128;
  double learning_rate = 1e-3;
  std::uint64_t seed = 1;
  int64_t max_batches = 0;
  int threads = 1;
  int64_t timesteps = fm::SnnOptions{}.timesteps;
  int64_t hidden = fm::SnnOptions{}.hidden;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double accuracy(const torch::Tensor& predicted, const torch::Tensor& targets) {
  return predicted.eq(targets).to(torch::kFloat64).mean().item<double>();
}

fm::TrainOptions train_options(const Args& a, int64_t epochs, const char* name) {
  fm::TrainOptions o;
  o.epochs = epochs;
  o.batch_size = a.batch_size;
  o.learning_rate = a.learning_rate;
  o.seed = a.seed;
  o.max_batches = a.max_batches;
  o.on_epoch = [name, epochs](int64_t epoch, double loss, double seconds) {
    fmt::print("{} epoch {}/{}: mean loss {:.4f} ({:.1f} s)\n", name, epoch, epochs, loss, seconds);
    std::fflush(stdout);
  };
  return o;
}

Json log_of(const fm::TrainLog& log, const fm::TrainOptions& o) {
  return {{"epochs", o.epochs},
          {"batch_size", o.batch_size},
          {"learning_rate", o.learning_rate},
          {"max_batches", o.max_batches},
          {"epoch_losses", log.epoch_losses},
          {"steps", log.batch_losses.size()},
          {"train_seconds", log.seconds}};
}

Json train_cnn(const Args& a, const neurobench::TensorDataset& train,
               const neurobench::TensorDataset& test, const fs::path& out) {
  torch::manual_seed(a.seed);
  fm::Cnn cnn;
  const fm::TrainOptions options = train_options(a, a.cnn_epochs, "cnn");
  const fm::TrainLog log = fm::train(cnn, train, options);
  const torch::Tensor predicted = fm::predict(cnn, test.data());
  const double acc = accuracy(predicted, test.targets());

  // Save, load back as neurobench will, and check the module computes what the network does.
  const fs::path file = out / "cnn.pt";
  fm::to_torchscript(cnn).save(file.string());
  neurobench::TorchScriptModel loaded(file);
  torch::jit::Module module = loaded.module();
  torch::NoGradGuard no_grad;
  double max_difference = 0;
  int64_t differing = 0;
  for (int64_t begin = 0; begin < test.size(); begin += kChunk) {
    const torch::Tensor x = test.data().slice(0, begin, begin + kChunk);
    const torch::Tensor logits = module.run_method("logits", x).toTensor();
    const torch::Tensor difference = (logits - cnn->forward(x)).abs().max();
    max_difference = std::max(max_difference, difference.item<double>());
    differing +=
        loaded.forward(x).ne(predicted.slice(0, begin, begin + kChunk)).sum().item<int64_t>();
  }
  fmt::print(
      "cnn: test accuracy {:.4f}; saved {} (module: max |logit difference| {}, {} "
      "classes differ)\n",
      acc, file.string(), max_difference, differing);
  if (max_difference > 1e-4 || differing != 0) {
    throw neurobench::Error(fmt::format(
        "{}: the TorchScript module differs from the trained network: logits by up to {}, "
        "classes in {} images",
        file.string(), max_difference, differing));
  }
  Json j = log_of(log, options);
  j["test_accuracy"] = acc;
  j["max_logit_difference_torchscript"] = max_difference;
  j["file"] = file.filename().string();
  return j;
}

Json train_snn(const Args& a, const neurobench::TensorDataset& train,
               const neurobench::TensorDataset& test, const fs::path& out) {
  torch::manual_seed(a.seed);
  fm::SnnOptions snn_options;
  snn_options.timesteps = a.timesteps;
  snn_options.hidden = a.hidden;
  fm::Snn snn(snn_options);
  const fm::TrainOptions options = train_options(a, a.snn_epochs, "snn");
  const fm::TrainLog log = fm::train(snn, train, options);
  const torch::Tensor encoded = fm::rate_encode(test.data(), a.timesteps);
  const torch::Tensor spikes = fm::output_spikes(snn, encoded);
  const double acc = accuracy(neurobench::processors::ChooseMaxCount{}(spikes), test.targets());

  const fs::path file = out / "snn.pt";
  fm::to_torchscript(snn).save(file.string());
  neurobench::TorchScriptOptions stepwise;
  stepwise.stepwise = true;
  neurobench::TorchScriptModel loaded(file, stepwise);
  int64_t differing = 0;
  for (int64_t begin = 0; begin < test.size(); begin += kChunk) {
    loaded.begin_batch();
    const torch::Tensor got = loaded.forward(encoded.slice(0, begin, begin + kChunk));
    const torch::Tensor expected = spikes.slice(0, begin, begin + kChunk);
    differing += got.ne(expected).sum().item<int64_t>();
  }
  fmt::print("snn: test accuracy {:.4f}; saved {} ({} output spikes differ in the module)\n", acc,
             file.string(), differing);
  if (differing != 0) {
    throw neurobench::Error(fmt::format(
        "{}: the TorchScript module's output spikes differ from the trained network's in {} "
        "places",
        file.string(), differing));
  }
  Json j = log_of(log, options);
  j["timesteps"] = snn_options.timesteps;
  j["hidden"] = snn_options.hidden;
  j["beta"] = snn_options.beta;
  j["threshold"] = snn_options.threshold;
  j["surrogate_slope"] = snn_options.slope;
  j["reset_mechanism"] = snn_options.reset_mechanism;
  j["test_accuracy"] = acc;
  j["differing_output_spikes_torchscript"] = differing;
  j["file"] = file.filename().string();
  return j;
}

int run(const Args& a, const std::string& command) {
  fm::set_threads(a.threads);
  const auto start = std::chrono::steady_clock::now();
  using neurobench::datasets::FashionMnistSplit;
  const neurobench::TensorDataset train =
      neurobench::datasets::fashion_mnist(a.data_dir, FashionMnistSplit::Train);
  const neurobench::TensorDataset test =
      neurobench::datasets::fashion_mnist(a.data_dir, FashionMnistSplit::Test);
  fmt::print("{}: {} images; {}: {} images; loaded in {:.1f} s\n", train.describe(), train.size(),
             test.describe(), test.size(), seconds_since(start));
  const fs::path out(a.out);
  fs::create_directories(out);

  Json log = Json::object();
  log["command"] = command;
  log["seed"] = a.seed;
  log["threads"] = a.threads;
  log["libtorch"] = TORCH_VERSION;
  if (a.only.empty() || a.only == "cnn") log["cnn"] = train_cnn(a, train, test, out);
  if (a.only.empty() || a.only == "snn") log["snn"] = train_snn(a, train, test, out);
  log["seconds"] = seconds_since(start);
  neurobench::write_file_atomically(out / "train_log.json", log.dump(2) + "\n");
  fmt::print("done in {:.0f} s; models and train_log.json in {}\n", seconds_since(start),
             out.string());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Trains the Fashion-MNIST example's ReLU CNN and spiking MLP and saves them as "
      "TorchScript (cnn.pt, snn.pt)",
      "fashion_mnist_train"};
  Args a;
  app.add_option("--data-dir", a.data_dir, "Folder with the Fashion-MNIST IDX files (plain or .gz)")
      ->capture_default_str();
  app.add_option("--out", a.out, "Folder for cnn.pt, snn.pt and train_log.json")
      ->capture_default_str();
  app.add_option("--only", a.only, "Train only this network")->check(CLI::IsMember({"cnn", "snn"}));
  app.add_option("--epochs", a.cnn_epochs, "Epochs for both networks (see --snn-epochs)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}))
      ->each([&a](const std::string& v) { a.snn_epochs = std::stoll(v); });
  app.add_option("--cnn-epochs", a.cnn_epochs, "Epochs for the CNN")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  app.add_option("--snn-epochs", a.snn_epochs, "Epochs for the SNN")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  app.add_option("--seed", a.seed, "Seed of weight initialisation and shuffling")
      ->capture_default_str();
  app.add_option("--batch-size", a.batch_size, "Training batch size")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{60000}));
  app.add_option("--lr", a.learning_rate, "Adam's initial learning rate")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-batches", a.max_batches,
                 "Stop every epoch after N batches (a quick smoke run); 0: whole epochs")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--timesteps", a.timesteps, "SNN: timesteps of the rate encoding")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  app.add_option("--hidden", a.hidden, "SNN: hidden neurons")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--threads", a.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  std::string command = "fashion_mnist_train";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];

  return neurobench::report_errors([&] { return run(a, command); }, std::cerr);
}
