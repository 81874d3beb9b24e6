// SPDX-License-Identifier: Apache-2.0
// The Speech Commands data set: which clips each subset holds, in which order, with which
// label; padding, long clips, lazy reading; and every file it refuses, by name.
#include <neurobench/datasets/speech_commands.hpp>

#include <sys/stat.h>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "datasets/speech_commands_folder.hpp"
#include "fifo_support.hpp"
#include "support.hpp"
#include "unprivileged.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::datasets::LongClips;
using neurobench::datasets::SpeechCommands;
using neurobench::datasets::SpeechCommandsOptions;
using neurobench::datasets::SpeechCommandsSubset;
using neurobench::test::TempDir;

namespace fs = std::filesystem;

namespace {

SpeechCommandsOptions quiet_speech() {
  SpeechCommandsOptions options;
  options.quiet = true;
  return options;
}

// The clips of a data set as paths relative to its folder.
std::vector<std::string> relative_files(const SpeechCommands& d) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < d.size(); ++i) {
    out.push_back(d.file(i).lexically_relative(d.folder()).generic_string());
  }
  return out;
}

std::vector<int64_t> targets(const SpeechCommands& d) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < d.size(); ++i) out.push_back(d.label(i));
  return out;
}

// Sample i of a batch holds the clip's samples / 32768, then zeros up to 16000.
void check_sample(const neurobench::Batch& batch, int64_t i, const std::vector<int16_t>& clip) {
  const torch::Tensor x = batch.data[i].flatten();
  REQUIRE(x.numel() == 16000);
  const float* p = x.data_ptr<float>();
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < 16000; ++k) {
    const float expected = k < clip.size() ? static_cast<float>(clip[k]) / 32768.0F : 0.0F;
    wrong += p[k] == expected ? 0 : 1;
  }
  CHECK(wrong == 0);
}

std::string text_of(const std::exception& e) { return e.what(); }

}  // namespace

TEST_CASE("the labels are the release's folders sorted with a trailing '/', numbered from 0",
          "[datasets][speech_commands]") {
  TempDir tmp;
  const auto release = neurobench::test::make_speech_commands(tmp.path());
  const SpeechCommands all(release.folder, SpeechCommandsSubset::All, quiet_speech());
  // "a-b/" sorts before "a/" ('-' < '/'); _background_noise_ and .hidden are not labels.
  CHECK(all.labels() == neurobench::test::speech_commands_labels());
}

TEST_CASE("each subset holds the clips torchaudio's SPEECHCOMMANDS lists, in its order",
          "[datasets][speech_commands]") {
  TempDir tmp;
  const auto release = neurobench::test::make_speech_commands(tmp.path());
  const fs::path& folder = release.folder;

  const SpeechCommands training(folder, SpeechCommandsSubset::Training, quiet_speech());
  CHECK(relative_files(training) ==
        std::vector<std::string>{"a-b/ab_nohash_0.wav", "a-b/ab_nohash_1.wav", "no/n1_nohash_0.wav",
                                 "yes/y1_nohash_0.wav"});
  CHECK(targets(training) == std::vector<int64_t>{0, 0, 2, 3});

  const SpeechCommands validation(folder, SpeechCommandsSubset::Validation, quiet_speech());
  CHECK(relative_files(validation) == std::vector<std::string>{"no/n2_nohash_0.wav"});
  CHECK(targets(validation) == std::vector<int64_t>{2});

  // The list's order, each line stripped and normalised as os.path.normpath.
  const SpeechCommands testing(folder, SpeechCommandsSubset::Testing, quiet_speech());
  CHECK(relative_files(testing) == std::vector<std::string>{"yes/y2_nohash_0.wav",
                                                            "a/a1_nohash_0.wav",
                                                            "yes/y1_nohash_1.wav"});
  CHECK(targets(testing) == std::vector<int64_t>{3, 1, 3});

  const SpeechCommands all(folder, SpeechCommandsSubset::All, quiet_speech());
  CHECK(relative_files(all) ==
        std::vector<std::string>{"a-b/ab_nohash_0.wav", "a-b/ab_nohash_1.wav", "a/a1_nohash_0.wav",
                                 "no/n1_nohash_0.wav", "no/n2_nohash_0.wav", "yes/y1_nohash_0.wav",
                                 "yes/y1_nohash_1.wav", "yes/y2_nohash_0.wav"});
  CHECK(targets(all) == std::vector<int64_t>{0, 0, 1, 2, 2, 3, 3, 3});
  CHECK(all.frames(6) == 100);
  CHECK(all.describe() == "Speech Commands 'all' subset of " + folder.string() + " (8 clips)");
}

