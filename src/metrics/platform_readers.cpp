// SPDX-License-Identifier: Apache-2.0
// The file readers of the platform metrics: RAPL, the CPUs' clock, temperatures, /proc/stat.
// Every path is under a sysroot so that tests read fake trees; each read opens, reads and
// closes one small file (a few microseconds), which the sampler does a few dozen times a tick.
#include "metrics/platform_readers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/file_type.hpp"

namespace neurobench::detail {

namespace fs = std::filesystem;

void SampleStats::add(double v) {
  ++count;
  sum += v;
  min = std::min(min, v);
  max = std::max(max, v);
}

void SampleStats::merge(const SampleStats& other) {
  count += other.count;
  sum += other.sum;
  min = std::min(min, other.min);
  max = std::max(max, other.max);
}

Json SampleStats::to_json() const {
  if (count == 0) return {{"count", 0}, {"sum", 0.0}, {"min", 0.0}, {"max", 0.0}};
  return {{"count", count}, {"sum", sum}, {"min", min}, {"max", max}};
}

SampleStats SampleStats::from_json(const Json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("count") || !j.contains("sum") || !j.contains("min") ||
      !j.contains("max")) {
    throw MetricError(
        fmt::format("{}: expected {{count, sum, min, max}}, found {}", where, j.dump()));
  }
  SampleStats s;
  s.count = j["count"].get<int64_t>();
  if (s.count == 0) return s;
  s.sum = j["sum"].get<double>();
  s.min = j["min"].get<double>();
  s.max = j["max"].get<double>();
  return s;
}

std::optional<std::string> read_small_file(const fs::path& path, std::string& error) {
  // Without blocking: a FIFO (or a device) in the tree would hold open() until a writer comes,
  // for ever. A sysfs attribute and a /proc file are regular files; anything else is refused.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    error = fmt::format("{}: {}", path.string(), std::strerror(errno));
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = fmt::format("{}: {}", path.string(), std::strerror(errno));
    ::close(fd);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = fmt::format("{}: {}, not a regular file", path.string(),
                        describe_file_type(st.st_mode));
    ::close(fd);
    return std::nullopt;
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = fmt::format("{}: {}", path.string(), std::strerror(errno));
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > (1u << 20)) break;  // /proc/cpuinfo of a large machine is ~1 MiB at most
  }
  ::close(fd);
  return text;
}

// spec: the one reader of the numbers of sysfs and /proc. The whole field must be a decimal
// integer (digits, after a '-' where allowed), with blanks around it and one final newline at
// most, and fit in 64 bits: `0x10`, `1e400`, `1000 2000` and 20 digits that would wrap are no
// numbers, and the caller makes that source unavailable with the reason.
std::optional<uint64_t> parse_sysfs_unsigned(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i == n || text[i] < '0' || text[i] > '9') return std::nullopt;
  uint64_t v = 0;
  for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
    const auto digit = static_cast<uint64_t>(text[i] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;  // wraps
    v = v * 10 + digit;
  }
  while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i < n && text[i] == '\n') ++i;
  if (i != n) return std::nullopt;  // another number, a fraction, an exponent, a suffix
  return v;
}

std::optional<int64_t> parse_sysfs_signed(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t");
  const bool negative = start != std::string_view::npos && text[start] == '-';
  if (negative && (start + 1 == text.size() || text[start + 1] < '0' || text[start + 1] > '9')) {
    return std::nullopt;  // the sign and its digits together
  }
  const std::optional<uint64_t> v =
      parse_sysfs_unsigned(negative ? text.substr(start + 1) : text);
  if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
  return negative ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
}

std::optional<double> parse_proc_decimal(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  const std::size_t last = text.find_last_not_of(" \t\n");
  if (first == std::string_view::npos) return std::nullopt;
  const std::string_view number = text.substr(first, last - first + 1);
  const std::size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  const std::string_view fraction =
      dot == std::string_view::npos ? std::string_view() : number.substr(dot + 1);
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 15 || !digits(whole) || !digits(fraction) ||
      (dot != std::string_view::npos && fraction.empty())) {
    return std::nullopt;
  }
  return std::strtod(std::string(number).c_str(), nullptr);
}

