// SPDX-License-Identifier: Apache-2.0
#include <neurobench/audio/mel.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::audio::MelNorm;
using neurobench::audio::MelScale;
using neurobench::audio::MelScaleOptions;
using neurobench::audio::MelSpectrogramOptions;
using neurobench::test::audio_clips;
using neurobench::test::audio_fixture;
using neurobench::test::require_close_power;

namespace {
MelScaleOptions scale(int64_t n_mels, int64_t sample_rate, double f_min, double f_max,
                      MelNorm norm = MelNorm::None, MelScale mel_scale = MelScale::Htk) {
  MelScaleOptions o;
  o.n_mels = n_mels;
  o.sample_rate = sample_rate;
  o.f_min = f_min;
  o.f_max = f_max;
  o.norm = norm;
  o.mel_scale = mel_scale;
  return o;
}

MelSpectrogramOptions mel_options(int64_t n_fft, int64_t hop, MelScaleOptions mel) {
  MelSpectrogramOptions o;
  o.spectrogram.n_fft = n_fft;
  o.spectrogram.hop_length = hop;
  o.mel = mel;
  return o;
}
}  // namespace

TEST_CASE("mel filter banks equal torchaudio's melscale_fbanks (HTK and Slaney)", "[audio][mel]") {
  using neurobench::audio::mel_filter_bank;
  require_close_power(mel_filter_bank(257, scale(20, 16000, 20, 4000)),
                      audio_fixture("mel.npz", "fbank_s2s"));
  require_close_power(mel_filter_bank(201, MelScaleOptions{}),
                      audio_fixture("mel.npz", "fbank_default"));
  require_close_power(
      mel_filter_bank(129, scale(40, 16000, 50, 7000, MelNorm::Slaney, MelScale::Slaney)),
      audio_fixture("mel.npz", "fbank_slaney"));
  MelScaleOptions odd;  // f_max unset: 22050 / 2, integer division
  odd.n_mels = 30;
  odd.sample_rate = 22050;
  odd.mel_scale = MelScale::Slaney;
  REQUIRE(odd.max_frequency() == 11025.0);
  require_close_power(mel_filter_bank(101, odd),
                      audio_fixture("mel.npz", "fbank_22050_slaney_scale"));
}

TEST_CASE("the mel scales map 1 kHz and 0 Hz as HTK and Slaney define them", "[audio][mel]") {
  using neurobench::audio::hz_to_mel;
  REQUIRE(hz_to_mel(0, MelScale::Htk) == 0.0);
  REQUIRE(hz_to_mel(700, MelScale::Htk) == Approx(2595.0 * std::log10(2.0)));
  REQUIRE(hz_to_mel(1000, MelScale::Slaney) == Approx(15.0));         // 1000 / (200 / 3)
  REQUIRE(hz_to_mel(6400, MelScale::Slaney) == Approx(15.0 + 27.0));  // log(6.4) / 27 per mel
  REQUIRE(hz_to_mel(500, MelScale::Slaney) == Approx(7.5));
}

TEST_CASE("mel spectrograms equal torchaudio's MelSpectrogram within 1e-4 relative",
          "[audio][mel]") {
  const torch::Tensor x =
      audio_clips().index({torch::tensor({0, 2}), torch::indexing::Slice(0, 4000)});
  SECTION("defaults: n_fft 400, 128 HTK mels") {
    const auto out = neurobench::audio::mel_spectrogram(x);
    REQUIRE(out.sizes() == torch::IntArrayRef({2, 128, 21}));
    require_close_power(out, audio_fixture("mel.npz", "mel_default"));
  }
  SECTION("Slaney scale and normalisation") {
    require_close_power(
        neurobench::audio::mel_spectrogram(
            x, mel_options(256, 64, scale(40, 16000, 50, 7000, MelNorm::Slaney, MelScale::Slaney))),
        audio_fixture("mel.npz", "mel_slaney"));
  }
  SECTION("Speech2Spikes' settings") {
    neurobench::audio::MelSpectrogram mel(mel_options(512, 80, scale(20, 16000, 20, 4000)));
    REQUIRE(mel.filter_bank().sizes() == torch::IntArrayRef({257, 20}));
    require_close_power(mel(x), audio_fixture("mel.npz", "mel_s2s"));
  }
  SECTION("8 kHz, replicate padding, a channel dimension") {
    MelSpectrogramOptions o;
    o.spectrogram.n_fft = 200;
    o.spectrogram.pad_mode = neurobench::audio::PadMode::Replicate;
    o.mel.sample_rate = 8000;
    o.mel.n_mels = 23;
    const torch::Tensor y =
        audio_clips().index({torch::tensor({1, 3}), torch::indexing::Slice(0, 2000)}).unsqueeze(1);
    require_close_power(neurobench::audio::mel_spectrogram(y, o),
                        audio_fixture("mel.npz", "mel_8k_replicate"));
  }
}

TEST_CASE("invalid mel options are UsageErrors naming the option", "[audio][mel]") {
  auto fails_with = [](const MelSpectrogramOptions& o, const std::string& text) {
    REQUIRE_THROWS_AS(neurobench::audio::MelSpectrogram(o), UsageError);
    REQUIRE_THROWS_WITH(neurobench::audio::MelSpectrogram(o), Catch::Contains(text));
  };
  MelSpectrogramOptions o;
  o.mel.n_mels = 0;
  fails_with(o, "n_mels must be between 1 and 65536, got 0");
  o.mel.n_mels = 65537;
  fails_with(o, "n_mels must be between 1 and 65536, got 65537");
  o = {};
  o.spectrogram.n_fft = 1 << 20;
  o.mel.n_mels = 1000;
  fails_with(o, "n_mels = 1000 filters of n_fft / 2 + 1 = 524289 bins are more than the limit");
  o = {};
  o.mel.sample_rate = 0;
  fails_with(o, "sample_rate must be at least 1");
  o = {};
  o.mel.f_min = 4000;
  o.mel.f_max = 4000;
  fails_with(o, "f_max must be greater than f_min = 4000");
  o = {};
  o.mel.f_min = 9000;  // above the default f_max, 8000
  fails_with(o, "f_max (default sample_rate / 2) must be greater than f_min = 9000");
  o = {};
  o.mel.f_min = -1;
  fails_with(o, "f_min must be finite and at least 0");
  o = {};
  o.mel.f_max = std::numeric_limits<double>::infinity();
  fails_with(o, "f_max must be finite");
  o = {};
  o.spectrogram.onesided = false;
  fails_with(o, "onesided must be true");
  o = {};
  o.spectrogram.hop_length = 0;
  fails_with(o, "hop_length must be at least 1");
  REQUIRE_THROWS_WITH(neurobench::audio::mel_filter_bank(0, MelScaleOptions{}),
                      Catch::Contains("n_freqs must be at least 1"));
  REQUIRE_THROWS_AS(neurobench::audio::mel_filter_bank(int64_t{1} << 40, MelScaleOptions{}),
                    UsageError);
}

TEST_CASE("a mel spectrogram of a too short clip is an InputError naming the shape",
          "[audio][mel]") {
  neurobench::audio::MelSpectrogram mel(mel_options(512, 80, scale(20, 16000, 20, 4000)));
  REQUIRE_THROWS_AS(mel(torch::zeros({1, 256})), InputError);
  REQUIRE_THROWS_WITH(mel(torch::zeros({1, 256})), Catch::Contains("[1, 256]"));
}
