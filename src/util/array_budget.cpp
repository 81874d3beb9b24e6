// SPDX-License-Identifier: Apache-2.0
#include "util/array_budget.hpp"

#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <unistd.h>

#include <neurobench/errors.hpp>

namespace neurobench::detail {

std::optional<std::uint64_t> available_memory() {
  // MemAvailable counts the page cache the kernel can drop, which free pages alone do not.
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    if (fields >> key >> kib >> unit && key == "MemAvailable:" && unit == "kB" &&
        kib <= std::numeric_limits<std::uint64_t>::max() / 1024) {
      return kib * 1024;
    }
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  }
  return std::nullopt;
}

namespace {

// A byte count for messages: `2684354560 bytes (2.5 GiB)` (input_file.hpp's byte_count() says
// only whole MiB, for limits; an array's size is any number).
std::string bytes_with_unit(std::uint64_t bytes) {
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  for (value /= 1024; value >= 1024 && unit + 1 < std::size(kUnits); value /= 1024) ++unit;
  return fmt::format("{} bytes ({:.1f} {})", bytes, value, kUnits[unit]);
}

}  // namespace

void check_array_bytes(std::uint64_t bytes, std::uint64_t limit,
                       std::optional<std::uint64_t> available, const std::string& where) {
  if (bytes > limit) {
    throw InputError(fmt::format(
        "{}: the array takes {}, more than the limit of {} for one array (max_array_bytes; on "
        "the command line --max-array-bytes); nothing of it was read",
        where, bytes_with_unit(bytes), bytes_with_unit(limit)));
  }
  if (available && bytes > *available) {
    throw InputError(fmt::format(
        "{}: the array takes {}, more than the {} of memory available (MemAvailable); nothing "
        "of it was read",
        where, bytes_with_unit(bytes), bytes_with_unit(*available)));
  }
}

void check_array_bytes(double bytes, std::uint64_t limit, std::optional<std::uint64_t> available,
                       const std::string& where) {
  constexpr double kTwoTo64 = 18446744073709551616.0;
  check_array_bytes(bytes >= 0 && bytes < kTwoTo64 ? static_cast<std::uint64_t>(bytes)
                                                   : std::numeric_limits<std::uint64_t>::max(),
                    limit, available, where);
}

void check_memory_for(double bytes, const std::string& what) {
  const std::optional<std::uint64_t> available = available_memory();
  if (!available || !(bytes > static_cast<double>(*available))) return;
  constexpr double kTwoTo64 = 18446744073709551616.0;
  const std::uint64_t whole = bytes < kTwoTo64 ? static_cast<std::uint64_t>(bytes)
                                               : std::numeric_limits<std::uint64_t>::max();
  throw InputError(fmt::format(
      "{} would take {}, more than the {} of memory available (MemAvailable); nothing was made",
      what, bytes_with_unit(whole), bytes_with_unit(*available)));
}

}  // namespace neurobench::detail
