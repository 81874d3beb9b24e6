// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <limits>

#include <neurobench/data/dataset.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/model/model.hpp>

#include "file_digest.hpp"
#include "support.hpp"

using neurobench::test::fixture;
using neurobench::test::q;
using neurobench::test::run_cli;

namespace {
std::string classifier_args() {
  return "run --model " + q(fixture("core/classifier.pt")) + " --data " +
         q(fixture("core/classifier.npz")) + " --batch-size 4 --quiet";
}
}  // namespace

TEST_CASE("neurobench run prints a table and writes the JSON results", "[cli]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto csv = dir / "out.csv";
  const auto r = run_cli(classifier_args() +
                         " --static Footprint,parameter_count --workload ClassificationAccuracy "
                         "--json " + q(json) + " --csv " + q(csv));
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("ClassificationAccuracy") && Catch::Contains("0.7"));
  const auto values = nlohmann::ordered_json::parse(neurobench::test::read_file(json));
  REQUIRE(values.begin().key() == "Footprint");
  REQUIRE(values["ParameterCount"].get<int64_t>() == 67);
  REQUIRE(values["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
  REQUIRE_THAT(neurobench::test::read_file(csv),
               Catch::StartsWith("Footprint,ParameterCount,ClassificationAccuracy,_run.model,"));
}

TEST_CASE("run --metrics-scope measures one submodule and records it, a bad path exits 2",
          "[cli][metrics_scope]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli(classifier_args() +
                         " --static ParameterCount --workload ClassificationAccuracy,"
                         "SynapticOperations --metrics-scope fc2 --json " +
                         q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto values = nlohmann::json::parse(neurobench::test::read_file(json));
  CHECK(values["ParameterCount"] == 8 * 3 + 3);
  CHECK(values["SynapticOperations"]["Dense"] == 8 * 3);
  CHECK(values["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
  CHECK(values["_run"]["metrics_scope"] == "fc2");
  const auto bad = run_cli(classifier_args() + " --static ParameterCount --metrics-scope fc3");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("metrics scope 'fc3'") &&
                          Catch::Contains("top-level submodules: fc1, relu, fc2"));
}

TEST_CASE("neurobench list shows every metric and processor", "[cli]") {
  const auto r = run_cli("list");
  REQUIRE(r.status == 0);
  for (const char* name : {"Footprint", "ConnectionSparsity", "SynapticOperations",
                           "MembraneUpdates", "ChooseMaxCount", "Aggregate", "Argmax"}) {
    REQUIRE_THAT(r.out, Catch::Contains(name));
  }
}

TEST_CASE("run --post Argmax scores a network that returns class scores", "[cli]") {
  // The regressor's two outputs per sample serve as scores of two classes; a last batch of one.
  neurobench::test::TempDir dir;
  const torch::Tensor data =
      neurobench::TensorDataset::from_npz(fixture("core/regressor.npz")).data();
  neurobench::TorchScriptModel model(fixture("core/regressor.pt"));
  torch::Tensor targets = model.forward(data).argmax(1);
  targets[2] = 1 - targets[2];  // 11 of 12 right
  neurobench::save_npz(dir / "scores.npz", {{"data", data}, {"targets", targets}});
  const auto json = dir / "out.json";
  const auto r = run_cli("run --model " + q(fixture("core/regressor.pt")) + " --data " +
                         q(dir / "scores.npz") + " --batch-size 11 --post Argmax --workload "
                         "ClassificationAccuracy --quiet --json " + q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto values = nlohmann::json::parse(neurobench::test::read_file(json));
  REQUIRE(values["ClassificationAccuracy"].get<double>() == Approx(11.0 / 12).epsilon(1e-6));
  REQUIRE(values["_run"]["batches"] == 2);
}

TEST_CASE("every command has --help", "[cli]") {
  for (const char* cmd : {"--help", "run --help", "list --help"}) {
    const auto r = run_cli(cmd);
    INFO(cmd);
    REQUIRE(r.status == 0);
    REQUIRE_THAT(r.out, Catch::Contains("Usage") || Catch::Contains("usage"));
  }
}

TEST_CASE("bad input exits 2 with one clear message and writes no results file", "[cli]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  struct Case {
    std::string args;
    std::string says;
  };
  const std::string model = q(fixture("core/classifier.pt"));
  const std::vector<Case> cases = {
      {"run --model " + q(dir / "missing.pt") + " --data " + q(fixture("core/classifier.npz")) +
           " --workload MSE",
       "missing.pt"},
      {"run --model " + q(fixture("core/not_a_model.pt")) + " --data " +
           q(fixture("core/classifier.npz")) + " --workload MSE",
       "not_a_model.pt"},
      {"run --model " + model + " --data " + q(fixture("core/no_targets.npz")) +
           " --workload MSE",
       "'targets'"},
      {"run --model " + model + " --data " + q(fixture("core/mismatch.npz")) + " --workload MSE",
       "7"},
      {"run --model " + model + " --data " + q(fixture("core/empty.npz")) + " --workload MSE",
       "empty"},
      {"run --model " + model + " --data " + q(fixture("core/wrong_targets_shape.npz")) +
           " --workload ClassificationAccuracy",
       "[4, 2]"},
      {"run --model " + model + " --data " + q(fixture("core/classifier.npz")) +
           " --workload Acuracy",
       "Acuracy"},
      {"run --model " + model + " --data " + q(fixture("core/classifier.npz")) +
           " --post Argmin --workload MSE",
       "Argmin"},
      {"run --model " + model + " --data " + q(fixture("core/classifier.npz")), "no metrics"},
      {"run --model " + model + " --data " + q(fixture("core/classifier.npz")) +
           " --batch-size 0 --workload MSE",
       "batch-size"},
      {"run --data x.npz --workload MSE", "--model"},
      {"frobnicate", "frobnicate"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args + " --json " + q(json) + " --batch-size 4");
    INFO(c.args << "\nstderr: " << r.err);
    REQUIRE(r.status == 2);
    REQUIRE_THAT(r.err, Catch::Contains(c.says));
    REQUIRE_FALSE(std::filesystem::exists(json));
  }
}

TEST_CASE("a failed metric exits 1, reports its name, and the others are still written",
          "[cli]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli("run --model " + q(fixture("core/rleaky_snn.pt")) + " --data " +
                         q(fixture("core/rleaky_snn.npz")) +
                         " --stepwise --workload NeuronOperations,MembraneUpdates --quiet --json " +
                         q(json));
  INFO(r.err);
  REQUIRE(r.status == 1);
  REQUIRE_THAT(r.err, Catch::Contains("NeuronOperations") && Catch::Contains("RLeaky"));
  const auto values = nlohmann::json::parse(neurobench::test::read_file(json));
  REQUIRE(values["NeuronOperations"].is_null());
  REQUIRE(values["MembraneUpdates"].get<double>() > 0);
}

TEST_CASE("run --stepwise warns on stderr and in _run.warnings when a traced snnTorch network "
          "keeps no neuron state",
          "[cli][stepwise]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto run = [&](const std::string& model) {
    return run_cli("run --model " + q(fixture("stepwise/" + model)) + " --data " +
                   q(fixture("stepwise/traced_snntorch.npz")) +
                   " --stepwise --post ChooseMaxCount --workload ClassificationAccuracy,"
                   "SynapticOperations --batch-size 3 --quiet --json " + q(json));
  };
  const auto r = run("traced_snntorch.pt");
  INFO(r.err);
  REQUIRE(r.status == 0);  // a warning, not an error: the numbers are still written
  const std::string model = fixture("stepwise/traced_snntorch.pt").string();
  REQUIRE_THAT(r.err, Catch::Contains("warning: " + model +
                                      ": no forward method stores the membrane 'mem' of these "
                                      "spiking neurons: lif1 (Leaky), lif2 (Leaky)."));
  REQUIRE_THAT(r.err, Catch::Contains("warning: " + model +
                                      ": step-wise run, but no spiking neuron kept its state") &&
                          Catch::Contains("python/neurobench_export.py"));
  const auto doc = nlohmann::json::parse(neurobench::test::read_file(json));
  std::vector<std::string> warnings = doc["_run"]["warnings"];
  REQUIRE(warnings.size() == 2);
  CHECK_THAT(warnings[0], Catch::Contains("Their 'mem' is a constant of the graph") &&
                              Catch::Contains("The neuron state is lost between timesteps"));
  CHECK_THAT(warnings[1], Catch::Contains("every timestep starts again from a zero membrane") &&
                              Catch::Contains("The neuron state is lost between timesteps"));

  // The same network scripted with its state: no warning at all.
  const auto ok = run("stateful_leaky.pt");
  INFO(ok.err);
  REQUIRE(ok.status == 0);
  CHECK_THAT(ok.err, !Catch::Contains("state is lost"));
  const auto doc2 = nlohmann::json::parse(neurobench::test::read_file(json));
  CHECK(doc2["_run"]["warnings"].empty());
}

