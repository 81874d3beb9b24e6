// SPDX-License-Identifier: Apache-2.0
// Timing statistics on synthetic timings, the timing pass's bookkeeping, and the deployment
// metrics (ModelFileSize, PeakMemory, StartupTime). No test here depends on absolute speed.
#include <sys/mman.h>

#include <ATen/Parallel.h>
#include <catch2/catch.hpp>

#include <cstring>
#include <regex>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/timing.hpp>
#include <neurobench/reporters/results.hpp>

#include "support.hpp"

using neurobench::Json;
using neurobench::Summary;
using neurobench::TimedRun;
using neurobench::Timings;

namespace {

Timings synthetic_timings(const std::vector<double>& forward_s, int64_t samples = 4) {
  Timings t;
  t.batch_size = samples;
  t.warmup_runs = 2;
  t.clock_resolution_s = 1e-9;
  for (const double f : forward_s) {
    TimedRun r;
    r.pre_s = 0.001;
    r.forward_s = f;
    r.post_s = 0.002;
    r.samples = samples;
    t.runs.push_back(r);
    t.wall_s += r.pre_s + r.forward_s + r.post_s;
  }
  return t;
}

std::shared_ptr<neurobench::TensorDataset> classifier_data() {
  return std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz")));
}

std::shared_ptr<neurobench::TorchScriptModel> classifier_model() {
  return std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("core/classifier.pt"));
}

neurobench::DataLoader loader(int64_t batch_size) {
  neurobench::LoaderOptions o;
  o.batch_size = batch_size;
  return neurobench::DataLoader(classifier_data(), o);
}

// Counts the batches it sees: workload pass, warm-up, timed and start-up runs alike.
class CountingPre final : public neurobench::PreProcessor {
 public:
  explicit CountingPre(std::shared_ptr<int64_t> count) : count_(std::move(count)) {}
  neurobench::Batch operator()(const neurobench::Batch& batch) override {
    ++*count_;
    return batch;
  }

 private:
  std::shared_ptr<int64_t> count_;
};

neurobench::RunOptions timed(int64_t warmup, int64_t runs) {
  neurobench::RunOptions o;
  o.quiet = true;
  o.timing.warmup = warmup;
  o.timing.runs = runs;
  return o;
}

}  // namespace

TEST_CASE("summarize gives NumPy's percentiles and the sample standard deviation", "[timing]") {
  // np.percentile(range(1, 11), [50, 90, 99]) and np.std(range(1, 11), ddof=1).
  const Summary s = neurobench::summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  CHECK(s.count == 10);
  CHECK(s.mean == Approx(5.5));
  CHECK(s.median == Approx(5.5));
  CHECK(s.p90 == Approx(9.1));
  CHECK(s.p99 == Approx(9.91));
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.std == Approx(3.0276503540974917));

  const Summary one = neurobench::summarize({0.25});
  CHECK(one.median == 0.25);
  CHECK(one.p99 == 0.25);
  CHECK(one.std == 0);

  const Summary two = neurobench::summarize({1, 3});
  CHECK(two.median == 2);
  CHECK(two.p90 == Approx(2.8));
  CHECK(two.std == Approx(std::sqrt(2.0)));

  CHECK_THROWS_AS(neurobench::summarize({}), neurobench::MetricError);
}

TEST_CASE("Latency reports per-batch and per-sample statistics in milliseconds", "[timing]") {
  const Timings t = synthetic_timings({0.010, 0.020, 0.030, 0.040}, 4);
  const Json v = neurobench::metrics::Latency().compute(t);
  CHECK(v["batch_size"] == 4);
  CHECK(v["runs"] == 4);
  CHECK(v["warmup_runs"] == 2);
  CHECK(v["batch_mean_ms"].get<double>() == Approx(25));
  CHECK(v["batch_median_ms"].get<double>() == Approx(25));
  CHECK(v["batch_p90_ms"].get<double>() == Approx(37));
  CHECK(v["batch_min_ms"].get<double>() == Approx(10));
  CHECK(v["batch_max_ms"].get<double>() == Approx(40));
  CHECK(v["batch_std_ms"].get<double>() == Approx(12.909944487358056));
  CHECK(v["sample_mean_ms"].get<double>() == Approx(25.0 / 4));
  CHECK(v["sample_max_ms"].get<double>() == Approx(10));
  CHECK_FALSE(v.contains("below_resolution_runs"));
}

