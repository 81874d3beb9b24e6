// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/results.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/reporters/profile.hpp>

#include "reporters/run_context.hpp"
#include "util/non_finite.hpp"

namespace neurobench {

namespace {

// Flattens nested values into `Metric.key` columns, in order.
void flatten(const Json& value, const std::string& prefix,
             std::vector<std::pair<std::string, Json>>& out) {
  if (value.is_object()) {
    for (const auto& [key, v] : value.items()) flatten(v, prefix + "." + key, out);
    return;
  }
  out.emplace_back(prefix, value);
}

std::vector<std::pair<std::string, Json>> flat(const Json& document) {
  std::vector<std::pair<std::string, Json>> out;
  for (const auto& [key, v] : document.items()) flatten(v, key, out);
  return out;
}

std::string scalar(const Json& v) {
  if (v.is_null()) return "";
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

// Numbers in a table: integers as is, others with up to 6 significant digits; NaN and
// infinities as results files write them.
std::string pretty(const Json& v) {
  if (v.is_null()) return "FAILED";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return detail::non_finite_token(d);
    if (std::abs(d) < 1e15 && d == std::trunc(d)) {
      return fmt::format("{}", static_cast<int64_t>(d));
    }
    return fmt::format("{:.6g}", d);
  }
  Json shown = v;
  detail::encode_non_finite(shown);
  return shown.dump();
}

}  // namespace

Json to_json(const Environment& e) {
  Json out = Json::object();
  out["cpu"] = e.cpu;
  out["cores"] = e.cores;
  out["threads"] = e.threads;
  out["libtorch"] = e.libtorch;
  out["libtorch_build"] = e.libtorch_build;
  out["blas"] = e.blas;
  out["build_type"] = e.build_type;
  out["neurobench"] = e.neurobench;
  out["git_commit"] = e.git_commit;
  out["git_dirty"] = e.git_dirty;
  out["compiler"] = e.compiler;
  out["cxx_standard"] = e.cxx_standard;
  out["components"] = e.components;
  out["device"] = e.device;
  if (e.gpu) {
    const GpuInfo& g = *e.gpu;
    out["gpu"] = {{"index", g.index},
                  {"name", g.name},
                  {"memory_bytes", g.memory_bytes},
                  {"compute_capability", g.compute_capability},
                  {"driver", g.driver},
                  {"cuda_driver", g.cuda_driver},
                  {"cuda_runtime", g.cuda_runtime},
                  {"cudnn", g.cudnn}};
  }
  if (e.tf32) out["tf32"] = *e.tf32;
  out["os"] = e.os;
  out["hostname"] = e.hostname;
  out["date"] = e.date;
  return out;
}

Json results_document(const Results& results) {
  Json doc = results.values;
  detail::encode_non_finite(doc);  // "NaN", not null: null is a failed metric
  if (results.environment.empty()) return doc;
  Json run = results.run;
  detail::encode_non_finite(run);
  run["samples"] = results.samples;
  run["batches"] = results.batches;
  Json failures = Json::object();
  for (const auto& f : results.failures) failures[f.metric] = f.message;
  run["failures"] = failures;
  run["warnings"] = results.warnings;
  run["non_finite"] = detail::non_finite_keys(results.values);
  if (!results.profile.is_null()) {
    Json profile = results.profile;
    detail::encode_non_finite(profile);
    run["profile"] = std::move(profile);
  }
  doc["_metrics"] = results.metrics;
  doc["_run"] = run;
  doc["_environment"] = to_json(results.environment);
  return doc;
}

std::string render_json(const Results& results) {
  Json doc = results_document(results);
  try {
    return doc.dump(2) + "\n";
  } catch (const Json::type_error&) {
    // A text that is not UTF-8 (the command line refuses such paths before a run; a plugin's
    // name or a host's could still be one): the results are written all the same, its bytes
    // replaced with U+FFFD, and the file says so.
    doc["_run"]["warnings"].push_back(
        "a text in these results was not valid UTF-8: its invalid bytes were written as "
        "U+FFFD");
    return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
  }
}

// What each metric means is for JSON readers (report, compare); CSV and text files hold the
// values and how the run was made.
std::string render_csv(const Results& results) {
  Json doc = results_document(results);
  doc.erase("_metrics");
  if (doc.contains("_run")) doc["_run"].erase("profile");  // its own CSV: render_profile_csv
  const auto cols = flat(doc);
  std::string header, row;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    header += (i ? "," : "") + csv_field(cols[i].first);
    row += (i ? "," : "") + csv_field(scalar(cols[i].second));
  }
  return header + "\n" + row + "\n";
}

std::string render_text(const Results& results) {
  Json doc = results_document(results);
  doc.erase("_metrics");
  std::string out;
  for (const auto& [key, v] : doc.items()) {
    out += fmt::format("{}: {}\n", key, v.is_object() ? v.dump() : scalar(v));
  }
  return out;
}

std::string render(const Results& results, std::string_view format) {
  return results_format(format).write(results);
}

std::string render_phases(const Results& results, std::optional<double> results_written_s) {
  const Json& run = results.run;
  if (!run.contains("phases") || !run["phases"].is_object()) return "";
  Json phases = run["phases"];
  if (results_written_s) phases["results_written_s"] = *results_written_s;
  const std::string text = detail::phases_text(phases);
  if (text.empty()) return "";
  double total = 0;
  for (const auto& [key, v] : phases.items()) total += v.is_number() ? v.get<double>() : 0;
  return fmt::format("time by phase: {} (together {:.3g} s)\n", text, total);
}

std::string render_table(const Results& results) {
  // A metric that cannot be measured here is null like a failed one; `_run.unavailable` names
  // it (MetricUnavailable).
  const auto shown = [&](const std::string& key, const Json& v) {
    const bool here = !v.is_null() || !results.run.contains("unavailable") ||
                      !results.run["unavailable"].contains(key);
    return here ? pretty(v) : std::string("unavailable");
  };
  const auto cols = flat(results.values);
  std::size_t width = 6;
  for (const auto& [key, v] : cols) width = std::max(width, key.size());
  std::string out = fmt::format("{:<{}}  {}\n", "metric", width, "value");
  out += fmt::format("{:-<{}}  {:-<{}}\n", "", width, "", 14);
  for (const auto& [key, v] : cols) out += fmt::format("{:<{}}  {}\n", key, width, shown(key, v));
  return out + render_profile_table(results.profile);
}

void write_file_atomically(const std::filesystem::path& path, const std::string& contents) {
  write_output_file(path, contents);
}

void save_results(const Results& results, const std::filesystem::path& path,
                  std::string_view format) {
  write_output_file(path, render(results, format));
}

}  // namespace neurobench
