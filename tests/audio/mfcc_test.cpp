// SPDX-License-Identifier: Apache-2.0
#include <neurobench/audio/mfcc.hpp>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "audio/audio_fixtures.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::audio::AmplitudeToDbOptions;
using neurobench::audio::DctNorm;
using neurobench::audio::MfccOptions;
using neurobench::test::audio_clips;
using neurobench::test::audio_fixture;
using neurobench::test::require_close;

namespace {
AmplitudeToDbOptions top80() {
  AmplitudeToDbOptions o;
  o.top_db = 80.0;
  return o;
}
}  // namespace

TEST_CASE("DCT matrices equal torchaudio's create_dct", "[audio][mfcc]") {
  const auto ortho = neurobench::audio::dct_matrix(40, 128, DctNorm::Ortho);
  REQUIRE(ortho.sizes() == torch::IntArrayRef({128, 40}));
  require_close(ortho, audio_fixture("mel.npz", "dct_ortho"), 1e-4, 1e-7);
  require_close(neurobench::audio::dct_matrix(13, 40, DctNorm::None),
                audio_fixture("mel.npz", "dct_none"), 1e-4, 1e-7);
  // Orthonormal: the columns are orthonormal vectors.
  const auto full = neurobench::audio::dct_matrix(16, 16, DctNorm::Ortho);
  REQUIRE(torch::allclose(full.t().matmul(full), torch::eye(16), 1e-5, 1e-5));
}

TEST_CASE("amplitude_to_db equals torchaudio's amplitude_to_DB", "[audio][mfcc]") {
  const torch::Tensor power = audio_fixture("mel.npz", "db_input");  // (2, 3, 5, 6)
  require_close(neurobench::audio::amplitude_to_db(power, top80()),
                audio_fixture("mel.npz", "db_4d_top80"), 1e-4, 1e-4);
  require_close(neurobench::audio::amplitude_to_db(power.reshape({6, 5, 6}), top80()),
                audio_fixture("mel.npz", "db_3d_top80"), 1e-4, 1e-4);
  AmplitudeToDbOptions amplitude;
  amplitude.multiplier = 20.0;
  amplitude.amin = 1e-5;
  amplitude.db_multiplier = 0.5;
  require_close(neurobench::audio::amplitude_to_db(power, amplitude),
                audio_fixture("mel.npz", "db_amplitude"), 1e-4, 1e-4);
}

TEST_CASE(
    "amplitude_to_db's top_db floor is per item in 4-d but over the batch in 3-d "
    "(torchaudio 0.13)",
    "[audio][mfcc]") {
  // Two items: the first at 0 dB, the second at -60 and -90 dB.
  const torch::Tensor loud = torch::full({1, 1, 2, 2}, 1.0f);
  const torch::Tensor quiet = torch::tensor({1e-6f, 1e-6f, 1e-6f, 1e-9f}).reshape({1, 1, 2, 2});
  const torch::Tensor four = torch::cat({loud, quiet});  // (2, 1, 2, 2)
  const auto per_item = neurobench::audio::amplitude_to_db(four, top80());
  // Item 1's maximum is -60 dB: its floor is -140, so -90 stays.
  REQUIRE(per_item[1][0][1][1].item<float>() == Approx(-90.0f));
  REQUIRE(per_item[1][0][0][0].item<float>() == Approx(-60.0f));
  const auto whole_batch = neurobench::audio::amplitude_to_db(four.squeeze(1), top80());
  // As (batch, freq, time) the floor is the whole batch's: 0 - 80.
  REQUIRE(whole_batch[1][1][1].item<float>() == Approx(-80.0f));
  REQUIRE(whole_batch[1][0][0].item<float>() == Approx(-60.0f));
  REQUIRE(whole_batch[0][0][0].item<float>() == Approx(0.0f));
  // 5-d: the last three dimensions, per (a, b).
  const auto five = neurobench::audio::amplitude_to_db(four.reshape({2, 1, 1, 2, 2}), top80());
  REQUIRE(torch::equal(five.reshape({2, 1, 2, 2}), per_item));
}

