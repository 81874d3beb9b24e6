// SPDX-License-Identifier: Apache-2.0
// The numeric keys of BenchmarkConfig: their ranges, and their values read from JSON and from a
// flag's text and checked, the same way whatever the source.
#include "run/config_numbers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include <neurobench/data/dataloader.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/timing_options.hpp>

#include "util/text.hpp"

namespace neurobench {
namespace {

// Every numeric key's range is in number_table(); configs, flags (set_number) and validate()
// all check through check_whole() and check_seconds(), so a value means the same and is
// refused with the same words wherever it comes from. Nothing wraps or clamps: text and JSON
// are read as the widest type (a sign and a 64-bit magnitude, or a double), then checked.

// A whole number as given: every range here lies within 0 to 2^64 - 1, so a sign and a 64-bit
// magnitude hold any value in range, and `too_large` marks one past 2^64 - 1.
struct Whole {
  bool negative = false;
  std::uint64_t magnitude = 0;
  bool too_large = false;
};

template <class T>
Whole whole(T v) {
  if constexpr (std::is_signed_v<T>) {
    if (v < 0) return {true, std::uint64_t{0} - static_cast<std::uint64_t>(v)};
  }
  return {false, static_cast<std::uint64_t>(v)};
}

enum class NumberKind { Integer, Seconds };

// A numeric key: its range, what a special value means, and the field it sets.
struct NumberKey {
  std::string key;
  NumberKind kind = NumberKind::Integer;
  std::uint64_t min = 0;  // Integer
  std::uint64_t max = 0;
  double min_s = 0;  // Seconds
  double max_s = 0;
  std::string min_note;  // what the smallest value means: "as many as fit in min_time"
  std::string max_note;  // where the largest comes from
  std::function<void(BenchmarkConfig&, std::uint64_t)> set_whole;
  std::function<std::optional<Whole>(const BenchmarkConfig&)> get_whole;  // nullopt: unset
  double BenchmarkConfig::*seconds = nullptr;
};

template <class T>
NumberKey integer_key(const char* key, T BenchmarkConfig::*field, std::uint64_t min,
                      std::uint64_t max, std::string min_note = {}, std::string max_note = {}) {
  NumberKey k;
  k.key = key;
  k.min = min;
  k.max = max;
  k.min_note = std::move(min_note);
  k.max_note = std::move(max_note);
  k.set_whole = [field](BenchmarkConfig& c, std::uint64_t v) { c.*field = static_cast<T>(v); };
  k.get_whole = [field](const BenchmarkConfig& c) -> std::optional<Whole> {
    return whole(c.*field);
  };
  return k;
}

NumberKey seconds_key(const char* key, double BenchmarkConfig::*field, double max) {
  NumberKey k;
  k.key = key;
  k.kind = NumberKind::Seconds;
  k.max_s = max;
  k.seconds = field;
  return k;
}

// Intra-op threads beyond the machine's logical CPUs only compete for them: up to 4 per CPU
// leaves room to study that, and at least 256 keeps a config written on a large server
// usable elsewhere. (On 2 CPUs, 256 threads cost about half a minute of start-up.)
std::uint64_t max_threads() {
  const auto cpus = static_cast<std::uint64_t>(std::max(1U, std::thread::hardware_concurrency()));
  return std::max<std::uint64_t>(256, 4 * cpus);
}

const std::vector<NumberKey>& number_table() {
  using C = BenchmarkConfig;
  using T = TimingOptions;
  static const std::vector<NumberKey> table = [] {
    const auto max_batch = static_cast<std::uint64_t>(LoaderOptions::kMaxBatchSize);
    NumberKey seed;
    seed.key = "shuffle_seed";
    seed.max = std::numeric_limits<std::uint64_t>::max();
    seed.set_whole = [](C& c, std::uint64_t v) { c.shuffle_seed = v; };
    seed.get_whole = [](const C& c) -> std::optional<Whole> {
      if (!c.shuffle_seed) return std::nullopt;
      return whole(*c.shuffle_seed);
    };
    return std::vector<NumberKey>{
        integer_key("batch_size", &C::batch_size, 1, max_batch),
        seed,
        integer_key("threads", &C::threads, 1, max_threads(), "",
                    fmt::format("the larger of 256 and 4 x the {} logical CPUs",
                                std::max(1U, std::thread::hardware_concurrency()))),
        integer_key("warmup", &C::warmup, 0, T::kMaxWarmup),
        integer_key("runs", &C::runs, 0, T::kMaxRuns, "as many as fit in min_time"),
        seconds_key("min_time", &C::min_time, T::kMaxSeconds),
        seconds_key("max_time", &C::max_time, T::kMaxSeconds),
        seconds_key("nir_dt", &C::nir_dt, T::kMaxSeconds),
        integer_key("latency_batch_size", &C::latency_batch_size, 0, max_batch, "batch_size"),
        integer_key("startup_runs", &C::startup_runs, 1, T::kMaxStartupRuns),
        // Bytes of one .npz array: no file holds more than the largest off_t, 2^63 - 1.
        integer_key("max_array_bytes", &C::max_array_bytes, 1,
                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())),
        integer_key("profile_warmup", &C::profile_warmup, 0, ProfileOptions::kMaxWarmup),
        integer_key("profile_runs", &C::profile_runs, 1, ProfileOptions::kMaxRuns),
    };
  }();
  return table;
}

const NumberKey* find_number_key(std::string_view key) {
  for (const auto& k : number_table()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

// "an integer from 0 (as many as fit in min_time) to 1000000".
std::string range_text(const NumberKey& k) {
  const auto end = [](const std::string& value, const std::string& note) {
    return note.empty() ? value : value + " (" + note + ")";
  };
  if (k.kind == NumberKind::Seconds) {
    return fmt::format("a number of seconds from {:g} to {:g}", k.min_s, k.max_s);
  }
  return fmt::format("an integer from {} to {}", end(std::to_string(k.min), k.min_note),
                     end(std::to_string(k.max), k.max_note));
}

// "WHERE: SHOWN is out of range; expected an integer from 1 to 2147483647".
[[noreturn]] void bad_number(std::string_view where, const std::string& shown, const char* problem,
                             const NumberKey& k) {
  throw UsageError(fmt::format("{}: {} {}; expected {}", where, shown, problem, range_text(k)));
}

void check_whole(const NumberKey& k, const Whole& w, std::string_view where,
                 const std::string& shown) {
  const bool in_range = !w.too_large && (!w.negative || w.magnitude == 0) && w.magnitude >= k.min &&
                        w.magnitude <= k.max;
  if (!in_range) bad_number(where, shown, "is out of range", k);
}

void check_seconds(const NumberKey& k, double v, std::string_view where, const std::string& shown) {
  if (!(v >= k.min_s && v <= k.max_s)) bad_number(where, shown, "is out of range", k);
}

// True when `d` lies within the integer key's range. Not `d <= double(max)`: 2^64 - 1 rounds
// to 2^64 as a double, which would let 2^64 through.
bool within(const NumberKey& k, double d) {
  constexpr double kTwoTo64 = 18446744073709551616.0;
  if (!(d >= 0 && d < kTwoTo64)) return false;
  const auto whole_part = static_cast<std::uint64_t>(d);
  return whole_part >= k.min && (whole_part < k.max || (whole_part == k.max && d == std::floor(d)));
}

// `text` as a whole number: an optional sign, then decimal digits only.
std::optional<Whole> parse_whole(std::string_view text) {
  Whole w;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    w.negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), w.magnitude);
  if (ec == std::errc::result_out_of_range) w.too_large = true;
  return w;
}

// `text` as a decimal number: sign, digits with an optional point, an optional exponent; no
// `inf`, `nan`, hexadecimal or spaces. A value past the range of double becomes infinite.
std::optional<double> parse_decimal(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - from;
  };
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  // strtod, not from_chars: GCC 10 and older have no from_chars for double.
  const std::string copy(text);
  return std::strtod(copy.c_str(), nullptr);
}

