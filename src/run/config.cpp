// SPDX-License-Identifier: Apache-2.0
// BenchmarkConfig: a benchmark described in a JSON file, read, checked and written.
#include <neurobench/config.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/reporters/formats.hpp>
#include <neurobench/run_keys.hpp>

#include "io/input_file.hpp"

#include "run/config_numbers.hpp"
#include "run/run_key_fields.hpp"

#include "util/json_input.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

namespace fs = std::filesystem;

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

// A value of key `k` as its kind's reader reads it, in the form RunKeyField::set takes.
Json read_value(const Reader& r, const RunKey& k, const std::string& key, const Json& v) {
  switch (k.value) {
    case RunKeyValue::Path:
      return r.path(key, v).string();
    case RunKeyValue::Boolean:
      return r.boolean(key, v);
    case RunKeyValue::Names:
      return r.names(key, v);
    case RunKeyValue::Metrics:
    case RunKeyValue::Processors: {
      Json out = Json::array();
      const auto specs =
          k.value == RunKeyValue::Metrics ? r.metrics(key, v) : r.processors(key, v);
      for (const auto& spec : specs) out.push_back(Json(spec));
      return out;
    }
    case RunKeyValue::Dataset:
      return detail::dataset_json(r.dataset(key, v));
    case RunKeyValue::Outputs: {
      Json out = Json::object();
      for (const auto& [format, file] : r.outputs(key, v)) out[format] = file.string();
      return out;
    }
    case RunKeyValue::Text:
    case RunKeyValue::Device:
    default:
      return r.string(key, v);
  }
}

// "model, data, ..., outputs {json, csv, text}": the config keys of the table.
std::string known_keys() {
  std::string out;
  for (const RunKey& k : run_keys()) {
    if (k.key.empty()) continue;
    out += (out.empty() ? "" : ", ") + std::string(k.key);
    if (k.value == RunKeyValue::Outputs) {
      std::string formats;
      for (const auto& f : results_formats()) formats += (formats.empty() ? "" : ", ") + f.name;
      out += " {" + formats + "}";
    }
  }
  return out;
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
  // A word of a Choice key among its choices (run_keys()).
  for (const RunKey& k : run_keys()) {
    if (k.value != RunKeyValue::Choice || k.key.empty()) continue;
    const std::string word = c.get_key(k.key).get<std::string>();
    const std::vector<std::string> words = run_key_choices(k);
    if (std::find(words.begin(), words.end(), word) == words.end()) {
      throw UsageError(fmt::format("{}: '{}' must be one of {}, got \"{}\"", source, k.key,
                                   k.choices, detail::printable(word, 60)));
    }
  }
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
  if (!(nir_dt > 0)) {
    throw UsageError("config: 'nir_dt' (--nir-dt) is a NIR graph's timestep: give a number of "
                     "seconds above 0 (snnTorch's import uses 0.0001)");
  }
  if (!profile && !profile_csv.empty()) {
    throw UsageError(
        "config: 'profile_csv' (--profile-csv) needs the per-layer profile: set 'profile' "
        "(--profile)");
  }
}

void BenchmarkConfig::set_key(std::string_view key, const Json& value, const fs::path& base,
                              const std::string& source) {
  const RunKey* k = find_run_key(key);
  if (k == nullptr) {
    throw UsageError(fmt::format("{}: unknown key '{}' (known: {})", source,
                                 detail::printable(key, 60), keys()));
  }
  const std::string name(key);
  if (k->value == RunKeyValue::Integer || k->value == RunKeyValue::Seconds) {
    detail::set_number_from_json(*this, name, value, fmt::format("{}: '{}'", source, name));
    return;
  }
  const Reader reader{source, base};
  detail::run_key_field(key)->set(*this, read_value(reader, *k, name, value));
}

Json BenchmarkConfig::get_key(std::string_view key) const {
  const detail::RunKeyField* field = detail::run_key_field(key);
  if (field == nullptr) {
    throw UsageError(fmt::format("config: unknown key '{}' (known: {})", detail::printable(key, 60),
                                 keys()));
  }
  return field->get(*this);
}

const char* BenchmarkConfig::keys() {
  static const std::string keys = known_keys();
  return keys.c_str();
}

BenchmarkConfig BenchmarkConfig::from_json(const Json& json, const fs::path& base,
                                           const std::string& source) {
  if (!json.is_object())
    throw UsageError(fmt::format("{}: a config must be a JSON object", source));
  BenchmarkConfig config;
  for (const auto& [key, value] : json.items()) {
    if (key == "_comment" && value.is_string()) config.comment = value.get<std::string>();
    if (key.rfind('_', 0) == 0) continue;  // "_comment" and other notes
    config.set_key(key, value, base, source);
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
  const BenchmarkConfig defaults;
  Json j = Json::object();
  if (!comment.empty()) j["_comment"] = comment;
  // Each key that differs from its default, in the table's order; `batch_size` always, so
  // that a config says how its batches are made.
  for (const RunKey& k : run_keys()) {
    if (k.key.empty()) continue;
    const detail::RunKeyField& field = *detail::run_key_field(k.key);
    const Json value = field.get(*this);
    if (k.key == "batch_size" || value != field.get(defaults)) j[std::string(k.key)] = value;
  }
  return j;
}

void BenchmarkConfig::write(const fs::path& file) const {
  validate();
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  // Paths relative to the file's folder when they lie in it (run_keys(): every key of a
  // path, the data set's path and the results files).
  Json j = to_json();
  const auto in_file = [&](Json& p) { p = path_in_file(p.get<std::string>(), folder).string(); };
  for (const RunKey& k : run_keys()) {
    const std::string key(k.key);
    if (key.empty() || !j.contains(key)) continue;
    if (k.value == RunKeyValue::Path) in_file(j[key]);
    if (k.value == RunKeyValue::Dataset) in_file(j[key]["path"]);
    if (k.value == RunKeyValue::Outputs) {
      for (auto& [format, p] : j[key].items()) in_file(p);
    }
  }
  write_output_file(file, j.dump(2) + "\n");
}

LoaderOptions BenchmarkConfig::loader_options() const {
  LoaderOptions options;
  options.batch_size = batch_size;
  options.shuffle_seed = shuffle_seed;
  return options;
}

bool BenchmarkConfig::asks_for_timing() const {
  for (const auto* list : {&static_metrics, &workload_metrics, &metrics}) {
    for (const auto& spec : *list) {
      if (timing_metrics().find(spec.name) != nullptr) return true;
    }
  }
  return false;
}

NirOptions BenchmarkConfig::nir_options() const {
  NirOptions out;
  out.time = nir_time_from_name(nir_time).value_or(NirTime::kSnntorch);
  out.reset = nir_reset_from_name(nir_reset).value_or(NirReset::kVReset);
  out.dt = nir_dt;
  return out;
}

RunOptions BenchmarkConfig::run_options() const {
  RunOptions options;
  options.quiet = quiet;
  options.verbose = verbose;
  options.progress = progress == "lines" ? ProgressMode::Lines
                     : progress == "off" ? ProgressMode::Off
                                         : ProgressMode::Auto;
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
  options.static_only_reads_no_data = true;
  return options;
}

NpzReadOptions BenchmarkConfig::npz_options() const {
  NpzReadOptions options;
  options.max_array_bytes = max_array_bytes;
  return options;
}

}  // namespace neurobench
