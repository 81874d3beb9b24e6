// SPDX-License-Identifier: Apache-2.0
#include <neurobench/audio/spectrogram.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::audio::PadMode;
using neurobench::audio::SpectrogramNorm;
using neurobench::audio::SpectrogramOptions;
using neurobench::test::audio_clips;
using neurobench::test::audio_fixture;
using neurobench::test::require_close_power;

namespace {
torch::Tensor speech_and_chirp(int64_t samples) {
  return audio_clips().index({torch::tensor({0, 2}), torch::indexing::Slice(0, samples)});
}
}  // namespace

TEST_CASE("spectrogram equals torchaudio's Spectrogram within 1e-4 relative",
          "[audio][spectrogram]") {
  const torch::Tensor x = speech_and_chirp(1000);
  SECTION("power 2, centred, reflect padding") {
    SpectrogramOptions o;
    o.n_fft = 128;
    o.hop_length = 32;
    require_close_power(neurobench::audio::spectrogram(x, o), audio_fixture("mel.npz", "spec_a"));
  }
  SECTION("magnitude, a window shorter than n_fft, pad, window normalisation, zero padding") {
    SpectrogramOptions o;
    o.n_fft = 100;
    o.win_length = 64;
    o.hop_length = 25;
    o.pad = 7;
    o.power = 1.0;
    o.normalized = SpectrogramNorm::Window;
    o.pad_mode = PadMode::Constant;
    require_close_power(neurobench::audio::spectrogram(x, o), audio_fixture("mel.npz", "spec_b"));
  }
  SECTION("power 0.5, not centred, frame-length normalisation, two-sided") {
    SpectrogramOptions o;
    o.n_fft = 64;
    o.hop_length = 16;
    o.center = false;
    o.power = 0.5;
    o.normalized = SpectrogramNorm::FrameLength;
    o.onesided = false;
    require_close_power(neurobench::audio::spectrogram(x.narrow(1, 0, 600), o),
                        audio_fixture("mel.npz", "spec_c"));
  }
}

TEST_CASE("spectrogram frames and bins follow torch.stft: 1 + padded_length / hop frames",
          "[audio][spectrogram]") {
  SpectrogramOptions o;  // n_fft 400, hop 200, centred
  REQUIRE(o.window_length() == 400);
  REQUIRE(o.hop() == 200);
  REQUIRE(o.n_freqs() == 201);
  REQUIRE(o.n_frames(16000) == 81);
  o.center = false;
  REQUIRE(o.n_frames(16000) == 79);
  REQUIRE(o.n_frames(399) == 0);
  o.onesided = false;
  REQUIRE(o.n_freqs() == 400);
  const auto out = neurobench::audio::spectrogram(torch::zeros({3, 1000}), SpectrogramOptions{});
  REQUIRE(out.sizes() == torch::IntArrayRef({3, 201, 6}));
  REQUIRE(out.scalar_type() == torch::kFloat);
}

TEST_CASE("spectrogram takes any leading dimensions and converts float64 to float32",
          "[audio][spectrogram]") {
  SpectrogramOptions o;
  o.n_fft = 64;
  const torch::Tensor x = speech_and_chirp(500);
  const torch::Tensor flat = neurobench::audio::spectrogram(x, o);
  const torch::Tensor nested =
      neurobench::audio::spectrogram(x.reshape({2, 1, 1, 500}).to(torch::kDouble), o);
  REQUIRE(nested.sizes() == torch::IntArrayRef({2, 1, 1, 33, flat.size(-1)}));
  REQUIRE(nested.scalar_type() == torch::kFloat);
  REQUIRE(torch::equal(nested.reshape(flat.sizes()), flat));
  const auto single = neurobench::audio::spectrogram(x[1], o);
  REQUIRE(torch::equal(single, flat[1]));
  const auto empty = neurobench::audio::spectrogram(torch::zeros({0, 500}), o);
  REQUIRE(empty.sizes() == torch::IntArrayRef({0, 33, flat.size(-1)}));
}

TEST_CASE("spectrogram rejects waveforms it cannot transform, naming the shape",
          "[audio][spectrogram]") {
  neurobench::audio::Spectrogram spec(SpectrogramOptions{});  // n_fft 400, reflect padding 200
  REQUIRE_THROWS_AS(spec(torch::zeros({2, 200})), InputError);
  REQUIRE_THROWS_WITH(spec(torch::zeros({2, 200})), Catch::Contains("[2, 200]") &&
                                                        Catch::Contains("reflect") &&
                                                        Catch::Contains("at least 201"));
  REQUIRE_NOTHROW(spec(torch::zeros({2, 201})));
  REQUIRE_THROWS_WITH(spec(torch::zeros({4}, torch::kShort)),
                      Catch::Contains("floating-point") && Catch::Contains("[4]"));
  REQUIRE_THROWS_WITH(spec(torch::tensor(1.f)), Catch::Contains("0-d"));
  REQUIRE_THROWS_AS(spec(torch::Tensor()), InputError);
  SpectrogramOptions uncentred;
  uncentred.center = false;
  REQUIRE_THROWS_WITH(neurobench::audio::spectrogram(torch::zeros({399}), uncentred),
                      Catch::Contains("[399]") && Catch::Contains("fewer than n_fft = 400"));
  SpectrogramOptions constant;
  constant.pad_mode = PadMode::Constant;
  REQUIRE(neurobench::audio::spectrogram(torch::zeros({1}), constant).size(-1) == 1);
}

TEST_CASE("invalid spectrogram options are UsageErrors naming the option", "[audio][spectrogram]") {
  auto fails_with = [](SpectrogramOptions o, const std::string& text) {
    REQUIRE_THROWS_AS(o.validate(), UsageError);
    REQUIRE_THROWS_WITH(o.validate(), Catch::Contains(text));
    REQUIRE_THROWS_AS(neurobench::audio::Spectrogram(o), UsageError);
  };
  SpectrogramOptions o;
  o.n_fft = 1;
  fails_with(o, "n_fft must be between 2 and 1048576, got 1");
  o.n_fft = (1 << 20) + 1;
  fails_with(o, "n_fft must be between 2 and 1048576, got 1048577");
  o = {};
  o.win_length = 401;
  fails_with(o, "win_length must be between 1 and n_fft = 400, got 401");
  o = {};
  o.hop_length = 0;
  fails_with(o, "hop_length must be at least 1, got 0");
  o = {};
  o.win_length = 1;  // the default hop, win_length / 2, is 0
  fails_with(o, "hop_length (default win_length / 2) must be at least 1");
  o = {};
  o.pad = -1;
  fails_with(o, "pad must be between 0 and 1073741824, got -1");
  o.pad = int64_t{1} << 40;
  fails_with(o, "pad must be between 0 and 1073741824");
  o = {};
  o.power = 0;
  fails_with(o, "power must be positive");
  o.power = std::nan("");
  fails_with(o, "power must be positive and finite");
  o = {};
  o.n_fft = 0;
  REQUIRE_THROWS_WITH(
      o.validate("pre-processor 'X'"),
      Catch::StartsWith("pre-processor 'X': n_fft must be between 2 and 1048576, got 0"));
}
