// SPDX-License-Identifier: Apache-2.0
// delta_modulate() as Speech2Spikes uses it (threshold 1, along time); its general contract is
// tested with the delta encoder (tests/processors/encoders_test.cpp).
#include <catch2/catch.hpp>

#include <neurobench/processors/encoders.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::delta_modulate;

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
  REQUIRE(events_of(delta_modulate(row({0.4f, 1.6f, 2.9f, 2.0f, -0.5f, -1.5f, 0.f}), 1.0, 1)) ==
          std::vector<float>{0, 1, 1, 0, -1, -1, 0});
  // A jump of 5 is followed one step per sample, until it is within the threshold.
  REQUIRE(events_of(delta_modulate(row({0.f, 5.f, 5.f, 5.f, 5.f, 5.f, 5.f}), 1.0, 1)) ==
          std::vector<float>{0, 1, 1, 1, 1, 0, 0});
  // Strictly beyond the threshold.
  REQUIRE(events_of(delta_modulate(row({0.f, 1.f, -1.f}), 1.0, 1)) ==
          std::vector<float>{0, 0, 0});
  REQUIRE(events_of(delta_modulate(row({0.f, 1.0000001f, 0.f}), 1.0, 1)) ==
          std::vector<float>{0, 1, 0});
}

TEST_CASE("delta modulation starts its level at the first value rounded half to even",
          "[audio][delta]") {
  // 0.5 rounds to 0, 1.5 to 2, 2.5 to 2 (not 3), -0.5 to -0.
  REQUIRE(events_of(delta_modulate(row({0.5f, 1.6f}), 1.0, 1)) == std::vector<float>{0, 1});
  REQUIRE(events_of(delta_modulate(row({1.5f, 1.6f}), 1.0, 1)) == std::vector<float>{0, 0});
  REQUIRE(events_of(delta_modulate(row({2.5f, 3.1f}), 1.0, 1)) == std::vector<float>{0, 1});
  REQUIRE(events_of(delta_modulate(row({-0.5f, 1.1f}), 1.0, 1)) == std::vector<float>{0, 1});
}

TEST_CASE("delta modulation of the S2S reference's log mels gives the reference's events",
          "[audio][delta]") {
  const torch::Tensor log_mel = neurobench::test::audio_fixture("s2s.npz", "log_mel");
  const torch::Tensor events =
      neurobench::test::audio_fixture("s2s.npz", "events").to(torch::kFloat);
  const auto ours = delta_modulate(log_mel, 1.0, -1).narrow(-1, 1, 200).transpose(1, 2);
  REQUIRE(torch::equal(ours, events));
}
