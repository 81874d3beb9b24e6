// SPDX-License-Identifier: Apache-2.0
// Keyword spotting on Google's Speech Commands, NeuroBench's way: the spiking network of
// NeuroBench's GSC SNN row on Speech2Spikes events and the M5 network of its ANN row on audio
// resampled to 8 kHz, benchmarked with NeuroBench's metric set on a folder the user points at,
// printed beside NeuroBench's published figures. README.md beside this file has the details.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/datasets/speech_commands.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::examples::failures_json;
using neurobench::examples::seconds_since;

namespace {

struct Args {
  std::string data;
  std::string subset = "testing";
  std::string models = SPEECH_COMMANDS_MODELS_DIR;
  std::string only;  // "", "snn" or "ann"
  int64_t batch_size = 100;
  int threads = 1;
  std::string json;
  std::string write_configs;
  bool quiet = false;
};

// NeuroBench's published results for its two GSC networks (examples/gsc/benchmark_snn.py and
// benchmark_ann.py in NeuroBench 2.3, on the full testing subset, with its trained weights).
struct Published {
  double accuracy;
  double footprint;
  double connection_sparsity;
  double activation_sparsity;
  double effective_macs;
  double effective_acs;
  double dense;
};
constexpr Published kPublishedSnn{0.85633802969095, 583900, 0.0, 0.9668664144456199, 0.0,
                                  3289834.3206724217, 29030400.0};
constexpr Published kPublishedAnn{0.8653339412687909, 109228, 0.0, 0.3854464619019532,
                                  1728071.1701953658, 0.0, 1880256.0};

// One network's benchmark: what it asks for and what it gives.
struct Run {
  std::string key;    // "snn" or "ann"
  std::string label;  // column heading
  neurobench::BenchmarkConfig config;
  const Published* published = nullptr;
  neurobench::Results results;
  double seconds = 0;
};

// The benchmark of one network on `data` as `neurobench run` takes it (snn.json, ann.json):
// NeuroBench's metric set, the pre- and post-processors of NeuroBench's GSC examples.
neurobench::BenchmarkConfig benchmark_config(const std::string& key,
                                             const neurobench::DatasetSpec& data,
                                             const Args& args) {
  neurobench::BenchmarkConfig c;
  c.model = fs::path(args.models) / (key + ".pt");
  c.dataset = data;
  c.batch_size = args.batch_size;
  c.threads = args.threads;
  c.static_metrics = {{"Footprint"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"ClassificationAccuracy"}, {"ActivationSparsity"}, {"SynapticOperations"}};
  if (key == "snn") {
    // One Speech2Spikes frame per call, spikes counted per class.
    c.stepwise = true;
    c.pre = {{"S2SPreProcessor"}};
    c.post = {{"ChooseMaxCount"}};
  } else {
    // (batch, 16000, 1) -> (batch, 1, 8000); log-probabilities (batch, 1, 35) -> classes.
    c.pre = {{"Resample", Json{{"orig_freq", 16000}, {"new_freq", 8000}}}};
    c.post = {{"Argmax"}};
  }
  c.quiet = args.quiet;
  return c;
}

void benchmark(Run& run, const std::shared_ptr<neurobench::Dataset>& data) {
  neurobench::RunParts parts;
  parts.data = data;  // the data set of the config, opened once for both networks
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(run.config, parts);
  const auto start = std::chrono::steady_clock::now();
  run.results = prepared.run();
  run.seconds = seconds_since(start);
  neurobench::examples::print_messages(run.key, run.results);
}

void print_table(const std::vector<Run>& runs, const neurobench::Dataset& data) {
  struct Line {
    const char* label;
    const char* metric;
    const char* key;
    const char* format;
    double Published::*published;
  };
  const std::vector<Line> lines = {
      {"accuracy", "ClassificationAccuracy", "", "{:.4f}", &Published::accuracy},
      {"footprint (bytes)", "Footprint", "", "{:.0f}", &Published::footprint},
      {"connection sparsity", "ConnectionSparsity", "", "{:.4f}",
       &Published::connection_sparsity},
      {"activation sparsity", "ActivationSparsity", "", "{:.4f}",
       &Published::activation_sparsity},
      {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.0f}", &Published::dense},
      {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.0f}",
       &Published::effective_macs},
      {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.0f}",
       &Published::effective_acs},
  };
  constexpr int kLabel = 30;
  constexpr int kColumn = 14;
  fmt::print("\n{}; operations are per sample\n", data.describe());
  fmt::print("{:<{}}", "", kLabel);
  for (const Run& r : runs) {
    fmt::print("{:>{}}{:>{}}", r.label, kColumn, "NeuroBench", kColumn);
  }
  fmt::print("\n");
  for (const Line& l : lines) {
    fmt::print("{:<{}}", l.label, kLabel);
    for (const Run& r : runs) {
      fmt::print("{:>{}}{:>{}}",
                 neurobench::examples::cell(r.results, l.metric, l.key, l.format), kColumn,
                 fmt::format(fmt::runtime(l.format), r.published->*l.published), kColumn);
    }
    fmt::print("\n");
  }
  fmt::print("{:<{}}", "benchmark seconds", kLabel);
  for (const Run& r : runs) {
    fmt::print("{:>{}}{:>{}}", fmt::format("{:.1f}", r.seconds), kColumn, "", kColumn);
  }
  fmt::print("\n\nNeuroBench's figures: its trained networks on the whole testing subset "
             "(11,005 clips). Footprint and dense operations depend only on the networks; the "
             "others on the weights and the data (see README.md).\n");
}

