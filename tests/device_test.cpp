// SPDX-License-Identifier: Apache-2.0
#include <neurobench/device.hpp>

#include <torch/cuda.h>
#include <catch2/catch.hpp>

#include <neurobench/components.hpp>
#include <neurobench/errors.hpp>

using neurobench::parse_device;

namespace {

// Whether the LibTorch the tests run on has CUDA (Debian's has not): the error tests below say
// what they expect of each.
bool libtorch_has_cuda() { return neurobench::libtorch_build() != "CPU"; }

}  // namespace

TEST_CASE("parse_device reads cpu, cuda, cuda:N and lazy, and device_text writes them back",
          "[device]") {
  for (const char* text : {"cpu", "cuda", "cuda:0", "cuda:3", "cuda:127", "lazy"}) {
    INFO(text);
    CHECK(neurobench::device_text(parse_device(text)) == text);
  }
  CHECK(parse_device("cpu").is_cpu());
  CHECK(parse_device("cuda").is_cuda());
  CHECK_FALSE(parse_device("cuda").has_index());
  CHECK(parse_device("cuda:3").index() == 3);
  CHECK(parse_device("lazy").type() == c10::DeviceType::Lazy);
}

TEST_CASE("parse_device refuses anything else with a UsageError quoting the text", "[device]") {
  for (const char* text :
       {"gpu", "", "CUDA", " cpu", "cpu ", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "cuda:128",
        "cuda:99999999999999999999", "cuda:+1", "cuda: 1", "mps", "cuda0"}) {
    INFO("'" << text << "'");
    REQUIRE_THROWS_AS(parse_device(text), neurobench::UsageError);
    REQUIRE_THROWS_WITH(parse_device(text), Catch::Contains(std::string("'") + text + "'") &&
                                                Catch::Contains("expected cpu, cuda, cuda:N"));
  }
}

TEST_CASE("resolved_device makes cuda the first GPU, lazy its first device, and leaves the rest",
          "[device]") {
  CHECK(neurobench::resolved_device(parse_device("cuda")) == parse_device("cuda:0"));
  CHECK(neurobench::resolved_device(parse_device("cuda:2")) == parse_device("cuda:2"));
  CHECK(neurobench::resolved_device(parse_device("cpu")) == parse_device("cpu"));
  CHECK(neurobench::resolved_device(parse_device("lazy")) == c10::Device(c10::DeviceType::Lazy, 0));
  CHECK(neurobench::device_text(c10::Device(c10::DeviceType::Lazy, 0)) == "lazy");
}

TEST_CASE("the CPU and the lazy device are always usable", "[device]") {
  REQUIRE_NOTHROW(neurobench::check_device(parse_device("cpu")));
  REQUIRE_NOTHROW(neurobench::check_device(parse_device("lazy")));
  REQUIRE_NOTHROW(neurobench::synchronize(parse_device("cpu")));
  REQUIRE_NOTHROW(neurobench::synchronize(parse_device("lazy")));
}

TEST_CASE("a CUDA device on a LibTorch without CUDA is a UsageError naming what is missing",
          "[device]") {
  if (libtorch_has_cuda()) {
    // Here the error is about the GPUs, not the build: an index past them.
    const auto gpus = static_cast<int>(torch::cuda::device_count());
    const c10::Device past(c10::DeviceType::CUDA, static_cast<c10::DeviceIndex>(gpus));
    REQUIRE_THROWS_WITH(neurobench::check_device(past), Catch::Contains("this machine has"));
    return;
  }
  CHECK(neurobench::libtorch_build() == "CPU");
  for (const char* text : {"cuda", "cuda:0", "cuda:7"}) {
    INFO(text);
    REQUIRE_THROWS_AS(neurobench::check_device(parse_device(text)), neurobench::UsageError);
    REQUIRE_THROWS_WITH(neurobench::check_device(parse_device(text)),
                        Catch::Contains(std::string("--device ") + text) &&
                            Catch::Contains("was built without CUDA") &&
                            Catch::Contains("docs/devices.md"));
  }
}

TEST_CASE("device memory and the GPU's description exist for CUDA devices only", "[device]") {
  for (const char* text : {"cpu", "lazy"}) {
    INFO(text);
    CHECK_FALSE(neurobench::device_memory(parse_device(text)).has_value());
    CHECK_FALSE(neurobench::gpu_info(parse_device(text)).has_value());
    REQUIRE_NOTHROW(neurobench::reset_device_peak_memory(parse_device(text)));
  }
  if (!neurobench::has_component("cuda")) {
    // Without the cuda component a CUDA device has no memory statistics either.
    CHECK_FALSE(neurobench::device_memory(parse_device("cuda:0")).has_value());
  }
}

TEST_CASE("synchronize on the lazy device runs what is pending on it", "[device]") {
  const c10::Device lazy = parse_device("lazy");
  neurobench::check_device(lazy);
  c10::InferenceMode guard;
  const torch::Tensor x = torch::arange(6, torch::kFloat).to(lazy);
  const torch::Tensor y = x * 2 + 1;  // traced, not run
  neurobench::synchronize(lazy);
  CHECK(y.to(torch::kCPU).equal(torch::arange(6, torch::kFloat) * 2 + 1));
}