TEST_CASE("get() reads the clips asked for: (n, 16000, 1) float32 zero-padded, int64 targets",
          "[datasets][speech_commands]") {
  TempDir tmp;
  const auto release = neurobench::test::make_speech_commands(tmp.path());
  const SpeechCommands testing(release.folder, SpeechCommandsSubset::Testing, quiet_speech());
  const neurobench::Batch batch = testing.get({2, 0, 2});
  REQUIRE(batch.data.sizes() == torch::IntArrayRef({3, 16000, 1}));
  REQUIRE(batch.data.scalar_type() == torch::kFloat32);
  REQUIRE(batch.targets.scalar_type() == torch::kInt64);
  CHECK(batch.targets.sizes() == torch::IntArrayRef({3}));
  CHECK(batch.targets[0].item<int64_t>() == 3);
  CHECK(batch.extras.empty());
  check_sample(batch, 0, release.clips.at("yes/y1_nohash_1.wav"));  // 100 samples, padded
  check_sample(batch, 1, release.clips.at("yes/y2_nohash_0.wav"));
  check_sample(batch, 2, release.clips.at("yes/y1_nohash_1.wav"));
  const neurobench::Batch whole = testing.slice(0, 3);
  check_sample(whole, 1, release.clips.at("a/a1_nohash_0.wav"));
  CHECK(testing.get({}).data.sizes() == torch::IntArrayRef({0, 16000, 1}));

  CHECK_THROWS_AS(testing.get({3}), UsageError);
  CHECK_THROWS_WITH(testing.get({-1}), Catch::Contains("sample index -1 is out of range (size 3)"));
  CHECK_THROWS_AS(testing.file(5), UsageError);
}

TEST_CASE("NeuroBench's root (ROOT/SpeechCommands/speech_commands_v0.02) works as the folder",
          "[datasets][speech_commands]") {
  TempDir tmp;
  const fs::path folder = tmp / "SpeechCommands" / "speech_commands_v0.02";
  neurobench::test::make_speech_commands(folder);
  const SpeechCommands testing(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech());
  CHECK(testing.folder() == folder);
  CHECK(testing.size() == 3);
}

TEST_CASE("a folder that is no Speech Commands release is refused, saying what was looked for",
          "[datasets][speech_commands]") {
  TempDir tmp;
  fs::create_directories(tmp / "empty");
  CHECK_THROWS_AS(SpeechCommands(tmp / "empty", SpeechCommandsSubset::All, quiet_speech()),
                  InputError);
  CHECK_THROWS_WITH(
      SpeechCommands(tmp / "empty", SpeechCommandsSubset::All, quiet_speech()),
      Catch::StartsWith((tmp / "empty").string() +
                        ": not a Speech Commands v0.02 folder: looked for " +
                        (tmp / "empty" / "validation_list.txt").string()) &&
          Catch::Contains("SpeechCommands/speech_commands_v0.02 (NeuroBench's root)") &&
          Catch::Contains("http://download.tensorflow.org/data/speech_commands_v0.02.tar.gz"));
  CHECK_THROWS_WITH(
      SpeechCommands(tmp / "gone", SpeechCommandsSubset::All, quiet_speech()),
      Catch::StartsWith((tmp / "gone").string() + ": no such Speech Commands folder"));
  neurobench::test::write_bytes(tmp / "file", "x");
  CHECK_THROWS_WITH(SpeechCommands(tmp / "file", SpeechCommandsSubset::All, quiet_speech()),
                    Catch::Contains("file: not a folder"));
}

