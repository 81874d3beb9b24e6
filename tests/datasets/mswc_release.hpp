// SPDX-License-Identifier: Apache-2.0
// Small MSWC-shaped releases for tests, in NeuroBench's layout: `MSWC/base_*.csv`,
// `MSWC/LANG/evaluation.csv` and `MSWC/LANG/clips/WORD/NAME.opus`, 48 kHz Ogg Opus clips
// encoded by libsndfile.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <neurobench/datasets/mswc.hpp>

#include "io/opus_files.hpp"

namespace neurobench::test {

/// Writes a clip of `n` samples at `folder/LANG/clips/PATH` and returns its CSV line
/// `PATH,WORD,LANG`.
inline std::string mswc_clip(const std::filesystem::path& folder, const std::string& lang,
                             const std::string& path, const std::string& word, std::size_t n,
                             double hertz) {
  const std::filesystem::path file = folder / lang / "clips" / path;
  std::filesystem::create_directories(file.parent_path());
  write_opus(file, tone(n, hertz));
  return path + "," + word + "," + lang;
}

/// Writes an evaluation list for `lang` into `folder`: `classes` words (of NeuroBench's
/// keywords, from label `first_label`), `per_class` short clips each, class after class, and
/// returns the words.
inline std::vector<std::string> mswc_evaluation(const std::filesystem::path& folder,
                                                const std::string& lang, int64_t first_label,
                                                int64_t classes, int64_t per_class) {
  std::vector<std::string> words;
  std::string csv = "LINK,WORD,LANG\n";
  for (int64_t c = 0; c < classes; ++c) {
    const std::string& word = neurobench::datasets::mswc_keywords()[first_label + c];
    words.push_back(word);
    for (int64_t i = 0; i < per_class; ++i) {
      const std::string path =
          word + "/" + lang + "_" + std::to_string(c) + "_" + std::to_string(i) + ".opus";
      csv += mswc_clip(folder, lang, path, word, 960 + static_cast<std::size_t>(i * 48),
                       200.0 + 37.0 * static_cast<double>(c * per_class + i)) +
             "\n";
    }
  }
  write_bytes(folder / lang / "evaluation.csv", csv);
  return words;
}

}  // namespace neurobench::test
