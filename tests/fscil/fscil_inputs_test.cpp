// SPDX-License-Identifier: Apache-2.0
// `neurobench fscil` and its data: no output written over a file the run reads (the release's
// lists and clips, the draws file), the base test set as the evaluation set and the base
// training set as the prototypes' source, and `base_classes` bounded by the readout before
// anything is made for them.
#include <torch/script.h>

#include <catch2/catch.hpp>

#include <neurobench/datasets/mswc_sessions.hpp>
#include <neurobench/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "datasets/mswc_release.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::test::q;
using neurobench::test::read_file;
using neurobench::test::run_cli;
using neurobench::test::TempDir;
using neurobench::test::write_bytes;

namespace {

// A model with what the FSCIL protocol looks for: a `features` method and a readout `output`
// of 8 rows; inputs of 4 features (the clips never reach it: every run here stops before).
torch::jit::Module inputs_fscil_net() {
  torch::jit::Module output(c10::QualifiedName("Linear"),
                            std::make_shared<torch::jit::CompilationUnit>());
  output.register_parameter("weight", torch::zeros({8, 4}), false);
  output.register_parameter("bias", torch::zeros({8}), false);
  output.define("def forward(self, x):\n    return torch.linear(x, self.weight, self.bias)\n");
  torch::jit::Module net("InputsFscilNet");
  net.register_module("output", output);
  net.define(
      "def features(self, x):\n    return x\n"
      "def forward(self, x):\n    return self.output.forward(x)\n");
  return net;
}

// A release in dir/MSWC (base lists of two clips, three evaluation languages of three classes
// of six clips), a draws file of its sessions, the model, and fscil.json running on them with
// `fscil_extra` added to its fscil block and `dataset` as its data set.
void write_fscil_run(const fs::path& dir, const std::string& fscil_extra = "",
                     const std::string& dataset = R"("subset": "base", "procedure": "testing")") {
  const fs::path m = dir / "MSWC";
  using neurobench::test::mswc_clip;
  write_bytes(m / "base_train.csv",
              mswc_clip(m, "en", "surrounding/a.opus", "surrounding", 960, 300) + "\n" +
                  mswc_clip(m, "en", "appearance/b.opus", "appearance", 960, 400) + "\n");
  write_bytes(m / "base_val.csv",
              mswc_clip(m, "en", "surrounding/v.opus", "surrounding", 960, 320) + "\n");
  write_bytes(m / "base_test.csv",
              mswc_clip(m, "en", "surrounding/c.opus", "surrounding", 960, 500) + "\n" +
                  mswc_clip(m, "en", "appearance/d.opus", "appearance", 960, 600) + "\n");
  neurobench::test::mswc_evaluation(m, "fa", 100, 3, 6);
  neurobench::test::mswc_evaluation(m, "eo", 110, 3, 6);
  neurobench::test::mswc_evaluation(m, "pt", 120, 3, 6);
  neurobench::datasets::MswcSessionOptions o;
  o.k_shot = 2;
  o.query_shots = 2;
  o.support_pool = 3;
  o.query_pool = 3;
  o.ways = 2;
  o.clips_per_class = 6;
  o.languages = {"fa", "eo", "pt"};
  neurobench::datasets::write_mswc_draws(neurobench::datasets::draw_mswc_sessions(m, o, 5),
                                         dir / "draws.json");
  inputs_fscil_net().save((dir / "net.pt").string());
  write_bytes(dir / "fscil.json", R"({
    "model": "net.pt",
    "dataset": {"kind": "mswc", "path": "MSWC", )" +
                                      dataset + R"(},
    "workload": ["ClassificationAccuracy"],
    "fscil": {"draws": "draws.json", "base_classes": 2)" +
                                      fscil_extra + R"(}
  })");
}

}  // namespace

