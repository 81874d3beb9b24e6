// SPDX-License-Identifier: Apache-2.0
#include <neurobench/audio/resample.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::audio::ResampleOptions;
using neurobench::audio::Resampler;
using neurobench::test::audio_clips;
using neurobench::test::audio_fixture;
using neurobench::test::require_close;

namespace {
ResampleOptions rates(int64_t orig, int64_t new_freq) {
  ResampleOptions o;
  o.orig_freq = orig;
  o.new_freq = new_freq;
  return o;
}
}  // namespace

TEST_CASE("the resampling kernel equals torchaudio's Resample kernel", "[audio][resample]") {
  const Resampler down(rates(16000, 8000));
  REQUIRE(down.width() == 13);  // ceil(6 * 2 / (0.99 * 1))
  REQUIRE(down.kernel().sizes() == torch::IntArrayRef({1, 1, 28}));
  require_close(down.kernel(), audio_fixture("resample.npz", "kernel_16000_8000"), 1e-4, 1e-7);
  const Resampler cd(rates(44100, 16000));  // gcd 100: 441 -> 160
  REQUIRE(cd.kernel().sizes() == torch::IntArrayRef({160, 1, 2 * cd.width() + 441}));
}

TEST_CASE("resampling equals torchaudio's within 1e-4 relative", "[audio][resample]") {
  const torch::Tensor x =
      audio_clips().index({torch::tensor({0, 2}), torch::indexing::Slice(0, 4000)}).unsqueeze(1);
  SECTION("16 kHz to 8 kHz (NeuroBench's GSC example)") {
    const auto y = neurobench::audio::resample(x, rates(16000, 8000));
    REQUIRE(y.sizes() == torch::IntArrayRef({2, 1, 2000}));
    require_close(y, audio_fixture("resample.npz", "r_16000_8000"), 1e-4, 1e-6);
  }
  SECTION("44.1 kHz to 16 kHz") {
    const torch::Tensor x44 = audio_fixture("waves.npz", "pcm44").to(torch::kFloat) / 32768.0;
    require_close(neurobench::audio::resample(x44, rates(44100, 16000)),
                  audio_fixture("resample.npz", "r_44100_16000"), 1e-4, 1e-6);
  }
  SECTION("Kaiser window, wider filter, lower roll-off") {
    ResampleOptions o = rates(16000, 8000);
    o.method = neurobench::audio::ResamplingMethod::KaiserWindow;
    o.lowpass_filter_width = 16;
    o.rolloff = 0.9;
    o.beta = 8.0;
    require_close(neurobench::audio::resample(x, o),
                  audio_fixture("resample.npz", "r_kaiser_16000_8000"), 1e-4, 1e-6);
  }
  SECTION("upsampling with a float32 kernel, as functional.resample computes it") {
    ResampleOptions o = rates(8000, 11025);
    o.kernel_dtype = torch::kFloat;
    const torch::Tensor one =
        audio_clips().index({torch::indexing::Slice(0, 1), torch::indexing::Slice(0, 2000)});
    const auto y = neurobench::audio::resample(one, o);
    REQUIRE(y.size(1) == 2757);  // ceil(11025 * 2000 / 8000)
    require_close(y, audio_fixture("resample.npz", "r_functional_8000_11025"), 1e-4, 1e-6);
  }
}

TEST_CASE("resampling gives ceil(new * length / orig) samples and keeps leading dimensions",
          "[audio][resample]") {
  const Resampler down(rates(16000, 8000));
  REQUIRE(down.output_length(16000) == 8000);
  REQUIRE(down.output_length(3) == 2);
  REQUIRE(down.output_length(0) == 0);
  REQUIRE(down(torch::zeros({2, 3, 5})).sizes() == torch::IntArrayRef({2, 3, 3}));
  REQUIRE(down(torch::zeros({7})).sizes() == torch::IntArrayRef({4}));
  REQUIRE(down(torch::zeros({0, 100})).sizes() == torch::IntArrayRef({0, 50}));
  const torch::Tensor x = torch::randn({2, 100}, torch::kDouble);
  const auto same = Resampler(rates(8000, 8000))(x);
  REQUIRE(same.scalar_type() == torch::kFloat);
  REQUIRE(torch::equal(same, x.to(torch::kFloat)));
}

TEST_CASE("invalid resampling options are UsageErrors naming the option", "[audio][resample]") {
  auto fails_with = [](const ResampleOptions& o, const std::string& text) {
    REQUIRE_THROWS_AS(Resampler(o), UsageError);
    REQUIRE_THROWS_WITH(Resampler(o), Catch::Contains(text));
  };
  fails_with(rates(0, 8000), "orig_freq must be at least 1");
  fails_with(rates(16000, -8000), "new_freq must be at least 1");
  ResampleOptions o;
  o.lowpass_filter_width = 0;
  fails_with(o, "lowpass_filter_width must be at least 1, got 0");
  o = {};
  o.rolloff = 0;
  fails_with(o, "rolloff must be in (0, 1], got 0");
  o.rolloff = 1.5;
  fails_with(o, "rolloff must be in (0, 1]");
  o = {};
  o.beta = -1;
  fails_with(o, "beta must be finite and at least 0");
  o = {};
  o.kernel_dtype = torch::kHalf;
  fails_with(o, "kernel_dtype must be Float or Double");
  // Co-prime rates: 44101 filters of about 16,000 taps.
  fails_with(rates(16000, 44101), "more than the limit of 2^24 taps");
  o = {};
  o.lowpass_filter_width = int64_t{1} << 60;
  fails_with(o, "lowpass_filter_width");
}

TEST_CASE("resampling rejects a non-floating or 0-d waveform, naming it", "[audio][resample]") {
  const Resampler down(rates(16000, 8000));
  REQUIRE_THROWS_AS(down(torch::zeros({2, 10}, torch::kLong)), InputError);
  REQUIRE_THROWS_WITH(down(torch::zeros({2, 10}, torch::kLong)),
                      Catch::Contains("resample") && Catch::Contains("[2, 10]"));
  REQUIRE_THROWS_WITH(down(torch::tensor(0.5f)), Catch::Contains("0-d"));
}