// Sets key `k` from a config's JSON value.
void set_json(BenchmarkConfig& c, const NumberKey& k, const Json& v, std::string_view where) {
  const std::string shown = detail::json_excerpt(v);
  if (k.kind == NumberKind::Seconds) {
    if (!v.is_number()) bad_number(where, shown, "is not a number", k);
    const double seconds = v.get<double>();
    check_seconds(k, seconds, where, shown);
    c.*k.seconds = seconds;
    return;
  }
  Whole w;
  if (v.is_number_unsigned()) {
    w = whole(v.get<std::uint64_t>());
  } else if (v.is_number_integer()) {
    w = whole(v.get<std::int64_t>());
  } else if (v.is_number_float()) {
    // 1e12 or 2.5: refused either way, out of range first (JSON has no integer that big).
    if (!within(k, v.get<double>())) bad_number(where, shown, "is out of range", k);
    bad_number(where, shown, "is not an integer", k);
  } else {
    bad_number(where, shown, "is not an integer", k);
  }
  check_whole(k, w, where, shown);
  k.set_whole(c, w.magnitude);
}

// Sets key `k` from a flag's text.
void set_text(BenchmarkConfig& c, const NumberKey& k, std::string_view text,
              std::string_view where) {
  const std::string quoted = "'" + detail::printable(text, 60) + "'";
  if (k.kind == NumberKind::Seconds) {
    const auto seconds = parse_decimal(text);
    if (!seconds) bad_number(where, quoted, "is not a number", k);
    check_seconds(k, *seconds, where, std::string(text));
    c.*k.seconds = *seconds;
    return;
  }
  const auto w = parse_whole(text);
  if (!w) {
    const auto d = parse_decimal(text);
    if (d && !within(k, *d)) bad_number(where, std::string(text), "is out of range", k);
    bad_number(where, quoted, "is not an integer", k);
  }
  check_whole(k, *w, where, std::string(text));
  k.set_whole(c, w->magnitude);
}

