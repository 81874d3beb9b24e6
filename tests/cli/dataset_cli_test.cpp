// SPDX-License-Identifier: Apache-2.0
// `neurobench run --dataset KIND:PATH --subset ...`, the same in configs, processors with
// options, and every misuse of them: exit 2 with one clear message.
#include <algorithm>
#include <fstream>

#include <torch/script.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <neurobench/io/npz.hpp>

#include "datasets/speech_commands_folder.hpp"
#include "file_digest.hpp"
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

TEST_CASE("a config names the data set, a relative path is from the config's folder",
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
       "error: unknown data set kind 'mnist' (known: speech-commands, dvs-gesture, "
       "primate-reaching, wisdm, thor-eeg-mi, mswc, gen4-detection)"},
      {" --dataset " + q(tmp / "gsc"),
       "error: --dataset: data set '" + (tmp / "gsc").string() +
           "': no ':' between the kind and the path (write KIND:PATH, such as "
           "speech-commands:data/speech_commands_v0.02; kinds: speech-commands, dvs-gesture, "
           "primate-reaching, wisdm, thor-eeg-mi, mswc, gen4-detection)"},
      {" --dataset " + gsc,
       "error: data set 'speech-commands' needs option 'subset' (the clips: training, "
       "validation, testing or all (--subset))"},
      {" --dataset " + gsc + " --subset test",
       "error: data set 'speech-commands': unknown Speech Commands subset 'test' (subsets: "
       "training, validation, testing, all)"},
      {" --dataset " + gsc + " --subset all --dataset-options rate=8000",
       "error: data set 'speech-commands' has no option 'rate' (options: subset, long_clips)"},
      {" --dataset " + gsc + " --subset all --dataset-options subset=testing",
       "error: --subset 'all' and --dataset-options' subset \"testing\" disagree: give the "
       "subset once"},
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

namespace {

// A small WISDM file: 5, 3 and 4 windows of (40, 6) float64, one-hot targets of 7 classes.
void write_wisdm(const std::filesystem::path& file, bool with_arr_3 = true) {
  torch::manual_seed(9);
  std::vector<neurobench::NamedArray> arrays;
  const std::vector<int64_t> sizes = {5, 3, 4};
  for (std::size_t i = 0; i < 3; ++i) {
    arrays.emplace_back("arr_" + std::to_string(i),
                        torch::randn({sizes[i], 40, 6}, torch::kFloat64));
  }
  for (std::size_t i = 0; i < 3; ++i) {
    if (i == 0 && !with_arr_3) continue;
    const torch::Tensor labels = torch::randint(0, 7, {sizes[i]}, torch::kInt64);
    arrays.emplace_back("arr_" + std::to_string(i + 3),
                        torch::one_hot(labels, 7).to(torch::kFloat64));
  }
  neurobench::save_npz(file, arrays);
}

// The WISDM example's committed network: NeuroBench's spiking CNN, (batch, 40, 6) windows in,
// output spikes (batch, 40, 7) out.
std::string wisdm_model() {
  return " --model " + q(fixture("../../examples/wisdm/models/scnn.pt"));
}

}  // namespace

TEST_CASE("run --dataset wisdm:FILE --subset test runs a model and records the data set",
          "[cli][dataset][wisdm]") {
  TempDir tmp;
  const auto file = tmp / "watch_subset2_40.npz";
  write_wisdm(file);
  // The file, or the folder holding it.
  for (const std::filesystem::path& path : {file, tmp.path()}) {
    INFO(path);
    const auto r = run_cli("run" + wisdm_model() + " --dataset " + q("wisdm:" + path.string()) +
                           " --subset test --batch-size 3 --post ChooseMaxCount --metrics "
                           "ClassificationAccuracy,Footprint,SynapticOperations -q --json " +
                           q(tmp / "r.json"));
    INFO(r.err);
    REQUIRE(r.status == 0);
    const auto json = results(tmp / "r.json");
    const auto& run = json["_run"];
    CHECK(run["data"] == "wisdm:" + path.string());
    CHECK(run["dataset"]["kind"] == "wisdm");
    CHECK(run["dataset"]["options"] == nlohmann::ordered_json{{"subset", "test"}});
    CHECK(run["dataset"]["samples"] == 4);
    CHECK(run["samples"] == 4);
    CHECK(run["data_sha256"] == neurobench::test::sha256sum(file));
    // NeuroBench's WISDM network: 230,648 bytes, 8,431,360 dense operations per window.
    CHECK(json["Footprint"] == 230648);
    CHECK(json["SynapticOperations"]["Dense"] == 8431360.0);
    CHECK(json.contains("ClassificationAccuracy"));
  }
}