TEST_CASE("InferenceTime adds pre- and post-processing to the inference time", "[timing]") {
  const Json v = neurobench::metrics::InferenceTime().compute(synthetic_timings({0.010, 0.020}, 2));
  CHECK(v["batch_min_ms"].get<double>() == Approx(13));
  CHECK(v["batch_max_ms"].get<double>() == Approx(23));
  CHECK(v["sample_mean_ms"].get<double>() == Approx(18.0 / 2));
}

TEST_CASE("runs shorter than the clock's resolution are reported, never as a plain 0", "[timing]") {
  Timings t = synthetic_timings({0.0, 0.010, 0.0}, 4);
  t.clock_resolution_s = 1e-6;
  const Json v = neurobench::metrics::Latency().compute(t);
  CHECK(v["below_resolution_runs"] == 2);

  const Timings all_zero = synthetic_timings({0.0, 0.0}, 4);
  REQUIRE_THROWS_WITH(neurobench::metrics::Latency().compute(all_zero),
                      Catch::Contains("Latency") && Catch::Contains("all 2 timed runs") &&
                          Catch::Contains("resolution"));
  Timings instant = synthetic_timings({0.0}, 4);
  instant.wall_s = 0;
  REQUIRE_THROWS_WITH(neurobench::metrics::Throughput().compute(instant),
                      Catch::Contains("Throughput") && Catch::Contains("resolution"));
  REQUIRE_THROWS_WITH(neurobench::metrics::Latency().compute(Timings{}),
                      Catch::Contains("no runs"));
}

TEST_CASE("Throughput is samples over the wall time of the timed runs", "[timing]") {
  Timings t = synthetic_timings({0.010, 0.030}, 8);
  t.wall_s = 0.05;
  const Json v = neurobench::metrics::Throughput().compute(t);
  CHECK(v["samples"] == 16);
  CHECK(v["runs"] == 2);
  CHECK(v["seconds"].get<double>() == Approx(0.05));
  CHECK(v["samples_per_s"].get<double>() == Approx(16 / 0.05));
}

TEST_CASE("StartupTime reports medians of fresh loads, or says why there are none", "[timing]") {
  Timings t;
  t.startup = {{0.010, 0.100}, {0.030, 0.050}, {0.020, 0.060}};
  const Json v = neurobench::metrics::StartupTime().compute(t);
  CHECK(v["runs"] == 3);
  CHECK(v["load_ms"].get<double>() == Approx(20));
  CHECK(v["first_inference_ms"].get<double>() == Approx(60));
  CHECK(v["total_ms"].get<double>() == Approx(80));
  CHECK(v["total_min_ms"].get<double>() == Approx(80));
  CHECK(v["total_max_ms"].get<double>() == Approx(110));

  Timings none;
  none.startup_error = "net was not loaded from a file";
  REQUIRE_THROWS_WITH(neurobench::metrics::StartupTime().compute(none),
                      Catch::Contains("StartupTime") && Catch::Contains("not loaded from a file"));
}

