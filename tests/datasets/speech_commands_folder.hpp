// SPDX-License-Identifier: Apache-2.0
// A small Speech Commands-shaped release folder, written by the tests that need one: four
// labels (two that sort differently with and without a trailing '/'), _background_noise_, a
// hidden folder, clips of one second and shorter, files that are not clips, and both lists.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/wav_files.hpp"

namespace neurobench::test {

/// The release written by make_speech_commands(): where it is and what each clip holds.
struct SpeechCommandsFolder {
  std::filesystem::path folder;                       ///< The release folder.
  std::map<std::string, std::vector<int16_t>> clips;  ///< Samples by relative path.
};

/// The labels of the release, in NeuroBench's order (sorted with a trailing '/').
inline std::vector<std::string> speech_commands_labels() { return {"a-b", "a", "no", "yes"}; }

/// Writes the release into `folder` (created if needed).
inline SpeechCommandsFolder make_speech_commands(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  SpeechCommandsFolder out{folder, {}};
  for (const char* dir : {"yes", "no", "a", "a-b", "_background_noise_", ".hidden"}) {
    fs::create_directories(folder / dir);
  }
  int start = 1;
  const auto clip = [&](const std::string& relative, std::size_t n) {
    out.clips[relative] = ramp(n, start);
    start += 1000;
    write_wav(folder / relative, out.clips[relative]);
  };
  clip("yes/y1_nohash_0.wav", 16000);
  clip("yes/y1_nohash_1.wav", 100);  // short: padded with zeros
  clip("yes/y2_nohash_0.wav", 8000);
  clip("no/n1_nohash_0.wav", 16000);
  clip("no/n2_nohash_0.wav", 500);
  clip("a/a1_nohash_0.wav", 300);
  clip("a-b/ab_nohash_0.wav", 200);
  clip("a-b/ab_nohash_1.wav", 16000);
  // Not clips of any subset: no _nohash_, noise, a hidden folder, files that are not WAVs.
  write_wav(folder / "yes/plain.wav", ramp(10));
  write_wav(folder / "_background_noise_/white_noise.wav", ramp(40000));
  write_wav(folder / "_background_noise_/n_nohash_0.wav", ramp(20000));
  write_wav(folder / ".hidden/h_nohash_0.wav", ramp(10));
  write_bytes(folder / "yes/notes.txt", "not audio\n");
  write_bytes(folder / "README.md", "Speech Commands, for tests\n");
  write_bytes(folder / "validation_list.txt", "no/n2_nohash_0.wav\n");
  // Windows line ends, a "./" and a "//" to normalise, trailing spaces: as Python reads them.
  write_bytes(folder / "testing_list.txt",
              "yes/y2_nohash_0.wav\r\n./a/a1_nohash_0.wav  \nyes//y1_nohash_1.wav\n");
  return out;
}

}  // namespace neurobench::test
