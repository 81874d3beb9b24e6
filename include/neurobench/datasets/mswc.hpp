// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where NeuroBench's subset of the Multilingual Spoken Words Corpus for keyword FSCIL can be
/// downloaded (`mswc_fscil.tar.gz`, which unpacks into `MSWC/`).
inline constexpr const char* kMswcUrl =
    "https://huggingface.co/datasets/NeuroBench/mswc_fscil_subset/resolve/main/mswc_fscil.tar.gz";

/// NeuroBench's 200 FSCIL keywords (`FSCIL_KEYWORDS`), in its order: a word's label is its
/// position. The first 100 are the base classes, the other 100 (10 per language) the
/// evaluation classes.
[[nodiscard]] const std::vector<std::string>& mswc_keywords();

/// The label of `word` in mswc_keywords(), or nothing when it is not one of them (compared
/// byte for byte, as Python compares the strings).
[[nodiscard]] std::optional<int64_t> mswc_label(std::string_view word);

/// Which part of the release an Mswc data set holds (NeuroBench's `subset`).
enum class MswcSubset {
  Base,        ///< `base`: the 100 base classes, one of three procedures.
  Evaluation,  ///< `evaluation`: one language's 10 evaluation classes, 200 clips each.
};

/// The clips of the base subset (NeuroBench's `procedure`).
enum class MswcProcedure {
  Training,    ///< `training`: `base_train.csv`, 500 clips per class.
  Validation,  ///< `validation`: `base_val.csv`, 100 clips per class.
  Testing,     ///< `testing`: `base_test.csv`, 100 clips per class.
};

/// `base` or `evaluation`.
[[nodiscard]] std::string_view to_string(MswcSubset subset);
/// `training`, `validation` or `testing`.
[[nodiscard]] std::string_view to_string(MswcProcedure procedure);
/// The subset called `name`. Throws UsageError naming it and listing the valid names.
[[nodiscard]] MswcSubset mswc_subset(std::string_view name);
/// The procedure called `name`. Throws UsageError naming it and listing the valid names.
[[nodiscard]] MswcProcedure mswc_procedure(std::string_view name);

/// Which clips an Mswc data set holds.
struct MswcOptions {
  MswcSubset subset = MswcSubset::Base;  ///< Base classes or one language's evaluation classes.
  /// The base subset's clips; required with MswcSubset::Base, refused with Evaluation.
  std::optional<MswcProcedure> procedure;
  /// The evaluation subset's language (`fa`, `eo`, ...: a folder of the release); required
  /// with MswcSubset::Evaluation, refused with Base.
  std::string language;
  bool quiet = false;  ///< No progress bar on stderr while the clips are found.

  /// Throws UsageError naming the field: a base subset without a procedure or with a language,
  /// an evaluation subset without a language or with a procedure, a language that is not one
  /// folder name (empty, `.`, `..`, holding `/` or a NUL byte).
  void validate() const;
};