TEST_CASE("timing options are checked and name the field at fault", "[timing]") {
  neurobench::TimingOptions o;
  o.validate();
  o.warmup = -1;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("warmup"));
  o = {};
  o.min_time_s = std::nan("");
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("min_time"));
  o = {};
  o.startup_runs = 0;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("startup_runs"));
  o = {};
  o.runs = neurobench::TimingOptions::kMaxRuns + 1;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("runs"));
  o = {};
  o.warmup = 2000000000;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("timing: warmup: 2000000000 is out of range; "
                                                    "expected an integer from 0 to 1000000"));
  o = {};
  o.startup_runs = neurobench::TimingOptions::kMaxStartupRuns + 1;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("startup_runs: 10001 is out of range"));
  o = {};
  o.max_time_s = -1;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("max_time: -1 is out of range"));
  o = {};
  o.max_time_s = 0.5;
  REQUIRE_THROWS_WITH(o.validate(), Catch::Contains("min_time (1 s) is more than max_time"));
  o.runs = 10;
  REQUIRE_NOTHROW(o.validate());
}

TEST_CASE("max_time stops the timed runs and the start-up loads and reports the runs made",
          "[timing][benchmark]") {
  auto count = std::make_shared<int64_t>(0);
  std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
  pre.push_back(std::make_unique<CountingPre>(count));
  neurobench::Benchmark bench(classifier_model(), loader(4), std::move(pre), {},
                              neurobench::MetricSet::from_names({}, {"Latency", "StartupTime"}));
  using neurobench::TimingOptions;
  auto options = timed(0, TimingOptions::kMaxRuns);
  options.timing.startup_runs = TimingOptions::kMaxStartupRuns;
  options.timing.max_time_s = 0.05;
  const auto r = bench.run(options);
  REQUIRE(r.ok());
  const Json& timing = r.run["timing"];
  const auto runs = timing["runs_done"].get<int64_t>();
  const auto loads = timing["startup_runs_done"].get<int64_t>();
  CHECK(runs >= 1);
  CHECK(runs < TimingOptions::kMaxRuns);
  CHECK(loads >= 1);
  CHECK(loads < TimingOptions::kMaxStartupRuns);
  CHECK(*count == runs + 1);  // the timed runs, and the start-up runs' one batch
  CHECK(r.values["Latency"]["runs"] == runs);
  CHECK(r.values["StartupTime"]["runs"] == loads);
  CHECK(timing["max_time_reached"] == true);
  REQUIRE(r.warnings.size() == 2);
  CHECK_THAT(r.warnings[0], Catch::StartsWith("timing: max_time (0.05 s) reached after 0 of 0 "
                                              "warm-up runs and " +
                                              std::to_string(runs) + " of 1000000 timed runs"));
  CHECK_THAT(r.warnings[1], Catch::StartsWith("timing: max_time (0.05 s) reached after " +
                                              std::to_string(loads) + " of 10000 start-up runs"));

  // The warm-up counts against max_time too; one timed run is still made.
  options = timed(TimingOptions::kMaxWarmup, 5);
  options.timing.max_time_s = 0.05;
  const auto w = bench.run(options);
  REQUIRE(w.ok());
  CHECK(w.run["timing"]["warmup_runs_done"].get<int64_t>() < TimingOptions::kMaxWarmup);
  CHECK(w.values["Latency"]["warmup_runs"] == w.run["timing"]["warmup_runs_done"]);
  CHECK(w.run["timing"]["runs_done"] == 1);
  CHECK(w.run["timing"]["max_time_reached"] == true);

  // max_time 0: one timed run and one load, nothing more.
  options = timed(3, 100);
  options.timing.min_time_s = 0;
  options.timing.max_time_s = 0;
  const auto zero = bench.run(options);
  REQUIRE(zero.ok());
  CHECK(zero.run["timing"]["warmup_runs_done"] == 0);
  CHECK(zero.values["Latency"]["runs"] == 1);
  CHECK(zero.values["StartupTime"]["runs"] == 1);
}

