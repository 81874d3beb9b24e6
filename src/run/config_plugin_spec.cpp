// SPDX-License-Identifier: Apache-2.0
// Metrics and processors as the command line writes them: `Name` or `Name:key=value,...`.
#include <neurobench/config.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/json_input.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

constexpr const char* kForm = "write Name or Name:key=value,key=value";

[[noreturn]] void bad(std::string_view what, std::string_view text, const std::string& why) {
  throw UsageError(fmt::format("{} '{}': {} ({})", what, detail::printable(text, 100), why, kForm));
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") + 1 - first);
}

// Splits at the commas outside brackets, braces and double-quoted strings, so that JSON
// values such as [1,2] or "a,b" stay whole.
std::vector<std::string_view> split_top_level(std::string_view text) {
  std::vector<std::string_view> pieces;
  int depth = 0;
  bool quoted = false;
  bool escaped = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        quoted = false;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == '[' || ch == '{') {
      ++depth;
    } else if ((ch == ']' || ch == '}') && depth > 0) {
      --depth;
    } else if (ch == ',' && depth == 0) {
      pieces.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// JSON when the text parses as JSON (3, true, [1,2], "quoted"), else the text as a string.
Json option_value(std::string_view text) {
  // Refused before parsing: every later use of the value (checks, messages, results) walks it
  // recursively.
  detail::TextPosition at;
  if (detail::find_too_deep(text, detail::kMaxJsonDepth, /*comments=*/false, at)) {
    throw UsageError(fmt::format(
        "option value '{}': arrays and objects nested more than {} deep (at character {})",
        detail::printable(text, 40), detail::kMaxJsonDepth, at.offset + 1));
  }
  Json value = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return Json(std::string(text));
  return value;
}

void check_name(std::string_view what, std::string_view text, std::string_view name) {
  if (name.empty()) bad(what, text, fmt::format("no {} name", what));
  if (name.find_first_of("=, \t") != std::string_view::npos) {
    const bool option = name.find('=') != std::string_view::npos;
    bad(what, text,
        fmt::format("'{}' is not a {} name{}", detail::printable(name, 60), what,
                    option ? "; options follow a ':' after the name" : ""));
  }
}

// The options after a name's ':' (or alone): `key=value,key=value`. `bad` says what is wrong.
template <class Bad>
Json option_list(std::string_view options, Bad&& bad) {
  Json out = Json::object();
  for (const std::string_view piece : split_top_level(options)) {
    const std::string_view option = trim(piece);
    if (option.empty()) bad("an empty option (two commas in a row, or one at the end)");
    const std::size_t eq = option.find('=');
    if (eq == std::string_view::npos) {
      bad(fmt::format("option '{}' has no value (key=value)", detail::printable(option, 60)));
    }
    const std::string key(trim(option.substr(0, eq)));
    const std::string_view value = trim(option.substr(eq + 1));
    if (key.empty()) {
      bad(fmt::format("option '{}' has no key before '='", detail::printable(option, 60)));
    }
    if (value.empty()) {
      bad(fmt::format("option '{}' has no value after '='", detail::printable(key, 60)));
    }
    if (out.contains(key)) {
      bad(fmt::format("option '{}' is given twice", detail::printable(key, 60)));
    }
    out[key] = option_value(value);
  }
  return out;
}

}  // namespace

PluginSpec parse_plugin_spec(std::string_view text, std::string_view what) {
  const std::size_t colon = text.find(':');
  const std::string_view name = trim(text.substr(0, colon));
  check_name(what, text, name);
  PluginSpec spec{std::string(name), Json::object()};
  if (colon == std::string_view::npos) return spec;
  const std::string_view options = text.substr(colon + 1);
  if (trim(options).empty()) bad(what, text, "no options after ':'");
  spec.options = option_list(options, [&](const std::string& why) { bad(what, text, why); });
  return spec;
}

Json parse_options(std::string_view text, std::string_view what) {
  const auto fail = [&](const std::string& why) {
    throw UsageError(fmt::format("{} '{}': {} (write key=value,key=value)", what,
                                 detail::printable(text, 100), why));
  };
  if (trim(text).empty()) fail("no options");
  return option_list(text, fail);
}

MetricSpec parse_metric_spec(std::string_view text) { return parse_plugin_spec(text, "metric"); }

std::vector<MetricSpec> parse_metric_specs(std::string_view list) {
  return parse_plugin_specs(list, "metric");
}

std::vector<PluginSpec> parse_plugin_specs(std::string_view list, std::string_view what) {
  // One string per metric: a piece with '=' before any ':' continues the metric before it.
  std::vector<std::string> metrics;
  for (const std::string_view raw : split_top_level(list)) {
    const std::string_view piece = trim(raw);
    if (piece.empty()) {
      throw UsageError(
          fmt::format("{}s '{}': an empty name (two commas in a row, or one at "
                      "an end)",
                      what, list));
    }
    const std::size_t eq = piece.find('=');
    const std::size_t colon = piece.find(':');
    const bool option =
        eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon);
    if (!option) {
      metrics.emplace_back(piece);
      continue;
    }
    if (metrics.empty() || metrics.back().find(':') == std::string::npos) {
      throw UsageError(
          fmt::format("{}s '{}': option '{}' follows no {} with options "
                      "(write Name:{})",
                      what, list, piece, what, piece));
    }
    metrics.back() += ",";
    metrics.back() += piece;
  }
  std::vector<PluginSpec> out;
  out.reserve(metrics.size());
  for (const auto& m : metrics) out.push_back(parse_plugin_spec(m, what));
  return out;
}

std::string format_metric_spec(const MetricSpec& spec) { return format_plugin_spec(spec); }

std::string format_plugin_spec(const PluginSpec& spec) {
  std::string out = spec.name;
  char separator = ':';
  for (const auto& [key, value] : spec.options.items()) {
    out += fmt::format("{}{}={}", separator, key, value.dump());
    separator = ',';
  }
  return out;
}

}  // namespace neurobench
