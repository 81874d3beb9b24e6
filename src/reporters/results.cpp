// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/results.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/non_finite.hpp"

namespace neurobench {

Format format_for(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return Format::Json;
  if (ext == ".csv") return Format::Csv;
  if (ext == ".txt" || ext == ".text") return Format::Text;
  throw UsageError(fmt::format("{}: unknown results format '{}' (use .json, .csv or .txt)",
                               path.string(), ext));
}

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
  out["blas"] = e.blas;
  out["build_type"] = e.build_type;
  out["neurobench"] = e.neurobench;
  out["git_commit"] = e.git_commit;
  out["git_dirty"] = e.git_dirty;
  out["compiler"] = e.compiler;
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
  doc["_metrics"] = results.metrics;
  doc["_run"] = run;
  doc["_environment"] = to_json(results.environment);
  return doc;
}

std::string render(const Results& results, Format format) {
  Json doc = results_document(results);
  // What each metric means is for JSON readers (report, compare); CSV and text files hold the
  // values and how the run was made.
  if (format != Format::Json) doc.erase("_metrics");
  switch (format) {
    case Format::Json:
      return doc.dump(2) + "\n";
    case Format::Csv: {
      const auto cols = flat(doc);
      std::string header, row;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        header += (i ? "," : "") + csv_field(cols[i].first);
        row += (i ? "," : "") + csv_field(scalar(cols[i].second));
      }
      return header + "\n" + row + "\n";
    }
    case Format::Text: {
      std::string out;
      for (const auto& [key, v] : doc.items()) {
        out += fmt::format("{}: {}\n", key, v.is_object() ? v.dump() : scalar(v));
      }
      return out;
    }
  }
  return {};
}

std::string render_table(const Results& results) {
  const auto cols = flat(results.values);
  std::size_t width = 6;
  for (const auto& [key, v] : cols) width = std::max(width, key.size());
  std::string out = fmt::format("{:<{}}  {}\n", "metric", width, "value");
  out += fmt::format("{:-<{}}  {:-<{}}\n", "", width, "", 14);
  for (const auto& [key, v] : cols) out += fmt::format("{:<{}}  {}\n", key, width, pretty(v));
  return out;
}

void write_file_atomically(const std::filesystem::path& path, const std::string& contents) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    throw InputError(fmt::format("{}: cannot write: directory {} does not exist", path.string(),
                                 dir.string()));
  }
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    throw InputError(fmt::format("{}: cannot write: {}", path.string(), std::strerror(errno)));
  }
  const std::string tmp(name.data());
  auto fail = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write ({}): {}", path.string(), what,
                                 std::strerror(err)));
  };
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) fail("fsync");
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write (close): {}", path.string(), std::strerror(err)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw InputError(fmt::format("{}: cannot write (rename): {}", path.string(), std::strerror(err)));
  }
}

void save_results(const Results& results, const std::filesystem::path& path, Format format) {
  write_file_atomically(path, render(results, format));
}

}  // namespace neurobench
