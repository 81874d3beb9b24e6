// SPDX-License-Identifier: Apache-2.0
// Motor decoding on NeuroBench's Primate Reaching task: the SNN2 spiking network and the 2D ANN
// of NeuroBench's published rows, on one session's test steps, benchmarked with NeuroBench's
// metric set and printed beside NeuroBench's figures for that session. README.md beside this
// file has the details.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/datasets/primate_reaching.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

namespace fs = std::filesystem;
using neurobench::Json;

namespace {

struct Args {
  std::string data;
  std::string models = PRIMATE_REACHING_MODELS_DIR;
  std::string only;  // "", "snn" or "ann"
  int64_t batch_size = 256;
  int threads = 1;
  std::string json;
  bool quiet = false;
};

// NeuroBench's published results, per session in the order of kPrimateReachingFiles
// (examples/primate_reaching/benchmark_SNN2.py and benchmark_2d_ann.py in NeuroBench 2.3, the
// figures in their closing comments: trained weights, each session's whole test subset).
struct Published {
  double r2[6];
  double footprint[6];
  double activation_sparsity[6];
  double dense[6];
  double effective_macs[6];
  double effective_acs[6];
};
constexpr Published kPublishedSnn{{0.6774135828018188, 0.5010538101196289, 0.5994032025337219,
                                   0.5707334280014038, 0.5145009756088257, 0.6201670169830322},
                                  {19648, 19648, 19648, 38848, 38848, 38848},
                                  {0.9963387091440609, 0.9968660155513294, 0.9963804923837362,
                                   0.9987306432212195, 0.9986144471669343, 0.9988117468476962},
                                  {4900, 4900, 4900, 9700, 9700, 9700},
                                  {0, 0, 0, 0, 0, 0},
                                  {396.6414365765915, 244.43293219292173, 185.92106889094842,
                                   510.3726604741439, 558.8291751660652, 584.9244337613446}};
constexpr Published kPublishedAnn{{0.6327020525932312, 0.5241347551345825, 0.6216747164726257,
                                   0.5727078914642334, 0.4745999276638031, 0.6272222995758057},
                                  {20824, 20824, 20824, 33496, 33496, 33496},
                                  {0.7068512007122443, 0.7274494314849341, 0.6142621034584272,
                                   0.6290474755671983, 0.6793054885963405, 0.6963649652600741},
                                  {4702.261627687736, 4701.8430499148435, 4699.549582947173,
                                   7773.2197567257945, 7771.01773105288, 7772.632844051291},
                                  {4306.322415210456, 3595.209672287623, 3607.261044176707,
                                   5851.9819915795315, 5995.014802029395, 6462.786839756449},
                                  {0, 0, 0, 0, 0, 0}};

struct Run {
  std::string key;    // "snn" or "ann"
  std::string label;  // column heading
  neurobench::BenchmarkConfig config;
  const Published* published = nullptr;
  neurobench::Results results;
  double seconds = 0;
};

// Which published session the file is, by its name (indy_20160622_01.mat), if any.
std::optional<int> session_of(const fs::path& file) {
  const std::string stem = file.stem().string();
  for (int i = 0; i < 6; ++i) {
    if (stem == neurobench::datasets::kPrimateReachingFiles[i]) return i;
  }
  return std::nullopt;
}

// NeuroBench's benchmark of one network on `data`: its metric set, no pre- or post-processing,
// the networks called once per batch (they loop over the batch as time themselves).
neurobench::BenchmarkConfig benchmark_config(const std::string& file,
                                             const neurobench::DatasetSpec& data, const Args& args,
                                             int64_t channels) {
  neurobench::BenchmarkConfig c;
  c.model = fs::path(args.models) / fmt::format("{}_{}.pt", file, channels);
  c.dataset = data;
  c.batch_size = args.batch_size;
  c.threads = args.threads;
  c.static_metrics = {{"Footprint"}, {"ConnectionSparsity"}};
  c.workload_metrics = {{"R2"}, {"ActivationSparsity"}, {"SynapticOperations"}};
  c.quiet = args.quiet;
  return c;
}

void benchmark(Run& run, const std::shared_ptr<neurobench::Dataset>& data) {
  neurobench::RunParts parts;
  parts.data = data;  // the session of the config, read once for both networks
  neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(run.config, parts);
  const auto start = std::chrono::steady_clock::now();
  run.results = prepared.run();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  neurobench::examples::print_messages(run.key, run.results);
}

void print_table(const std::vector<Run>& runs, const neurobench::Dataset& data,
                 std::optional<int> session) {
  struct Line {
    const char* label;
    const char* metric;
    const char* key;
    const char* format;
    const double (Published::*published)[6];
  };
  const std::vector<Line> lines = {
      {"R2", "R2", "", "{:.4f}", &Published::r2},
      {"footprint (bytes)", "Footprint", "", "{:.0f}", &Published::footprint},
      {"connection sparsity", "ConnectionSparsity", "", "{:.4f}", nullptr},
      {"activation sparsity", "ActivationSparsity", "", "{:.4f}", &Published::activation_sparsity},
      {"synaptic ops: dense", "SynapticOperations", "Dense", "{:.1f}", &Published::dense},
      {"synaptic ops: effective MACs", "SynapticOperations", "Effective_MACs", "{:.1f}",
       &Published::effective_macs},
      {"synaptic ops: effective ACs", "SynapticOperations", "Effective_ACs", "{:.1f}",
       &Published::effective_acs},
  };
  constexpr int kLabel = 30;
  constexpr int kColumn = 14;
  fmt::print("\n{}; operations are per sample\n", data.describe());
  fmt::print("{:<{}}", "", kLabel);
  for (const Run& r : runs) fmt::print("{:>{}}{:>{}}", r.label, kColumn, "NeuroBench", kColumn);
  fmt::print("\n");
  for (const Line& l : lines) {
    fmt::print("{:<{}}", l.label, kLabel);
    for (const Run& r : runs) {
      std::string published = "-";
      if (session) {
        const double value = l.published ? (r.published->*l.published)[*session] : 0.0;
        published = fmt::format(fmt::runtime(l.format), value);
      }
      fmt::print("{:>{}}{:>{}}", neurobench::examples::cell(r.results, l.metric, l.key, l.format),
                 kColumn, published, kColumn);
    }
    fmt::print("\n");
  }
  fmt::print("\n{}\n",
             session ? "NeuroBench's figures: its trained networks on this session's test "
                       "subset. Footprint and dense operations depend only on the networks; the "
                       "others on the weights and the data (see README.md)."
                     : "NeuroBench publishes figures for its six sessions only (see README.md).");
}

// Says where to get the data set, when it is not where the user pointed.
int no_data(const Args& args) {
  fmt::print(stderr,
             "error: {}\n"
             "The Primate Reaching sessions (O'Doherty et al., Sabes lab) are not bundled. "
             "Get them from\n"
             "  {}\n"
             "NeuroBench's benchmark uses {}.mat, {}.mat, {}.mat, {}.mat, {}.mat and {}.mat;\n"
             "then run: primate_reaching --data indy_20160622_01.mat\n",
             args.data.empty() ? std::string("no session given (--data FILE.mat)")
                               : fmt::format("{}: no such file", args.data),
             neurobench::datasets::kPrimateReachingUrl,
             neurobench::datasets::kPrimateReachingFiles[0],
             neurobench::datasets::kPrimateReachingFiles[1],
             neurobench::datasets::kPrimateReachingFiles[2],
             neurobench::datasets::kPrimateReachingFiles[3],
             neurobench::datasets::kPrimateReachingFiles[4],
             neurobench::datasets::kPrimateReachingFiles[5]);
  return neurobench::kExitError;
}

int run(const Args& args) {
  if (args.data.empty() || !fs::exists(args.data)) return no_data(args);
  if (!args.json.empty()) (void)neurobench::check_output_file(args.json);
  neurobench::DatasetSpec spec;
  spec.kind = "primate-reaching";
  spec.path = args.data;
  // NeuroBench's benchmark scripts: one 4 ms bin per sample, half the segments for training.
  spec.options = {{"subset", "test"},      {"num_steps", 1},
                  {"train_ratio", 0.5},    {"bin_width", 0.004},
                  {"biological_delay", 0}, {"stride", 0.004},
                  {"split_num", 1},        {"remove_segments_inactive", false}};
  const auto data = std::dynamic_pointer_cast<neurobench::datasets::PrimateReaching>(
      neurobench::examples::open_dataset(spec, args.quiet));
  const std::optional<int> session = session_of(args.data);

  std::vector<Run> runs;
  for (const char* key : {"snn", "ann"}) {
    if (!args.only.empty() && args.only != key) continue;
    Run r;
    r.key = key;
    r.label = r.key == "snn" ? "SNN2" : "ANN (2D)";
    r.published = r.key == "snn" ? &kPublishedSnn : &kPublishedAnn;
    r.config = benchmark_config(r.key == "snn" ? "snn2" : "ann2d", spec, args, data->channels());
    runs.push_back(std::move(r));
  }
  bool failed = false;
  for (Run& r : runs) {
    if (!args.quiet) fmt::print(stderr, "benchmarking {} ({})\n", r.label, r.config.model.string());
    benchmark(r, data);
    failed = failed || !r.results.ok();
  }
  print_table(runs, *data, session);

  if (!args.json.empty()) {
    Json all = Json::object();
    all["task"] = "motor decoding, NeuroBench's Primate Reaching (cursor velocity)";
    all["data"] = {{"file", args.data},
                   {"subset", "test"},
                   {"options", spec.options},
                   {"samples", data->size()},
                   {"channels", data->channels()},
                   {"sha256", data->source_sha256().value_or("")}};
    all["options"] = {{"batch_size", args.batch_size}, {"threads", args.threads}};
    Json models = Json::object();
    for (const Run& r : runs) {
      Json j = {{"label", r.label},
                {"model", r.config.model.string()},
                {"results", r.results.values},
                {"_run", r.results.run},
                {"seconds", r.seconds}};
      if (!r.results.warnings.empty()) j["warnings"] = r.results.warnings;
      models[r.key] = j;
    }
    all["models"] = models;
    neurobench::write_output_file(args.json, all.dump(2) + "\n");
  }
  return failed ? neurobench::kExitMetricFailed : neurobench::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Benchmarks NeuroBench's Primate Reaching networks (the SNN2 spiking network and the 2D "
      "ANN) on one session's test steps with neurobench, beside NeuroBench's published figures",
      "primate_reaching"};
  Args args;
  app.add_option("--data", args.data, "One session's .mat file (indy_20160622_01.mat, ...)");
  app.add_option("--models", args.models,
                 "Folder with snn2_C.pt and ann2d_C.pt (C: 96 or 192 channels)")
      ->capture_default_str();
  app.add_option("--only", args.only, "Benchmark only this network")
      ->check(CLI::IsMember({"snn", "ann"}));
  app.add_option("--batch-size", args.batch_size,
                 "Samples per batch (the results do not depend on it: both networks carry their "
                 "state across batches)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  app.add_option("--threads", args.threads, "LibTorch and OpenBLAS threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--json", args.json, "Write both networks' results to this JSON file");
  app.add_flag("--quiet", args.quiet, "No progress bars or notes on stderr");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  return neurobench::report_errors([&] { return run(args); }, std::cerr);
}
