// SPDX-License-Identifier: Apache-2.0
#pragma once

// Readers of what the hardware says while a model runs: RAPL energy counters, the CPUs' clock,
// thermal zones and hwmon sensors, the machine's CPU time (/proc/stat), each under a sysroot
// prefix so that tests read fake trees of the real layouts; and NVIDIA's management library
// (NVML), loaded at run time from a path. The platform sampler (platform_sampler.hpp) reads them
// from its thread. Private to the library.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/json.hpp>

namespace neurobench::detail {

/// Count, sum, min and max of samples: merged exactly across processes, mean on demand.
struct SampleStats {
  int64_t count = 0;
  double sum = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();

  void add(double v);
  void merge(const SampleStats& other);
  [[nodiscard]] double mean() const { return count > 0 ? sum / static_cast<double>(count) : 0; }
  [[nodiscard]] Json to_json() const;
  /// Reads `{"count", "sum", "min", "max"}`; throws MetricError naming `where` otherwise.
  [[nodiscard]] static SampleStats from_json(const Json& j, const std::string& where);
};

/// A number of sysfs or /proc, strictly (docs/deployment-metrics.md): the whole field one
/// decimal integer within 64 bits, blanks and one final newline around it; nullopt otherwise
/// (`0x10`, `1e400`, `1000 2000`, a value that would wrap).
[[nodiscard]] std::optional<uint64_t> parse_sysfs_unsigned(std::string_view text);
/// The same, with an optional leading '-' (a temperature), within int64.
[[nodiscard]] std::optional<int64_t> parse_sysfs_signed(std::string_view text);
/// A decimal number of /proc/cpuinfo (`2400.000`): digits, an optional fraction; nullopt for
/// anything else (hex, an exponent, more than 15 integer digits).
[[nodiscard]] std::optional<double> parse_proc_decimal(std::string_view text);

/// The contents of a small file (a sysfs attribute), or nullopt with `error` set to the path and
/// the system's reason (`.../energy_uj: Permission denied`).
[[nodiscard]] std::optional<std::string> read_small_file(const std::filesystem::path& path,
                                                         std::string& error);

/// Energy between two readings of a RAPL counter that counts up to `max_range_uj` and then
/// starts again from 0 (micro-joules).
[[nodiscard]] uint64_t rapl_delta_uj(uint64_t before, uint64_t after, uint64_t max_range_uj);

/// RAPL's package domains under `<sysroot>/sys/class/powercap`: the top-level `intel-rapl:N`
/// zones named `package-N` (AMD's are named so too); their sub-zones (core, uncore, dram) are
/// inside the package, and `psys` covers the whole platform, so neither is added.
class RaplReader {
 public:
  explicit RaplReader(const std::filesystem::path& sysroot);
  /// Why no package can be read (empty when at least one can).
  [[nodiscard]] const std::string& unavailable() const { return unavailable_; }
  /// Reads every package's counter and adds what it counted since the last read, wrap-around
  /// included. A package that stops being readable is dropped, with the reason in error().
  void sample();
  /// Joules counted by every package since construction.
  [[nodiscard]] double joules() const;
  /// Packages read.
  [[nodiscard]] int64_t domains() const { return static_cast<int64_t>(domains_.size()); }
  /// How often a counter wrapped around between two reads.
  [[nodiscard]] int64_t wraps() const { return wraps_; }
  /// The first read error after construction, if any.
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  struct Domain {
    std::filesystem::path energy_file;
    uint64_t max_range_uj = 0;
    uint64_t last_uj = 0;
    uint64_t counted_uj = 0;
  };
  std::vector<Domain> domains_;
  std::string unavailable_;
  std::string error_;
  int64_t wraps_ = 0;
};

/// The CPUs' clock: `<sysroot>/sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq` (kHz), or
/// where there is none, the `cpu MHz` lines of `<sysroot>/proc/cpuinfo`.
class CpuClockReader {
 public:
  explicit CpuClockReader(const std::filesystem::path& sysroot);
  [[nodiscard]] const std::string& unavailable() const { return unavailable_; }
  /// "cpufreq" or "cpuinfo".
  [[nodiscard]] const std::string& source() const { return source_; }
  /// Every CPU's clock now, MHz (empty when nothing could be read).
  [[nodiscard]] std::vector<double> read_mhz() const;
  [[nodiscard]] int64_t cpus() const { return cpus_; }