TEST_CASE("run --metrics places each metric where it belongs and times the model", "[cli][timing]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli(classifier_args() +
                         " --metrics Footprint,Latency,StartupTime,ModelFileSize,"
                         "classification_accuracy --warmup 1 --runs 3 --startup-runs 2 "
                         "--latency-batch-size 2 --threads 1 --json " + q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::ordered_json::parse(neurobench::test::read_file(json));
  std::vector<std::string> keys;
  for (const auto& [key, v] : doc.items()) keys.push_back(key);
  // Static metrics first, then workload ones, each in the order given; then the metadata.
  CHECK(keys == std::vector<std::string>{"Footprint", "ModelFileSize", "Latency", "StartupTime",
                                         "ClassificationAccuracy", "_metrics", "_run",
                                         "_environment"});
  CHECK(doc["ModelFileSize"].get<int64_t>() ==
        static_cast<int64_t>(std::filesystem::file_size(fixture("core/classifier.pt"))));
  CHECK(doc["Latency"]["runs"] == 3);
  CHECK(doc["Latency"]["warmup_runs"] == 1);
  CHECK(doc["Latency"]["batch_size"] == 2);
  CHECK(doc["StartupTime"]["runs"] == 2);
  CHECK(doc["_run"]["data"] == fixture("core/classifier.npz").string());
  CHECK(doc["_run"]["timing"]["runs"] == 3);
  CHECK(doc["_environment"]["threads"] == 1);
  REQUIRE_THAT(r.out, Catch::Contains("Latency.batch_median_ms"));
}