TEST_CASE("timing metrics are a family of their own, asked for among the workload metrics",
          "[timing]") {
  const auto set = neurobench::MetricSet::from_names({}, {"Latency", "MSE", "startup_time"});
  REQUIRE(set.workload_metrics.size() == 1);
  REQUIRE(set.timing_metrics.size() == 2);
  CHECK(set.timing_metrics[0]->name() == "Latency");
  CHECK(set.timing_metrics[1]->needs_startup_runs());
  CHECK(set.order == std::vector<std::string>{"Latency", "MSE", "StartupTime"});
  CHECK(neurobench::timing_metrics().contains("Throughput"));
  CHECK_FALSE(neurobench::workload_metrics().contains("Throughput"));
  REQUIRE_THROWS_WITH(neurobench::MetricSet::from_names({"Latency"}, {}),
                      Catch::Contains("'Latency' is a timing metric, not a static one"));
}

TEST_CASE("the timing pass excludes warm-up runs and leaves the other metrics alone",
          "[timing][benchmark]") {
  auto count = std::make_shared<int64_t>(0);
  std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
  pre.push_back(std::make_unique<CountingPre>(count));
  neurobench::Benchmark bench(
      classifier_model(), loader(4), std::move(pre), {},
      neurobench::MetricSet::from_names({}, {"Latency", "ClassificationAccuracy",
                                             "ActivationSparsity", "InferenceTime", "Throughput"}));
  const auto r = bench.run(timed(2, 5));
  INFO(r.failures.size());
  REQUIRE(r.ok());
  // The workload pass (3 batches of 10 samples), then 2 warm-up and 5 timed runs.
  CHECK(*count == 3 + 2 + 5);
  CHECK(r.samples == 10);
  CHECK(r.values["ClassificationAccuracy"].get<double>() == Approx(0.7).epsilon(1e-6));
  std::vector<std::string> order;
  for (const auto& [key, v] : r.values.items()) order.push_back(key);
  CHECK(order == std::vector<std::string>{"Latency", "ClassificationAccuracy", "ActivationSparsity",
                                          "InferenceTime", "Throughput"});
  const Json& latency = r.values["Latency"];
  CHECK(latency["runs"] == 5);
  CHECK(latency["warmup_runs"] == 2);
  CHECK(latency["batch_size"] == 4);
  CHECK(latency["batch_min_ms"].get<double>() <= latency["batch_median_ms"].get<double>());
  CHECK(latency["batch_median_ms"].get<double>() <= latency["batch_max_ms"].get<double>());
  CHECK(r.values["Throughput"]["samples"] == 5 * 4);  // full batches only
  CHECK(r.values["InferenceTime"]["batch_min_ms"].get<double>() > 0);
  CHECK(r.run["timing"]["warmup"] == 2);
  CHECK(r.run["timing"]["batch_size"] == 4);
}

TEST_CASE("with only timing metrics the workload pass is skipped", "[timing][benchmark]") {
  auto count = std::make_shared<int64_t>(0);
  std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
  pre.push_back(std::make_unique<CountingPre>(count));
  neurobench::Benchmark bench(classifier_model(), loader(4), std::move(pre), {},
                              neurobench::MetricSet::from_names({"Footprint"}, {"Latency"}));
  auto options = timed(0, 0);
  options.timing.min_time_s = 0;  // as few runs as allowed
  const auto r = bench.run(options);
  REQUIRE(r.ok());
  CHECK(r.samples == 0);
  CHECK(*count == neurobench::TimingOptions::kMinAutoRuns);
  CHECK(r.values["Latency"]["runs"] == neurobench::TimingOptions::kMinAutoRuns);

  // Without any workload metric the workload pass runs, as in the reference.
  auto static_count = std::make_shared<int64_t>(0);
  std::vector<std::unique_ptr<neurobench::PreProcessor>> static_pre;
  static_pre.push_back(std::make_unique<CountingPre>(static_count));
  neurobench::Benchmark static_only(classifier_model(), loader(4), std::move(static_pre), {},
                                    neurobench::MetricSet::from_names({"Footprint"}, {}));
  const auto s = static_only.run(options);
  CHECK(s.samples == 10);
  CHECK(*static_count == 3);
}

