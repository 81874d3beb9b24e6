// SPDX-License-Identifier: Apache-2.0
// The WAV reader: headers and 16-bit samples through libsndfile, and every kind of file it
// refuses, by name.
#include <neurobench/io/wav.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "fifo_support.hpp"
#include "io/wav_files.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::WavReadOptions;
using neurobench::test::TempDir;
using neurobench::test::WavSpec;
using neurobench::test::write_wav;

namespace {

WavReadOptions speech() {
  WavReadOptions options;
  options.sample_rate = 16000;
  options.channels = 1;
  return options;
}

}  // namespace

TEST_CASE("load_wav gives every 16-bit sample as its value / 32768, exactly", "[io][wav]") {
  TempDir tmp;
  std::vector<int16_t> all(65536);
  for (int v = -32768; v <= 32767; ++v)
    all[static_cast<std::size_t>(v + 32768)] = static_cast<int16_t>(v);
  write_wav(tmp / "all.wav", all);
  const torch::Tensor t = neurobench::load_wav(tmp / "all.wav", speech());
  REQUIRE(t.scalar_type() == torch::kFloat32);
  REQUIRE(t.sizes() == torch::IntArrayRef({65536, 1}));
  const float* p = t.data_ptr<float>();
  int64_t exact = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    exact += p[i] == static_cast<float>(all[i] / 32768.0) ? 1 : 0;
  }
  CHECK(exact == 65536);
  CHECK(p[0] == -1.0F);
  CHECK(p[65535] == 32767.0F / 32768.0F);
  CHECK(p[32768] == 0.0F);
}

TEST_CASE("read_wav_info describes the header without reading the samples", "[io][wav]") {
  TempDir tmp;
  write_wav(tmp / "a.wav", neurobench::test::ramp(1234));
  const neurobench::WavInfo info = neurobench::read_wav_info(tmp / "a.wav");
  CHECK(info.format == "WAV (Microsoft)");
  CHECK(info.subtype == "Signed 16 bit PCM");
  CHECK(info.pcm16);
  CHECK(info.channels == 1);
  CHECK(info.sample_rate == 16000);
  CHECK(info.frames == 1234);
  CHECK(info.file_bytes == 44 + 2 * 1234);

  write_wav(tmp / "u8.wav", neurobench::test::ramp(10),
            {SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 8000, 2});
  const neurobench::WavInfo u8 = neurobench::read_wav_info(tmp / "u8.wav");
  CHECK_FALSE(u8.pcm16);
  CHECK(u8.subtype == "Unsigned 8 bit PCM");
  CHECK(u8.channels == 2);
  CHECK(u8.sample_rate == 8000);
  CHECK(u8.frames == 5);
}

TEST_CASE("load_wav gives stereo as (frames, channels) and WAVEX files like WAV", "[io][wav]") {
  TempDir tmp;
  write_wav(tmp / "st.wav", {1, -1, 2, -2, 3, -3}, {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 2});
  const torch::Tensor st = neurobench::load_wav(tmp / "st.wav");
  REQUIRE(st.sizes() == torch::IntArrayRef({3, 2}));
  CHECK(st[2][0].item<float>() == 3.0F / 32768.0F);
  CHECK(st[2][1].item<float>() == -3.0F / 32768.0F);

  write_wav(tmp / "ex.wav", {5, 6, 7}, {SF_FORMAT_WAVEX | SF_FORMAT_PCM_16, 16000, 1});
  CHECK(neurobench::read_wav_info(tmp / "ex.wav").format == "WAVEX (Microsoft)");
  const torch::Tensor ex = neurobench::load_wav(tmp / "ex.wav", speech());
  CHECK(ex.flatten()[2].item<float>() == 7.0F / 32768.0F);
}

TEST_CASE("load_wav with first_frames reads only the beginning", "[io][wav]") {
  TempDir tmp;
  write_wav(tmp / "a.wav", neurobench::test::ramp(100));
  WavReadOptions options = speech();
  options.first_frames = 10;
  const torch::Tensor t = neurobench::load_wav(tmp / "a.wav", options);
  REQUIRE(t.size(0) == 10);
  CHECK(t[9][0].item<float>() == 63.0F / 32768.0F);
  options.first_frames = 1000;
  CHECK(neurobench::load_wav(tmp / "a.wav", options).size(0) == 100);
  options.first_frames = 0;
  CHECK(neurobench::load_wav(tmp / "a.wav", options).size(0) == 0);
  write_wav(tmp / "empty.wav", {});
  CHECK(neurobench::load_wav(tmp / "empty.wav", speech()).sizes() == torch::IntArrayRef({0, 1}));
}

