// SPDX-License-Identifier: Apache-2.0
// NeuroBench's chaotic function prediction task: echo state networks predicting the
// Mackey-Glass series autonomously, one network per delay tau (README.md beside this file).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "common/run_results.hpp"
#include "common/run_setup.hpp"

#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/datasets/mackey_glass.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/reporters/results.hpp>

#include "mackey_glass/esn.hpp"

namespace fs = std::filesystem;
using neurobench::examples::seconds_since;
namespace mg = neurobench::examples::mackey_glass;
namespace nbm = neurobench::metrics;
using neurobench::Json;
using neurobench::datasets::MackeyGlass;
using neurobench::datasets::MackeyGlassOptions;

namespace {

// The figures NeuroBench publishes for its ESN on this task (per sample, averaged over taus).
constexpr double kPublishedSmape = 14.79;
constexpr double kPublishedFootprint = 2.81e5;
constexpr double kPublishedConnectionSparsity = 0.876;
constexpr double kPublishedDense = 3.52e4;
constexpr double kPublishedMacs = 4.37e3;
// The reference script's own comments: repeat = 1 over the 14 taus, with the hyperparameter
// table this example uses.
constexpr double kScriptSmape = 40.803375080880265;
constexpr double kScriptMacs = 290192.71952380956;
constexpr double kScriptDense = 565148.5714285715;

struct Args {
  std::vector<int> taus;
  int repeats = 1;
  std::string series_dir;
  std::string out;
  std::string json;
  bool quiet = false;
  int threads = 1;
  int64_t integration_steps = MackeyGlassOptions{}.integration_steps;
  int64_t reservoir_size = 0;  // 0: the table's
  double connect_prob = 0.0;   // 0: the table's
  bool check_integrator = false;
};

fs::path make_temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "neurobench_mackey_glass_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw neurobench::InputError(fmt::format("cannot create a directory like {}", pattern));
  }
  return pattern;
}

// The reference's start offsets: 0.5 Lyapunov times apart, in sampling steps (0, 37.5, 75,
// ...), truncated to whole steps when the series is sliced.
double start_offset(int repeat, const MackeyGlassOptions& o) {
  return 0.5 * repeat * static_cast<double>(o.pts_per_lyaptime);
}

// A metric's value, NaN when it failed (null) or is missing.
double number(const Json& results, const char* metric, const char* key = nullptr) {
  auto it = results.find(metric);
  if (it == results.end()) return std::nan("");
  const Json* v = &*it;
  if (key != nullptr) {
    if (!v->is_object() || !v->contains(key)) return std::nan("");
    v = &v->at(key);
  }
  return v->is_number() ? v->get<double>() : std::nan("");
}

// The generator's error on the selected taus, for docs/mackey-glass.md: k against 2k steps
// per sampling interval (k = the chosen number and half of it), and, as the floor that no
// double-precision integration gets below, the change made by moving the constant past by one
// unit in the last place.
int check_integrator(const Args& args) {
  fmt::print("max |difference| of the samples: training part (samples 0..train) | test part\n");
  fmt::print("{:>4} {:>22} {:>22} {:>22} {:>8}\n", "tau",
             fmt::format("k={} vs {}", args.integration_steps / 2, args.integration_steps),
             fmt::format("k={} vs {}", args.integration_steps, 2 * args.integration_steps),
             "one-ulp constant past", "seconds");
  for (int tau : args.taus) {
    MackeyGlassOptions o = MackeyGlassOptions::for_tau(tau);
    const int64_t n = o.total_points();
    const int64_t train_end = o.train_points() + 1;  // inputs and targets of training
    const auto trajectory = [&](int64_t k, double past) {
      MackeyGlassOptions p = o;
      p.integration_steps = std::max<int64_t>(k, 1);
      p.constant_past = past;
      return neurobench::datasets::mackey_glass_trajectory(p, n);
    };
    const auto start = std::chrono::steady_clock::now();
    const torch::Tensor base = trajectory(args.integration_steps, o.constant_past);
    const double took = seconds_since(start);
    const auto compare = [&](const torch::Tensor& other) {
      const torch::Tensor d = (base - other).abs();
      return fmt::format("{:.1e} | {:.1e}", d.slice(0, 0, train_end).max().item<double>(),
                         d.slice(0, train_end).max().item<double>());
    };
    fmt::print("{:>4} {:>22} {:>22} {:>22} {:>8.3f}\n", tau,
               compare(trajectory(args.integration_steps / 2, o.constant_past)),
               compare(trajectory(2 * args.integration_steps, o.constant_past)),
               compare(trajectory(args.integration_steps,
                                  std::nextafter(o.constant_past, 2.0 * o.constant_past))),
               took);
  }
  return 0;
}