TEST_CASE("Mfcc equals torchaudio's MFCC with NeuroBench's settings", "[audio][mfcc]") {
  const torch::Tensor x = audio_clips();
  neurobench::audio::Mfcc mfcc;  // 40 coefficients, ortho, decibels, n_fft 400, 128 mels
  REQUIRE(mfcc.dct().sizes() == torch::IntArrayRef({128, 40}));
  // (batch, channel, time): the decibel floor per clip.
  require_close(mfcc(x.narrow(0, 0, 3).unsqueeze(1)), audio_fixture("mfcc.npz", "default_3d"), 1e-4,
                1e-3);
  // (batch, time): the floor over the whole batch.
  require_close(mfcc(x.narrow(0, 3, 3)), audio_fixture("mfcc.npz", "default_2d"), 1e-4, 1e-3);
}

TEST_CASE("Mfcc with log mels, Slaney mels and other spectrogram settings equals torchaudio's",
          "[audio][mfcc]") {
  const torch::Tensor x = audio_clips();
  MfccOptions log;
  log.n_mfcc = 13;
  log.log_mels = true;
  log.mel.spectrogram.n_fft = 512;
  log.mel.spectrogram.hop_length = 160;
  log.mel.mel.n_mels = 40;
  log.mel.mel.f_min = 20;
  log.mel.mel.f_max = 7600;
  log.mel.mel.mel_scale = neurobench::audio::MelScale::Slaney;
  log.mel.mel.norm = neurobench::audio::MelNorm::Slaney;
  require_close(neurobench::audio::mfcc(x.narrow(0, 0, 3).unsqueeze(1), log),
                audio_fixture("mfcc.npz", "custom_log"), 1e-4, 1e-3);
  MfccOptions db;
  db.n_mfcc = 20;
  db.norm = DctNorm::None;
  db.mel.spectrogram.n_fft = 256;
  db.mel.spectrogram.win_length = 200;
  db.mel.spectrogram.hop_length = 128;
  db.mel.spectrogram.power = 1.0;
  db.mel.spectrogram.center = false;
  db.mel.spectrogram.normalized = neurobench::audio::SpectrogramNorm::Window;
  db.mel.mel.n_mels = 32;
  require_close(neurobench::audio::mfcc(x.narrow(0, 0, 2).unsqueeze(1), db),
                audio_fixture("mfcc.npz", "custom_db"), 1e-4, 1e-3);
}

TEST_CASE("invalid MFCC and decibel options are UsageErrors naming the option", "[audio][mfcc]") {
  MfccOptions o;
  o.n_mfcc = 129;
  REQUIRE_THROWS_AS(neurobench::audio::Mfcc(o), UsageError);
  REQUIRE_THROWS_WITH(neurobench::audio::Mfcc(o),
                      Catch::Contains("n_mfcc must be between 1 and n_mels = 128, got 129"));
  o.n_mfcc = 0;
  REQUIRE_THROWS_WITH(neurobench::audio::Mfcc(o), Catch::Contains("n_mfcc"));
  o = {};
  o.mel.mel.n_mels = 0;
  REQUIRE_THROWS_WITH(neurobench::audio::Mfcc(o),
                      Catch::Contains("n_mels must be between 1 and 65536"));
  REQUIRE_THROWS_WITH(neurobench::audio::dct_matrix(5, 4, DctNorm::Ortho),
                      Catch::Contains("n_mfcc must be between 1 and n_mels = 4, got 5"));
  AmplitudeToDbOptions db;
  db.amin = 0;
  REQUIRE_THROWS_WITH(neurobench::audio::amplitude_to_db(torch::ones({2, 2}), db),
                      Catch::Contains("amin must be positive"));
  db = top80();
  db.top_db = -1.0;
  REQUIRE_THROWS_AS(neurobench::audio::amplitude_to_db(torch::ones({2, 2}), db), UsageError);
  REQUIRE_THROWS_WITH(neurobench::audio::amplitude_to_db(torch::ones({2, 2}), db),
                      Catch::Contains("top_db must be finite and at least 0"));
  REQUIRE_THROWS_AS(neurobench::audio::amplitude_to_db(torch::ones({2, 2}, torch::kInt)),
                    InputError);
}