TEST_CASE("timed runs use a fixed batch size, clamped to the data set", "[timing][benchmark]") {
  neurobench::Benchmark bench(classifier_model(), loader(4), {}, {},
                              neurobench::MetricSet::from_names({}, {"Latency", "Throughput"}));
  auto options = timed(1, 4);
  options.timing.batch_size = 3;
  auto r = bench.run(options);
  REQUIRE(r.ok());
  CHECK(r.values["Latency"]["batch_size"] == 3);
  CHECK(r.values["Throughput"]["samples"] == 12);
  CHECK(r.warnings.empty());

  options.timing.batch_size = 64;
  r = bench.run(options);
  REQUIRE(r.ok());
  CHECK(r.values["Latency"]["batch_size"] == 10);
  REQUIRE(r.warnings.size() == 1);
  CHECK_THAT(r.warnings[0], Catch::Contains("larger than the data set"));
}

TEST_CASE("StartupTime loads the model file afresh, without a file it says so",
          "[timing][benchmark]") {
  auto count = std::make_shared<int64_t>(0);
  std::vector<std::unique_ptr<neurobench::PreProcessor>> pre;
  pre.push_back(std::make_unique<CountingPre>(count));
  neurobench::Benchmark bench(classifier_model(), loader(4), std::move(pre), {},
                              neurobench::MetricSet::from_names({}, {"StartupTime"}));
  auto options = timed(0, 1);
  options.timing.startup_runs = 3;
  const auto r = bench.run(options);
  REQUIRE(r.ok());
  CHECK(r.values["StartupTime"]["runs"] == 3);
  CHECK(r.values["StartupTime"]["load_ms"].get<double>() > 0);
  CHECK(r.values["StartupTime"]["first_inference_ms"].get<double>() > 0);

  auto in_memory = std::make_shared<neurobench::TorchScriptModel>(
      classifier_model()->module().clone(), neurobench::TorchScriptOptions{}, "a clone");
  neurobench::Benchmark no_file(
      in_memory, loader(4), {}, {},
      neurobench::MetricSet::from_names({"ModelFileSize"}, {"StartupTime", "Latency"}));
  const auto f = no_file.run(timed(0, 1));
  REQUIRE(f.failures.size() == 2);
  CHECK_THAT(f.failures[0].message, Catch::StartsWith("ModelFileSize") &&
                                        Catch::Contains("a clone") &&
                                        Catch::Contains("not loaded from a file"));
  CHECK_THAT(f.failures[1].message,
             Catch::StartsWith("StartupTime") && Catch::Contains("not loaded from a file"));
  CHECK(f.values["StartupTime"].is_null());
  CHECK(f.values["Latency"]["runs"] == 1);
}

TEST_CASE("ModelFileSize is the model file's size on disk", "[benchmark]") {
  const auto path = neurobench::test::fixture("core/classifier.pt");
  neurobench::TorchScriptModel model(path);
  const Json v = neurobench::metrics::ModelFileSize().compute(model, {});
  CHECK(v.get<int64_t>() == static_cast<int64_t>(std::filesystem::file_size(path)));

  // A model file removed after loading: the error names the metric and the file.
  neurobench::test::TempDir dir;
  const auto copy = dir / "gone.pt";
  std::filesystem::copy_file(path, copy);
  const neurobench::TorchScriptModel loaded(copy);
  std::filesystem::remove(copy);
  REQUIRE_THROWS_WITH(neurobench::metrics::ModelFileSize().compute(loaded, {}),
                      Catch::StartsWith("ModelFileSize") && Catch::Contains(copy.string()));
}

