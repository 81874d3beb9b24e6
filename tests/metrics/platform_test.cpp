// SPDX-License-Identifier: Apache-2.0
// The platform metrics (Energy, Utilisation, Clock, Temperature) and their readers, on fake
// trees of /sys and /proc laid out as Linux lays them out, and NVML through a stub library
// with its symbols (nvml_stub.cpp). No test here depends on this machine's sensors or speed.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <neurobench/benchmark.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/platform.hpp>
#include <neurobench/metrics/timing.hpp>
#include <neurobench/reporters/results.hpp>

#include "metrics/platform_readers.hpp"
#include "metrics/platform_sampler.hpp"
#include "support.hpp"

namespace fs = std::filesystem;
using neurobench::Json;
using neurobench::PlatformSampling;
using neurobench::Timings;
using neurobench::detail::CpuClockReader;
using neurobench::detail::PlatformGpuTarget;
using neurobench::detail::PlatformSampler;
using neurobench::detail::RaplReader;
using neurobench::detail::TemperatureReader;

namespace {

// Writes `text` to `root/relative`, making its folders.
void platform_write(const fs::path& root, const std::string& relative, const std::string& text) {
  const fs::path p = root / relative;
  fs::create_directories(p.parent_path());
  neurobench::test::write_bytes(p, text);
}

// Two RAPL packages with a core sub-zone and a psys zone (neither may be added), as an Intel
// machine with two sockets lays them out.
void platform_rapl_tree(const fs::path& root, uint64_t package0_uj, uint64_t package1_uj) {
  const std::string base = "sys/class/powercap/";
  platform_write(root, base + "intel-rapl:0/name", "package-0\n");
  platform_write(root, base + "intel-rapl:0/max_energy_range_uj", "262143328850\n");
  platform_write(root, base + "intel-rapl:0/energy_uj", std::to_string(package0_uj) + "\n");
  platform_write(root, base + "intel-rapl:0:0/name", "core\n");
  platform_write(root, base + "intel-rapl:0:0/max_energy_range_uj", "262143328850\n");
  platform_write(root, base + "intel-rapl:0:0/energy_uj", "777\n");
  platform_write(root, base + "intel-rapl:1/name", "package-1\n");
  platform_write(root, base + "intel-rapl:1/max_energy_range_uj", "1000000\n");
  platform_write(root, base + "intel-rapl:1/energy_uj", std::to_string(package1_uj) + "\n");
  platform_write(root, base + "intel-rapl:2/name", "psys\n");
  platform_write(root, base + "intel-rapl:2/max_energy_range_uj", "262143328850\n");
  platform_write(root, base + "intel-rapl:2/energy_uj", "999999\n");
}

// Two thermal zones and a coretemp chip with labelled sensors and one without a label.
void platform_thermal_tree(const fs::path& root) {
  platform_write(root, "sys/class/thermal/thermal_zone0/type", "acpitz\n");
  platform_write(root, "sys/class/thermal/thermal_zone0/temp", "41000\n");
  platform_write(root, "sys/class/thermal/thermal_zone1/type", "x86_pkg_temp\n");
  platform_write(root, "sys/class/thermal/thermal_zone1/temp", "55500\n");
  platform_write(root, "sys/class/hwmon/hwmon2/name", "coretemp\n");
  platform_write(root, "sys/class/hwmon/hwmon2/temp1_label", "Package id 0\n");
  platform_write(root, "sys/class/hwmon/hwmon2/temp1_input", "56000\n");
  platform_write(root, "sys/class/hwmon/hwmon2/temp2_label", "Core 0\n");
  platform_write(root, "sys/class/hwmon/hwmon2/temp2_input", "52000\n");
  platform_write(root, "sys/class/hwmon/hwmon2/temp3_input", "-5000\n");
}

void platform_clock_tree(const fs::path& root) {
  platform_write(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2400000\n");
  platform_write(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "3600000\n");
  platform_write(root, "sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "1\n");
  platform_write(root, "proc/stat",
                 "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\n");
}

bool platform_running_as_root() { return geteuid() == 0; }

// A PlatformSampling of one kind under `root`, with an interval long enough that the thread
// never reads between start() and stop() (the readings are then exactly those two).
PlatformSampling platform_request(const fs::path& root, bool energy, bool utilisation, bool clock,
                                  bool temperature) {
  PlatformSampling s;
  s.energy = energy;
  s.utilisation = utilisation;
  s.clock = clock;
  s.temperature = temperature;
  s.sysroot = root.string();
  s.interval_ms = PlatformSampling::kMaxIntervalMs;
  s.nvml_library = NEUROBENCH_TEST_NVML_STUB;
  return s;
}

// Timings holding one process's records (what the timing pass puts there).
Timings platform_timings(const Json& records) {
  Timings t;
  for (const auto& [metric, record] : records.items()) t.platform[metric] = Json::array({record});
  return t;
}

}  // namespace

TEST_CASE("a RAPL counter's wrap-around counts the energy up to its range and on from 0",
          "[metrics][platform]") {
  using neurobench::detail::rapl_delta_uj;
  CHECK(rapl_delta_uj(100, 350, 1000) == 250);
  CHECK(rapl_delta_uj(900, 50, 1000) == 150);  // 100 to the range, 50 after it
  CHECK(rapl_delta_uj(7, 7, 1000) == 0);
}

TEST_CASE("RAPL: package domains only, their energy added, a wrap-around handled",
          "[metrics][platform]") {
  neurobench::test::TempDir root;
  platform_rapl_tree(root.path(), 1000000, 900000);
  RaplReader rapl(root.path());
  REQUIRE(rapl.unavailable().empty());
  CHECK(rapl.domains() == 2);  // not the core sub-zone, not psys
  // Package 0 counts 2.5 J; package 1 (range 1 J) wraps: 0.1 J to its range, 0.2 J after.
  platform_write(root.path(), "sys/class/powercap/intel-rapl:0/energy_uj", "3500000\n");
  platform_write(root.path(), "sys/class/powercap/intel-rapl:1/energy_uj", "200000\n");
  rapl.sample();
  CHECK(rapl.joules() == Approx(2.5 + 0.3).epsilon(1e-12));
  CHECK(rapl.wraps() == 1);
  platform_write(root.path(), "sys/class/powercap/intel-rapl:1/energy_uj", "700000\n");
  rapl.sample();
  CHECK(rapl.joules() == Approx(2.5 + 0.3 + 0.5).epsilon(1e-12));
  CHECK(rapl.error().empty());
}

TEST_CASE("RAPL unreadable without permission or absent is unavailable with the reason",
          "[metrics][platform]") {
  neurobench::test::TempDir root;
  SECTION("no powercap at all (a virtual machine)") {
    const RaplReader rapl(root.path());
    CHECK(rapl.domains() == 0);
    CHECK_THAT(rapl.unavailable(),
               Catch::Contains("no RAPL package domain") && Catch::Contains("sys/class/powercap"));
  }
  SECTION("energy_uj readable by root only (Linux 5.10 on)") {
    if (platform_running_as_root()) return;  // root reads a mode 000 file: nothing to test
    platform_rapl_tree(root.path(), 1, 2);
    for (const char* zone : {"intel-rapl:0", "intel-rapl:1"}) {
      const fs::path f = root.path() / "sys/class/powercap" / zone / "energy_uj";
      REQUIRE(chmod(f.c_str(), 0) == 0);
    }
    const RaplReader rapl(root.path());
    CHECK(rapl.domains() == 0);
    CHECK_THAT(rapl.unavailable(), Catch::Contains("Permission denied") &&
                                       Catch::Contains("intel-rapl:0/energy_uj") &&
                                       Catch::Contains("only root"));
  }
}

TEST_CASE("temperatures: thermal zones by type, hwmon sensors by chip and label",
          "[metrics][platform]") {
  neurobench::test::TempDir root;
  platform_thermal_tree(root.path());
  const TemperatureReader t(root.path());
  REQUIRE(t.unavailable().empty());
  CHECK(t.names() == std::vector<std::string>{"acpitz", "x86_pkg_temp", "coretemp_Package_id_0",
                                              "coretemp_Core_0", "coretemp_temp3"});
  const std::vector<double> c = t.read_celsius();
  REQUIRE(c.size() == 5);
  CHECK(c[0] == 41.0);
  CHECK(c[1] == 55.5);
  CHECK(c[2] == 56.0);
  CHECK(c[4] == -5.0);
  SECTION("a sensor without permission is left out and said") {
    if (platform_running_as_root()) return;
    const fs::path f = root.path() / "sys/class/thermal/thermal_zone0/temp";
    REQUIRE(chmod(f.c_str(), 0) == 0);
    const TemperatureReader partial(root.path());
    CHECK(partial.names().size() == 4);
    REQUIRE(partial.skipped().size() == 1);
    CHECK_THAT(partial.skipped()[0], Catch::Contains("thermal_zone0/temp: Permission denied"));
  }
  SECTION("no sensor at all") {
    neurobench::test::TempDir empty;
    const TemperatureReader none(empty.path());
    CHECK_THAT(none.unavailable(),
               Catch::Contains("no temperature sensor") && Catch::Contains("sys/class/thermal"));
  }
}

TEST_CASE("the CPU clock from cpufreq, else from /proc/cpuinfo", "[metrics][platform]") {
  neurobench::test::TempDir root;
  platform_clock_tree(root.path());
  const CpuClockReader cpufreq(root.path());
  CHECK(cpufreq.source() == "cpufreq");
  CHECK(cpufreq.read_mhz() == std::vector<double>{2400.0, 3600.0});

  neurobench::test::TempDir vm;
  platform_write(vm.path(), "proc/cpuinfo",
                 "processor\t: 0\ncpu MHz\t\t: 2450.000\n\nprocessor\t: 1\ncpu MHz\t\t: 2449.5\n");
  const CpuClockReader cpuinfo(vm.path());
  CHECK(cpuinfo.source() == "cpuinfo");
  CHECK(cpuinfo.read_mhz() == std::vector<double>{2450.0, 2449.5});

  neurobench::test::TempDir empty;
  const CpuClockReader none(empty.path());
  CHECK_THAT(none.unavailable(), Catch::Contains("no CPU clock") && Catch::Contains("cpuinfo"));
}

TEST_CASE("sysfs and /proc numbers are read strictly: a whole decimal field within 64 bits",
          "[metrics][platform]") {
  using neurobench::detail::parse_proc_decimal;
  using neurobench::detail::parse_sysfs_signed;
  using neurobench::detail::parse_sysfs_unsigned;
  CHECK(parse_sysfs_unsigned("262143328850\n") == 262143328850ULL);
  CHECK(parse_sysfs_unsigned(" 7 ") == 7U);
  CHECK(parse_sysfs_unsigned("18446744073709551615\n") == 18446744073709551615ULL);
  for (const char* bad : {"99999999999999999999\n", "18446744073709551616", "1e400\n", "0x10",
                          "1000 2000\n", "12abc", "", "\n", "-5", "1.5", "5\n\n", "+5"}) {
    INFO(bad);
    CHECK_FALSE(parse_sysfs_unsigned(bad));
  }
  CHECK(parse_sysfs_signed("-5000\n") == -5000);
  CHECK(parse_sysfs_signed("41000\n") == 41000);
  for (const char* bad : {"99999999999999999999", "9223372036854775808", "1e400", "--5", "- 5"}) {
    INFO(bad);
    CHECK_FALSE(parse_sysfs_signed(bad));
  }
  CHECK(parse_proc_decimal(" 2450.000\n") == 2450.0);
  CHECK(parse_proc_decimal("2449") == 2449.0);
  for (const char* bad : {"0x10", "1e400", "inf", "nan", "2450.", ".5", "1 2", "-3",
                          "9999999999999999.0"}) {
    INFO(bad);
    CHECK_FALSE(parse_proc_decimal(bad));
  }
}

TEST_CASE("a source whose number is loose is unavailable with the reason, never wrapped",
          "[metrics][platform]") {
  neurobench::test::TempDir root;
  platform_write(root.path(), "sys/class/thermal/thermal_zone0/type", "acpitz\n");
  platform_write(root.path(), "sys/class/thermal/thermal_zone0/temp", "99999999999999999999\n");
  platform_write(root.path(), "sys/class/thermal/thermal_zone1/type", "exp\n");
  platform_write(root.path(), "sys/class/thermal/thermal_zone1/temp", "1e400\n");
  const TemperatureReader t(root.path());
  CHECK(t.names().empty());
  CHECK_THAT(t.unavailable(), Catch::Contains("thermal_zone0/temp: not a temperature") &&
                                  Catch::Contains("thermal_zone1/temp: not a temperature"));
  platform_write(root.path(), "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
                 "99999999999999999999\n");
  const CpuClockReader clock(root.path());
  CHECK_FALSE(clock.unavailable().empty());
  platform_write(root.path(), "sys/class/powercap/intel-rapl:0/name", "package-0\n");
  platform_write(root.path(), "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "1000\n");
  for (const char* bad : {"0x10\n", "1000 2000\n"}) {
    platform_write(root.path(), "sys/class/powercap/intel-rapl:0/energy_uj", bad);
    const RaplReader rapl(root.path());
    CHECK(rapl.domains() == 0);
    CHECK_THAT(rapl.unavailable(), Catch::Contains("not a counter"));
  }
  platform_write(root.path(), "proc/stat", "cpu  100 0x10 100 800\n");
  std::string error;
  CHECK_FALSE(neurobench::detail::read_system_cpu_times(root.path(), error));
  CHECK_THAT(error, Catch::Contains("proc/stat"));
}

TEST_CASE("a FIFO or a device among the sources is unavailable at once, never waited on",
          "[metrics][platform]") {
  // Each file a reader opens, made a FIFO with no writer: open() would wait for one for ever.
  const char* sources[] = {"sys/class/powercap/intel-rapl:0/energy_uj",
                           "sys/class/powercap/intel-rapl:0/max_energy_range_uj",
                           "sys/class/powercap/intel-rapl:0/name",
                           "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
                           "sys/class/thermal/thermal_zone0/temp",
                           "sys/class/thermal/thermal_zone0/type",
                           "sys/class/hwmon/hwmon0/temp1_input",
                           "proc/stat",
                           "proc/cpuinfo"};
  for (const char* fifo : sources) {
    INFO(fifo);
    neurobench::test::TempDir root;
    platform_rapl_tree(root.path(), 1, 2);
    platform_thermal_tree(root.path());
    platform_clock_tree(root.path());
    platform_write(root.path(), "sys/class/hwmon/hwmon0/name", "chip\n");
    const fs::path path = root.path() / fifo;
    fs::create_directories(path.parent_path());
    fs::remove(path);
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
    std::string error;
    const auto text = neurobench::detail::read_small_file(path, error);
    CHECK_FALSE(text);
    CHECK_THAT(error, Catch::Contains("FIFO") && Catch::Contains("not a regular file"));
    // Every reader finishes, with the other sources where there are some.
    (void)RaplReader(root.path());
    (void)CpuClockReader(root.path());
    (void)TemperatureReader(root.path());
    (void)neurobench::detail::read_system_cpu_times(root.path(), error);
  }
  // A link to a character device is no sysfs attribute either.
  neurobench::test::TempDir root;
  platform_write(root.path(), "sys/class/thermal/thermal_zone0/type", "acpitz\n");
  fs::create_symlink("/dev/zero", root.path() / "sys/class/thermal/thermal_zone0/temp");
  const TemperatureReader t(root.path());
  CHECK_THAT(t.unavailable(), Catch::Contains("a character device, not a regular file"));
}

TEST_CASE("the sampler's records become the four metrics' values", "[metrics][platform]") {
  neurobench::test::TempDir root;
  platform_rapl_tree(root.path(), 1000000, 0);
  platform_thermal_tree(root.path());
  platform_clock_tree(root.path());
  PlatformSampler sampler(
      {{"Energy", platform_request(root.path(), true, false, false, false)},
       {"Utilisation", platform_request(root.path(), false, true, false, false)},
       {"Clock", platform_request(root.path(), false, false, true, false)},
       {"Temperature", platform_request(root.path(), false, false, false, true)}},
      PlatformGpuTarget{});
  sampler.start();
  platform_write(root.path(), "sys/class/powercap/intel-rapl:0/energy_uj", "4000000\n");
  platform_write(root.path(), "sys/class/thermal/thermal_zone1/temp", "61500\n");
  platform_write(root.path(), "proc/stat", "cpu  150 0 150 900 0 0 0 0 0 0\n");
  const Timings t = platform_timings(sampler.stop(30, 3));

  const Json energy = neurobench::metrics::Energy().compute(t);
  CHECK(energy["joules"].get<double>() == Approx(3.0).epsilon(1e-12));
  CHECK(energy["joules_per_sample"].get<double>() == Approx(0.1).epsilon(1e-12));
  CHECK(energy["mwh_per_sample"].get<double>() == Approx(0.1 / 3.6).epsilon(1e-12));
  CHECK(energy["joules_per_batch"].get<double>() == Approx(1.0).epsilon(1e-12));
  CHECK(energy["cpu_joules"].get<double>() == Approx(3.0).epsilon(1e-12));
  CHECK_FALSE(energy.contains("gpu_joules"));

  const Json clock = neurobench::metrics::Clock().compute(t);
  CHECK(clock["cpu_mhz_mean"] == 3000.0);
  CHECK(clock["cpu_mhz_max"] == 3600.0);
  CHECK(clock["cpu_mhz_min"] == 2400.0);

  const Json temperature = neurobench::metrics::Temperature().compute(t);
  CHECK(temperature["max_c"] == 61.5);
  CHECK(temperature["sensors"]["x86_pkg_temp"]["mean_c"] == Approx((55.5 + 61.5) / 2));
  CHECK(temperature["sensors"]["x86_pkg_temp"]["max_c"] == 61.5);
  CHECK(temperature["sensors"]["acpitz"]["max_c"] == 41.0);

  const Json utilisation = neurobench::metrics::Utilisation().compute(t);
  // /proc/stat from busy 200 of 1000 ticks to busy 300 of 1200: 100 busy of 200.
  CHECK(utilisation["system_cpu_percent"].get<double>() == Approx(50.0));
  CHECK(utilisation["cpu_cores_used"].get<double>() >= 0);
  CHECK(utilisation["cpus"].get<int64_t>() >= 1);
  CHECK(utilisation["readings"] == 2);
}

TEST_CASE("a metric with no readable source is unavailable, with every reason, never zero",
          "[metrics][platform]") {
  neurobench::test::TempDir empty;
  PlatformSampler sampler(
      {{"Energy", platform_request(empty.path(), true, false, false, false)},
       {"Clock", platform_request(empty.path(), false, false, true, false)},
       {"Temperature", platform_request(empty.path(), false, false, false, true)},
       {"Utilisation", platform_request(empty.path(), false, true, false, false)}},
      PlatformGpuTarget{});
  sampler.start();
  const Timings t = platform_timings(sampler.stop(4, 1));
  REQUIRE_THROWS_AS(neurobench::metrics::Energy().compute(t), neurobench::MetricUnavailable);
  REQUIRE_THROWS_WITH(neurobench::metrics::Energy().compute(t),
                      Catch::StartsWith("Energy: unavailable here: rapl: no RAPL package domain"));
  REQUIRE_THROWS_AS(neurobench::metrics::Clock().compute(t), neurobench::MetricUnavailable);
  REQUIRE_THROWS_AS(neurobench::metrics::Temperature().compute(t), neurobench::MetricUnavailable);
  // The process's own CPU time needs no file: Utilisation has a value, without the machine's.
  const Json u = neurobench::metrics::Utilisation().compute(t);
  CHECK(u.contains("cpu_cores_used"));
  CHECK_FALSE(u.contains("system_cpu_percent"));
  CHECK_THAT(t.platform["Utilisation"][0]["unavailable"]["system_cpu"].get<std::string>(),
             Catch::Contains("proc/stat"));
}

TEST_CASE("a run records an unavailable metric as null with its reason, not as a failure",
          "[metrics][platform][benchmark]") {
  neurobench::test::TempDir empty;
  auto data = std::make_shared<neurobench::TensorDataset>(
      neurobench::TensorDataset::from_npz(neurobench::test::fixture("core/classifier.npz")));
  auto model = std::make_shared<neurobench::TorchScriptModel>(
      neurobench::test::fixture("core/classifier.pt"));
  neurobench::LoaderOptions lo;
  lo.batch_size = 4;
  const Json options = {{"sysroot", empty.path().string()}};
  neurobench::MetricSet metrics;
  metrics.timing_metrics.push_back(std::make_unique<neurobench::metrics::Energy>(options));
  metrics.timing_metrics.push_back(std::make_unique<neurobench::metrics::Utilisation>(options));
  neurobench::Benchmark bench(model, neurobench::DataLoader(data, lo), {}, {}, std::move(metrics));
  neurobench::RunOptions ro;
  ro.quiet = true;
  ro.timing.warmup = 0;
  ro.timing.runs = 3;
  const neurobench::Results r = bench.run(ro);
  CHECK(r.ok());  // unavailable is not failed
  CHECK(r.values["Energy"].is_null());
  CHECK_THAT(r.run["unavailable"]["Energy"].get<std::string>(),
             Catch::StartsWith("Energy: unavailable here: rapl:"));
  CHECK(r.values["Utilisation"]["cpu_cores_used"].get<double>() >= 0);
  CHECK(r.run["platform"]["Utilisation"][0]["samples"] == 12);
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.rfind("Energy: unavailable here", 0) == 0;
  CHECK(warned);
  CHECK_THAT(neurobench::render_table(r), Catch::Contains("unavailable"));
}

TEST_CASE("platform options are checked and name the option at fault", "[metrics][platform]") {
  REQUIRE_THROWS_WITH(neurobench::metrics::Energy(Json{{"interval_ms", 0.5}}),
                      Catch::Contains("interval_ms") && Catch::Contains("out of range"));
  REQUIRE_THROWS_AS(neurobench::metrics::Clock(Json{{"sysroot", ""}}), neurobench::UsageError);
  // Without the sampler's records a platform metric fails, saying so.
  REQUIRE_THROWS_WITH(neurobench::metrics::Temperature().compute(Timings{}),
                      Catch::Contains("no platform samples"));
}

TEST_CASE("a sharded run's records merge: a host's package once, hosts added, cores added",
          "[metrics][platform]") {
  const auto record = [](const std::string& host, double joules, int64_t samples) {
    return Json{{"host", host},
                {"samples", samples},
                {"batches", 1},
                {"wall_s", 2.0},
                {"readings", 2},
                {"rapl", {{"joules", joules}, {"domains", 1}, {"wraps", 0}}},
                {"unavailable", Json::object()}};
  };
  Timings t;
  t.platform["Energy"] = Json::array({record("a", 10, 8), record("a", 12, 8), record("b", 4, 8)});
  const Json e = neurobench::metrics::Energy().compute(t);
  CHECK(e["joules"] == 16.0);  // host a's package once (its larger window), plus host b's
  CHECK(e["joules_per_sample"].get<double>() == Approx(16.0 / 24));
  CHECK(e["watts"] == 8.0);

  // Two ranks on one host with 2 CPUs: their cores add up; each one's busiest interval too.
  const auto process = [](double cpu_s, double interval_max) {
    return Json{
        {"host", "a"},
        {"samples", 8},
        {"batches", 1},
        {"wall_s", 2.0},
        {"readings", 3},
        {"process",
         {{"cpu_s", cpu_s},
          {"cpus", 2},
          {"interval_cores",
           {{"count", 2}, {"sum", 2 * interval_max}, {"min", 0.0}, {"max", interval_max}}}}},
        {"unavailable", Json::object()}};
  };
  Timings u;
  u.platform["Utilisation"] = Json::array({process(1.0, 0.6), process(0.5, 0.4)});
  const Json v = neurobench::metrics::Utilisation().compute(u);
  CHECK(v["cpu_cores_used"] == 0.75);
  CHECK(v["cpus"] == 2);
  CHECK(v["cpu_percent"] == 37.5);
  CHECK(v["cpu_percent_max"] == 50.0);
  CHECK(v["readings"] == 6);
}

TEST_CASE("NVML through a stub library: energy counter, utilisation, clock, temperature",
          "[metrics][platform][nvml]") {
  neurobench::test::TempDir empty;
  PlatformGpuTarget gpu;
  gpu.use = true;
  gpu.index = 0;
  gpu.pci_bus_id = "0000:01:00.0";
  PlatformSampler sampler(
      {{"Energy", platform_request(empty.path(), true, false, false, false)},
       {"Utilisation", platform_request(empty.path(), false, true, false, false)},
       {"Clock", platform_request(empty.path(), false, false, true, false)},
       {"Temperature", platform_request(empty.path(), false, false, false, true)}},
      gpu);
  sampler.start();
  const Timings t = platform_timings(sampler.stop(10, 2));
  CHECK(t.platform["Energy"][0]["gpu"]["found_by"] == "pci 0000:01:00.0");
  CHECK(t.platform["Energy"][0]["gpu"]["energy_method"] == "counter");
  const Json e = neurobench::metrics::Energy().compute(t);
  CHECK(e["gpu_joules"] == 1.0);  // two reads, the stub's counter 1000 mJ apart
  CHECK(e["joules_per_sample"].get<double>() == Approx(0.1));
  CHECK_FALSE(e.contains("cpu_joules"));
  const Json u = neurobench::metrics::Utilisation().compute(t);
  CHECK(u["gpu_percent_mean"] == 40.0);
  CHECK(u["gpu_percent_max"] == 40.0);
  CHECK(neurobench::metrics::Clock().compute(t)["gpu_sm_mhz_mean"] == 1410.0);
  const Json c = neurobench::metrics::Temperature().compute(t);
  CHECK(c["gpu_max_c"] == 55.0);
  CHECK_FALSE(c.contains("max_c"));
}

TEST_CASE("NVML without an energy counter integrates power, without a driver it says why",
          "[metrics][platform][nvml]") {
  neurobench::test::TempDir empty;
  PlatformGpuTarget gpu;
  gpu.use = true;  // no bus id: found by index
  SECTION("power integrated over the readings") {
    setenv("NEUROBENCH_NVML_STUB_NO_ENERGY", "1", 1);
    PlatformSampler sampler({{"Energy", platform_request(empty.path(), true, false, false, false)}},
                            gpu);
    sampler.start();
    usleep(20000);
    const Timings t = platform_timings(sampler.stop(10, 1));
    unsetenv("NEUROBENCH_NVML_STUB_NO_ENERGY");
    const Json& r = t.platform["Energy"][0];
    CHECK(r["gpu"]["found_by"] == "index 0");
    CHECK(r["gpu"]["energy_method"] == "power");
    // 50 W over the two readings' interval, which is the record's window.
    CHECK(r["gpu"]["joules"].get<double>() == Approx(50.0 * r["wall_s"].get<double>()));
    CHECK_FALSE(r["unavailable"].contains("gpu_energy"));  // power stood in for the counter
    CHECK(r["unavailable"].contains("rapl"));              // the empty tree has no RAPL
  }
  SECTION("nvmlInit_v2 fails") {
    setenv("NEUROBENCH_NVML_STUB_INIT_FAILS", "1", 1);
    PlatformSampler sampler({{"Clock", platform_request(empty.path(), false, false, true, false)}},
                            gpu);
    unsetenv("NEUROBENCH_NVML_STUB_INIT_FAILS");
    sampler.start();
    const Timings t = platform_timings(sampler.stop(10, 1));
    CHECK_THAT(t.platform["Clock"][0]["unavailable"]["gpu"].get<std::string>(),
               Catch::Contains("nvmlInit_v2 failed: Driver Not Loaded"));
    REQUIRE_THROWS_WITH(
        neurobench::metrics::Clock().compute(t),
        Catch::Contains("gpu: nvmlInit_v2 failed") && Catch::Contains("cpu_clock: no CPU clock"));
  }
  SECTION("no library at that path") {
    PlatformSampling s = platform_request(empty.path(), false, false, false, true);
    s.nvml_library = (empty.path() / "libnvidia-ml.so.1").string();
    PlatformSampler sampler({{"Temperature", s}}, gpu);
    sampler.start();
    const Timings t = platform_timings(sampler.stop(1, 1));
    CHECK_THAT(t.platform["Temperature"][0]["unavailable"]["gpu"].get<std::string>(),
               Catch::Contains("cannot be loaded"));
  }
  SECTION("a FIFO at that path: unavailable at once, not waited on") {
    PlatformSampling s = platform_request(empty.path(), false, false, false, true);
    const fs::path fifo = empty.path() / "libnvidia-ml.so.1";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    s.nvml_library = fifo.string();
    PlatformSampler sampler({{"Temperature", s}}, gpu);
    sampler.start();
    const Timings t = platform_timings(sampler.stop(1, 1));
    CHECK_THAT(t.platform["Temperature"][0]["unavailable"]["gpu"].get<std::string>(),
               Catch::Contains("a FIFO (named pipe), not a regular file"));
  }
}

TEST_CASE("the sampler's thread reads at its interval during the timed runs",
          "[metrics][platform]") {
  neurobench::test::TempDir root;
  platform_clock_tree(root.path());
  PlatformSampling s = platform_request(root.path(), false, false, true, false);
  s.interval_ms = 5;
  PlatformSampler sampler({{"Clock", s}}, PlatformGpuTarget{});
  CHECK(sampler.interval_ms() == 5);
  sampler.start();
  usleep(100000);
  const Timings t = platform_timings(sampler.stop(1, 1));
  const Json& r = t.platform["Clock"][0];
  // 100 ms at 5 ms: about 20 ticks; a loaded machine may make fewer, never none.
  CHECK(r["ticks"].get<int64_t>() >= 2);
  CHECK(r["readings"].get<int64_t>() == r["ticks"].get<int64_t>() + 2);
  CHECK(r["cpu_mhz"]["count"].get<int64_t>() == 2 * r["readings"].get<int64_t>());
}