TEST_CASE("a WAV that is not 16-bit PCM, mono or 16 kHz is refused, saying found and expected",
          "[io][wav]") {
  TempDir tmp;
  const auto samples = neurobench::test::ramp(32);
  write_wav(tmp / "u8.wav", samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 16000, 1});
  write_wav(tmp / "f32.wav", samples, {SF_FORMAT_WAV | SF_FORMAT_FLOAT, 16000, 1});
  write_wav(tmp / "s24.wav", samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_24, 16000, 1});
  write_wav(tmp / "stereo.wav", samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 2});
  write_wav(tmp / "cd.wav", samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 1});
  const auto path = [&](const char* name) { return (tmp / name).string(); };
  CHECK_THROWS_WITH(
      neurobench::load_wav(tmp / "u8.wav", speech()),
      path("u8.wav") + ": the samples are Unsigned 8 bit PCM; expected signed 16-bit PCM");
  CHECK_THROWS_WITH(neurobench::load_wav(tmp / "f32.wav", speech()),
                    Catch::Contains("f32.wav: the samples are 32 bit float"));
  CHECK_THROWS_WITH(neurobench::load_wav(tmp / "s24.wav", speech()),
                    Catch::Contains("s24.wav: the samples are Signed 24 bit PCM"));
  CHECK_THROWS_WITH(neurobench::load_wav(tmp / "stereo.wav", speech()),
                    path("stereo.wav") + ": 2 channels; expected 1 (mono)");
  CHECK_THROWS_WITH(neurobench::load_wav(tmp / "cd.wav", speech()),
                    path("cd.wav") + ": sample rate 44100 Hz; expected 16000 Hz");
  CHECK_THROWS_AS(neurobench::load_wav(tmp / "cd.wav", speech()), InputError);
  // The same checks on a header read on its own.
  const auto info = neurobench::read_wav_info(tmp / "cd.wav");
  CHECK_THROWS_AS(neurobench::check_wav_info(tmp / "cd.wav", info, speech()), InputError);
  CHECK_NOTHROW(neurobench::check_wav_info(tmp / "cd.wav", info, {}));
}

TEST_CASE("a file that is not a WAV is refused with libsndfile's word for it", "[io][wav]") {
  TempDir tmp;
  neurobench::test::write_bytes(tmp / "text.wav", "hello, not audio\n");
  CHECK_THROWS_WITH(
      neurobench::read_wav_info(tmp / "text.wav"),
      Catch::StartsWith((tmp / "text.wav").string() + ": not a WAV file libsndfile can read: "));
  neurobench::test::write_bytes(tmp / "empty.wav", "");
  CHECK_THROWS_AS(neurobench::read_wav_info(tmp / "empty.wav"), InputError);
  write_wav(tmp / "aiff.wav", {1, 2, 3}, {SF_FORMAT_AIFF | SF_FORMAT_PCM_16, 16000, 1});
  CHECK_THROWS_WITH(
      neurobench::load_wav(tmp / "aiff.wav"),
      (tmp / "aiff.wav").string() + ": not a WAV file: libsndfile reads it as AIFF (Apple/SGI)");
  write_wav(tmp / "flac.wav", {1, 2, 3}, {SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16000, 1});
  CHECK_THROWS_WITH(neurobench::load_wav(tmp / "flac.wav"),
                    Catch::Contains("not a WAV file: libsndfile reads it as FLAC"));
}

TEST_CASE("a truncated WAV is refused: in its header, or short of the data it declares",
          "[io][wav]") {
  TempDir tmp;
  write_wav(tmp / "cut.wav", neurobench::test::ramp(1000));
  neurobench::test::truncate_file(tmp / "cut.wav", 44 + 1001);
  CHECK_THROWS_WITH(
      neurobench::read_wav_info(tmp / "cut.wav"),
      (tmp / "cut.wav").string() +
          ": truncated WAV file: its data chunk declares more bytes than the file holds "
          "(libsndfile: 'data : 2000 (should be 1001)')");
  CHECK_THROWS_AS(neurobench::load_wav(tmp / "cut.wav"), InputError);
  write_wav(tmp / "head.wav", neurobench::test::ramp(1000));
  neurobench::test::truncate_file(tmp / "head.wav", 30);
  CHECK_THROWS_WITH(neurobench::read_wav_info(tmp / "head.wav"),
                    Catch::Contains("head.wav: not a WAV file libsndfile can read: "));
}

TEST_CASE("a missing WAV, a directory named x.wav and a FIFO are refused before opening",
          "[io][wav]") {
  TempDir tmp;
  CHECK_THROWS_WITH(neurobench::read_wav_info(tmp / "gone.wav"),
                    (tmp / "gone.wav").string() + ": no such WAV file");
  std::filesystem::create_directory(tmp / "dir.wav");
  CHECK_THROWS_WITH(
      neurobench::load_wav(tmp / "dir.wav"),
      (tmp / "dir.wav").string() + ": the WAV file is a directory, not a regular file");
  neurobench::test::make_fifo(tmp / "pipe.wav");
  neurobench::test::FifoUnblocker unblock(tmp / "pipe.wav", 5);
  CHECK_THROWS_WITH(
      neurobench::load_wav(tmp / "pipe.wav"),
      (tmp / "pipe.wav").string() + ": the WAV file is a FIFO (named pipe), not a regular file");
}

TEST_CASE("negative WavReadOptions are a UsageError naming the field", "[io][wav]") {
  TempDir tmp;
  write_wav(tmp / "a.wav", {1});
  WavReadOptions options;
  options.sample_rate = -1;
  CHECK_THROWS_AS(neurobench::load_wav(tmp / "a.wav", options), UsageError);
  CHECK_THROWS_WITH(options.validate(), Catch::Contains("sample_rate"));
  options = {};
  options.channels = -2;
  CHECK_THROWS_WITH(options.validate(), Catch::Contains("channels"));
  options = {};
  options.first_frames = -1;
  CHECK_THROWS_WITH(options.validate(), Catch::Contains("first_frames"));
}
