// SPDX-License-Identifier: Apache-2.0
#include <neurobench/processors/processors.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

TEST_CASE("ChooseMaxCount picks the class with most spikes over time", "[processors]") {
  // (batch 2, timesteps 3, classes 2)
  const auto spikes = torch::tensor({0.f, 1.f, 1.f, 0.f, 1.f, 0.f,   // sample 0: class 0 twice
                                     0.f, 1.f, 0.f, 1.f, 1.f, 1.f})  // sample 1: class 1 thrice
                          .reshape({2, 3, 2});
  neurobench::processors::ChooseMaxCount choose;
  const auto out = choose(spikes);
  REQUIRE(out.sizes() == torch::IntArrayRef({2}));
  REQUIRE(out[0].item<int64_t>() == 0);
  REQUIRE(out[1].item<int64_t>() == 1);
}

TEST_CASE("ChooseMaxCount breaks ties towards the first class", "[processors]") {
  neurobench::processors::ChooseMaxCount choose;
  const auto out = choose(torch::ones({1, 4, 3}));
  REQUIRE(out[0].item<int64_t>() == 0);
}

TEST_CASE("Aggregate sums over the timestep dimension", "[processors]") {
  neurobench::processors::Aggregate aggregate;
  const auto out = aggregate(torch::arange(12, torch::kFloat).reshape({2, 3, 2}));
  REQUIRE(out.sizes() == torch::IntArrayRef({2, 2}));
  REQUIRE(out[0][0].item<float>() == 0 + 2 + 4);
  REQUIRE(out[1][1].item<float>() == 7 + 9 + 11);
}

TEST_CASE("processors reject predictions without a timestep dimension", "[processors]") {
  neurobench::processors::ChooseMaxCount choose;
  neurobench::processors::Aggregate aggregate;
  REQUIRE_THROWS_AS(choose(torch::ones({4, 2})), neurobench::InputError);
  REQUIRE_THROWS_WITH(choose(torch::ones({4, 2})), Catch::Contains("[4, 2]"));
  REQUIRE_THROWS_AS(aggregate(torch::ones({4})), neurobench::InputError);
}

TEST_CASE("callables are wrapped as processors", "[processors]") {
  auto post = neurobench::make_post_processor([](const torch::Tensor& t) { return t * 2; });
  REQUIRE((*post)(torch::ones({2})).sum().item<float>() == 4.f);
  auto pre = neurobench::make_pre_processor([](const neurobench::Batch& b) {
    neurobench::Batch out = b;
    out.data = b.data + 1;
    return out;
  });
  neurobench::Batch b{torch::zeros({2, 1}), torch::zeros({2}), {}};
  REQUIRE((*pre)(b).data.sum().item<float>() == 2.f);
  REQUIRE(b.data.sum().item<float>() == 0.f);
  REQUIRE_THROWS_AS(neurobench::make_post_processor(nullptr), neurobench::UsageError);
  REQUIRE_THROWS_AS(neurobench::make_pre_processor(nullptr), neurobench::UsageError);
}

TEST_CASE("post-processors are created by name", "[processors]") {
  auto p = neurobench::post_processors().create("aggregate");
  REQUIRE((*p)(torch::ones({1, 5, 2}))[0][0].item<float>() == 5.f);
  REQUIRE_THROWS_WITH(neurobench::post_processors().create("Argmax"),
                      Catch::Contains("Argmax") && Catch::Contains("ChooseMaxCount"));
}
