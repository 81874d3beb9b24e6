// SPDX-License-Identifier: Apache-2.0
#include <neurobench/processors/audio.hpp>

#include <cmath>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::Batch;
using neurobench::InputError;
using neurobench::Json;
using neurobench::UsageError;
using neurobench::test::audio_clips;
using neurobench::test::audio_fixture;
using neurobench::test::require_close;

namespace {

Batch audio_batch_of(const torch::Tensor& data) {
  Batch b;
  b.data = data;
  b.targets = torch::arange(data.size(0));
  return b;
}

Batch apply_audio(const std::string& name, const Json& options, const torch::Tensor& data) {
  auto pre = neurobench::pre_processors().create(name, options);
  return (*pre)(audio_batch_of(data));
}

}  // namespace

TEST_CASE("the audio pre-processors are registered with their options", "[processors][audio]") {
  const auto& registry = neurobench::pre_processors();
  for (const char* name : {"S2SPreProcessor", "MFCCPreProcessor", "Resample"}) {
    const auto* entry = registry.find(name);
    REQUIRE(entry != nullptr);
    REQUIRE(entry->source == "built-in");
    REQUIRE_FALSE(entry->options.empty());
  }
  REQUIRE(registry.find("s2s_pre_processor") != nullptr);
  const auto* s2s = registry.find("S2SPreProcessor");
  REQUIRE(s2s->options[0].name == "threshold");
  REQUIRE(s2s->options[0].default_value == 1.0);
}

TEST_CASE(
    "S2SPreProcessor's events equal the S2S reference's on at least 99.9% of entries, and "
    "differ only where value - level is on the threshold",
    "[processors][audio][s2s]") {
  const torch::Tensor clips = audio_clips();  // (6, 16000)
  const Batch out = apply_audio("S2SPreProcessor", Json::object(), clips.unsqueeze(-1));
  const torch::Tensor expected = audio_fixture("s2s.npz", "events").to(torch::kFloat);
  REQUIRE(out.data.sizes() == torch::IntArrayRef({6, 200, 20}));
  REQUIRE(out.data.scalar_type() == torch::kFloat);
  REQUIRE(torch::equal(out.targets, torch::arange(6)));
  const torch::Tensor differs = out.data != expected;
  const double agreement = 1.0 - differs.to(torch::kDouble).mean().item<double>();
  INFO("S2S agreement with the reference: " << agreement);
  CHECK(agreement >= 0.999);
  // Each series (clip, mel band) that differs must first differ where the reference's
  // value - level is within float rounding of +-1 (the threshold).
  const torch::Tensor log_mel = audio_fixture("s2s.npz", "log_mel");  // (6, 20, 201)
  const auto lm = log_mel.accessor<float, 3>();
  const auto diff = differs.accessor<bool, 3>();
  int series_differing = 0;
  for (int64_t b = 0; b < 6; ++b) {
    for (int64_t m = 0; m < 20; ++m) {
      int64_t first = -1;
      for (int64_t t = 0; t < 200 && first < 0; ++t) {
        if (diff[b][t][m]) first = t + 1;  // frame index before the first frame was dropped
      }
      if (first < 0) continue;
      ++series_differing;
      float level = std::nearbyint(lm[b][m][0]);
      float d = 0;
      for (int64_t t = 0; t <= first; ++t) {
        d = lm[b][m][t] - level;
        level += d > 1.f ? 1.f : (d < -1.f ? -1.f : 0.f);
      }
      INFO("clip " << b << ", band " << m << ", frame " << first << ": value - level = " << d);
      CHECK(std::abs(std::abs(d) - 1.f) < 1e-4f);
    }
  }
  INFO("series with a differing event: " << series_differing);
  SUCCEED();
}

TEST_CASE("S2SPreProcessor's log mel spectrogram equals the reference's within 1e-4",
          "[processors][audio][s2s]") {
  neurobench::audio::MelSpectrogramOptions o;
  o.spectrogram.n_fft = 512;
  o.spectrogram.hop_length = 80;
  o.mel.n_mels = 20;
  o.mel.f_min = 20;
  o.mel.f_max = 4000;
  const torch::Tensor log_mel =
      torch::log(neurobench::audio::mel_spectrogram(audio_clips(), o) + 1e-6);
  require_close(log_mel, audio_fixture("s2s.npz", "log_mel"), 1e-4, 1e-4);
}

