// SPDX-License-Identifier: Apache-2.0
// `neurobench run --dataset KIND:PATH --subset ...`, the same in configs, processors with
// options, and every misuse of them: exit 2 with one clear message.
#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "datasets/speech_commands_folder.hpp"
#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::run_cli;
using neurobench::test::TempDir;

namespace {

const std::string kMetrics = " --post Argmax --metrics ClassificationAccuracy,Footprint -q";

std::string model() { return " --model " + q(fixture("speech_commands/clip_classifier.pt")); }

nlohmann::ordered_json results(const std::filesystem::path& file) {
  return nlohmann::ordered_json::parse(neurobench::test::read_file(file));
}

}  // namespace

TEST_CASE("run --dataset speech-commands:PATH --subset testing runs and records the data set",
          "[cli][dataset]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp / "gsc");
  const auto r =
      run_cli("run" + model() + " --dataset " + q("speech-commands:" + (tmp / "gsc").string()) +
              " --subset testing --batch-size 2" + kMetrics + " --json " + q(tmp / "r.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto json = results(tmp / "r.json");
  const auto& run = json["_run"];
  CHECK(run["data"] == "speech-commands:" + (tmp / "gsc").string());
  CHECK(run["dataset"]["kind"] == "speech-commands");
  CHECK(run["dataset"]["path"] == (tmp / "gsc").string());
  CHECK(run["dataset"]["options"] ==
        nlohmann::ordered_json{{"subset", "testing"}, {"long_clips", "error"}});
  CHECK(run["dataset"]["samples"] == 3);
  CHECK(run["samples"] == 3);
  CHECK(run["post"] == nlohmann::ordered_json::array({"Argmax"}));
  CHECK(run["data_sha256"].get<std::string>().size() == 64);
  CHECK(json.contains("ClassificationAccuracy"));
}

TEST_CASE("a config names the data set; a relative path is from the config's folder",
          "[cli][dataset][config]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp / "SpeechCommands" / "speech_commands_v0.02");
  std::ofstream(tmp / "bench.json") << R"({
    "model": ")" << fixture("speech_commands/clip_classifier.pt").string()
                                    << R"(",
    "dataset": {"kind": "speech-commands", "path": ".", "subset": "validation"},
    "post": [{"name": "Argmax", "options": {}}],
    "metrics": ["ClassificationAccuracy"],
    "quiet": true,
    "outputs": {"json": "r.json"}
  })";
  auto r = run_cli("run " + q(tmp / "bench.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(results(tmp / "r.json")["_run"]["dataset"]["samples"] == 1);
  // Flags override the config: another subset, options, or an .npz instead.
  r = run_cli("run " + q(tmp / "bench.json") +
              " --subset all --dataset-options long_clips=truncate");
  REQUIRE(r.status == 0);
  auto run = results(tmp / "r.json")["_run"];
  CHECK(run["dataset"]["samples"] == 8);
  CHECK(run["dataset"]["options"]["long_clips"] == "truncate");
  std::ofstream(tmp / "npz.json") << R"({
    "dataset": {"kind": "speech-commands", "path": ".", "subset": "validation"},
    "metrics": ["ClassificationAccuracy"], "quiet": true, "outputs": {"json": "r.json"}})";
  r = run_cli("run " + q(tmp / "npz.json") + " --data " + q(fixture("core/classifier.npz")) +
              " --model " + q(fixture("core/classifier.pt")));
  INFO(r.err);
  REQUIRE(r.status == 0);
  run = results(tmp / "r.json")["_run"];
  CHECK_FALSE(run.contains("dataset"));
  CHECK(run["data"] == fixture("core/classifier.npz").string());
}

