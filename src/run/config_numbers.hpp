// SPDX-License-Identifier: Apache-2.0
#pragma once

// The numeric keys of a config, which are also flags of `neurobench run`: the range of each, in
// one table, and the reading and checking of their values from a config's JSON, a flag's text
// (BenchmarkConfig::set_number) and memory (validate). Private to the library.

#include <optional>
#include <string>
#include <string_view>

#include <neurobench/config.hpp>
#include <neurobench/json.hpp>

namespace neurobench::detail {

/// Sets the numeric `key` of `config` from a config's value. Throws UsageError starting with
/// `where` (`bench.json: 'threads'`) when the value is not a number of the key's kind (a JSON
/// integer for an integer key) or is out of the key's range.
void set_number_from_json(BenchmarkConfig& config, std::string_view key, const Json& value,
                          std::string_view where);
/// `text` as a decimal number (sign, digits with an optional point, an optional exponent), or
/// nothing for anything else: `inf`, `nan`, hexadecimal, spaces, an empty text. The one reading
/// of a number's text for every flag and option.
[[nodiscard]] std::optional<double> decimal_number(std::string_view text);
/// True when `text` is a whole number in decimal digits with an optional sign.
[[nodiscard]] bool is_whole_number(std::string_view text);
/// Checks every numeric field of `config` against its range. Throws UsageError starting with
/// `source: 'key'`.
void check_numbers(const BenchmarkConfig& config, const std::string& source);

}  // namespace neurobench::detail