TEST_CASE(
    "S2SPreProcessor takes (batch, samples) too, keeps every frame of other lengths, and "
    "passes targets and extras through",
    "[processors][audio][s2s]") {
  const torch::Tensor clips = audio_clips().narrow(0, 0, 2);
  neurobench::processors::S2SPreProcessor s2s;
  Batch in = audio_batch_of(clips.unsqueeze(-1));
  in.extras["ids"] = torch::tensor({7, 9});
  const Batch three_d = s2s(in);
  REQUIRE(torch::equal(three_d.extras.at("ids"), torch::tensor({7, 9})));
  REQUIRE(torch::equal(s2s(audio_batch_of(clips)).data, three_d.data));
  // Half a second: 101 frames, none dropped.
  REQUIRE(s2s(audio_batch_of(clips.narrow(1, 0, 8000))).data.sizes() ==
          torch::IntArrayRef({2, 101, 20}));
  // A higher threshold makes fewer events.
  const Batch coarse = apply_audio("S2SPreProcessor", Json{{"threshold", 2.0}}, clips);
  REQUIRE(coarse.data.abs().sum().item<float>() < three_d.data.abs().sum().item<float>());
  // Other mel settings: 40 bands, hop 160 -> 101 frames, the first dropped.
  const Batch wide =
      apply_audio("S2SPreProcessor", Json{{"n_mels", 40}, {"hop_length", 160}}, clips);
  REQUIRE(wide.data.sizes() == torch::IntArrayRef({2, 100, 40}));
}

TEST_CASE("S2SPreProcessor rejects other layouts and bad options, naming them",
          "[processors][audio][s2s]") {
  neurobench::processors::S2SPreProcessor s2s;
  for (const auto& shape : {std::vector<int64_t>{2, 16000, 2}, std::vector<int64_t>{16000},
                            std::vector<int64_t>{1, 2, 16000, 1}}) {
    REQUIRE_THROWS_AS(s2s(audio_batch_of(torch::zeros(shape))), InputError);
  }
  REQUIRE_THROWS_WITH(s2s(audio_batch_of(torch::zeros({2, 16000, 2}))),
                      Catch::Contains("S2SPreProcessor") && Catch::Contains("[2, 16000, 2]") &&
                          Catch::Contains("(batch, samples, 1)"));
  REQUIRE_THROWS_WITH(s2s(audio_batch_of(torch::zeros({2, 100}))),
                      Catch::Contains("S2SPreProcessor") && Catch::Contains("[2, 100]"));
  REQUIRE_THROWS_WITH(s2s(audio_batch_of(torch::zeros({2, 1000}, torch::kShort))),
                      Catch::Contains("floating-point"));
  auto fails_with = [](const Json& options, const std::string& text) {
    REQUIRE_THROWS_AS(neurobench::pre_processors().create("S2SPreProcessor", options), UsageError);
    REQUIRE_THROWS_WITH(neurobench::pre_processors().create("S2SPreProcessor", options),
                        Catch::Contains("S2SPreProcessor") && Catch::Contains(text));
  };
  fails_with({{"threshold", -1}}, "threshold must be finite and above 0, got -1");
  fails_with({{"threshold", 0}}, "threshold must be finite and above 0, got 0");
  fails_with({{"n_fft", 1}}, "n_fft must be between 2 and 1048576, got 1");
  fails_with({{"hop_length", 0}}, "hop_length must be at least 1, got 0");
  fails_with({{"f_min", 4000}}, "f_max must be greater than f_min = 4000");
  fails_with({{"n_mels", 0}}, "n_mels must be between 1 and 65536, got 0");
  fails_with({{"sample_rate", 0}}, "sample_rate must be at least 1");
  fails_with({{"n_fft", 2.5}}, "'n_fft' must be an integer");
  fails_with({{"n_fft", 1e300}}, "n_fft must be an integer");
  fails_with({{"thresold", 1}}, "has no option 'thresold'");
}