TEST_CASE("misused data set flags exit 2 with one clear message", "[cli][dataset]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp / "gsc");
  const std::string gsc = q("speech-commands:" + (tmp / "gsc").string());
  struct Case {
    std::string args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {" --data x.npz --dataset " + gsc + " --subset all",
       "error: --data and --dataset are mutually exclusive: --data reads an .npz file, "
       "--dataset a data set by kind (KIND:PATH)"},
      {" --data x.npz --subset testing",
       "error: --subset needs a data set by kind: give --dataset KIND:PATH (or a config's "
       "'dataset'); --data names an .npz file, which has no subsets or options"},
      {" --subset testing",
       "error: --subset needs a data set by kind: give --dataset KIND:PATH (or a config's "
       "'dataset'); no data set is given"},
      {"", "error: --data (an .npz file) or --dataset (KIND:PATH) is required"},
      {" --dataset mnist:" + (tmp / "gsc").string() + " --subset all",
       "error: unknown data set kind 'mnist' (known: speech-commands, primate-reaching)"},
      {" --dataset " + q(tmp / "gsc"),
       "error: --dataset: data set '" + (tmp / "gsc").string() +
           "': no ':' between the kind and the path (write KIND:PATH, such as "
           "speech-commands:data/speech_commands_v0.02; kinds: speech-commands, "
           "primate-reaching)"},
      {" --dataset " + gsc,
       "error: data set 'speech-commands' needs option 'subset' (the clips: training, "
       "validation, testing or all (--subset))"},
      {" --dataset " + gsc + " --subset test",
       "error: data set 'speech-commands': unknown Speech Commands subset 'test' (subsets: "
       "training, validation, testing, all)"},
      {" --dataset " + gsc + " --subset all --dataset-options rate=8000",
       "error: data set 'speech-commands' has no option 'rate' (options: subset, long_clips)"},
      {" --dataset " + gsc + " --subset all --dataset-options long_clips",
       "error: --dataset-options 'long_clips': option 'long_clips' has no value (key=value) "
       "(write key=value,key=value)"},
      {" --dataset speech-commands:" + (tmp / "none").string() + " --subset all",
       "error: " + (tmp / "none").string() + ": no such Speech Commands folder: looked for"},
      {" --dataset " + gsc + " --subset all --pre Nothing",
       "error: unknown pre-processor 'Nothing' (known: "},
      {" --dataset " + gsc + " --subset all --post Argmax:dim=1",
       "error: post-processor 'Argmax' takes no options (got 'dim')"},
      {" --dataset " + gsc + " --subset all --post Argmax:",
       "error: --post: post-processor 'Argmax:': no options after ':' (write Name or "
       "Name:key=value,key=value)"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r = run_cli("run" + model() + c.args + kMetrics + " --json " + q(tmp / "r.json"));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith(c.message));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(tmp / "r.json"));
  }
}

TEST_CASE("a bad clip stops the run before any metric, naming the file", "[cli][dataset]") {
  TempDir tmp;
  neurobench::test::make_speech_commands(tmp / "gsc");
  neurobench::test::write_wav(tmp / "gsc/no/cd_nohash_0.wav", {1, 2},
                              {SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 1});
  const auto r =
      run_cli("run" + model() + " --dataset " + q("speech-commands:" + (tmp / "gsc").string()) +
              " --subset training" + kMetrics);
  CHECK(r.status == 2);
  CHECK(r.err == "error: " + (tmp / "gsc/no/cd_nohash_0.wav").string() +
                     ": sample rate 44100 Hz; expected 16000 Hz\n");
}

TEST_CASE("neurobench list shows the data set kinds with their path and options",
          "[cli][dataset]") {
  const auto r = run_cli("list");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("data set kinds (--dataset KIND:PATH, with --subset and "
                                    "--dataset-options):\n  speech-commands   Google Speech "
                                    "Commands v0.02"));
  CHECK_THAT(r.out, Catch::Contains("\n  primate-reaching  NeuroBench's Primate Reaching"));
  CHECK_THAT(r.out, Catch::Contains("    option num_steps (integer, default 1): windows per "
                                    "sample"));
  CHECK_THAT(r.out, Catch::Contains("    PATH: the release folder (holding validation_list.txt)"));
  CHECK_THAT(r.out, Catch::Contains("    option subset (string, required): the clips: training, "
                                    "validation, testing or all (--subset)"));
  CHECK_THAT(r.out, Catch::Contains("    option long_clips (string, default \"error\")"));
}
