// SPDX-License-Identifier: Apache-2.0
// What `neurobench run`, `report` and `compare` do with their output and input paths: every
// output checked before the run, written all or none, never over an input or anything but a
// regular file; inputs that are not regular files refused by name.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fifo_support.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::test::fixture;
using neurobench::test::names_in;
using neurobench::test::q;
using neurobench::test::read_file;
using neurobench::test::run_cli;
using neurobench::test::TempDir;

namespace {

std::string outputs_run_args(const fs::path& model = fixture("core/classifier.pt")) {
  return "run --model " + q(model) + " --data " + q(fixture("core/classifier.npz")) +
         " --batch-size 4 --quiet --workload ClassificationAccuracy";
}

}  // namespace

TEST_CASE("run checks every output before loading the model and writes none when one is bad",
          "[cli][outputs]") {
  const TempDir dir;
  fs::create_directory(dir / "SOMEDIR");
  // The model does not exist: an error about it would mean the outputs were checked too late.
  const auto r = run_cli(outputs_run_args(dir / "missing.pt") + " --json " + q(dir / "ok.json") +
                         " --csv " + q(dir / "SOMEDIR"));
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("--csv") && Catch::Contains((dir / "SOMEDIR").string()) &&
                        Catch::Contains("is a directory"));
  CHECK_THAT(r.err, !Catch::Contains("missing.pt"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"SOMEDIR"});
}

TEST_CASE("run refuses an output in a missing folder, and two outputs that are the same file",
          "[cli][outputs]") {
  const TempDir dir;
  const auto missing = run_cli(outputs_run_args() + " --json " + q(dir / "nope" / "r.json"));
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("--json") && Catch::Contains("does not exist"));
  const auto twice =
      run_cli(outputs_run_args() + " --json " + q(dir / "a.out") + " --csv " + q(dir / "a.out"));
  INFO(twice.err);
  CHECK(twice.status == 2);
  CHECK_THAT(twice.err,
             Catch::Contains("--json") && Catch::Contains("--csv") && Catch::Contains("same file"));
  CHECK(names_in(dir.path()).empty());
}

TEST_CASE("run refuses to write its results over the model, the data or the config",
          "[cli][outputs]") {
  const TempDir dir;
  fs::copy_file(fixture("core/classifier.pt"), dir / "model.pt");
  fs::copy_file(fixture("core/classifier.npz"), dir / "data.npz");
  fs::create_symlink(dir / "model.pt", dir / "link.json");
  const std::string model_bytes = read_file(dir / "model.pt");
  const std::string args = "run --model " + q(dir / "model.pt") + " --data " + q(dir / "data.npz") +
                           " --quiet --workload ClassificationAccuracy";
  for (const auto& [flag, target, role] :
       std::vector<std::tuple<std::string, fs::path, std::string>>{
           {"--json", dir / "model.pt", "--model"},
           {"--csv", dir / "data.npz", "--data"},
           {"--text", dir / "link.json", "--model"}}) {
    const auto r = run_cli(args + " " + flag + " " + q(target));
    INFO(flag << " " << target << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("same file") && Catch::Contains(role));
  }
  CHECK(read_file(dir / "model.pt") == model_bytes);
  CHECK(fs::is_symlink(dir / "link.json"));
  // The config file is an input too.
  std::ofstream(dir / "bench.json") << R"({"model": "model.pt", "data": "data.npz",
    "workload": ["ClassificationAccuracy"], "outputs": {"json": "bench.json"}})";
  const std::string config = read_file(dir / "bench.json");
  const auto r = run_cli("run " + q(dir / "bench.json") + " --quiet");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("same file") && Catch::Contains("config file"));
  CHECK(read_file(dir / "bench.json") == config);
}