TEST_CASE("MFCCPreProcessor equals NeuroBench's MFCCPreProcessor on (batch, timesteps, 1)",
          "[processors][audio][mfcc]") {
  const torch::Tensor clips = audio_clips();
  const Batch out =
      apply_audio("MFCCPreProcessor", Json::object(), clips.narrow(0, 0, 3).unsqueeze(-1));
  REQUIRE(out.data.sizes() == torch::IntArrayRef({3, 1, 40, 81}));
  require_close(out.data, audio_fixture("mfcc.npz", "default_3d"), 1e-4, 1e-3);
  const Batch log =
      apply_audio("MFCCPreProcessor",
                  Json::parse(R"({"n_mfcc": 13, "log_mels": true, "melkwargs": {"n_fft": 512,
          "hop_length": 160, "n_mels": 40, "f_min": 20, "f_max": 7600, "mel_scale": "slaney",
          "norm": "slaney"}})"),
                  clips.narrow(0, 0, 3).unsqueeze(-1));
  require_close(log.data, audio_fixture("mfcc.npz", "custom_log"), 1e-4, 1e-3);
  const Batch db = apply_audio(
      "MFCCPreProcessor",
      Json::parse(R"({"n_mfcc": 20, "norm": null, "melkwargs": {"n_fft": 256, "win_length": 200,
          "hop_length": 128, "n_mels": 32, "power": 1, "center": false, "normalized": true}})"),
      clips.narrow(0, 0, 2).unsqueeze(-1));
  require_close(db.data, audio_fixture("mfcc.npz", "custom_db"), 1e-4, 1e-3);
}

TEST_CASE(
    "MFCCPreProcessor uses a (batch, timesteps) batch as it is, with the decibel floor of "
    "the whole batch, as NeuroBench does",
    "[processors][audio][mfcc]") {
  const torch::Tensor clips = audio_clips().narrow(0, 3, 3);  // clipped, very quiet, silence
  const Batch two_d = apply_audio("MFCCPreProcessor", Json::object(), clips);
  REQUIRE(two_d.data.sizes() == torch::IntArrayRef({3, 40, 81}));
  require_close(two_d.data, audio_fixture("mfcc.npz", "default_2d"), 1e-4, 1e-3);
  // Per clip (3-d input), the quiet clip keeps more of its range than in the 2-d batch.
  const Batch three_d = apply_audio("MFCCPreProcessor", Json::object(), clips.unsqueeze(-1));
  REQUIRE_FALSE(torch::allclose(three_d.data.squeeze(1)[1], two_d.data[1], 1e-3, 1e-3));
  REQUIRE(torch::allclose(three_d.data.squeeze(1)[0], two_d.data[0], 1e-5, 1e-4));
}

TEST_CASE("MFCCPreProcessor rejects bad options and melkwargs, naming them",
          "[processors][audio][mfcc]") {
  auto fails_with = [](const char* options, const std::string& text) {
    const Json j = Json::parse(options);
    REQUIRE_THROWS_AS(neurobench::pre_processors().create("MFCCPreProcessor", j), UsageError);
    REQUIRE_THROWS_WITH(neurobench::pre_processors().create("MFCCPreProcessor", j),
                        Catch::Contains("MFCCPreProcessor") && Catch::Contains(text));
  };
  fails_with(R"({"dct_type": 3})", "dct_type must be 2");
  fails_with(R"({"norm": "orthogonal"})", "norm must be \"ortho\" or null");
  fails_with(R"({"n_mfcc": 200})", "n_mfcc must be between 1 and n_mels = 128, got 200");
  fails_with(R"({"melkwargs": {"n_fft": 1}})", "n_fft must be between 2 and");
  fails_with(R"({"melkwargs": {"hop": 10}})", "melkwargs has no key 'hop'");
  fails_with(R"({"melkwargs": {"sample_rate": 8000}})", "melkwargs.sample_rate");
  fails_with(R"({"melkwargs": {"window_fn": "hamming"}})", "melkwargs.window_fn is not supported");
  fails_with(R"({"melkwargs": {"n_fft": "big"}})", "melkwargs.n_fft must be an integer");
  fails_with(R"({"melkwargs": {"center": 1}})", "melkwargs.center must be true or false");
  fails_with(R"({"melkwargs": {"pad_mode": "mirror"}})", "melkwargs.pad_mode must be");
  fails_with(R"({"melkwargs": {"norm": "l2"}})", "melkwargs.norm must be null or \"slaney\"");
  fails_with(R"({"melkwargs": {"mel_scale": "bark"}})", "melkwargs.mel_scale");
  fails_with(R"({"melkwargs": {"normalized": "yes"}})", "melkwargs.normalized");
  fails_with(R"({"melkwargs": {"onesided": false}})", "onesided must be true");
  fails_with(R"({"melkwargs": {"f_min": 100, "f_max": 50}})", "f_max must be greater than f_min");
  fails_with(R"({"melkwargs": []})", "option 'melkwargs' must be");
  neurobench::processors::MFCCPreProcessor mfcc;
  REQUIRE_THROWS_AS(mfcc(audio_batch_of(torch::zeros({2, 2, 16000, 1}))), InputError);
  REQUIRE_THROWS_WITH(mfcc(audio_batch_of(torch::zeros({2, 2, 16000, 1}))),
                      Catch::Contains("[2, 2, 16000, 1]"));
  REQUIRE_THROWS_WITH(mfcc(audio_batch_of(torch::zeros({2, 100, 1}))),
                      Catch::Contains("MFCCPreProcessor") && Catch::Contains("[2, 1, 100]"));
}