namespace {

// A whole non-negative decimal number (a sysfs counter or frequency).
std::optional<uint64_t> platform_parse_unsigned(const std::string& text) {
  return parse_sysfs_unsigned(text);
}

// A whole decimal integer that may be negative (a temperature in millidegrees).
std::optional<double> platform_parse_signed(const std::string& text) {
  const std::optional<int64_t> v = parse_sysfs_signed(text);
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

std::string platform_trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

// Entries of `dir` whose names start with `prefix`, sorted by name in natural order (cpu2 before
// cpu10); none when the folder cannot be listed.
std::vector<fs::path> platform_entries(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return out;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    const std::string x = a.filename().string();
    const std::string y = b.filename().string();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  return out;
}

bool platform_all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

uint64_t rapl_delta_uj(uint64_t before, uint64_t after, uint64_t max_range_uj) {
  if (after >= before) return after - before;
  // The counter passed max_energy_range_uj and started again from 0.
  return max_range_uj >= before ? (max_range_uj - before) + after : after;
}

RaplReader::RaplReader(const fs::path& sysroot) {
  const fs::path root = sysroot / "sys/class/powercap";
  std::vector<std::string> reasons;
  int found = 0;
  for (const fs::path& zone : platform_entries(root, "intel-rapl:")) {
    const std::string index = zone.filename().string().substr(std::string("intel-rapl:").size());
    if (!platform_all_digits(index)) continue;  // intel-rapl:0:1 is a sub-zone of package 0
    std::string error;
    const std::optional<std::string> name = read_small_file(zone / "name", error);
    if (name && platform_trimmed(*name).rfind("package", 0) != 0) continue;  // psys, ...
    ++found;
    Domain d;
    d.energy_file = zone / "energy_uj";
    const std::optional<std::string> range = read_small_file(zone / "max_energy_range_uj", error);
    const std::optional<std::string> energy =
        range ? read_small_file(d.energy_file, error) : std::nullopt;
    const std::optional<uint64_t> range_v = range ? platform_parse_unsigned(*range) : std::nullopt;
    const std::optional<uint64_t> energy_v =
        energy ? platform_parse_unsigned(*energy) : std::nullopt;
    if (!range || !energy) {
      reasons.push_back(error);
      continue;
    }
    if (!range_v || !energy_v) {
      reasons.push_back(fmt::format("{}: not a counter in micro-joules", zone.string()));
      continue;
    }
    d.max_range_uj = *range_v;
    d.last_uj = *energy_v;
    domains_.push_back(std::move(d));
  }
  if (!domains_.empty()) return;
  if (found == 0) {
    unavailable_ = fmt::format(
        "no RAPL package domain in {} (no intel-rapl:N zone named "
        "package-N: a virtual machine, or a CPU without RAPL)",
        root.string());
  } else {
    std::string joined;
    for (const auto& r : reasons) joined += (joined.empty() ? "" : "; ") + r;
    unavailable_ = fmt::format("no RAPL package domain could be read: {}{}", joined,
                               joined.find("Permission denied") != std::string::npos
                                   ? " (since Linux 5.10 only root may read energy_uj)"
                                   : "");
  }
}

void RaplReader::sample() {
  for (auto it = domains_.begin(); it != domains_.end();) {
    std::string error;
    const std::optional<std::string> text = read_small_file(it->energy_file, error);
    const std::optional<uint64_t> v = text ? platform_parse_unsigned(*text) : std::nullopt;
    if (!v) {
      if (error_.empty()) {
        error_ = text ? fmt::format("{}: not a counter", it->energy_file.string()) : error;
      }
      ++it;  // keep what it counted; later reads may succeed again
      continue;
    }
    if (*v < it->last_uj) ++wraps_;
    it->counted_uj += rapl_delta_uj(it->last_uj, *v, it->max_range_uj);
    it->last_uj = *v;
    ++it;
  }
}

double RaplReader::joules() const {
  double uj = 0;
  for (const auto& d : domains_) uj += static_cast<double>(d.counted_uj);
  return uj * 1e-6;
}

CpuClockReader::CpuClockReader(const fs::path& sysroot) {
  for (const fs::path& cpu : platform_entries(sysroot / "sys/devices/system/cpu", "cpu")) {
    if (!platform_all_digits(cpu.filename().string().substr(3))) continue;  // cpufreq, cpuidle
    const fs::path file = cpu / "cpufreq/scaling_cur_freq";
    std::string error;
    const std::optional<std::string> text = read_small_file(file, error);
    if (text && platform_parse_unsigned(*text)) cpufreq_files_.push_back(file);
  }
  if (!cpufreq_files_.empty()) {
    source_ = "cpufreq";
    cpus_ = static_cast<int64_t>(cpufreq_files_.size());
    return;
  }
  cpuinfo_ = sysroot / "proc/cpuinfo";
  const std::vector<double> mhz = read_mhz();
  if (!mhz.empty()) {
    source_ = "cpuinfo";
    cpus_ = static_cast<int64_t>(mhz.size());
    return;
  }
  cpuinfo_.clear();
  unavailable_ = fmt::format(
      "no CPU clock: no readable {}/cpu*/cpufreq/scaling_cur_freq and no 'cpu MHz' in {}",
      (sysroot / "sys/devices/system/cpu").string(), (sysroot / "proc/cpuinfo").string());
}

std::vector<double> CpuClockReader::read_mhz() const {
  std::vector<double> out;
  std::string error;
  for (const fs::path& f : cpufreq_files_) {
    const std::optional<std::string> text = read_small_file(f, error);
    if (const auto khz = text ? platform_parse_unsigned(*text) : std::nullopt) {
      out.push_back(static_cast<double>(*khz) / 1e3);
    }
  }
  if (!cpufreq_files_.empty() || cpuinfo_.empty()) return out;
  const std::optional<std::string> text = read_small_file(cpuinfo_, error);
  if (!text) return out;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("cpu MHz", 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::optional<double> v = parse_proc_decimal(std::string_view(line).substr(colon + 1));
    if (v && *v > 0) out.push_back(*v);
  }
  return out;
}

std::string platform_key(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (keep) {
      out += c;
    } else if (!out.empty() && out.back() != '_') {
      out += '_';
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "sensor" : out;
}

void TemperatureReader::add(const fs::path& file, const std::string& name) {
  std::string error;
  const std::optional<std::string> text = read_small_file(file, error);
  if (!text) {
    skipped_.push_back(error);
    return;
  }
  if (!platform_parse_signed(*text)) {
    skipped_.push_back(
        fmt::format("{}: not a temperature ('{}')", file.string(), platform_trimmed(*text)));
    return;
  }
  std::string key = platform_key(name);
  int repeat = 1;
  while (std::find(names_.begin(), names_.end(), key) != names_.end()) {
    key = fmt::format("{}_{}", platform_key(name), ++repeat);
  }
  files_.push_back(file);
  names_.push_back(std::move(key));
}

TemperatureReader::TemperatureReader(const fs::path& sysroot) {
  std::string error;
  for (const fs::path& zone : platform_entries(sysroot / "sys/class/thermal", "thermal_zone")) {
    const std::optional<std::string> type = read_small_file(zone / "type", error);
    add(zone / "temp", type ? platform_trimmed(*type) : zone.filename().string());
  }
  for (const fs::path& hwmon : platform_entries(sysroot / "sys/class/hwmon", "hwmon")) {
    const std::optional<std::string> chip = read_small_file(hwmon / "name", error);
    const std::string chip_name = chip ? platform_trimmed(*chip) : hwmon.filename().string();
    for (const fs::path& input : platform_entries(hwmon, "temp")) {
      const std::string file = input.filename().string();
      const std::string suffix = "_input";
      if (file.size() <= suffix.size() ||
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      const std::string sensor = file.substr(0, file.size() - suffix.size());  // temp1
      const std::optional<std::string> label = read_small_file(hwmon / (sensor + "_label"), error);
      add(input, chip_name + "_" + (label ? platform_trimmed(*label) : sensor));
    }
  }
  if (!files_.empty()) return;
  unavailable_ =
      fmt::format("no temperature sensor in {} or {}", (sysroot / "sys/class/thermal").string(),
                  (sysroot / "sys/class/hwmon").string());
  if (!skipped_.empty()) {
    std::string joined;
    for (const auto& s : skipped_) joined += (joined.empty() ? "" : "; ") + s;
    unavailable_ = fmt::format("no temperature sensor could be read: {}", joined);
  }
}

std::vector<double> TemperatureReader::read_celsius() const {
  std::vector<double> out;
  out.reserve(files_.size());
  std::string error;
  for (const fs::path& f : files_) {
    const std::optional<std::string> text = read_small_file(f, error);
    const std::optional<double> v = text ? platform_parse_signed(*text) : std::nullopt;
    out.push_back(v ? *v / 1e3 : std::numeric_limits<double>::quiet_NaN());
  }
  return out;
}

std::optional<SystemCpuTimes> read_system_cpu_times(const fs::path& sysroot, std::string& error) {
  const fs::path path = sysroot / "proc/stat";
  const std::optional<std::string> text = read_small_file(path, error);
  if (!text) return std::nullopt;
  std::istringstream in(text->substr(0, text->find('\n')));
  std::string label;
  in >> label;
  uint64_t f[8] = {};  // user nice system idle iowait irq softirq steal
  int n = 0;
  std::string field;
  bool numbers = true;
  while (n < 8 && in >> field) {
    const std::optional<uint64_t> v = parse_sysfs_unsigned(field);
    if (!v) {
      numbers = false;
      break;
    }
    f[n++] = *v;
  }
  if (label != "cpu" || n < 4 || !numbers) {
    error = fmt::format("{}: the first line is not the 'cpu' totals (counts of ticks)",
                        path.string());
    return std::nullopt;
  }
  SystemCpuTimes t;
  t.busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  t.total = t.busy + f[3] + f[4];
  return t;
}

}  // namespace neurobench::detail