TEST_CASE("a label folder or a walked clip that is not what it seems is refused, by name",
          "[datasets][speech_commands]") {
  TempDir tmp;
  const auto release = neurobench::test::make_speech_commands(tmp / "sc");
  const fs::path& f = release.folder;
  // A label folder that is a link to nothing or a loop: its clips, its label, left out unsaid.
  fs::create_symlink(tmp / "gone", f / "maybe");
  CHECK_THROWS_WITH(SpeechCommands(f, SpeechCommandsSubset::All, quiet_speech()),
                    Catch::Contains((f / "maybe").string()) &&
                        Catch::Contains("a symbolic link to") &&
                        Catch::Contains("which does not exist"));
  fs::remove(f / "maybe");
  fs::create_symlink(f / "up", f / "down");
  fs::create_symlink(f / "down", f / "up");
  CHECK_THROWS_WITH(SpeechCommands(f, SpeechCommandsSubset::Training, quiet_speech()),
                    Catch::Contains("symbolic link loop"));
  fs::remove(f / "down");
  fs::remove(f / "up");
  // A clip the walk finds that is a FIFO: refused without waiting for a writer.
  REQUIRE(::mkfifo((f / "yes" / "y3_nohash_0.wav").c_str(), 0600) == 0);
  CHECK_THROWS_WITH(SpeechCommands(f, SpeechCommandsSubset::All, quiet_speech()),
                    Catch::Contains("y3_nohash_0.wav") && Catch::Contains("FIFO"));
}

TEST_CASE("a subset whose list file is missing is refused, naming the list",
          "[datasets][speech_commands]") {
  TempDir tmp;
  const auto release = neurobench::test::make_speech_commands(tmp.path());
  fs::remove(tmp / "testing_list.txt");
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech()),
                    (tmp / "testing_list.txt").string() +
                        ": no such list file (the 'testing' subset is the clips it lists)");
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Training, quiet_speech()),
                    Catch::Contains("testing_list.txt: no such list file (the 'training' subset"));
  // Neither the validation subset nor all the clips need it.
  CHECK(SpeechCommands(tmp.path(), SpeechCommandsSubset::Validation, quiet_speech()).size() == 1);
  CHECK(SpeechCommands(tmp.path(), SpeechCommandsSubset::All, quiet_speech()).size() == 8);
}

TEST_CASE("a listed clip that is missing, empty or outside a label names the list and line",
          "[datasets][speech_commands]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  const std::string list = (tmp / "testing_list.txt").string();
  neurobench::test::write_bytes(tmp / "testing_list.txt",
                                "yes/y2_nohash_0.wav\nyes/gone_nohash_0.wav\n");
  CHECK_THROWS_WITH(
      SpeechCommands(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech()),
      list + " line 2: " + (tmp / "yes/gone_nohash_0.wav").string() + ": no such WAV file");
  neurobench::test::write_bytes(tmp / "testing_list.txt", "yes/y2_nohash_0.wav\n\n");
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech()),
                    Catch::StartsWith(list + " line 2: an empty line"));
  neurobench::test::write_bytes(tmp / "testing_list.txt", "_background_noise_/n_nohash_0.wav\n");
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech()),
                    Catch::StartsWith(list + " line 1: '_background_noise_/n_nohash_0.wav' is in "
                                             "folder '_background_noise_', which is not a label"));
  neurobench::test::write_bytes(tmp / "testing_list.txt", ".hidden/h_nohash_0.wav\n");
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech()),
                    Catch::Contains("in folder '.hidden', which is not a label"));
  // An empty line only matters where it would be read as a clip: training ignores it.
  neurobench::test::write_bytes(tmp / "testing_list.txt", "yes/y2_nohash_0.wav\n\n");
  CHECK(SpeechCommands(tmp.path(), SpeechCommandsSubset::Training, quiet_speech()).size() == 6);
}

