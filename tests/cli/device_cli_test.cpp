// SPDX-License-Identifier: Apache-2.0
// `neurobench run --device` (docs/devices.md) and what `neurobench list` says of the build.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/device.hpp>

#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::run_cli;

namespace {

std::string spiking_args() {
  return "run --model " + q(fixture("core/rleaky_snn.pt")) + " --data " +
         q(fixture("core/rleaky_snn.npz")) + " --batch-size 2 --quiet --stepwise " +
         "--activation-modules RLeaky --workload ActivationSparsity,SynapticOperations,"
         "MembraneUpdates";
}

std::string device_classifier_args() {
  return "run --model " + q(fixture("core/classifier.pt")) + " --data " +
         q(fixture("core/classifier.npz")) + " --batch-size 4 --quiet --static Footprint " +
         "--workload ClassificationAccuracy,ActivationSparsity,SynapticOperations";
}

}  // namespace

TEST_CASE("run --device lazy writes the CPU's numbers and says where the model ran",
          "[cli][device]") {
  neurobench::test::TempDir dir;
  const auto cpu = run_cli(device_classifier_args() + " --json " + q(dir / "cpu.json"));
  const auto lazy =
      run_cli(device_classifier_args() + " --device lazy --json " + q(dir / "lazy.json"));
  INFO(cpu.err << lazy.err);
  REQUIRE(cpu.status == 0);
  REQUIRE(lazy.status == 0);
  auto a = nlohmann::json::parse(neurobench::test::read_file(dir / "cpu.json"));
  auto b = nlohmann::json::parse(neurobench::test::read_file(dir / "lazy.json"));
  CHECK(a["_environment"]["device"] == "cpu");
  CHECK(b["_environment"]["device"] == "lazy");
  CHECK(b["_environment"]["libtorch_build"] == neurobench::libtorch_build());
  for (auto* doc : {&a, &b}) {
    for (const char* meta : {"_environment", "_run", "_metrics"}) doc->erase(meta);
  }
  CHECK(a == b);
  CHECK(lazy.out == cpu.out);  // the table too
}

TEST_CASE("run --device in a config, and the flag over it", "[cli][device]") {
  neurobench::test::TempDir dir;
  std::ofstream(dir / "bench.json")
      << R"({"model": ")" << fixture("core/classifier.pt").string() << R"(", "data": ")"
      << fixture("core/classifier.npz").string()
      << R"(", "workload": ["ClassificationAccuracy"], "device": "lazy", "quiet": true})";
  const auto from_config = run_cli("run " + q(dir / "bench.json") + " --json " + q(dir / "a.json"));
  INFO(from_config.err);
  REQUIRE(from_config.status == 0);
  CHECK(nlohmann::json::parse(
            neurobench::test::read_file(dir / "a.json"))["_environment"]["device"] == "lazy");
  const auto flag =
      run_cli("run " + q(dir / "bench.json") + " --device cpu --json " + q(dir / "b.json"));
  REQUIRE(flag.status == 0);
  CHECK(nlohmann::json::parse(
            neurobench::test::read_file(dir / "b.json"))["_environment"]["device"] == "cpu");
}

TEST_CASE("run --tf32 where it has no effect warns and records tf32 false", "[cli][device]") {
  neurobench::test::TempDir dir;
  const auto r = run_cli(device_classifier_args() + " --tf32 --json " + q(dir / "r.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.err, Catch::Contains("warning: tf32 was asked for, but TF32 is a CUDA setting: on "
                                    "device 'cpu' the run computes in full float32"));
  const auto doc = nlohmann::json::parse(neurobench::test::read_file(dir / "r.json"));
  CHECK(doc["_environment"]["tf32"] == false);
  // Without it, nothing is said and nothing recorded.
  const auto plain = run_cli(device_classifier_args() + " --json " + q(dir / "p.json"));
  CHECK_THAT(plain.err, !Catch::Contains("tf32"));
  CHECK_FALSE(
      nlohmann::json::parse(neurobench::test::read_file(dir / "p.json"))["_environment"].contains(
          "tf32"));
  // --strict makes the warning an error: no results file.
  const auto strict =
      run_cli(device_classifier_args() + " --tf32 --strict --json " + q(dir / "s.json"));
  CHECK(strict.status == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "s.json"));
}

TEST_CASE("run --device with a device that is not one exits 2 naming the flag", "[cli][device]") {
  for (const char* device : {"gpu", "cuda:", "cuda:-1", "tpu:0"}) {
    INFO(device);
    const auto r = run_cli(device_classifier_args() + " --device " + q(device));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("--device:") &&
                          Catch::Contains("expected cpu, cuda, cuda:N (N from 0) or lazy"));
  }
}

TEST_CASE("run --device cuda without CUDA exits 2 before the model is loaded", "[cli][device]") {
  if (neurobench::libtorch_build() != "CPU") return;  // a CUDA LibTorch: the GPU check applies
  neurobench::test::TempDir dir;
  // The model file does not exist: the device is checked first, so the error is about it.
  for (const char* device : {"cuda", "cuda:0", "cuda:7"}) {
    INFO(device);
    const auto r = run_cli("run --model " + q(dir / "missing.pt") + " --data " +
                           q(fixture("core/classifier.npz")) + " --workload MSE --device " +
                           device + " --json " + q(dir / "out.json"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--device ") + device) &&
                          Catch::Contains("was built without CUDA") &&
                          !Catch::Contains("missing.pt"));
    CHECK_FALSE(std::filesystem::exists(dir / "out.json"));
  }
}

TEST_CASE("a spiking network run step by step on a device gives the CPU's counts",
          "[cli][device]") {
  neurobench::test::TempDir dir;
  const auto cpu = run_cli(spiking_args() + " --json " + q(dir / "cpu.json"));
  const auto lazy = run_cli(spiking_args() + " --device lazy --json " + q(dir / "lazy.json"));
  INFO(cpu.err << lazy.err);
  // RLeaky has no NeuronOperations cost: the three metrics asked for all complete.
  REQUIRE(cpu.status == 0);
  REQUIRE(lazy.status == 0);
  auto a = nlohmann::json::parse(neurobench::test::read_file(dir / "cpu.json"));
  auto b = nlohmann::json::parse(neurobench::test::read_file(dir / "lazy.json"));
  for (const char* metric : {"ActivationSparsity", "SynapticOperations", "MembraneUpdates"}) {
    INFO(metric);
    CHECK(a[metric] == b[metric]);
  }
}

TEST_CASE("neurobench list says what this build has: LibTorch, components and devices",
          "[cli][device][components]") {
  const auto r = run_cli("list");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("this build: neurobench") &&
                        Catch::Contains(neurobench::libtorch_build()) &&
                        Catch::Contains("components (docs/cmake.md):") && Catch::Contains("hdf5") &&
                        Catch::Contains("sndfile") && Catch::Contains("distributed") &&
                        Catch::Contains("cuda") &&
                        Catch::Contains("devices here (--device): cpu, lazy"));
}