struct Row {
  int tau = 0;
  int repeat = 0;
  int64_t reservoir = 0;
  double smape = 0, footprint = 0, connection_sparsity = 0, activation_sparsity = 0, dense = 0,
         macs = 0, seconds = 0;
};

void print_header() {
  fmt::print("{:>4} {:>4} {:>6} {:>5} {:>9} {:>11} {:>10} {:>10} {:>11} {:>11} {:>7}\n", "tau",
             "rep", "offset", "R", "sMAPE", "footprint", "conn.spars", "act.spars", "Dense",
             "Eff.MACs", "seconds");
}

void print_row(const Row& r, int64_t offset) {
  fmt::print(
      "{:>4} {:>4} {:>6} {:>5} {:>9.4f} {:>11.4g} {:>10.4f} {:>10.4f} {:>11.6g} "
      "{:>11.6g} {:>7.2f}\n",
      r.tau, r.repeat, offset, r.reservoir, r.smape, r.footprint, r.connection_sparsity,
      r.activation_sparsity, r.dense, r.macs, r.seconds);
}

// LibTorch sets its own thread pools; OpenBLAS (Debian's usual BLAS) keeps its own, which
// eigvals and large matrix products use: limit it too when it is the loaded BLAS.
void set_threads(int threads) {
  torch::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) {
    reinterpret_cast<SetThreads>(symbol)(threads);
  }
}