TEST_CASE("a config takes metrics and timing options too", "[cli][timing]") {
  neurobench::test::TempDir dir;
  const auto config = dir / "bench.json";
  {
    std::ofstream out(config);
    out << R"({"model": ")" << fixture("core/classifier.pt").string() << R"(", "data": ")"
        << fixture("core/classifier.npz").string()
        << R"(", "batch_size": 5, "metrics": ["ParameterCount", "Throughput", "PeakMemory"],
              "warmup": 0, "runs": 2, "min_time": 0.5, "latency_batch_size": 5,
              "quiet": true, "outputs": {"json": "out.json"}})";
  }
  const auto r = run_cli("run " + q(config));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(neurobench::test::read_file(dir / "out.json"));
  CHECK(doc["ParameterCount"] == 67);
  CHECK(doc["Throughput"]["runs"] == 2);
  CHECK(doc["Throughput"]["samples"] == 10);
  CHECK(doc["PeakMemory"]["peak_rss_bytes"].get<int64_t>() > 0);
  CHECK(doc["_run"]["config"] == config.string());

  std::ofstream(dir / "bad.json") << R"({"model": "m.pt", "data": "d.npz", "min_time": -1})";
  const auto bad = run_cli("run " + q(dir / "bad.json"));
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("bad.json") && Catch::Contains("'min_time'"));
}

TEST_CASE("run --metrics with an unknown name exits 2 naming it", "[cli][timing]") {
  const auto r = run_cli(classifier_args() + " --metrics Footprint,Latncy");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown metric 'Latncy'") && Catch::Contains("Latency"));
}

// ---------------------------------------------------------------------------------------------
// Integrity: file digests, NaN and Inf, --strict, --max-array-bytes

namespace {
std::string regressor_args(const std::filesystem::path& data) {
  return "run --model " + q(fixture("core/regressor.pt")) + " --data " + q(data) +
         " --batch-size 4 --quiet";
}

/// The regressor's data with one value made NaN, as an .npz in `dir`.
std::filesystem::path nan_data(const neurobench::test::TempDir& dir) {
  const auto clean = neurobench::TensorDataset::from_npz(fixture("core/regressor.npz"));
  torch::Tensor data = clean.data().clone();
  data.index_put_({5, 0}, std::numeric_limits<float>::quiet_NaN());
  neurobench::save_npz(dir / "nan.npz", {{"data", data}, {"targets", clean.targets()}});
  return dir / "nan.npz";
}
}  // namespace