TEST_CASE("a clip longer than one second is an error while indexing, or truncated on request",
          "[datasets][speech_commands]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  const auto long_clip = neurobench::test::ramp(16001, 5);
  neurobench::test::write_wav(tmp / "no/long_nohash_0.wav", long_clip);
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Training, quiet_speech()),
                    (tmp / "no/long_nohash_0.wav").string() +
                        ": 16001 samples (1.00006 s), longer than the 16000 of one second; "
                        "NeuroBench's loader fails on it too; long_clips 'truncate' reads its "
                        "first 16000 samples");
  SpeechCommandsOptions truncate = quiet_speech();
  truncate.long_clips = LongClips::Truncate;
  const SpeechCommands training(tmp.path(), SpeechCommandsSubset::Training, truncate);
  REQUIRE(relative_files(training)[2] == "no/long_nohash_0.wav");
  CHECK(training.frames(2) == 16001);
  const neurobench::Batch batch = training.get({2});
  check_sample(batch, 0, std::vector<int16_t>(long_clip.begin(), long_clip.begin() + 16000));
  // Listed clips are checked the same way, and named with their line.
  neurobench::test::write_bytes(tmp / "validation_list.txt", "no/long_nohash_0.wav\n");
  CHECK_THROWS_WITH(SpeechCommands(tmp.path(), SpeechCommandsSubset::Validation, quiet_speech()),
                    Catch::StartsWith((tmp / "validation_list.txt").string() + " line 1: " +
                                      (tmp / "no/long_nohash_0.wav").string() + ": 16001 samples"));
}

TEST_CASE("a clip that is not a 16 kHz mono 16-bit WAV is refused while indexing, by name",
          "[datasets][speech_commands]") {
  using neurobench::test::WavSpec;
  const auto samples = neurobench::test::ramp(100);
  struct Case {
    const char* what;
    std::function<void(const fs::path&)> make;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"8-bit",
       [&](const fs::path& p) {
         neurobench::test::write_wav(p, samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 16000, 1});
       },
       ": the samples are Unsigned 8 bit PCM; expected signed 16-bit PCM"},
      {"float",
       [&](const fs::path& p) {
         neurobench::test::write_wav(p, samples, {SF_FORMAT_WAV | SF_FORMAT_FLOAT, 16000, 1});
       },
       ": the samples are 32 bit float; expected signed 16-bit PCM"},
      {"stereo",
       [&](const fs::path& p) {
         neurobench::test::write_wav(p, samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 2});
       },
       ": 2 channels; expected 1 (mono)"},
      {"44.1 kHz",
       [&](const fs::path& p) {
         neurobench::test::write_wav(p, samples, {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 1});
       },
       ": sample rate 44100 Hz; expected 16000 Hz"},
      {"truncated",
       [&](const fs::path& p) {
         neurobench::test::write_wav(p, samples);
         neurobench::test::truncate_file(p, 44 + 51);
       },
       ": truncated WAV file: its data chunk declares more bytes than the file holds"},
      {"not a WAV", [&](const fs::path& p) { neurobench::test::write_bytes(p, "text\n"); },
       ": not a WAV file libsndfile can read: "},
      {"a directory", [&](const fs::path& p) { fs::create_directory(p); },
       ": the WAV file is a directory, not a regular file"},
      {"a FIFO", [&](const fs::path& p) { neurobench::test::make_fifo(p); },
       ": the WAV file is a FIFO (named pipe), not a regular file"},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      TempDir tmp;
      neurobench::test::make_speech_commands(tmp.path());
      const fs::path bad = tmp / "yes" / "bad_nohash_0.wav";
      c.make(bad);
      try {
        (void)SpeechCommands(tmp.path(), SpeechCommandsSubset::All, quiet_speech());
        FAIL("no error for " << c.what);
      } catch (const InputError& e) {
        CHECK_THAT(text_of(e), Catch::StartsWith(bad.string() + c.message));
      }
      // Not in the testing list, so the testing subset does not read it.
      CHECK(SpeechCommands(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech()).size() == 3);
    }
  }
}

TEST_CASE("only the index is kept: get() reads the files when asked, and names one now gone",
          "[datasets][speech_commands]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  const SpeechCommands testing(tmp.path(), SpeechCommandsSubset::Testing, quiet_speech());
  const auto changed = neurobench::test::ramp(50, 77);
  neurobench::test::write_wav(tmp / "a/a1_nohash_0.wav", changed);
  check_sample(testing.get({1}), 0, changed);
  fs::remove(tmp / "a/a1_nohash_0.wav");
  CHECK_THROWS_WITH(testing.get({1}), (tmp / "a/a1_nohash_0.wav").string() + ": no such WAV file");
  neurobench::test::write_wav(tmp / "a/a1_nohash_0.wav", neurobench::test::ramp(16001));
  CHECK_THROWS_WITH(testing.get({1}),
                    Catch::StartsWith((tmp / "a/a1_nohash_0.wav").string() +
                                      ": more than the 16000 samples of one second"));
}

