// SPDX-License-Identifier: Apache-2.0
// BenchmarkConfig: a benchmark described in a JSON file, read, checked and written.
#include <neurobench/config.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/reporters/formats.hpp>

#include "io/input_file.hpp"

#include "config_numbers.hpp"

#include "util/json_input.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKnownKeys =
    "model, data, dataset, batch_size, stepwise, metrics, static, workload, pre, post, "
    "activation_modules, connection_modules, metrics_scope, shuffle_seed, threads, warmup, runs, "
    "min_time, max_time, latency_batch_size, startup_runs, max_array_bytes, device, tf32, "
    "quiet, verbose, strict, profile, profile_warmup, profile_runs, profile_csv, outputs {json, "
    "csv, text}";
constexpr const char* kSpecList =
    "a list of names (or {\"name\": ..., \"options\": {...}} objects)";

// `outputs` names a results format of the table that `run` writes (results_formats()).
void check_results_format(const std::string& source, const std::string& field,
                          const std::string& name) {
  for (const auto& format : results_formats()) {
    if (format.name == name) return;
  }
  std::string names;
  for (const auto& format : results_formats()) names += (names.empty() ? "" : ", ") + format.name;
  throw UsageError(fmt::format("{}: unknown key '{}' (formats: {})", source,
                               detail::printable(field, 80), names));
}

// Reads typed values out of a config, naming the source and the key in every error.
struct Reader {
  std::string source;
  fs::path base;

  [[noreturn]] void wrong(const std::string& key, const char* expected, const Json& v) const {
    throw UsageError(
        fmt::format("{}: '{}' must be {}, got {}", source, key, expected, detail::json_excerpt(v)));
  }
  std::string string(const std::string& key, const Json& v) const {
    if (!v.is_string()) wrong(key, "a string", v);
    return v.get<std::string>();
  }
  fs::path path(const std::string& key, const Json& v) const {
    const fs::path p(string(key, v));
    return base.empty() || p.is_absolute() ? p : (base / p).lexically_normal();
  }
  bool boolean(const std::string& key, const Json& v) const {
    if (!v.is_boolean()) wrong(key, "true or false", v);
    return v.get<bool>();
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
  std::vector<PluginSpec> metrics(const std::string& key, const Json& v) const {
    return specs(key, v, "metric");
  }
  std::vector<PluginSpec> processors(const std::string& key, const Json& v) const {
    return specs(key, v, "processor");
  }
  std::vector<PluginSpec> specs(const std::string& key, const Json& v, const char* what) const {
    if (!v.is_array()) wrong(key, kSpecList, v);
    std::vector<PluginSpec> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string() && !v[i].is_object()) wrong(key, kSpecList, v);
      out.push_back(spec(fmt::format("{}[{}]", key, i), v[i], what));
    }
    return out;
  }
  PluginSpec spec(const std::string& key, const Json& v, const char* what) const {
    if (v.is_string()) return spec_name(key, v.get<std::string>(), what);
    PluginSpec spec;
    bool named = false;
    for (const auto& [name, value] : v.items()) {
      if (name == "name") {
        spec = spec_name(key + ".name", string(key + ".name", value), what);
        named = true;
      } else if (name != "options") {
        throw UsageError(fmt::format("{}: unknown key '{}.{}' (a {} has name and options)", source,
                                     key, detail::printable(name, 60), what));
      }
    }
    if (!named) wrong(key, fmt::format("a {} name or an object with \"name\"", what).c_str(), v);
    if (v.contains("options")) {
      if (!v["options"].is_object()) wrong(key + ".options", "an object", v["options"]);
      spec.options = v["options"];
    }
    return spec;
  }
  // A plugin's name. `Name:key=value` is the command line's form: say how a config writes it.
  PluginSpec spec_name(const std::string& key, const std::string& name, const char* what) const {
    if (name.find(':') != std::string::npos) {
      std::string hint = "{\"name\": \"Name\", \"options\": {...}}";
      try {
        const PluginSpec spec = parse_plugin_spec(name, what);
        const std::string written = Json{{"name", spec.name}, {"options", spec.options}}.dump();
        if (written.size() <= 200) hint = written;
      } catch (const UsageError&) {
        // Not even the command line's form: the generic hint stays.
      }
      throw UsageError(
          fmt::format("{}: '{}' is \"{}\": Name:key=value is the command line's "
                      "form; a config writes {}",
                      source, key, detail::printable(name, 80), hint));
    }
    if (name.empty()) wrong(key, fmt::format("a {} name", what).c_str(), Json(name));
    return PluginSpec{name, Json::object()};
  }
  // `"kind:path"` or `{"kind": ..., "path": ..., OPTION: VALUE, ...}`.
  DatasetSpec dataset(const std::string& key, const Json& v) const {
    DatasetSpec spec;
    if (v.is_string()) {
      try {
        spec = parse_dataset_spec(v.get<std::string>());
      } catch (const UsageError& e) {
        throw UsageError(fmt::format("{}: '{}': {}", source, key, e.what()));
      }
      spec.path = path(key, Json(spec.path.string()));
      return spec;
    }
    if (!v.is_object()) {
      wrong(key, "an object {\"kind\": ..., \"path\": ..., options...} or \"KIND:PATH\"", v);
    }
    for (const auto& [name, value] : v.items()) {
      if (name == "kind") {
        spec.kind = string(key + ".kind", value);
        if (spec.kind.empty()) wrong(key + ".kind", "a data set kind", value);
      } else if (name == "path") {
        if (string(key + ".path", value).empty()) wrong(key + ".path", "a path", value);
        spec.path = path(key + ".path", value);
      } else {
        spec.options[name] = value;
      }
    }
    if (spec.kind.empty()) wrong(key, "an object with \"kind\" and \"path\"", v);
    if (spec.path.empty()) wrong(key, "an object with \"kind\" and \"path\"", v);
    return spec;
  }
  OutputFiles outputs(const std::string& key, const Json& v) const {
    if (!v.is_object()) wrong(key, "an object of format: file (json, csv, text)", v);
    OutputFiles out;
    for (const auto& [name, value] : v.items()) {
      const std::string field = key + "." + name;
      check_results_format(source, field, name);
      if (value.is_string() && value.get<std::string>().empty()) {
        throw UsageError(fmt::format("{}: '{}' is an empty path: give the file to write", source,
                                     field));
      }
      out[name] = path(field, value);
    }
    return out;
  }
};