const NumberKey& number_key(std::string_view key) {
  const NumberKey* k = find_number_key(key);
  if (k == nullptr) throw UsageError(fmt::format("'{}' is not a numeric config key", key));
  return *k;
}

}  // namespace

namespace detail {

void set_number_from_json(BenchmarkConfig& config, std::string_view key, const Json& value,
                          std::string_view where) {
  set_json(config, number_key(key), value, where);
}

void check_numbers(const BenchmarkConfig& c, const std::string& source) {
  for (const auto& k : number_table()) {
    const std::string where = fmt::format("{}: '{}'", source, k.key);
    if (k.kind == NumberKind::Seconds) {
      check_seconds(k, c.*k.seconds, where, fmt::format("{}", c.*k.seconds));
    } else if (const auto w = k.get_whole(c)) {
      check_whole(k, *w, where, fmt::format("{}{}", w->negative ? "-" : "", w->magnitude));
    }
  }
}

}  // namespace detail

std::vector<std::string> BenchmarkConfig::number_keys() {
  std::vector<std::string> keys;
  for (const auto& k : number_table()) keys.push_back(k.key);
  return keys;
}

std::string BenchmarkConfig::number_range(std::string_view key) {
  return range_text(number_key(key));
}

void BenchmarkConfig::set_number(std::string_view key, std::string_view text,
                                 std::string_view where) {
  set_text(*this, number_key(key), text, where);
}

}  // namespace neurobench

namespace neurobench::detail {

std::optional<double> decimal_number(std::string_view text) { return parse_decimal(text); }

bool is_whole_number(std::string_view text) { return parse_whole(text).has_value(); }

}  // namespace neurobench::detail
