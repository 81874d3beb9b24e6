// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where Google's Speech Commands v0.02 release can be downloaded (2.3 GB, 105,829 clips).
inline constexpr const char* kSpeechCommandsUrl =
    "http://download.tensorflow.org/data/speech_commands_v0.02.tar.gz";

/// Which clips of the release a SpeechCommands data set holds (torchaudio's `subset`).
enum class SpeechCommandsSubset {
  Training,    ///< `training`: every clip listed in neither list file.
  Validation,  ///< `validation`: the clips `validation_list.txt` lists, in its order.
  Testing,     ///< `testing`: the clips `testing_list.txt` lists, in its order.
  All,         ///< `all`: every clip (torchaudio's and NeuroBench's `subset=None`).
};

/// The name of a subset: `training`, `validation`, `testing` or `all`.
[[nodiscard]] std::string_view to_string(SpeechCommandsSubset subset);
/// The subset called `name` (exactly as to_string() writes it). Throws UsageError naming it
/// and listing the valid names.
[[nodiscard]] SpeechCommandsSubset speech_commands_subset(std::string_view name);

/// What a clip longer than one second (16,000 samples) does.
enum class LongClips {
  Error,     ///< `error`: the data set refuses it while indexing, naming the file and length.
  Truncate,  ///< `truncate`: only its first 16,000 samples are read.
};

/// The name of a LongClips value: `error` or `truncate`.
[[nodiscard]] std::string_view to_string(LongClips long_clips);
/// The value called `name`. Throws UsageError naming it and listing the valid names.
[[nodiscard]] LongClips long_clips_from_string(std::string_view name);

/// How a SpeechCommands data set is built.
struct SpeechCommandsOptions {
  LongClips long_clips = LongClips::Error;  ///< What a clip longer than 16,000 samples does.
  bool quiet = false;  ///< No progress bar on stderr while the files are indexed.
};

/// Google's Speech Commands v0.02 (keyword spotting, 35 words) with the semantics of
/// NeuroBench's `SpeechCommands` (torchaudio's `SPEECHCOMMANDS` underneath); see
/// docs/speech-commands.md.
///
/// `path` is the release folder (the one holding `validation_list.txt` or `testing_list.txt`
/// and one folder per word), or NeuroBench's root, which holds it as
/// `SpeechCommands/speech_commands_v0.02`.
///
/// - Subsets: `training` is every `LABEL/NAME.wav` whose relative path contains `_nohash_`
///   and not `_background_noise_`, listed in neither list file, ordered by path (bytewise, as
///   Python sorts the path strings); `validation` and `testing` are the lines of their list
///   file, in order (each path normalised, as `os.path.normpath`); `all` is the `training`
///   walk without the lists' exclusion.
/// - Labels: the folders of the release, hidden ones (a name starting with `.`) and
///   `_background_noise_` left out, sorted by name followed by `/` (as Python sorts
///   `glob("*/")`), numbered from 0. A clip's label is its parent folder's name.
/// - Samples: data `(16000, 1)` float32, the 16-bit PCM samples / 32768 zero-padded at the
///   end to one second; target the label's number, int64. In a batch, `(batch, 16000, 1)` and
///   `(batch)`.
///
/// The constructor indexes the subset once: it walks the folders, reads the list files and
/// reads every clip's WAV header (16 kHz, mono, 16-bit PCM, length), with a progress bar on
/// stderr unless `options.quiet`. Only the index (paths, labels, lengths) is kept; get()
/// reads the clips it is asked for.
///
/// Throws InputError naming the file, and the line of a list file, when `path` is neither
/// kind of folder (saying what was looked for), a list file the subset needs is missing, a
/// listed clip is missing or lies in a folder that is not a label, or a clip is not a WAV
/// file, not 16-bit PCM, not mono, not 16 kHz, truncated, or longer than one second with
/// LongClips::Error (naming its length). get() throws the same way when a clip changed since.
///
/// ```cpp
/// auto test = std::make_shared<neurobench::datasets::SpeechCommands>(
///     "data/speech_commands_v0.02", neurobench::datasets::SpeechCommandsSubset::Testing);
/// neurobench::Batch first = test->get({0});  // data (1, 16000, 1), targets (1)
/// ```
class SpeechCommands final : public Dataset {
 public:
  static constexpr int kSampleRate = 16000;       ///< Samples per second of every clip.
  static constexpr int64_t kClipSamples = 16000;  ///< Samples of a clip once padded: 1 s.

  /// Indexes `subset` of the release at `path`; see the class comment.
  SpeechCommands(const std::filesystem::path& path, SpeechCommandsSubset subset,
                 SpeechCommandsOptions options = {});

  [[nodiscard]] int64_t size() const override;
  /// Reads the clips `indices`: data `(n, 16000, 1)` float32, targets `(n)` int64. Throws
  /// UsageError for an index out of range and InputError as the constructor for a clip that
  /// changed since it was indexed.
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  /// `Speech Commands 'testing' subset of FOLDER (11005 clips)`.
  [[nodiscard]] std::string describe() const override;
  /// The SHA-256 of the index, not of the audio: the subset's name and a line
  /// `LABEL/NAME.wav BYTES` per clip, in order (its path relative to the release folder as
  /// listed or walked, and its size). Recorded as `_run.data_sha256`; reading 2.3 GB of audio
  /// for a digest would cost more than most runs.
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The release folder (holding the list files and the label folders).
  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }
  /// The subset.
  [[nodiscard]] SpeechCommandsSubset subset() const { return subset_; }
  /// The labels, indexed by their number.
  [[nodiscard]] const std::vector<std::string>& labels() const { return labels_; }
  /// The WAV file of clip `index`. Throws UsageError for an index out of range.
  [[nodiscard]] std::filesystem::path file(int64_t index) const;
  /// The label number of clip `index`. Throws UsageError for an index out of range.
  [[nodiscard]] int64_t label(int64_t index) const;
  /// The length of clip `index` in samples, as indexed (before padding or truncation).
  /// Throws UsageError for an index out of range.
  [[nodiscard]] int64_t frames(int64_t index) const;

 private:
  struct Clip {
    std::string path;  // folder_ joined with the path listed or walked, lexically normal
    int32_t label = 0;
    int64_t frames = 0;
  };
  const Clip& clip(int64_t index) const;

  std::filesystem::path folder_;
  SpeechCommandsSubset subset_;
  SpeechCommandsOptions options_;
  std::vector<std::string> labels_;
  std::vector<Clip> clips_;
  std::string sha256_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