using Setter =
    std::function<void(BenchmarkConfig&, const Reader&, const std::string&, const Json&)>;

// Sets `field` to what `read` makes of the value.
template <class T>
Setter set(T BenchmarkConfig::*field, T (Reader::*read)(const std::string&, const Json&) const) {
  return [field, read](BenchmarkConfig& c, const Reader& r, const std::string& k, const Json& v) {
    c.*field = (r.*read)(k, v);
  };
}

// One setter per config key.
const std::map<std::string, Setter>& setters() {
  using C = BenchmarkConfig;
  using R = Reader;
  static const std::map<std::string, Setter> table = {
      {"model", set(&C::model, &R::path)},
      {"data", set(&C::data, &R::path)},
      {"dataset", set(&C::dataset, &R::dataset)},
      {"stepwise", set(&C::stepwise, &R::boolean)},
      {"static", set(&C::static_metrics, &R::metrics)},
      {"workload", set(&C::workload_metrics, &R::metrics)},
      {"metrics", set(&C::metrics, &R::metrics)},
      {"pre", set(&C::pre, &R::processors)},
      {"post", set(&C::post, &R::processors)},
      {"activation_modules", set(&C::activation_modules, &R::names)},
      {"connection_modules", set(&C::connection_modules, &R::names)},
      {"metrics_scope", set(&C::metrics_scope, &R::string)},
      {"device", set(&C::device, &R::string)},
      {"tf32", set(&C::tf32, &R::boolean)},
      {"profile", set(&C::profile, &R::boolean)},
      {"profile_csv", set(&C::profile_csv, &R::path)},
      {"quiet", set(&C::quiet, &R::boolean)},
      {"verbose", set(&C::verbose, &R::boolean)},
      {"strict", set(&C::strict, &R::boolean)},
      {"outputs", set(&C::outputs, &R::outputs)},
  };
  return table;
}