int run(const Args& args) {
  set_threads(args.threads);
  const fs::path out = args.out.empty() ? make_temp_dir() : fs::path(args.out);
  fs::create_directories(out);
  neurobench::examples::warn_if_reference_blas(args.quiet);

  Json runs = Json::array();
  std::vector<Row> rows;
  bool failed = false;
  const auto everything = std::chrono::steady_clock::now();
  if (!args.quiet) print_header();
  for (int tau : args.taus) {
    MackeyGlassOptions options = MackeyGlassOptions::for_tau(tau);
    options.integration_steps = args.integration_steps;
    mg::EsnHyperparameters hp = mg::EsnHyperparameters::for_tau(tau);
    if (args.reservoir_size > 0) hp.reservoir_size = args.reservoir_size;
    if (args.connect_prob > 0.0) hp.connect_prob = args.connect_prob;

    // One trajectory per tau, long enough for every repeat's offset; each repeat slices it.
    auto start = std::chrono::steady_clock::now();
    torch::Tensor trajectory;
    std::string source;
    if (!args.series_dir.empty()) {
      const fs::path file = fs::path(args.series_dir) / fmt::format("mg_{}.npy", tau);
      trajectory = neurobench::load_npy(file);
      source = file.string();
    } else {
      options.start_offset = start_offset(args.repeats - 1, options);
      trajectory = neurobench::datasets::mackey_glass_trajectory(
          options, options.offset_points() + options.total_points());
      source = fmt::format("Mackey-Glass tau={} (generated, {} RK4 steps per sample)", tau,
                           options.integration_steps);
    }
    const double series_seconds = seconds_since(start);

    for (int repeat = 0; repeat < args.repeats; ++repeat) {
      const auto run_start = std::chrono::steady_clock::now();
      options.start_offset = start_offset(repeat, options);
      const MackeyGlass data(trajectory, options, source);
      const neurobench::TensorDataset train = data.train();
      const auto test = std::make_shared<neurobench::TensorDataset>(data.test());

      start = std::chrono::steady_clock::now();
      mg::Reservoir reservoir = mg::make_reservoir(hp, static_cast<std::uint64_t>(repeat));
      const double reservoir_seconds = seconds_since(start);
      start = std::chrono::steady_clock::now();
      const mg::TrainedEsn esn = mg::train(std::move(reservoir), train.data(), train.targets(), hp);
      const double train_seconds = seconds_since(start);

      // Save the TorchScript module, load it back as the benchmark will, and check that it
      // predicts exactly what the eager C++ network does.
      const fs::path model_path = out / fmt::format("esn_tau{}_rep{}.pt", tau, repeat);
      mg::build_module(esn).save(model_path.string());
      auto model = std::make_shared<neurobench::TorchScriptModel>(model_path);
      const int64_t n = test->size();
      const torch::Tensor expected =
          mg::predict_autonomous(esn, test->data()[0][-1][0].item<double>(), n);
      const torch::Tensor loaded = model->forward(test->data());
      if (!torch::equal(loaded, expected)) {
        throw neurobench::Error(fmt::format(
            "{}: the saved module predicts differently from the network it was built from "
            "(max |difference| {})",
            model_path.string(), (loaded - expected).abs().max().item<double>()));
      }

      // The same benchmark as a config for `neurobench run`, with its data: a user's start.
      const std::string stem = fmt::format("esn_tau{}_rep{}", tau, repeat);
      neurobench::save_npz(out / (stem + ".npz"),
                           {{"data", test->data()}, {"targets", test->targets()}});
      neurobench::BenchmarkConfig config;
      config.comment =
          fmt::format("Mackey-Glass tau {}, repeat {}: neurobench run {}.json", tau, repeat, stem);
      config.model = model_path;
      config.data = out / (stem + ".npz");
      config.batch_size = n;  // one batch: the test series is one autonomous run
      config.static_metrics = {{"Footprint"}, {"ConnectionSparsity"}};
      config.workload_metrics = {{"SMAPE"}, {"ActivationSparsity"}, {"SynapticOperations"}};
      // Deployment figures beside NeuroBench's: docs/deployment-metrics.md.
      config.metrics = {{"ModelFileSize"}, {"DenseMACs"}, {"Latency"},
                        {"Throughput"},    {"StartupTime"}, {"PeakMemory"}};
      config.outputs["json"] = out / (stem + "_results.json");
      config.write(out / (stem + ".json"));

      // Here, NeuroBench's metrics of the config, on the network and the series in memory.
      neurobench::BenchmarkConfig here = config;
      here.metrics.clear();
      here.threads = args.threads;
      here.quiet = true;
      neurobench::RunParts parts;
      parts.model = model;
      parts.data = test;
      neurobench::PreparedRun prepared = neurobench::PreparedRun::from_config(here, parts);
      start = std::chrono::steady_clock::now();
      const neurobench::Results results = prepared.run();
      const double benchmark_seconds = seconds_since(start);
      for (const auto& f : results.failures) {
        fmt::print(stderr, "error: tau {} repeat {}: {}: {}\n", tau, repeat, f.metric, f.message);
        failed = true;
      }

      Row r;
      r.tau = tau;
      r.repeat = repeat;
      r.reservoir = hp.reservoir_size;
      r.smape = number(results.values, "SMAPE");
      r.footprint = number(results.values, "Footprint");
      r.connection_sparsity = number(results.values, "ConnectionSparsity");
      r.activation_sparsity = number(results.values, "ActivationSparsity");
      r.dense = number(results.values, nbm::names::kSynapticOperations, nbm::keys::kDense);
      r.macs = number(results.values, nbm::names::kSynapticOperations,
                      nbm::keys::kEffectiveMACs);
      r.seconds = seconds_since(run_start) + (repeat == 0 ? series_seconds : 0.0);
      rows.push_back(r);
      if (!args.quiet) print_row(r, options.offset_points());

      Json record = Json::object();
      record["tau"] = tau;
      record["repeat"] = repeat;
      record["start_offset"] = options.start_offset;
      record["offset_points"] = options.offset_points();
      record["series"] = source;
      record["seed"] = repeat;
      record["model"] = model_path.string();
      record["hyperparameters"] = {{"reservoir_size", hp.reservoir_size},
                                   {"scale_bias", hp.scale_bias},
                                   {"scale_input", hp.scale_input},
                                   {"connect_prob", hp.connect_prob},
                                   {"spectral_radius", hp.spectral_radius},
                                   {"leakage", hp.leakage},
                                   {"ridge", hp.ridge},
                                   {"warmup_points", hp.warmup_points}};
      record["reservoir"] = {{"largest_eigenvalue_modulus", esn.reservoir.largest_modulus},
                             {"first_eigenvalue_modulus", esn.reservoir.first_modulus},
                             {"reference_effective_radius", esn.reservoir.reference_radius},
                             {"train_rmse", esn.train_rmse}};
      record["results"] = results.values;
      record["_run"] = results.run;
      if (!results.warnings.empty()) record["warnings"] = results.warnings;
      if (!results.failures.empty()) {
        record["failures"] = neurobench::examples::failures_json(results);
      }
      record["seconds"] = {{"series", repeat == 0 ? series_seconds : 0.0},
                           {"reservoir", reservoir_seconds},
                           {"train", train_seconds},
                           {"benchmark", benchmark_seconds}};
      runs.push_back(record);
    }
  }

  Row mean;
  for (const Row& r : rows) {
    mean.smape += r.smape / static_cast<double>(rows.size());
    mean.footprint += r.footprint / static_cast<double>(rows.size());
    mean.connection_sparsity += r.connection_sparsity / static_cast<double>(rows.size());
    mean.activation_sparsity += r.activation_sparsity / static_cast<double>(rows.size());
    mean.dense += r.dense / static_cast<double>(rows.size());
    mean.macs += r.macs / static_cast<double>(rows.size());
  }
  const double total_seconds = seconds_since(everything);

  fmt::print("\n{:<44} {:>9} {:>11} {:>10} {:>10} {:>11} {:>11}\n", "average", "sMAPE", "footprint",
             "conn.spars", "act.spars", "Dense", "Eff.MACs");
  fmt::print("{:<44} {:>9.4f} {:>11.4g} {:>10.4f} {:>10.4f} {:>11.6g} {:>11.6g}\n",
             fmt::format("this run ({} networks, {:.1f} s)", rows.size(), total_seconds),
             mean.smape, mean.footprint, mean.connection_sparsity, mean.activation_sparsity,
             mean.dense, mean.macs);
  fmt::print("{:<44} {:>9.4f} {:>11} {:>10} {:>10} {:>11.6g} {:>11.6g}\n",
             "reference script comments (repeat=1)", kScriptSmape, "-", "-", "-", kScriptDense,
             kScriptMacs);
  fmt::print("{:<44} {:>9.2f} {:>11.3g} {:>10.3f} {:>10} {:>11.3g} {:>11.3g}\n",
             "NeuroBench published ESN figures", kPublishedSmape, kPublishedFootprint,
             kPublishedConnectionSparsity, "-", kPublishedDense, kPublishedMacs);
  fmt::print(
      "(the published figures are for a smaller network than the hyperparameter table "
      "used here: see README.md)\n");

  Json all = Json::object();
  all["task"] = "Mackey-Glass chaotic function prediction, echo state network";
  all["options"] = {{"taus", args.taus},
                    {"repeats", args.repeats},
                    {"series_dir", args.series_dir},
                    {"integration_steps", args.integration_steps},
                    {"reservoir_size", args.reservoir_size},
                    {"connect_prob", args.connect_prob},
                    {"threads", args.threads}};
  all["average"] = {{"SMAPE", mean.smape},
                    {"Footprint", mean.footprint},
                    {"ConnectionSparsity", mean.connection_sparsity},
                    {"ActivationSparsity", mean.activation_sparsity},
                    {"Dense", mean.dense},
                    {"Effective_MACs", mean.macs},
                    {"networks", rows.size()},
                    {"seconds", total_seconds}};
  all["reference"] = {
      {"published",
       {{"SMAPE", kPublishedSmape},
        {"Footprint", kPublishedFootprint},
        {"ConnectionSparsity", kPublishedConnectionSparsity},
        {"Dense", kPublishedDense},
        {"Effective_MACs", kPublishedMacs}}},
      {"script_comments_repeat_1",
       {{"SMAPE", kScriptSmape}, {"Dense", kScriptDense}, {"Effective_MACs", kScriptMacs}}}};
  all["runs"] = runs;
  const std::string text = all.dump(2) + "\n";
  neurobench::write_file_atomically(out / "results.json", text);
  if (!args.json.empty()) neurobench::write_file_atomically(args.json, text);
  fmt::print("models and results.json in {}\n", out.string());
  return failed ? neurobench::kExitMetricFailed : neurobench::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "NeuroBench's chaotic function prediction task: echo state networks predicting "
      "the Mackey-Glass series autonomously",
      "mackey_glass"};
  Args args;
  app.add_option("--tau", args.taus, "Delays to run, e.g. --tau 17,18 (default: 17..30)")
      ->delimiter(',')
      ->check(CLI::Range(17, 30));
  app.add_option("--repeats", args.repeats,
                 "Networks per tau: repeat k uses seed k and starts k/2 Lyapunov times later")
      ->check(CLI::Range(1, 1000));
  app.add_option("--series-dir", args.series_dir,
                 "Use the reference's mg_{tau}.npy series from this directory instead of "
                 "generating them")
      ->check(CLI::ExistingDirectory);
  app.add_option("--out", args.out,
                 "Directory for the saved .pt models and results.json (default: a new temporary "
                 "directory)");
  app.add_option("--json", args.json, "Also write all results to this JSON file");
  app.add_flag("--quiet", args.quiet, "Print only the averages");
  app.add_option("--threads", args.threads, "LibTorch intra-op threads")->check(CLI::Range(1, 256));
  app.add_option("--integration-steps", args.integration_steps,
                 "Runge-Kutta steps per sampling interval of the generator")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--reservoir-size", args.reservoir_size,
                 "Reservoir neurons for every tau, instead of the hyperparameter table's")
      ->check(CLI::Range(int64_t{1}, int64_t{20000}));
  app.add_option("--connect-prob", args.connect_prob,
                 "Reservoir connection probability for every tau, instead of the table's")
      ->check(CLI::Range(1e-9, 1.0));
  app.add_flag("--check-integrator", args.check_integrator,
               "Print the generator's step-size error (k against 2k steps) and exit");
  if (const auto stop = neurobench::examples::parse_command_line(app, argc, argv)) return *stop;
  if (args.taus.empty()) {
    for (int tau = 17; tau <= 30; ++tau) args.taus.push_back(tau);
  }

  return neurobench::report_errors(
      [&] { return args.check_integrator ? check_integrator(args) : run(args); }, std::cerr);
}
