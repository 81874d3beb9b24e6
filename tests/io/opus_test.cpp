// SPDX-License-Identifier: Apache-2.0
// The Ogg Opus reader (FFmpeg underneath): lengths, channels, agreement with libopus's own
// float decoder, the limits it is given, and every file it refuses, by name.
#include <neurobench/io/opus.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "io/opus_files.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::load_opus;
using neurobench::OpusReadOptions;
using neurobench::UsageError;
using neurobench::test::TempDir;

TEST_CASE("load_opus gives (frames, channels) float32 at the length encoded", "[io][opus]") {
  TempDir tmp;
  for (const std::size_t n :
       {std::size_t{48000}, std::size_t{30011}, std::size_t{960}, std::size_t{7}}) {
    INFO(n);
    neurobench::test::write_opus(tmp / "a.opus", neurobench::test::tone(n, 440));
    const torch::Tensor x = load_opus(tmp / "a.opus");
    CHECK(x.scalar_type() == torch::kFloat32);
    CHECK(x.sizes() == torch::IntArrayRef({static_cast<int64_t>(n), 1}));
  }
  std::vector<float> stereo(2 * 4800);
  for (std::size_t i = 0; i < 4800; ++i) {
    stereo[2 * i] = 0.2F * std::sin(static_cast<float>(i) * 0.05F);
    stereo[2 * i + 1] = -0.1F;
  }
  neurobench::test::write_opus(tmp / "stereo.opus", stereo, 2);
  CHECK(load_opus(tmp / "stereo.opus").sizes() == torch::IntArrayRef({4800, 2}));
}

TEST_CASE("load_opus agrees with libopus's float decoder (through libsndfile) within 1e-6",
          "[io][opus]") {
  // Two decoders of one stream: FFmpeg's own Opus decoder and libopus. They compute in float
  // in different orders, so they agree to rounding, not bit for bit (docs/file-formats.md);
  // the bits torchaudio gives are checked by tests/datasets/check_mswc.py.
  TempDir tmp;
  neurobench::test::write_opus(tmp / "a.opus", neurobench::test::tone(30000, 523.25, 0.6));
  int channels = 0;
  const std::vector<float> expected = neurobench::test::sndfile_decode(tmp / "a.opus", &channels);
  const torch::Tensor x = load_opus(tmp / "a.opus");
  REQUIRE(channels == 1);
  REQUIRE(x.size(0) == static_cast<int64_t>(expected.size()));
  const torch::Tensor e =
      torch::from_blob(const_cast<float*>(expected.data()), {x.size(0), 1}, torch::kFloat32);
  CHECK((x - e).abs().max().item<float>() < 1e-6F);
  CHECK(x.abs().max().item<float>() > 0.3F);  // the tone is there, not silence
}

TEST_CASE("load_opus refuses more frames or other channels than asked, naming the file",
          "[io][opus]") {
  TempDir tmp;
  neurobench::test::write_opus(tmp / "long.opus", neurobench::test::tone(48001, 440));
  OpusReadOptions options;
  options.max_frames = 48000;
  REQUIRE_THROWS_AS(load_opus(tmp / "long.opus", options), InputError);
  REQUIRE_THROWS_WITH(load_opus(tmp / "long.opus", options),
                      Catch::Contains("long.opus: more than 48000 samples per channel"));
  options.max_frames = 48001;
  CHECK(load_opus(tmp / "long.opus", options).size(0) == 48001);

  neurobench::test::write_opus(tmp / "stereo.opus", std::vector<float>(200, 0.1F), 2);
  OpusReadOptions mono;
  mono.channels = 1;
  REQUIRE_THROWS_WITH(load_opus(tmp / "stereo.opus", mono),
                      Catch::Contains("stereo.opus: 2 channels; expected 1 (mono)"));

  OpusReadOptions bad;
  bad.max_frames = -1;
  REQUIRE_THROWS_AS(load_opus(tmp / "long.opus", bad), UsageError);
  bad = {};
  bad.channels = -2;
  REQUIRE_THROWS_WITH(load_opus(tmp / "long.opus", bad), Catch::Contains("channels"));
}

TEST_CASE("a file that is not Ogg Opus is refused, saying what FFmpeg reads it as", "[io][opus]") {
  TempDir tmp;
  neurobench::test::write_bytes(tmp / "junk.opus", std::string(4000, 'x'));
  REQUIRE_THROWS_AS(load_opus(tmp / "junk.opus"), InputError);
  REQUIRE_THROWS_WITH(load_opus(tmp / "junk.opus"),
                      Catch::Contains("junk.opus: not an Ogg Opus file FFmpeg can read"));

  neurobench::test::write_wav(tmp / "clip.opus", neurobench::test::ramp(1000));
  REQUIRE_THROWS_WITH(load_opus(tmp / "clip.opus"),
                      Catch::Contains("clip.opus: not Ogg Opus: FFmpeg reads it as wav"));

  neurobench::test::WavSpec vorbis;
  vorbis.format = SF_FORMAT_OGG | SF_FORMAT_VORBIS;
  vorbis.sample_rate = 48000;
  neurobench::test::write_wav(tmp / "vorbis.opus", neurobench::test::ramp(4800), vorbis);
  REQUIRE_THROWS_WITH(
      load_opus(tmp / "vorbis.opus"),
      Catch::Contains("vorbis.opus: not Ogg Opus: FFmpeg reads it as ogg (vorbis)"));

  // An Ogg Opus file cut after its headers holds no audio.
  neurobench::test::write_opus(tmp / "cut.opus", neurobench::test::tone(48000, 440));
  const std::string bytes = neurobench::test::file_bytes(tmp / "cut.opus");
  const std::size_t second_page = bytes.find("OggS", bytes.find("OpusTags"));
  REQUIRE(second_page != std::string::npos);
  neurobench::test::write_bytes(tmp / "cut.opus", bytes.substr(0, second_page));
  REQUIRE_THROWS_AS(load_opus(tmp / "cut.opus"), InputError);
  REQUIRE_THROWS_WITH(load_opus(tmp / "cut.opus"), Catch::Contains("cut.opus"));
}

TEST_CASE("a missing Opus file and a directory are refused before FFmpeg opens them",
          "[io][opus]") {
  TempDir tmp;
  REQUIRE_THROWS_AS(load_opus(tmp / "none.opus"), InputError);
  REQUIRE_THROWS_WITH(load_opus(tmp / "none.opus"),
                      Catch::Contains("none.opus: no such Ogg Opus file"));
  std::filesystem::create_directories(tmp / "dir.opus");
  REQUIRE_THROWS_WITH(load_opus(tmp / "dir.opus"),
                      Catch::Contains("dir.opus") && Catch::Contains("a directory"));
}