// The ranges of BenchmarkConfig's fields, checked for values from any source.
void check(const BenchmarkConfig& c, const std::string& source) {
  const auto wrong = [&](const char* key, const char* expected, const auto& value) {
    throw UsageError(fmt::format("{}: '{}' must be {}, got {}", source, key, expected, value));
  };
  detail::check_numbers(c, source);
  try {
    (void)parse_device(c.device);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: 'device': {}", source, e.what()));
  }
  for (const auto& [name, file] : c.outputs) check_results_format(source, "outputs." + name, name);
  struct List {
    const char* key;
    const char* expected;
    const std::vector<PluginSpec>* specs;
  };
  const List lists[] = {{"static", "a metric with a name", &c.static_metrics},
                        {"workload", "a metric with a name", &c.workload_metrics},
                        {"metrics", "a metric with a name", &c.metrics},
                        {"pre", "a processor with a name", &c.pre},
                        {"post", "a processor with a name", &c.post}};
  for (const auto& list : lists) {
    for (std::size_t i = 0; i < list.specs->size(); ++i) {
      const PluginSpec& spec = (*list.specs)[i];
      const std::string field = fmt::format("{}[{}]", list.key, i);
      if (spec.name.empty()) wrong(field.c_str(), list.expected, "\"\"");
      if (!spec.options.is_object()) {
        wrong((field + ".options").c_str(), "an object", detail::json_excerpt(spec.options));
      }
    }
  }
  const DatasetSpec& d = c.dataset;
  if (!d.empty()) {
    if (!c.data.empty()) {
      throw UsageError(fmt::format(
          "{}: 'data' ({}) and 'dataset' ({}) are both set: give one, an .npz file or a data set "
          "by kind",
          source, detail::printable(c.data.string(), 80), detail::printable(d.kind, 40)));
    }
    if (d.kind.empty()) wrong("dataset.kind", "a data set kind", "\"\"");
    if (d.path.empty()) wrong("dataset.path", "a path", "\"\"");
    if (!d.options.is_object()) {
      wrong("dataset options", "an object", detail::json_excerpt(d.options));
    }
    for (const char* reserved : {"kind", "path"}) {
      if (d.options.contains(reserved)) {
        throw UsageError(
            fmt::format("{}: 'dataset' has an option named '{}', which a config "
                        "could not write (it is the data set's {})",
                        source, reserved, reserved));
      }
    }
  }
}

Json specs_json(const std::vector<PluginSpec>& specs) {
  Json out = Json::array();
  for (const auto& spec : specs) out.push_back(Json(spec));
  return out;
}

Json dataset_json(const DatasetSpec& spec) {
  Json out = Json{{"kind", spec.kind}, {"path", spec.path.string()}};
  for (const auto& [key, value] : spec.options.items()) out[key] = value;
  return out;
}

Json names_json(const std::vector<std::string>& names) { return Json(names); }

// A path as a config file in `folder` holds it: relative to the folder when it lies in it
// (so that the folder can be moved whole), absolute otherwise.
fs::path path_in_file(const fs::path& p, const fs::path& folder) {
  if (p.empty()) return p;
  const fs::path absolute = fs::absolute(p).lexically_normal();
  fs::path dir = fs::absolute(folder).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "/a/b/" -> "/a/b"
  const fs::path relative = absolute.lexically_relative(dir);
  if (!relative.empty() && *relative.begin() != "..") return relative;
  return absolute;
}

}  // namespace

void BenchmarkConfig::validate() const {
  check(*this, "config");
  if (runs == 0 && min_time > max_time) {
    throw UsageError(fmt::format(
        "config: 'min_time' ({:g} s) is more than 'max_time' ({:g} s), which would stop the "
        "timed runs first: lower min_time or raise max_time",
        min_time, max_time));
  }
  if (!profile && !profile_csv.empty()) {
    throw UsageError(
        "config: 'profile_csv' (--profile-csv) needs the per-layer profile: set 'profile' "
        "(--profile)");
  }
}

const char* BenchmarkConfig::keys() { return kKnownKeys; }

BenchmarkConfig BenchmarkConfig::from_json(const Json& json, const fs::path& base,
                                           const std::string& source) {
  if (!json.is_object())
    throw UsageError(fmt::format("{}: a config must be a JSON object", source));
  const Reader reader{source, base};
  BenchmarkConfig config;
  for (const auto& [key, value] : json.items()) {
    if (key == "_comment" && value.is_string()) config.comment = value.get<std::string>();
    if (key.rfind('_', 0) == 0) continue;  // "_comment" and other notes
    if (detail::is_number_key(key)) {
      detail::set_number_from_json(config, key, value, fmt::format("{}: '{}'", source, key));
      continue;
    }
    const auto it = setters().find(key);
    if (it == setters().end()) {
      throw UsageError(fmt::format("{}: unknown key '{}' (known: {})", source,
                                   detail::printable(key, 60), kKnownKeys));
    }
    it->second(config, reader, key, value);
  }
  check(config, source);
  return config;
}