TEST_CASE("PeakMemory reports the workload's peak and its growth", "[benchmark]") {
  neurobench::Benchmark bench(classifier_model(), loader(4), {}, {},
                              neurobench::MetricSet::from_names({"Footprint"}, {"PeakMemory"}));
  const auto r = bench.run(timed(0, 1));
  REQUIRE(r.ok());
  const Json& m = r.values["PeakMemory"];
  CHECK(m["peak_rss_bytes"].get<int64_t>() > 0);
  CHECK(m["peak_rss_bytes"].get<int64_t>() >= m["start_rss_bytes"].get<int64_t>());
  CHECK(m["growth_bytes"].get<int64_t>() ==
        m["peak_rss_bytes"].get<int64_t>() - m["start_rss_bytes"].get<int64_t>());
  CHECK(m["footprint_bytes"] == r.values["Footprint"]);
}

TEST_CASE("resident memory: now, the peak, and a reset of the peak", "[environment]") {
  constexpr int64_t kBig = int64_t{64} << 20;
  const int64_t base = neurobench::resident_memory_bytes();
  REQUIRE(base > 0);
  {
    // Mapped, touched and unmapped directly: an allocator may keep freed memory (AddressSanitizer
    // holds it in quarantine), which would leave it in the new peak.
    void* big = mmap(nullptr, static_cast<std::size_t>(kBig), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(big != MAP_FAILED);
    std::memset(big, 1, static_cast<std::size_t>(kBig));
    REQUIRE(static_cast<const char*>(big)[kBig - 1] == 1);
    REQUIRE(munmap(big, static_cast<std::size_t>(kBig)) == 0);
  }
  const int64_t high = neurobench::peak_resident_memory_bytes();
  CHECK(high >= base + kBig - (int64_t{4} << 20));
  if (neurobench::reset_peak_resident_memory()) {
    const int64_t now = neurobench::resident_memory_bytes();
    const int64_t peak = neurobench::peak_resident_memory_bytes();
    CHECK(peak >= now);
    CHECK(peak < high - kBig / 2);  // the 64 MiB are gone from the new peak
  } else {
    WARN("this system does not let a process reset its peak memory (/proc/self/clear_refs)");
  }
}

TEST_CASE("every run records its environment, saved as _run and _environment",
          "[benchmark][environment]") {
  at::set_num_threads(1);
  neurobench::Benchmark bench(classifier_model(), loader(4), {}, {},
                              neurobench::MetricSet::from_names({"Footprint"}, {}));
  const auto r = bench.run(timed(0, 1));
  const auto& e = r.environment;
  CHECK_FALSE(e.cpu.empty());
  CHECK(e.cores >= 1);
  CHECK(e.threads == 1);
  CHECK_THAT(e.libtorch, Catch::StartsWith("1."));
  CHECK_FALSE(e.build_type.empty());
  CHECK(e.neurobench == neurobench::version());
  CHECK_FALSE(e.git_commit.empty());
  CHECK_THAT(e.os, Catch::StartsWith("Linux"));
  CHECK(std::regex_match(e.date, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));

  const Json doc = neurobench::results_document(r);
  std::vector<std::string> keys;
  for (const auto& [key, v] : doc.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"Footprint", "_metrics", "_run", "_environment"});
  CHECK(doc["_run"]["model"] == classifier_model()->describe());
  CHECK(doc["_run"]["failures"].empty());
  CHECK(doc["_environment"]["threads"] == 1);
  CHECK(doc["_environment"]["date"] == e.date);

  neurobench::Results by_hand;
  by_hand.values["x"] = 1;
  CHECK(neurobench::results_document(by_hand) == by_hand.values);
}

TEST_CASE("metric names starting with '_' are reserved for metadata", "[benchmark]") {
  class Hidden final : public neurobench::StaticMetric {
   public:
    Json compute(const neurobench::NeuroBenchModel&, const neurobench::LayerSetup&) const override {
      return 1;
    }
    std::string name() const override { return "_run"; }
  };
  neurobench::MetricSet set;
  set.static_metrics.push_back(std::make_unique<Hidden>());
  REQUIRE_THROWS_WITH(neurobench::Benchmark(classifier_model(), loader(4), {}, {}, std::move(set)),
                      Catch::Contains("'_run'") && Catch::Contains("reserved"));
}