// Says where to get the data set, when it is not where the user pointed.
int no_data(const Args& args) {
  fmt::print(stderr,
             "error: {}\n"
             "The Speech Commands v0.02 release (2.3 GB, 105,829 clips) is not bundled. Get it:\n"
             "  wget {}\n"
             "  mkdir -p data/speech_commands_v0.02\n"
             "  tar -xzf speech_commands_v0.02.tar.gz -C data/speech_commands_v0.02\n"
             "then run: speech_commands --data data/speech_commands_v0.02\n"
             "(NeuroBench's layout, ROOT/SpeechCommands/speech_commands_v0.02, works too: --data "
             "ROOT)\n",
             args.data.empty() ? std::string("no data set given (--data FOLDER)")
                               : fmt::format("{}: no such folder", args.data),
             neurobench::datasets::kSpeechCommandsUrl);
  return neurobench::kExitError;
}

int run(const Args& args) {
  if (args.data.empty() || !fs::is_directory(args.data)) return no_data(args);
  // Outputs are checked before anything runs: a bad --json path costs no benchmark.
  if (!args.json.empty()) (void)neurobench::check_output_file(args.json);
  neurobench::examples::warn_if_reference_blas(args.quiet);
  const auto everything = std::chrono::steady_clock::now();
  // One data set for both networks: indexed once, each clip read when a batch needs it.
  const neurobench::DatasetSpec spec{"speech-commands", args.data, {{"subset", args.subset}}};
  const std::shared_ptr<neurobench::Dataset> data =
      neurobench::examples::open_dataset(spec, args.quiet);

  std::vector<Run> runs;
  for (const char* key : {"snn", "ann"}) {
    if (!args.only.empty() && args.only != key) continue;
    Run r;
    r.key = key;
    r.label = r.key == "snn" ? "SNN (S2S)" : "ANN (M5)";
    r.published = r.key == "snn" ? &kPublishedSnn : &kPublishedAnn;
    r.config = benchmark_config(r.key, spec, args);
    runs.push_back(std::move(r));
  }
  if (!args.write_configs.empty()) {
    fs::create_directories(args.write_configs);
    for (const Run& r : runs) {
      neurobench::BenchmarkConfig config = r.config;
      config.comment = fmt::format("{}, NeuroBench's GSC benchmark, written by speech_commands",
                                   r.label);
      config.quiet = false;
      config.write(fs::path(args.write_configs) / (r.key + ".json"));
    }
  }
  bool failed = false;
  for (Run& r : runs) {
    if (!args.quiet) fmt::print(stderr, "benchmarking {} ({})\n", r.label, r.config.model.string());
    benchmark(r, data);
    failed = failed || !r.results.ok();
  }
  print_table(runs, *data);

  if (!args.json.empty()) {
    Json all = Json::object();
    all["task"] = "keyword spotting, Google Speech Commands v0.02 (35 words)";
    all["data"] = {{"folder", args.data}, {"subset", args.subset}, {"samples", data->size()}};
    all["options"] = {{"batch_size", args.batch_size}, {"threads", args.threads}};
    Json models = Json::object();
    for (const Run& r : runs) {
      Json j = {{"label", r.label},
                {"model", r.config.model.string()},
                {"stepwise", r.config.stepwise},
                {"results", r.results.values},
                {"_run", r.results.run},
                {"seconds", r.seconds}};
      if (!r.results.warnings.empty()) j["warnings"] = r.results.warnings;
      if (!r.results.failures.empty()) j["failures"] = failures_json(r.results);
      models[r.key] = j;
    }
    all["models"] = models;
    all["seconds"] = seconds_since(everything);
    neurobench::write_output_file(args.json, all.dump(2) + "\n");
  }
  return failed ? neurobench::kExitMetricFailed : neurobench::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Benchmarks NeuroBench's keyword-spotting networks (a spiking network on Speech2Spikes "
      "events, the M5 ANN on 8 kHz audio) on Google's Speech Commands with neurobench, beside "
      "NeuroBench's published figures",
      "speech_commands"};
  Args args;
  app.add_option("--data", args.data,
                 "The Speech Commands v0.02 folder (holding testing_list.txt), or NeuroBench's "
                 "root holding SpeechCommands/speech_commands_v0.02");
  app.add_option("--subset", args.subset, "Which clips")
      ->capture_default_str()
      ->check(CLI::IsMember({"training", "validation", "testing", "all"}));
  app.add_option("--models", args.models, "Folder with snn.pt and ann.pt")->capture_default_str();
  app.add_option("--only", args.only, "Benchmark only this network")
      ->check(CLI::IsMember({"snn", "ann"}));
  app.add_option("--batch-size", args.batch_size, "Clips per batch")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  app.add_option("--threads", args.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", args.json, "Write both networks' results to this JSON file");
  app.add_option("--write-configs", args.write_configs,
                 "Also write DIR/snn.json and DIR/ann.json, the same benchmarks for "
                 "`neurobench run`");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