 private:
  std::vector<std::filesystem::path> cpufreq_files_;
  std::filesystem::path cpuinfo_;
  std::string source_;
  std::string unavailable_;
  int64_t cpus_ = 0;
};

/// Temperature sensors: `<sysroot>/sys/class/thermal/thermal_zone*/temp` (named by `type`) and
/// `<sysroot>/sys/class/hwmon/hwmon*/temp*_input` (named by the folder's `name` and the
/// sensor's `temp*_label`), in millidegrees Celsius. Sensors that cannot be read when found
/// (no permission, no data) are left out and said in skipped().
class TemperatureReader {
 public:
  explicit TemperatureReader(const std::filesystem::path& sysroot);
  [[nodiscard]] const std::string& unavailable() const { return unavailable_; }
  /// The sensors' names, in the order read() gives their values: `x86_pkg_temp`,
  /// `coretemp_Package_id_0` (letters, digits and `_`; a repeated name gets `_2`, `_3`).
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }
  /// Each sensor's temperature now, degrees Celsius; NaN for one that could not be read.
  [[nodiscard]] std::vector<double> read_celsius() const;
  /// Sensors found but left out, with the reason.
  [[nodiscard]] const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  void add(const std::filesystem::path& file, const std::string& name);
  std::vector<std::filesystem::path> files_;
  std::vector<std::string> names_;
  std::vector<std::string> skipped_;
  std::string unavailable_;
};

/// The machine's CPU time from the first line of `<sysroot>/proc/stat` (clock ticks).
struct SystemCpuTimes {
  uint64_t busy = 0;   ///< user, nice, system, irq, softirq, steal.
  uint64_t total = 0;  ///< The above plus idle and iowait.
};
/// Reads `<sysroot>/proc/stat`; nullopt with `error` set when it cannot.
[[nodiscard]] std::optional<SystemCpuTimes> read_system_cpu_times(
    const std::filesystem::path& sysroot, std::string& error);

/// One reading of a GPU through NVML: a field NVML did not give is nullopt.
struct GpuReading {
  std::optional<double> energy_mj;  ///< Total energy since the driver loaded, mJ.
  std::optional<double> power_mw;   ///< Power draw now, mW.
  std::optional<double> utilisation_percent;
  std::optional<double> sm_clock_mhz;
  std::optional<double> temperature_c;
};

/// A GPU through NVIDIA's management library, loaded with dlopen from `library` (no link
/// dependency): nvmlInit_v2, then the device by PCI bus id (the CUDA device's, which is right
/// whatever CUDA_VISIBLE_DEVICES says) or else by index; nvmlShutdown when destroyed.
class NvmlGpu {
 public:
  NvmlGpu(const std::string& library, const std::string& pci_bus_id, int index);
  ~NvmlGpu();
  NvmlGpu(const NvmlGpu&) = delete;
  NvmlGpu& operator=(const NvmlGpu&) = delete;
  /// Why the GPU cannot be read (empty when it can).
  [[nodiscard]] const std::string& unavailable() const { return unavailable_; }
  /// Reads the fields asked for; each that NVML refuses stays nullopt, with the first refusal
  /// of each field kept in refusals().
  [[nodiscard]] GpuReading read(bool energy, bool utilisation, bool clock, bool temperature);
  /// Field -> NVML's reason (`energy: Not Supported`).
  [[nodiscard]] const std::map<std::string, std::string>& refusals() const { return refusals_; }
  /// How the GPU was found: `pci 0000:3B:00.0` or `index 0`.
  [[nodiscard]] const std::string& found_by() const { return found_by_; }

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* device_ = nullptr;
  std::string unavailable_;
  std::string found_by_;
  std::map<std::string, std::string> refusals_;
};

/// A name made of letters, digits and `_` (for keys of results: no dots, no spaces).
[[nodiscard]] std::string platform_key(const std::string& text);

}  // namespace neurobench::detail