TEST_CASE("run writes results through a symbolic link and into a FIFO without replacing either",
          "[cli][outputs]") {
  const TempDir dir;
  std::ofstream(dir / "real.json") << "old";
  fs::create_symlink(dir / "real.json", dir / "link.json");
  neurobench::test::make_fifo(dir / "results.pipe");
  neurobench::test::FifoReader reader(dir / "results.pipe");
  const auto r = run_cli(outputs_run_args() + " --json " + q(dir / "link.json") + " --csv " +
                         q(dir / "results.pipe"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(fs::is_symlink(dir / "link.json"));
  const auto json = nlohmann::json::parse(read_file(dir / "real.json"));
  CHECK(json["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
  CHECK_THAT(reader.text(), Catch::StartsWith("ClassificationAccuracy,"));
  CHECK(neurobench::test::is_fifo(dir / "results.pipe"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"link.json", "real.json", "results.pipe"});
}

TEST_CASE(
    "when the results cannot be written after the run, the table is still printed, no "
    "file is written, and run exits 2",
    "[cli][outputs]") {
  const TempDir dir;
  // A FIFO passes the checks before the run; with nobody reading it, writing fails after.
  neurobench::test::make_fifo(dir / "nobody.pipe");
  const auto r = run_cli(outputs_run_args() + " --json " + q(dir / "ok.json") + " --csv " +
                         q(dir / "nobody.pipe"));
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.out, Catch::Contains("ClassificationAccuracy") && Catch::Contains("0.7"));
  CHECK_THAT(r.err, Catch::Contains("nobody.pipe") && Catch::Contains("no results file written"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"nobody.pipe"});
}

TEST_CASE("report -o refuses a results file it reads, and a directory, before writing",
          "[cli][outputs]") {
  const TempDir dir;
  const fs::path results = fixture("report/cnn_relu.json");
  REQUIRE(fs::exists(results));
  fs::copy_file(results, dir / "X.json");
  fs::create_symlink(dir / "X.json", dir / "report.html");
  const std::string before = read_file(dir / "X.json");
  for (const fs::path& out : {dir / "X.json", dir / "report.html"}) {
    const auto r = run_cli("report " + q(dir / "X.json") + " --format html -o " + q(out));
    INFO(out << "\n" << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("same file") && Catch::Contains("-o"));
  }
  CHECK(read_file(dir / "X.json") == before);
  fs::create_directory(dir / "SOMEDIR");
  const auto r = run_cli("report " + q(dir / "X.json") + " --format html -o " + q(dir / "SOMEDIR"));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("SOMEDIR") && Catch::Contains("is a directory"));
  // Through a symbolic link to a new place the report is written, and the link stays.
  fs::create_symlink(dir / "page.html", dir / "latest.html");
  std::ofstream(dir / "page.html") << "old";
  const auto ok = run_cli("report " + q(dir / "X.json") + " -o " + q(dir / "latest.html"));
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(fs::is_symlink(dir / "latest.html"));
  CHECK_THAT(read_file(dir / "page.html"), Catch::Contains("<html"));
}

TEST_CASE("inputs that are not regular files are refused by name, without blocking",
          "[cli][outputs]") {
  const TempDir dir;
  const fs::path fifo = dir / "input.pipe";
  neurobench::test::make_fifo(fifo);
  const neurobench::test::FifoUnblocker unblock(fifo, 20.0);  // a failed check fails, not hangs
  struct Case {
    std::string args;
    std::string says;
  };
  const std::string model = q(fixture("core/classifier.pt"));
  const std::string data = q(fixture("core/classifier.npz"));
  const std::vector<Case> cases = {
      {"run --model " + q(dir.path()) + " --data " + data + " --workload MSE",
       dir.path().string() + ": the model file is a directory, not a regular file"},
      {"run --model " + q(fifo) + " --data " + data + " --workload MSE",
       fifo.string() + ": the model file is a FIFO (named pipe), not a regular file"},
      {"run --model " + model + " --data " + q(dir.path()) + " --workload MSE",
       dir.path().string() + ": the data file is a directory, not a regular file"},
      {"run --model " + model + " --data " + q(fifo) + " --workload MSE",
       fifo.string() + ": the data file is a FIFO (named pipe), not a regular file"},
      {"run --model " + model + " --data /dev/zero --workload MSE",
       "/dev/zero: the data file is a character device, not a regular file"},
      {"run " + q(fifo), fifo.string() + ": the config file is a FIFO (named pipe)"},
      {"run " + q(dir.path()), dir.path().string() + ": the config file is a directory"},
      {"report /dev/zero", "/dev/zero: the results file is a character device"},
      {"report " + q(fifo), fifo.string() + ": the results file is a FIFO (named pipe)"},
      {"compare /dev/zero " + q(fifo), "/dev/zero: the results file is a character device"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    INFO(c.args << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(c.says));
  }
}

TEST_CASE("an empty output path is refused by name, on the command line and in a config",
          "[cli][outputs]") {
  const TempDir dir;
  for (const std::string flag : {"--json", "--csv", "--text"}) {
    const auto r = run_cli(outputs_run_args() + " " + flag + " ''");
    INFO(flag << ": " << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("error: " + flag + ": an empty path"));
  }
  {
    std::ofstream(dir / "bench.json")
        << R"({"model": ")" << fixture("core/classifier.pt").string() << R"(", "data": ")"
        << fixture("core/classifier.npz").string()
        << R"(", "workload": ["ClassificationAccuracy"], "outputs": {"json": ""}})";
  }
  const auto config = run_cli("run " + q(dir / "bench.json") + " --quiet");
  CHECK(config.status == 2);
  CHECK_THAT(config.err, Catch::Contains("'outputs.json' is an empty path"));
  const auto results = dir / "r.json";
  REQUIRE(run_cli(outputs_run_args() + " --json " + q(results)).status == 0);
  const auto report = run_cli("report " + q(results) + " -o ''");
  CHECK(report.status == 2);
  CHECK_THAT(report.err, Catch::StartsWith("error: --output: an empty path"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"bench.json", "r.json"});
}