TEST_CASE("run records the SHA-256 of the model and data files in _run", "[cli][integrity]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r =
      run_cli(regressor_args(fixture("core/regressor.npz")) + " --workload MSE --json " + q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto results = nlohmann::json::parse(neurobench::test::read_file(json));
  CHECK(results["_run"]["model_sha256"] ==
        neurobench::test::sha256sum(fixture("core/regressor.pt")));
  CHECK(results["_run"]["data_sha256"] ==
        neurobench::test::sha256sum(fixture("core/regressor.npz")));
}

TEST_CASE("run records where its time went in _run.phases and prints it", "[cli][phases]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli("run --model " + q(fixture("core/regressor.pt")) + " --data " +
                         q(fixture("core/regressor.npz")) + " --progress off" +
                         " --metrics Footprint,MSE,Latency --runs 2 --warmup 0 --json " + q(json));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto phases = neurobench::Json::parse(neurobench::test::read_file(json))["_run"]["phases"];
  std::vector<std::string> keys;
  for (const auto& [key, seconds] : phases.items()) {
    keys.push_back(key);
    CHECK(seconds.get<double>() >= 0);
  }
  // In the order they happen; no profile, and the CPU needs no move. The `.npz`'s opening is
  // its read, then the wait for its digest.
  CHECK(keys == std::vector<std::string>{"model_load_s", "data_read_s", "data_digest_s",
                                         "input_scan_s", "static_metrics_s", "workload_pass_s",
                                         "timing_pass_s"});
  CHECK_THAT(r.err, Catch::Contains("time by phase: model load "));
  CHECK_THAT(r.err, Catch::Contains(", data read "));
  // The files' writing, which they cannot hold, is said last.
  CHECK_THAT(r.err, Catch::Matches("(.|\\n)*, results written [0-9.e-]+ s \\(together [^\\n]*\\n$"));
  CHECK_FALSE(phases.contains("results_written_s"));
  CHECK_THAT(r.out, !Catch::Contains("time by phase"));  // stdout: the table alone
}

TEST_CASE("a run of static metrics alone reads no data, and says so",
          "[cli][phases]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  // NaN in the data: a run that reads it warns; one that does not, does not.
  const auto data = nan_data(dir);
  const auto static_only = run_cli(regressor_args(data) + " --metrics Footprint,ParameterCount" +
                                   " --json " + q(json));
  INFO(static_only.err);
  REQUIRE(static_only.status == 0);
  const auto results = nlohmann::json::parse(neurobench::test::read_file(json));
  CHECK(results["_run"]["data_read"] == false);
  CHECK_FALSE(results["_run"].contains("data_sha256"));
  CHECK(results["_run"]["samples"] == 0);
  CHECK_FALSE(results["_run"]["phases"].contains("workload_pass_s"));
  CHECK(results["_run"]["phases"].contains("data_open_s"));  // opened, not read: no digest
  CHECK_FALSE(results["_run"]["phases"].contains("data_read_s"));
  CHECK(results["_run"]["model_sha256"] ==
        neurobench::test::sha256sum(fixture("core/regressor.pt")));
  CHECK_THAT(static_only.err, !Catch::Contains("non-finite"));
  CHECK(results["Footprint"].get<int64_t>() > 0);
  // A workload metric reads it: the digest, the scan, the samples.
  const auto with_workload = run_cli(regressor_args(data) + " --metrics Footprint,MSE --json " +
                                     q(json));
  REQUIRE(with_workload.status == 0);
  const auto read = nlohmann::json::parse(neurobench::test::read_file(json));
  CHECK_FALSE(read["_run"].contains("data_read"));
  CHECK(read["_run"]["data_sha256"] == neurobench::test::sha256sum(data));
  CHECK(read["_run"]["samples"].get<int64_t>() > 0);
  CHECK_THAT(with_workload.err, Catch::Contains("non-finite"));
  // A data file that is not there is an error either way.
  const auto missing = run_cli(regressor_args(dir / "missing.npz") + " --metrics Footprint");
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("missing.npz"));
}