BenchmarkConfig BenchmarkConfig::read(const fs::path& file) {
  const Json json = detail::parse_user_json(
      detail::read_input_file(file, "config file", kMaxFileBytes), file.string(),
      /*comments=*/true);
  return from_json(json, file.has_parent_path() ? file.parent_path() : fs::path("."),
                   file.string());
}

Json BenchmarkConfig::to_json() const {
  const BenchmarkConfig d;
  Json j = Json::object();
  if (!comment.empty()) j["_comment"] = comment;
  if (!model.empty()) j["model"] = model.string();
  if (!data.empty()) j["data"] = data.string();
  if (!dataset.empty()) j["dataset"] = dataset_json(dataset);
  j["batch_size"] = batch_size;
  if (stepwise != d.stepwise) j["stepwise"] = stepwise;
  if (!static_metrics.empty()) j["static"] = specs_json(static_metrics);
  if (!workload_metrics.empty()) j["workload"] = specs_json(workload_metrics);
  if (!metrics.empty()) j["metrics"] = specs_json(metrics);
  if (!pre.empty()) j["pre"] = specs_json(pre);
  if (!post.empty()) j["post"] = specs_json(post);
  if (!activation_modules.empty()) j["activation_modules"] = names_json(activation_modules);
  if (!connection_modules.empty()) j["connection_modules"] = names_json(connection_modules);
  if (!metrics_scope.empty()) j["metrics_scope"] = metrics_scope;
  if (shuffle_seed) j["shuffle_seed"] = *shuffle_seed;
  if (threads != d.threads) j["threads"] = threads;
  if (warmup != d.warmup) j["warmup"] = warmup;
  if (runs != d.runs) j["runs"] = runs;
  if (min_time != d.min_time) j["min_time"] = min_time;
  if (max_time != d.max_time) j["max_time"] = max_time;
  if (latency_batch_size != d.latency_batch_size) j["latency_batch_size"] = latency_batch_size;
  if (startup_runs != d.startup_runs) j["startup_runs"] = startup_runs;
  if (quiet != d.quiet) j["quiet"] = quiet;
  if (verbose != d.verbose) j["verbose"] = verbose;
  if (strict != d.strict) j["strict"] = strict;
  if (max_array_bytes != d.max_array_bytes) j["max_array_bytes"] = max_array_bytes;
  if (device != d.device) j["device"] = device;
  if (tf32 != d.tf32) j["tf32"] = tf32;
  if (profile != d.profile) j["profile"] = profile;
  if (profile_warmup != d.profile_warmup) j["profile_warmup"] = profile_warmup;
  if (profile_runs != d.profile_runs) j["profile_runs"] = profile_runs;
  if (!profile_csv.empty()) j["profile_csv"] = profile_csv.string();
  Json files = Json::object();
  for (const auto& [format, file] : outputs) {
    if (!file.empty()) files[format] = file.string();
  }
  if (!files.empty()) j["outputs"] = files;
  return j;
}

void BenchmarkConfig::write(const fs::path& file) const {
  validate();
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  BenchmarkConfig in_file = *this;
  for (fs::path* p :
       {&in_file.model, &in_file.data, &in_file.dataset.path, &in_file.profile_csv}) {
    *p = path_in_file(*p, folder);
  }
  for (auto& [format, p] : in_file.outputs) p = path_in_file(p, folder);
  write_output_file(file, in_file.to_json().dump(2) + "\n");
}

LoaderOptions BenchmarkConfig::loader_options() const {
  LoaderOptions options;
  options.batch_size = batch_size;
  options.shuffle_seed = shuffle_seed;
  return options;
}

RunOptions BenchmarkConfig::run_options() const {
  RunOptions options;
  options.quiet = quiet;
  options.verbose = verbose;
  options.strict = strict;
  options.device = parse_device(device);
  options.tf32 = tf32;
  options.metrics_scope = metrics_scope;
  options.timing.warmup = warmup;
  options.timing.runs = runs;
  options.timing.min_time_s = min_time;
  options.timing.max_time_s = max_time;
  options.timing.batch_size = latency_batch_size;
  options.timing.startup_runs = startup_runs;
  options.profile.enabled = profile;
  options.profile.warmup = profile_warmup;
  options.profile.runs = profile_runs;
  return options;
}

NpzReadOptions BenchmarkConfig::npz_options() const {
  NpzReadOptions options;
  options.max_array_bytes = max_array_bytes;
  return options;
}

}  // namespace neurobench