TEST_CASE("a config names a wisdm data set, and --subset overrides its subset",
          "[cli][dataset][wisdm]") {
  TempDir tmp;
  write_wisdm(tmp / "w.npz");
  std::ofstream(tmp / "bench.json") << R"({
    "model": ")" << fixture("../../examples/wisdm/models/scnn.pt").string()
                                    << R"(",
    "dataset": {"kind": "wisdm", "path": "w.npz", "subset": "val"},
    "post": ["ChooseMaxCount"],
    "metrics": ["ClassificationAccuracy", "ActivationSparsity"],
    "quiet": true,
    "outputs": {"json": "r.json"}
  })";
  auto r = run_cli("run " + q(tmp / "bench.json"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto run = results(tmp / "r.json")["_run"];
  CHECK(run["dataset"]["samples"] == 3);
  CHECK(run["dataset"]["path"] == (tmp / "w.npz").string());
  r = run_cli("run " + q(tmp / "bench.json") + " --subset train");
  REQUIRE(r.status == 0);
  run = results(tmp / "r.json")["_run"];
  CHECK(run["dataset"]["samples"] == 5);
  CHECK(run["dataset"]["options"]["subset"] == "train");
}

TEST_CASE("a bad wisdm data set exits 2 with one clear message", "[cli][dataset][wisdm]") {
  TempDir tmp;
  write_wisdm(tmp / "w.npz");
  write_wisdm(tmp / "no_arr_3.npz", /*with_arr_3=*/false);
  const std::string w = q("wisdm:" + (tmp / "w.npz").string());
  struct Case {
    std::string args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {" --dataset " + w,
       "error: data set 'wisdm' needs option 'subset' (the windows: train, val or test "
       "(--subset))\n"},
      {" --dataset " + w + " --subset testing",
       "error: data set 'wisdm': unknown WISDM subset 'testing' (subsets: train, val, test)\n"},
      {" --dataset " + w + " --subset test --dataset-options rate=20",
       "error: data set 'wisdm' has no option 'rate' (options: subset)\n"},
      {" --dataset " + q("wisdm:" + (tmp / "no_arr_3.npz").string()) + " --subset test",
       "error: " + (tmp / "no_arr_3.npz").string() +
           ": no array named 'arr_3' (found: arr_0, arr_1, arr_2, arr_4, arr_5); a WISDM file "
           "holds arr_0..arr_5: the train, validation and test inputs, then their one-hot "
           "targets\n"},
      {" --dataset " + w + " --subset test --max-array-bytes 1000",
       "error: " + (tmp / "w.npz").string() + ": array 'arr_2'"},
      {" --dataset " + q("wisdm:" + tmp.path().string()) + " --subset test",
       "error: " + (tmp / "watch_subset2_40.npz").string() +
           ": no such WISDM file (NeuroBench's WISDM data, watch_subset2_40.npz, is in "
           "https://drive.google.com/drive/folders/1WCN-XwLM_D2nOTZLY00iGwEJLwDQaUCv)\n"},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    const auto r =
        run_cli("run" + wisdm_model() + c.args +
                " --post ChooseMaxCount --metrics Footprint -q --json " + q(tmp / "r.json"));
    CHECK(r.status == 2);
    // One line: the whole message, or (for --max-array-bytes) its start.
    CHECK_THAT(r.err, Catch::StartsWith(c.message));
    CHECK(r.err.find('\n') == r.err.size() - 1);
    CHECK_FALSE(std::filesystem::exists(tmp / "r.json"));
  }
}

TEST_CASE("neurobench list shows the wisdm kind with its path and option",
          "[cli][dataset][wisdm]") {
  const auto r = run_cli("list");
  REQUIRE(r.status == 0);
  // The name column is as wide as the longest kind's name.
  CHECK_THAT(r.out, Catch::Contains("\n  wisdm ") &&
                        Catch::Contains("  NeuroBench's WISDM human activity recognition windows: "
                                        "(40, 6) float32, 7 classes (docs/datasets.md)\n"));
  CHECK_THAT(r.out, Catch::Contains("    PATH: watch_subset2_40.npz (a path ending in .npz), or "
                                    "the folder holding it"));
  CHECK_THAT(r.out, Catch::Contains("    option subset (string, required): the windows: train, "
                                    "val or test (--subset)"));
}