/// NeuroBench's MSWC keyword FSCIL subset (`neurobench.datasets.MSWC`): 48 kHz Ogg Opus clips
/// listed by CSV files, each padded to one second; see docs/datasets.md, "mswc".
///
/// `path` is the release folder (NeuroBench's `ROOT/MSWC`, holding `base_train.csv`, ... and
/// one folder per language) or NeuroBench's root holding it as `MSWC`.
///
/// - The list: `base_train.csv`, `base_val.csv` or `base_test.csv` for the base subset,
///   `LANG/evaluation.csv` for a language's evaluation classes; each line, stripped of
///   whitespace as Python strips it, is `PATH,WORD,LANG` (exactly three fields); a line whose
///   WORD is `WORD` is a header and skipped; WORD must be one of mswc_keywords(), whose
///   position is the clip's label. Lines end with `\n`, `\r\n` or `\r` (Python's universal
///   newlines); the file must be UTF-8.
/// - The clips: `FOLDER/LANG/clips/PATH` with the line's own LANG (paths joined as Python's
///   `os.path.join`), in the list's order.
/// - Samples: data `(48000, 1)` float32, the clip decoded by load_opus() (bit for bit what
///   torchaudio's FFmpeg path gives) and zero-padded at the end to one second; target the
///   label, int64. In a batch, `(batch, 48000, 1)` and `(batch)`.
///
/// The constructor reads the list and checks that every clip is a regular file; get() decodes
/// the clips it is asked for. Throws InputError naming the file, and the line of a list, when
/// `path` is neither kind of folder (saying what was looked for), the list is missing, not
/// UTF-8 or has a line that is not three fields or names a word that is not a keyword, or a
/// listed clip is missing. get() throws InputError naming the clip when it is not Ogg Opus
/// FFmpeg can decode, is not mono, or is longer than one second (NeuroBench's loader fails on
/// such a clip too).
///
/// ```cpp
/// neurobench::datasets::MswcOptions options;
/// options.procedure = neurobench::datasets::MswcProcedure::Testing;
/// auto test = std::make_shared<neurobench::datasets::Mswc>("data/MSWC", options);
/// neurobench::Batch first = test->get({0});  // data (1, 48000, 1), targets (1)
/// ```
class Mswc final : public Dataset {
 public:
  static constexpr int kSampleRate = 48000;       ///< Samples per second of every clip.
  static constexpr int64_t kClipSamples = 48000;  ///< Samples of a clip once padded: 1 s.

  /// Reads the list of the clips `options` asks for; see the class comment.
  Mswc(const std::filesystem::path& path, MswcOptions options);

  [[nodiscard]] int64_t size() const override;
  /// Decodes the clips `indices`: data `(n, 48000, 1)` float32, targets `(n)` int64. Throws
  /// UsageError for an index out of range and InputError naming the clip as the class says.
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  /// `MSWC 'base' subset, 'testing' procedure, of FOLDER (10000 clips)`.
  [[nodiscard]] std::string describe() const override;
  /// The SHA-256 of the list file's bytes, then a line `LANG/clips/PATH BYTES` per clip (its
  /// size): which clips, not their audio. Recorded as `_run.data_sha256`.
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The release folder (NeuroBench's `ROOT/MSWC`).
  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }
  /// The list file read (`FOLDER/base_test.csv`, `FOLDER/fa/evaluation.csv`).
  [[nodiscard]] const std::filesystem::path& list_file() const { return list_; }
  /// The options, as given.
  [[nodiscard]] const MswcOptions& options() const { return options_; }
  /// The Opus file of clip `index`. Throws UsageError for an index out of range.
  [[nodiscard]] std::filesystem::path file(int64_t index) const;
  /// The clip's PATH field as the list gives it. Throws UsageError for an index out of range.
  [[nodiscard]] const std::string& listed_path(int64_t index) const;
  /// The label of clip `index`. Throws UsageError for an index out of range.
  [[nodiscard]] int64_t label(int64_t index) const;
  /// The line of the list file that names clip `index` (1-based). Throws UsageError for an
  /// index out of range.
  [[nodiscard]] int64_t line(int64_t index) const;

 private:
  struct Clip {
    std::string listed;  // the PATH field
    std::string file;    // FOLDER/LANG/clips/PATH, as Python joins it
    int64_t label = 0;
    int64_t line = 0;
  };
  const Clip& clip(int64_t index) const;

  std::filesystem::path folder_;
  std::filesystem::path list_;
  MswcOptions options_;
  std::vector<Clip> clips_;
  std::string sha256_;
};

/// Decodes the Ogg Opus clip `file` as NeuroBench's MSWC loader does: mono, at most one second
/// (48,000 samples), zero-padded at the end to `(48000, 1)` float32. Throws InputError naming
/// the file as load_opus() does, and when it is not mono or is longer than one second.
[[nodiscard]] at::Tensor load_mswc_clip(const std::filesystem::path& file);

}  // namespace neurobench::datasets
NEUROBENCH_API_END
