// SPDX-License-Identifier: Apache-2.0
// The `speech-commands` data set kind: Google Speech Commands v0.02 by folder.
#include <memory>

#include <neurobench/datasets/speech_commands.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

class SpeechCommandsKind final : public DatasetOpener {
 public:
  explicit SpeechCommandsKind(const Json& options)
      : subset_(datasets::speech_commands_subset(options.at("subset").get<std::string>())),
        long_clips_(datasets::long_clips_from_string(options.at("long_clips").get<std::string>())) {
  }

  static DatasetKind describe() {
    return DatasetKind("speech-commands",
                       "Google Speech Commands v0.02 as NeuroBench reads it: 1 s clips (16000, "
                       "1) float32, 35 labels (docs/speech-commands.md)")
        .with_path(
            "the release folder (holding validation_list.txt), or NeuroBench's root holding "
            "SpeechCommands/speech_commands_v0.02")
        .with_option("subset", "string", Json(),
                     "the clips: training, validation, testing or all (--subset)")
        .with_option("long_clips", "string", "error",
                     "a clip longer than 1 s: error (refused while indexing) or truncate (its "
                     "first 16000 samples)");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& open) const override {
    datasets::SpeechCommandsOptions o;
    o.long_clips = long_clips_;
    o.quiet = open.quiet;
    return std::make_shared<datasets::SpeechCommands>(path, subset_, o);
  }

 private:
  datasets::SpeechCommandsSubset subset_;
  datasets::LongClips long_clips_;
};

}  // namespace

void add_speech_commands_kind(DatasetKinds& kinds) { add_builtin_kind<SpeechCommandsKind>(kinds); }

}  // namespace neurobench::detail