TEST_CASE("run refuses an outputs key that names no results format, before the run",
          "[cli][outputs]") {
  const TempDir dir;
  const auto config = [&](const std::string& outputs) {
    std::ofstream(dir / "bench.json")
        << R"({"model": ")" << fixture("core/classifier.pt").string() << R"(", "data": ")"
        << fixture("core/classifier.npz").string()
        << R"(", "workload": ["ClassificationAccuracy"], "outputs": )" << outputs << "}";
    return run_cli("run " + q(dir / "bench.json") + " --quiet");
  };
  const auto xml = config(R"({"json": "r.json", "xml": "r.xml"})");
  INFO(xml.err);
  CHECK(xml.status == 2);
  CHECK_THAT(xml.err, Catch::Contains("bench.json: unknown key 'outputs.xml' (formats: json, "
                                      "csv, text)"));
  CHECK(names_in(dir.path()) == std::vector<std::string>{"bench.json"});
  const auto all = config(R"({"text": "r.txt", "csv": "r.csv", "json": "r.json"})");
  INFO(all.err);
  REQUIRE(all.status == 0);
  CHECK(names_in(dir.path()) == std::vector<std::string>{"bench.json", "r.csv", "r.json", "r.txt"});
  CHECK(nlohmann::json::parse(read_file(dir / "r.json")).contains("ClassificationAccuracy"));
  CHECK_THAT(read_file(dir / "r.csv"), Catch::StartsWith("ClassificationAccuracy,"));
  CHECK_THAT(read_file(dir / "r.txt"), Catch::StartsWith("ClassificationAccuracy: "));
}

TEST_CASE("a path that is not UTF-8 is refused before the run, naming the flag",
          "[cli][outputs]") {
  const TempDir dir;
  const fs::path odd = dir / std::string("model\xff.pt", 9);
  fs::create_symlink(fixture("core/classifier.pt"), odd);
  const auto model = run_cli(outputs_run_args(odd) + " --json " + q(dir / "r.json"));
  CHECK(model.status == 2);
  CHECK_THAT(model.err, Catch::StartsWith("error: --model: the path ") &&
                            Catch::Contains("is not valid UTF-8"));
  const auto json =
      run_cli(outputs_run_args() + " --json " + q(dir / std::string("r\xfe.json", 7)));
  CHECK(json.status == 2);
  CHECK_THAT(json.err, Catch::StartsWith("error: --json: the path "));
  CHECK(names_in(dir.path()).size() == 1);  // the link only: no results file
}