TEST_CASE("neurobench fscil refuses an output that is a file the run reads, writing nothing",
          "[fscil][cli][outputs]") {
  const TempDir dir;
  write_fscil_run(dir.path());
  const fs::path m = dir / "MSWC";
  const std::string list = read_file(m / "base_test.csv");
  // The base test list, a session's evaluation list and a clip a session reads (through a
  // link: compared by the file, not by the spelling).
  fs::create_symlink(m / "fa" / "evaluation.csv", dir / "link.csv");
  for (const auto& [json, role] : std::vector<std::pair<fs::path, std::string>>{
           {m / "base_test.csv", "read by 'dataset' (the base test set)"},
           {dir / "link.csv", "read by the sessions"},
           {dir / "draws.json", "fscil.draws"}}) {
    const auto r = run_cli("fscil " + q(dir / "fscil.json") + " --quiet --json " + q(json));
    INFO(json << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("an output must not overwrite an input") &&
                          Catch::Contains(json.string()) && Catch::Contains(role));
  }
  CHECK(read_file(m / "base_test.csv") == list);
  // fscil.write_draws is an output too: over a clip a session reads, refused.
  const neurobench::Json draws = neurobench::Json::parse(read_file(dir / "draws.json"));
  const fs::path session_clip = m / draws["sessions"][0]["language"].get<std::string>() / "clips" /
                                draws["sessions"][0]["support"][0][0].get<std::string>();
  REQUIRE(fs::exists(session_clip));
  const std::string clip_bytes = read_file(session_clip);
  std::string config = read_file(dir / "fscil.json");
  config.replace(
      config.find("\"base_classes\": 2"), 17,
      "\"base_classes\": 2, \"write_draws\": " + neurobench::Json(session_clip.string()).dump());
  write_bytes(dir / "fscil.json", config);
  const auto r = run_cli("fscil " + q(dir / "fscil.json") + " --quiet");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("fscil.write_draws") &&
                        Catch::Contains("an output must not overwrite an input") &&
                        Catch::Contains("read by the sessions"));
  CHECK(read_file(session_clip) == clip_bytes);
}

TEST_CASE("neurobench fscil evaluates on the base test set and makes prototypes of training clips",
          "[fscil][cli][errors]") {
  for (const auto& [dataset, says] : std::vector<std::pair<std::string, std::string>>{
           {R"("subset": "base", "procedure": "training")", "it names the base training set"},
           {R"("subset": "evaluation", "language": "fa")",
            "it names the evaluation set of language 'fa'"}}) {
    const TempDir dir;
    write_fscil_run(dir.path(), "", dataset);
    const auto r =
        run_cli("fscil " + q(dir / "fscil.json") + " --quiet --json " + q(dir / "out.json"));
    INFO(dataset << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err,
               Catch::Contains("'dataset' must be the base test set") && Catch::Contains(says));
    CHECK_FALSE(fs::exists(dir / "out.json"));
  }
  for (const auto& [prototypes, says] : std::vector<std::pair<std::string, std::string>>{
           {R"("subset": "base", "procedure": "testing")", "it names the base test set"},
           {R"("subset": "evaluation", "language": "eo")",
            "it names the evaluation set of language 'eo'"}}) {
    const TempDir dir;
    write_fscil_run(dir.path(),
                    R"(, "prototypes": {"kind": "mswc", "path": "MSWC", )" + prototypes + "}");
    const auto r =
        run_cli("fscil " + q(dir / "fscil.json") + " --quiet --json " + q(dir / "out.json"));
    INFO(prototypes << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("'fscil.prototypes' must be the base training set") &&
                          Catch::Contains(says));
    CHECK_FALSE(fs::exists(dir / "out.json"));
  }
}

TEST_CASE("fscil.base_classes beyond the readout's rows is refused before anything is made",
          "[fscil][cli][errors]") {
  const TempDir dir;
  write_fscil_run(dir.path());
  // A count no memory holds: refused against the readout's 8 rows, not allocated.
  std::string config = read_file(dir / "fscil.json");
  config.replace(config.find("\"base_classes\": 2"), 17, "\"base_classes\": 1000000000000000000");
  write_bytes(dir / "fscil.json", config);
  const auto r =
      run_cli("fscil " + q(dir / "fscil.json") + " --quiet --json " + q(dir / "out.json"));
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("fscil.base_classes: 1000000000000000000 base classes") &&
                        Catch::Contains("has 8 rows"));
  CHECK_FALSE(fs::exists(dir / "out.json"));
}
