// SPDX-License-Identifier: Apache-2.0
#include "cli/config.hpp"

#include <fstream>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <neurobench/errors.hpp>

namespace neurobench::cli {

namespace {

using Json = nlohmann::json;

struct Reader {
  std::filesystem::path file;
  std::filesystem::path base;

  [[noreturn]] void wrong(const std::string& key, const char* expected, const Json& v) const {
    throw UsageError(fmt::format("{}: '{}' must be {}, got {}", file.string(), key, expected,
                                 v.dump()));
  }
  std::string string(const std::string& key, const Json& v) const {
    if (!v.is_string()) wrong(key, "a string", v);
    return v.get<std::string>();
  }
  std::string path(const std::string& key, const Json& v) const {
    const std::filesystem::path p(string(key, v));
    return (p.is_absolute() ? p : base / p).lexically_normal().string();
  }
  bool boolean(const std::string& key, const Json& v) const {
    if (!v.is_boolean()) wrong(key, "true or false", v);
    return v.get<bool>();
  }
  int64_t positive(const std::string& key, const Json& v) const {
    if (!v.is_number_integer() || v.get<int64_t>() <= 0) wrong(key, "a positive integer", v);
    return v.get<int64_t>();
  }
  int64_t non_negative(const std::string& key, const Json& v) const {
    if (!v.is_number_integer() || v.get<int64_t>() < 0) wrong(key, "an integer >= 0", v);
    return v.get<int64_t>();
  }
  double seconds(const std::string& key, const Json& v) const {
    if (!v.is_number() || !(v.get<double>() >= 0)) wrong(key, "a number of seconds >= 0", v);
    return v.get<double>();
  }
  std::vector<std::string> names(const std::string& key, const Json& v) const {
    if (!v.is_array()) wrong(key, "a list of names", v);
    std::vector<std::string> out;
    for (const auto& item : v) {
      if (!item.is_string()) wrong(key, "a list of names", v);
      out.push_back(item.get<std::string>());
    }
    return out;
  }
};

}  // namespace

const char* config_keys() {
  return "model, data, batch_size, stepwise, metrics, static, workload, pre, post, "
         "activation_modules, connection_modules, shuffle_seed, threads, warmup, runs, min_time, "
         "latency_batch_size, startup_runs, quiet, verbose, outputs {json, csv, text}";
}

void load_config(const std::filesystem::path& path, RunArgs& a) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: no such config file", path.string()));
  Json config;
  try {
    config = Json::parse(in, nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path.string(), e.what()));
  }
  if (!config.is_object()) {
    throw UsageError(fmt::format("{}: a config must be a JSON object", path.string()));
  }
  const Reader r{path, path.has_parent_path() ? path.parent_path() : std::filesystem::path(".")};
  using Setter = std::function<void(const std::string&, const Json&)>;
  const std::map<std::string, Setter> setters = {
      {"model", [&](auto& k, auto& v) { a.model = r.path(k, v); }},
      {"data", [&](auto& k, auto& v) { a.data = r.path(k, v); }},
      {"batch_size", [&](auto& k, auto& v) { a.batch_size = r.positive(k, v); }},
      {"stepwise", [&](auto& k, auto& v) { a.stepwise = r.boolean(k, v); }},
      {"static", [&](auto& k, auto& v) { a.static_metrics = r.names(k, v); }},
      {"workload", [&](auto& k, auto& v) { a.workload_metrics = r.names(k, v); }},
      {"metrics", [&](auto& k, auto& v) { a.metrics = r.names(k, v); }},
      {"warmup", [&](auto& k, auto& v) { a.warmup = r.non_negative(k, v); }},
      {"runs", [&](auto& k, auto& v) { a.runs = r.non_negative(k, v); }},
      {"min_time", [&](auto& k, auto& v) { a.min_time = r.seconds(k, v); }},
      {"latency_batch_size", [&](auto& k, auto& v) { a.latency_batch_size = r.non_negative(k, v); }},
      {"startup_runs", [&](auto& k, auto& v) { a.startup_runs = r.positive(k, v); }},
      {"pre", [&](auto& k, auto& v) { a.pre = r.names(k, v); }},
      {"post", [&](auto& k, auto& v) { a.post = r.names(k, v); }},
      {"activation_modules", [&](auto& k, auto& v) { a.activation_modules = r.names(k, v); }},
      {"connection_modules", [&](auto& k, auto& v) { a.connection_modules = r.names(k, v); }},
      {"shuffle_seed",
       [&](auto& k, auto& v) {
         if (!v.is_number_unsigned()) r.wrong(k, "a non-negative integer", v);
         a.shuffle_seed = v.template get<std::uint64_t>();
       }},
      {"threads", [&](auto& k, auto& v) { a.threads = static_cast<int>(r.positive(k, v)); }},
      {"quiet", [&](auto& k, auto& v) { a.quiet = r.boolean(k, v); }},
      {"verbose", [&](auto& k, auto& v) { a.verbose = r.boolean(k, v); }},
      {"outputs",
       [&](auto& k, auto& v) {
         if (!v.is_object()) r.wrong(k, "an object with keys json, csv, text", v);
         for (const auto& [name, value] : v.items()) {
           const std::string key = k + "." + name;
           if (name == "json") {
             a.json_out = r.path(key, value);
           } else if (name == "csv") {
             a.csv_out = r.path(key, value);
           } else if (name == "text") {
             a.text_out = r.path(key, value);
           } else {
             throw UsageError(fmt::format("{}: unknown key '{}' (outputs has json, csv, text)",
                                          path.string(), key));
           }
         }
       }},
  };
  for (const auto& [key, value] : config.items()) {
    if (key.rfind("_", 0) == 0) continue;  // "_comment" and the like
    const auto it = setters.find(key);
    if (it == setters.end()) {
      throw UsageError(fmt::format("{}: unknown key '{}' (known: {})", path.string(), key,
                                   config_keys()));
    }
    it->second(key, value);
  }
}

}  // namespace neurobench::cli
