// SPDX-License-Identifier: Apache-2.0
// The table of data set kinds: `KIND:PATH`, option checks before anything is opened, opening.
#include <neurobench/datasets/kinds.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/datasets/speech_commands.hpp>
#include <neurobench/errors.hpp>

#include "datasets/speech_commands_folder.hpp"
#include "support.hpp"

using neurobench::dataset_kinds;
using neurobench::DatasetSpec;
using neurobench::parse_dataset_spec;
using neurobench::UsageError;

TEST_CASE("KIND:PATH splits at the first ':' and needs both parts", "[datasets][kinds]") {
  const DatasetSpec spec = parse_dataset_spec("speech-commands:data/a:b");
  CHECK(spec.kind == "speech-commands");
  CHECK(spec.path == "data/a:b");
  CHECK(spec.options == neurobench::Json::object());
  CHECK_THROWS_AS(parse_dataset_spec("data/gsc"), UsageError);
  CHECK_THROWS_WITH(parse_dataset_spec("data/gsc"),
                    "data set 'data/gsc': no ':' between the kind and the path (write KIND:PATH, "
                    "such as speech-commands:data/speech_commands_v0.02; kinds: speech-commands, "
                    "dvs-gesture, primate-reaching, wisdm, thor-eeg-mi, mswc, gen4-detection)");
  CHECK_THROWS_WITH(parse_dataset_spec(":data"), Catch::Contains("no kind before ':'"));
  CHECK_THROWS_WITH(parse_dataset_spec("speech-commands:"), Catch::Contains("no path after ':'"));
}

TEST_CASE("check() refuses an unknown kind, a missing path and bad options before opening",
          "[datasets][kinds]") {
  DatasetSpec spec{"speech-commands", "/nowhere", {{"subset", "testing"}}};
  const neurobench::Json complete = dataset_kinds().check(spec);
  CHECK(complete == neurobench::Json{{"subset", "testing"}, {"long_clips", "error"}});
  // Lookup ignores case, dashes and underscores.
  CHECK(dataset_kinds().find("SpeechCommands") == dataset_kinds().find("speech_commands"));
  CHECK(dataset_kinds().find("SpeechCommands") != nullptr);

  DatasetSpec unknown{"mnist", "x", {}};
  CHECK_THROWS_AS(dataset_kinds().check(unknown), UsageError);
  CHECK_THROWS_WITH(dataset_kinds().check(unknown),
                    "unknown data set kind 'mnist' (known: speech-commands, dvs-gesture, "
                    "primate-reaching, wisdm, thor-eeg-mi, mswc, gen4-detection)");
  DatasetSpec no_path{"speech-commands", "", {{"subset", "testing"}}};
  CHECK_THROWS_WITH(
      dataset_kinds().check(no_path),
      Catch::StartsWith("data set 'speech-commands' has no path (the release folder"));
  DatasetSpec no_subset{"speech-commands", "x", {}};
  CHECK_THROWS_WITH(dataset_kinds().check(no_subset),
                    Catch::StartsWith("data set 'speech-commands' needs option 'subset' (the "
                                      "clips: training, validation, testing or all"));
  DatasetSpec bad_subset{"speech-commands", "x", {{"subset", "test"}}};
  CHECK_THROWS_WITH(dataset_kinds().check(bad_subset),
                    "data set 'speech-commands': unknown Speech Commands subset 'test' (subsets: "
                    "training, validation, testing, all)");
  DatasetSpec bad_type{"speech-commands", "x", {{"subset", 3}}};
  CHECK_THROWS_WITH(dataset_kinds().check(bad_type),
                    "data set 'speech-commands': option 'subset' must be a string, got 3");
  DatasetSpec bad_long{"speech-commands", "x", {{"subset", "all"}, {"long_clips", "pad"}}};
  CHECK_THROWS_WITH(dataset_kinds().check(bad_long),
                    Catch::Contains("unknown long_clips 'pad' (error or truncate)"));
  DatasetSpec extra{"speech-commands", "x", {{"subset", "all"}, {"rate", 8000}}};
  CHECK_THROWS_WITH(
      dataset_kinds().check(extra),
      "data set 'speech-commands' has no option 'rate' (options: subset, long_clips)");
}

TEST_CASE("open() makes the data set its spec names", "[datasets][kinds]") {
  neurobench::test::TempDir tmp;
  neurobench::test::make_speech_commands(tmp.path());
  DatasetSpec spec = parse_dataset_spec("speech-commands:" + tmp.path().string());
  spec.options["subset"] = "testing";
  neurobench::DatasetOpenOptions open;
  open.quiet = true;
  const auto dataset = dataset_kinds().open(spec, open);
  CHECK(dataset->size() == 3);
  const auto* gsc = dynamic_cast<const neurobench::datasets::SpeechCommands*>(dataset.get());
  REQUIRE(gsc != nullptr);
  CHECK(gsc->subset() == neurobench::datasets::SpeechCommandsSubset::Testing);
  spec.path = tmp / "nowhere";
  CHECK_THROWS_AS(dataset_kinds().open(spec, open), neurobench::InputError);
}

namespace {

// Two samples of zeros, whatever the path.
class TwoZerosOpener final : public neurobench::DatasetOpener {
 public:
  std::shared_ptr<neurobench::Dataset> open(
      const std::filesystem::path& /*path*/,
      const neurobench::DatasetOpenOptions& /*open*/) const override {
    return std::make_shared<neurobench::TensorDataset>(torch::zeros({2, 1}), torch::zeros({2}));
  }
};

}  // namespace

TEST_CASE("a kind is added once, with a name and a factory", "[datasets][kinds]") {
  neurobench::DatasetKinds kinds;
  const neurobench::DatasetKinds::Factory none;
  CHECK_THROWS_WITH(kinds.add(neurobench::DatasetKind("tiny", "zeros"), none),
                    "data set kind 'tiny' has no factory");
  const auto two_zeros = [] { return std::make_unique<TwoZerosOpener>(); };
  kinds.add(neurobench::DatasetKind("tiny", "zeros").with_path("anything"), two_zeros);
  CHECK_THROWS_WITH(kinds.add(neurobench::DatasetKind("tiny", "zeros"), two_zeros),
                    "data set kind 'tiny' is already registered (by program)");
  CHECK_THROWS_AS(kinds.add(neurobench::DatasetKind("", "no name"), two_zeros), UsageError);
  CHECK(kinds.known_names() == "tiny");
  CHECK(kinds.find("TINY")->path_description == "anything");
  CHECK(kinds.open({"Tiny", "anything", {}})->size() == 2);
  CHECK_THROWS_WITH(kinds.check({"tiny", "x", {{"rate", 1}}}),
                    "data set 'tiny' takes no options (got 'rate')");
}

TEST_CASE("every built-in kind says what it is, what its path names and where it comes from",
          "[datasets][kinds]") {
  const auto& entries = dataset_kinds().entries();
  REQUIRE(entries.size() >= 4);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO(entries[i].name);
    CHECK(entries[i].source == "built-in");
    CHECK_FALSE(entries[i].description.empty());
    CHECK_FALSE(entries[i].path_description.empty());
    CHECK(entries[i].options.at(0).name == "subset");
  }
}