TEST_CASE("without _background_noise_ the labels still count from 0",
          "[datasets][speech_commands]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  fs::remove_all(tmp / "_background_noise_");
  const SpeechCommands all(tmp.path(), SpeechCommandsSubset::All, quiet_speech());
  CHECK(all.labels() == neurobench::test::speech_commands_labels());
  CHECK(targets(all) == std::vector<int64_t>{0, 0, 1, 2, 2, 3, 3, 3});
}

TEST_CASE("source_sha256 digests the index: the subset, labels, paths and sizes",
          "[datasets][speech_commands]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  const auto sha = [&](SpeechCommandsSubset s) {
    return SpeechCommands(tmp.path(), s, quiet_speech()).source_sha256().value();
  };
  const std::string testing = sha(SpeechCommandsSubset::Testing);
  CHECK(testing.size() == 64);
  CHECK(testing == sha(SpeechCommandsSubset::Testing));
  CHECK(testing != sha(SpeechCommandsSubset::Validation));
  neurobench::test::write_wav(tmp / "a/a1_nohash_0.wav", neurobench::test::ramp(301));
  CHECK(testing != sha(SpeechCommandsSubset::Testing));
}

TEST_CASE("subset and long_clips names convert both ways, unknown ones list the valid names",
          "[datasets][speech_commands]") {
  using neurobench::datasets::speech_commands_subset;
  for (const auto s : {SpeechCommandsSubset::Training, SpeechCommandsSubset::Validation,
                       SpeechCommandsSubset::Testing, SpeechCommandsSubset::All}) {
    CHECK(speech_commands_subset(neurobench::datasets::to_string(s)) == s);
  }
  CHECK_THROWS_AS(speech_commands_subset("test"), UsageError);
  CHECK_THROWS_WITH(speech_commands_subset("test"),
                    "unknown Speech Commands subset 'test' (subsets: training, validation, "
                    "testing, all)");
  CHECK(neurobench::datasets::long_clips_from_string("truncate") == LongClips::Truncate);
  CHECK_THROWS_WITH(neurobench::datasets::long_clips_from_string("pad"),
                    "unknown long_clips 'pad' (error or truncate)");
}

TEST_CASE("a list line holding a NUL byte is refused for every subset, naming the list and line",
          "[datasets][speech_commands]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  const std::string list = (tmp / "testing_list.txt").string();
  neurobench::test::write_bytes(tmp / "testing_list.txt",
                                std::string("yes/y2_nohash_0.wav\0junk\n", 25));
  // Both the subset that reads the line as a clip and the one that excludes it refuse it.
  for (const auto subset : {SpeechCommandsSubset::Testing, SpeechCommandsSubset::Training}) {
    CHECK_THROWS_AS(SpeechCommands(tmp.path(), subset, quiet_speech()), InputError);
    CHECK_THROWS_WITH(SpeechCommands(tmp.path(), subset, quiet_speech()),
                      Catch::StartsWith(list + " line 1: a NUL byte in a clip's path"));
  }
}

TEST_CASE("a folder or clip without read permission says so, not that it has the wrong format",
          "[datasets][speech_commands]") {
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::all);  // nobody may reach what is inside
  neurobench::test::make_speech_commands(tmp / "sc");
  fs::permissions(tmp / "sc" / "yes" / "y2_nohash_0.wav", fs::perms::none);
  const std::string clip = (tmp / "sc" / "yes" / "y2_nohash_0.wav").string();
  CHECK_THAT(neurobench::test::unprivileged_error([&] {
               SpeechCommands(tmp / "sc", SpeechCommandsSubset::Testing, quiet_speech());
             }),
             Catch::Contains(clip + ": cannot open the WAV file: Permission denied"));
  fs::permissions(tmp / "sc", fs::perms::none);
  CHECK(neurobench::test::unprivileged_error(
            [&] { SpeechCommands(tmp / "sc", SpeechCommandsSubset::Testing, quiet_speech()); }) ==
        (tmp / "sc").string() + ": cannot list the Speech Commands folder: Permission denied");
  fs::permissions(tmp / "sc", fs::perms::owner_all);
}
