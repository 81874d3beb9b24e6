// SPDX-License-Identifier: Apache-2.0
#include <neurobench/processors/processors.hpp>

#include <torch/script.h>
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

TEST_CASE("Argmax gives the class with the largest score of each sample", "[processors]") {
  // Log-probabilities (batch 3, classes 4): negative scores, a tie in sample 2.
  const auto scores = torch::tensor({-2.f, -0.1f, -3.f, -4.f,   // class 1
                                     -0.5f, -1.f, -2.f, -0.2f,  // class 3
                                     -1.f, -1.f, -3.f, -3.f})   // tie: the first, class 0
                          .reshape({3, 4});
  neurobench::processors::Argmax argmax;
  const auto out = argmax(scores);
  REQUIRE(out.sizes() == torch::IntArrayRef({3}));
  REQUIRE(out.scalar_type() == torch::kLong);
  REQUIRE(out.equal(torch::tensor({1, 3, 0}, torch::kLong)));
  REQUIRE(scores.sizes() == torch::IntArrayRef({3, 4}));  // input left alone
}

TEST_CASE("Argmax squeezes as Python's argmax(dim=-1).squeeze(): a batch of one becomes 0-d",
          "[processors]") {
  neurobench::processors::Argmax argmax;
  const auto one = argmax(torch::tensor({0.1f, 0.7f, 0.2f}).reshape({1, 3}));
  REQUIRE(one.dim() == 0);
  REQUIRE(one.item<int64_t>() == 1);
  // (batch, timesteps, classes): a class per timestep, (batch, timesteps).
  const auto per_step = argmax(torch::arange(24, torch::kFloat).reshape({2, 3, 4}).flip(2));
  REQUIRE(per_step.sizes() == torch::IntArrayRef({2, 3}));
  REQUIRE(per_step.eq(0).all().item<bool>());
  // One timestep is squeezed away too: (batch, 1, classes) gives (batch).
  REQUIRE(argmax(torch::ones({5, 1, 2})).sizes() == torch::IntArrayRef({5}));
  // A 1-d vector of scores is one sample's: its class, 0-d.
  REQUIRE(argmax(torch::tensor({3.f, 9.f, 1.f})).item<int64_t>() == 1);
}

TEST_CASE("Argmax rejects a 0-d input and an empty class dimension, naming the shape",
          "[processors]") {
  neurobench::processors::Argmax argmax;
  REQUIRE_THROWS_AS(argmax(torch::tensor(2.f)), neurobench::InputError);
  REQUIRE_THROWS_WITH(argmax(torch::tensor(2.f)),
                      Catch::Contains("Argmax") && Catch::Contains("0-d") &&
                          Catch::Contains("shape []"));
  REQUIRE_THROWS_AS(argmax(torch::zeros({4, 0})), neurobench::InputError);
  REQUIRE_THROWS_WITH(argmax(torch::zeros({4, 0})),
                      Catch::Contains("Argmax") && Catch::Contains("no classes") &&
                          Catch::Contains("[4, 0]"));
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
  auto argmax = neurobench::post_processors().create("argmax");
  REQUIRE((*argmax)(torch::tensor({{0.f, 2.f}, {3.f, 1.f}})).equal(torch::tensor({1, 0})));
  REQUIRE_THROWS_WITH(neurobench::post_processors().create("Argmin"),
                      Catch::Contains("Argmin") && Catch::Contains("ChooseMaxCount") &&
                          Catch::Contains("Argmax"));
}
