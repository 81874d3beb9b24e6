// SPDX-License-Identifier: Apache-2.0
#include <neurobench/audio/delta.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::audio::delta_modulate;

namespace {
torch::Tensor row(std::vector<float> values) { return torch::tensor(values).unsqueeze(0); }
std::vector<float> events_of(const torch::Tensor& t) {
  const torch::Tensor c = t.reshape({-1}).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}
}  // namespace

TEST_CASE("delta modulation follows the signal one threshold step per sample", "[audio][delta]") {
  // level 0; d: 0.4, 1.6 (+1, level 1), 1.9 (+1, level 2), 0, -2.5 (-1, level 1),
  // -2.5 (-1, level 0), 0.
  REQUIRE(events_of(delta_modulate(row({0.4f, 1.6f, 2.9f, 2.0f, -0.5f, -1.5f, 0.f}))) ==
          std::vector<float>{0, 1, 1, 0, -1, -1, 0});
  // A jump of 5 is followed one step per sample, until it is within the threshold.
  REQUIRE(events_of(delta_modulate(row({0.f, 5.f, 5.f, 5.f, 5.f, 5.f, 5.f}))) ==
          std::vector<float>{0, 1, 1, 1, 1, 0, 0});
}

TEST_CASE("delta modulation fires only when the difference exceeds the threshold strictly",
          "[audio][delta]") {
  REQUIRE(events_of(delta_modulate(row({0.f, 1.f, -1.f}))) == std::vector<float>{0, 0, 0});
  REQUIRE(events_of(delta_modulate(row({0.f, 1.0000001f, 0.f}))) == std::vector<float>{0, 1, 0});
  REQUIRE(events_of(delta_modulate(row({0.f, 0.5f, 0.75f}), 0.5)) == std::vector<float>{0, 0, 1});
  // Threshold 0: an event whenever the signal differs from the level.
  REQUIRE(events_of(delta_modulate(row({0.f, 0.1f, 0.1f, -0.2f}), 0.0)) ==
          std::vector<float>{0, 1, 1, -1});
}

TEST_CASE("delta modulation starts its level at the first value rounded half to even",
          "[audio][delta]") {
  // 0.5 rounds to 0, 1.5 to 2, 2.5 to 2 (not 3), -0.5 to -0.
  REQUIRE(events_of(delta_modulate(row({0.5f, 1.6f}))) == std::vector<float>{0, 1});
  REQUIRE(events_of(delta_modulate(row({1.5f, 1.6f}))) == std::vector<float>{0, 0});
  REQUIRE(events_of(delta_modulate(row({2.5f, 3.1f}))) == std::vector<float>{0, 1});
  REQUIRE(events_of(delta_modulate(row({-0.5f, 1.1f}))) == std::vector<float>{0, 1});
  // With a threshold below 0.5 the first sample itself can fire.
  REQUIRE(events_of(delta_modulate(row({0.4f, 0.4f}), 0.25)) == std::vector<float>{1, 0});
}

TEST_CASE("delta modulation works along any dimension, in float32 or float64", "[audio][delta]") {
  const torch::Tensor x = torch::randn({3, 50, 4}) * 3;
  const auto along_time = delta_modulate(x, 1.0, 1);
  REQUIRE(along_time.sizes() == x.sizes());
  REQUIRE(torch::equal(along_time, delta_modulate(x.transpose(1, 2), 1.0, -1).transpose(1, 2)));
  const auto twice = delta_modulate(x.to(torch::kDouble), 1.0, -2);
  REQUIRE(twice.scalar_type() == torch::kDouble);
  REQUIRE(torch::equal(twice.to(torch::kFloat), along_time));
  REQUIRE(torch::equal(delta_modulate(x.to(torch::kHalf), 1.0, 1).to(torch::kFloat),
                       delta_modulate(x.to(torch::kHalf).to(torch::kFloat), 1.0, 1)));
  REQUIRE(((along_time == 1) | (along_time == 0) | (along_time == -1)).all().item<bool>());
  REQUIRE((along_time == 1).any().item<bool>());
  REQUIRE((along_time == -1).any().item<bool>());
  REQUIRE(delta_modulate(torch::zeros({2, 0})).sizes() == torch::IntArrayRef({2, 0}));
}

TEST_CASE("delta modulation never fires on NaN", "[audio][delta]") {
  const float nan = std::nanf("");
  REQUIRE(events_of(delta_modulate(row({0.f, nan, 3.f}))) == std::vector<float>{0, 0, 1});
  REQUIRE(events_of(delta_modulate(row({nan, 3.f, -3.f}))) == std::vector<float>{0, 0, 0});
}

TEST_CASE("delta modulation of the S2S reference's log mels gives the reference's events",
          "[audio][delta]") {
  const torch::Tensor log_mel = neurobench::test::audio_fixture("s2s.npz", "log_mel");
  const torch::Tensor events =
      neurobench::test::audio_fixture("s2s.npz", "events").to(torch::kFloat);
  const auto ours = delta_modulate(log_mel, 1.0, -1).narrow(-1, 1, 200).transpose(1, 2);
  REQUIRE(torch::equal(ours, events));
}

TEST_CASE("delta modulation rejects bad thresholds, dtypes and dimensions, naming them",
          "[audio][delta]") {
  REQUIRE_THROWS_AS(delta_modulate(torch::zeros({3}), -1.0), UsageError);
  REQUIRE_THROWS_WITH(delta_modulate(torch::zeros({3}), -1.0),
                      Catch::Contains("threshold must be finite and at least 0, got -1"));
  REQUIRE_THROWS_AS(delta_modulate(torch::zeros({3}), std::nan("")), UsageError);
  REQUIRE_THROWS_AS(delta_modulate(torch::zeros({3}, torch::kInt)), InputError);
  REQUIRE_THROWS_WITH(delta_modulate(torch::zeros({3}, torch::kInt)),
                      Catch::Contains("floating-point") && Catch::Contains("[3]"));
  REQUIRE_THROWS_AS(delta_modulate(torch::tensor(1.f)), InputError);
  REQUIRE_THROWS_AS(delta_modulate(torch::zeros({2, 3}), 1.0, 2), InputError);
  REQUIRE_THROWS_WITH(delta_modulate(torch::zeros({2, 3}), 1.0, -3),
                      Catch::Contains("dim -3") && Catch::Contains("[2, 3]"));
}
