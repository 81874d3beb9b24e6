// SPDX-License-Identifier: Apache-2.0
// Text and numbers as the reports write them: escaping for HTML and Markdown, exact numbers
// for data-* attributes, signed differences. Private to the reporters (src/reporters).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <neurobench/json.hpp>

#include "util/text.hpp"  // ends_with

namespace neurobench::detail {

[[nodiscard]] bool starts_with(std::string_view s, std::string_view prefix);
/// starts_with ignoring ASCII case.
[[nodiscard]] bool istarts_with(std::string_view s, std::string_view prefix);

/// Text for HTML element content and attribute values alike.
[[nodiscard]] std::string esc(std::string_view s);
/// Text in a Markdown table cell: GitHub renders inline HTML and splits cells on '|'.
[[nodiscard]] std::string md_esc(std::string_view s);

/// A number in full precision, for data-* attributes that tests read back.
[[nodiscard]] std::string exact(double v);
/// A pixel coordinate: one decimal.
[[nodiscard]] std::string px(double v);
/// Three significant digits in scientific notation, without '+' or leading zeros: `1.9e6`.
[[nodiscard]] std::string scientific(double value);
/// A number with its sign (`+0.5`, `-100`, `0`), as format_number() shows its magnitude.
[[nodiscard]] std::string signed_number(double v);

/// A metadata value (`_run`, `_environment`) as text: strings as is, booleans yes/no.
[[nodiscard]] std::string json_text(const Json& v);
/// Shortens text for a chart label with an ellipsis; the full text goes in a <title>.
[[nodiscard]] std::string shorten(const std::string& s, std::size_t max_chars);

}  // namespace neurobench::detail
