// SPDX-License-Identifier: Apache-2.0
// The `speech-commands` data set kind: Google Speech Commands v0.02 by folder.
#include <memory>

#include <neurobench/datasets/speech_commands.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {

DatasetKind speech_commands_kind() {
  DatasetKind kind;
  kind.name = "speech-commands";
  kind.description =
      "Google Speech Commands v0.02 as NeuroBench reads it: 1 s clips (16000, 1) float32, 35 "
      "labels (docs/speech-commands.md)";
  kind.source = "built-in";
  kind.path_description =
      "the release folder (holding validation_list.txt), or NeuroBench's root holding "
      "SpeechCommands/speech_commands_v0.02";
  kind.options = {
      dataset_option("subset", "string", Json(),
             "the clips: training, validation, testing or all (--subset)"),
      dataset_option("long_clips", "string", "error",
             "a clip longer than 1 s: error (refused while indexing) or truncate (its first "
             "16000 samples)"),
  };
  kind.check = [](const Json& options) {
    (void)datasets::speech_commands_subset(options.at("subset").get<std::string>());
    (void)datasets::long_clips_from_string(options.at("long_clips").get<std::string>());
  };
  kind.make = [](const std::filesystem::path& path, const Json& options,
                 const DatasetOpenOptions& open) -> std::shared_ptr<Dataset> {
    datasets::SpeechCommandsOptions o;
    o.long_clips = datasets::long_clips_from_string(options.at("long_clips").get<std::string>());
    o.quiet = open.quiet;
    return std::make_shared<datasets::SpeechCommands>(
        path, datasets::speech_commands_subset(options.at("subset").get<std::string>()), o);
  };
  return kind;
}

}  // namespace neurobench::detail