TEST_CASE("NaN in the data is a warning recorded in _run, with --strict, exit 2 and no file",
          "[cli][integrity]") {
  neurobench::test::TempDir dir;
  const auto data = nan_data(dir);
  const auto json = dir / "out.json";
  const auto warned = run_cli(regressor_args(data) + " --workload MSE --json " + q(json));
  INFO(warned.err);
  REQUIRE(warned.status == 0);
  CHECK_THAT(warned.err, Catch::Contains("warning: " + data.string() +
                                         ": array 'data' holds 1 non-finite value (1 NaN, 0 "
                                         "infinite) of 36; the first is data[5, 0] = nan"));
  const auto results = nlohmann::json::parse(neurobench::test::read_file(json));
  const auto& record = results["_run"]["non_finite_inputs"].at(0);
  CHECK(record["tensor"] == "data");
  CHECK(record["count"] == 1);
  CHECK(record["first_index"] == nlohmann::json::array({5, 0}));

  std::filesystem::remove(json);
  const auto strict = run_cli(regressor_args(data) + " --workload MSE --strict --json " + q(json));
  CHECK(strict.status == 2);
  CHECK_THAT(strict.err, Catch::Contains("error: " + data.string() + ": array 'data' holds 1") &&
                             Catch::Contains("strict"));
  CHECK_FALSE(std::filesystem::exists(json));
  CHECK(strict.out.find("MSE") == std::string::npos);  // nothing ran

  // The config key does the same.
  std::ofstream(dir / "strict.json") << R"({"strict": true, "workload": ["MSE"]})";
  const auto config =
      run_cli("run " + q(dir / "strict.json") + " --model " + q(fixture("core/regressor.pt")) +
              " --data " + q(data) + " --quiet --json " + q(json));
  CHECK(config.status == 2);
  CHECK_FALSE(std::filesystem::exists(json));
}

TEST_CASE("Flag --strict makes any warning of the run an error: exit 2 and no results file",
          "[cli][integrity]") {
  // The regressor has no activation layer: ActivationSparsity warns.
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const std::string args = regressor_args(fixture("core/regressor.npz")) +
                           " --workload ActivationSparsity --json " + q(json);
  const auto lenient = run_cli(args);
  REQUIRE(lenient.status == 0);
  CHECK_THAT(lenient.err, Catch::Contains("warning: ") && Catch::Contains("no activation layers"));
  REQUIRE(std::filesystem::exists(json));
  std::filesystem::remove(json);
  const auto strict = run_cli(args + " --strict");
  CHECK(strict.status == 2);
  CHECK_THAT(strict.err, Catch::Contains("error: ") && Catch::Contains("no activation layers") &&
                             Catch::Contains("--strict: 1 warning above; no results file "
                                             "written") &&
                             !Catch::Contains("warning: "));
  CHECK_FALSE(std::filesystem::exists(json));
}

TEST_CASE("Flag --max-array-bytes refuses a larger data array before reading it", "[cli][integrity]") {
  neurobench::test::TempDir dir;
  const auto json = dir / "out.json";
  const auto r = run_cli(regressor_args(fixture("core/regressor.npz")) +
                         " --workload MSE --max-array-bytes 64 --json " + q(json));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("regressor.npz: array 'data'") &&
                        Catch::Contains("more than the limit of 64 bytes"));
  CHECK_FALSE(std::filesystem::exists(json));
}

TEST_CASE("a corrupt model file exits 2 naming the damage, before any metric runs",
          "[cli][integrity]") {
  neurobench::test::TempDir dir;
  std::string bytes = neurobench::test::read_file(fixture("core/regressor.pt"));
  const std::size_t record = bytes.find("regressor/data/0");
  REQUIRE(record == 30);  // the first entry's name, after its 30-byte local header
  const std::size_t extra = static_cast<unsigned char>(bytes[28]) |
                            static_cast<std::size_t>(static_cast<unsigned char>(bytes[29])) << 8;
  bytes[30 + 16 + extra + 2] ^= 0x40;  // a byte of the first weight
  std::ofstream(dir / "flipped.pt", std::ios::binary) << bytes;
  const auto json = dir / "out.json";
  const auto r =
      run_cli("run --model " + q(dir / "flipped.pt") + " --data " +
              q(fixture("core/regressor.npz")) + " --workload MSE --quiet --json " + q(json));
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("flipped.pt: corrupt model file: entry 'regressor/data/0' "
                                    "fails its CRC-32 check"));
  CHECK_FALSE(std::filesystem::exists(json));
}