TEST_CASE(
    "Resample resamples (batch, timesteps, channels) to (batch, channels, new_timesteps) "
    "as NeuroBench's GSC example",
    "[processors][audio][resample]") {
  const torch::Tensor x =
      audio_clips().index({torch::tensor({0, 2}), torch::indexing::Slice(0, 4000)}).unsqueeze(-1);
  const Batch out = apply_audio("Resample", Json::object(), x);
  REQUIRE(out.data.sizes() == torch::IntArrayRef({2, 1, 2000}));
  require_close(out.data, audio_fixture("resample.npz", "r_16000_8000"), 1e-4, 1e-6);
  const Batch kaiser = apply_audio("Resample",
                                   Json{{"resampling_method", "kaiser_window"},
                                        {"lowpass_filter_width", 16},
                                        {"rolloff", 0.9},
                                        {"beta", 8.0}},
                                   x);
  require_close(kaiser.data, audio_fixture("resample.npz", "r_kaiser_16000_8000"), 1e-4, 1e-6);
  // Two channels are resampled each on its own.
  const Batch stereo = apply_audio("Resample", Json::object(), torch::cat({x, x.flip(1)}, 2));
  REQUIRE(stereo.data.sizes() == torch::IntArrayRef({2, 2, 2000}));
  REQUIRE(torch::equal(stereo.data.narrow(1, 0, 1), out.data));
}

TEST_CASE("Resample rejects other layouts and bad options, naming them",
          "[processors][audio][resample]") {
  neurobench::processors::Resample resample;
  REQUIRE_THROWS_AS(resample(audio_batch_of(torch::zeros({2, 16000}))), InputError);
  REQUIRE_THROWS_WITH(resample(audio_batch_of(torch::zeros({2, 16000}))),
                      Catch::Contains("Resample") && Catch::Contains("[2, 16000]") &&
                          Catch::Contains("(batch, timesteps, channels)"));
  auto fails_with = [](const Json& options, const std::string& text) {
    REQUIRE_THROWS_AS(neurobench::pre_processors().create("Resample", options), UsageError);
    REQUIRE_THROWS_WITH(neurobench::pre_processors().create("Resample", options),
                        Catch::Contains("Resample") && Catch::Contains(text));
  };
  fails_with({{"new_freq", 0}}, "new_freq must be at least 1 (Hz), got 0");
  fails_with({{"rolloff", 2}}, "rolloff must be in (0, 1]");
  fails_with({{"lowpass_filter_width", 0}}, "lowpass_filter_width must be at least 1");
  fails_with({{"resampling_method", "linear"}}, "resampling_method must be");
  fails_with({{"new_freq", 44101}}, "2^24 taps");
}

TEST_CASE("a pad or new_freq whose output cannot fit in memory is refused before it is made",
          "[processors][audio][errors]") {
  const torch::Tensor clips = torch::rand({8, 16000, 1});
  // pad 2^30 on each side: 8 spectrograms of 10 million frames, hundreds of GB.
  REQUIRE_THROWS_AS(
      apply_audio("MFCCPreProcessor", Json{{"melkwargs", {{"pad", 1073741824}}}}, clips),
      neurobench::InputError);
  REQUIRE_THROWS_WITH(
      apply_audio("MFCCPreProcessor", Json{{"melkwargs", {{"pad", 1073741824}}}}, clips),
      Catch::Contains("with pad 1073741824") &&
          Catch::Contains("of memory available (MemAvailable); nothing was made"));
  // 16 kHz to 16 GHz (a kernel within its limit): 8 signals of 1.6e10 samples.
  REQUIRE_THROWS_WITH(apply_audio("Resample", Json{{"new_freq", 16000000000}}, clips),
                      Catch::Contains("16000 Hz to 16000000000 Hz") &&
                          Catch::Contains("of memory available (MemAvailable)"));
}
