// SPDX-License-Identifier: Apache-2.0
// Reading a suite file: axes of partial configs, merged key by key into one config per group.
#include "suite/suite_file.hpp"

#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/prepared_run.hpp>
#include <neurobench/run_keys.hpp>

#include "io/input_file.hpp"
#include "util/json_input.hpp"
#include "util/text.hpp"

namespace neurobench::suite {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKnownKeys =
    "name, models, datasets, settings, repeats, baseline, timeout_seconds, jobs";
// The axes, in the order their entries are merged (later ones override earlier keys).
constexpr const char* kAxes[] = {"models", "datasets", "settings"};
// Keys whose values are paths (run_keys(): a path, a data set by kind): normalised against the
// folder of the file that wrote them.
bool is_path_key(const std::string& key) {
  const RunKey* k = find_run_key(key);
  return k != nullptr && (k->value == RunKeyValue::Path || k->value == RunKeyValue::Dataset);
}

// An entry name is a folder name under OUT/runs: letters, digits, '.', '_', '-', not hidden.
// (Its length is checked apart, for a message that says so.)
bool good_entry_name(const std::string& name) {
  if (name.empty() || name[0] == '.') return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

struct Parser {
  std::string suite;  // the suite file, for messages
  fs::path folder;    // its folder, absolute

  [[noreturn]] void wrong(const std::string& key, const char* expected, const Json& v) const {
    throw UsageError(
        fmt::format("{}: '{}' must be {}, got {}", suite, key, expected, detail::json_excerpt(v)));
  }

  // Adds the keys of a partial config `raw` (from a file in `base`) to `out`, each checked as
  // a config checks it (`source` names it in messages) and with its paths made absolute, as
  // `neurobench run --config` would resolve them. `data` and `dataset` replace each other.
  void add_keys(Json& out, const Json& raw, const fs::path& base, const std::string& source,
                bool outputs_allowed) const {
    // Both in one object is a fault, as in a config (`neurobench run` refuses it); from one
    // object to the next they replace each other.
    if (raw.contains("data") && raw.contains("dataset")) {
      (void)BenchmarkConfig::from_json(Json{{"data", raw["data"]}, {"dataset", raw["dataset"]}},
                                       base, source);
    }
    for (const auto& [key, value] : raw.items()) {
      if (key.rfind('_', 0) == 0) continue;  // notes
      const RunKey* k = find_run_key(key);
      if (k != nullptr && !k->suite_may_set) {
        if (outputs_allowed) continue;  // a referenced config's own results files: not used
        throw UsageError(
            fmt::format("{}: '{}' is not allowed in a suite: each run's results go to "
                        "OUT/runs/GROUP/rep-K.json",
                        source, key));
      }
      // One key at a time through the config reader: the same checks and messages, and the
      // same resolution of relative paths.
      const BenchmarkConfig one = BenchmarkConfig::from_json(Json{{key, value}}, base, source);
      if (is_path_key(key)) {
        out[key] = one.to_json()[key];
        out.erase(key == "data" ? "dataset" : key == "dataset" ? "data" : "");
      } else {
        out[key] = value;
      }
    }
  }

  // One axis entry: its referenced config (if any) with its own keys over it.
  Json entry(const std::string& where, const Json& v) const {
    if (!v.is_object()) {
      wrong(where, "an object: a partial run config and/or \"config\": \"path\"", v);
    }
    Json out = Json::object();
    if (v.contains("config")) {
      const Json& ref = v["config"];
      if (!ref.is_string() || ref.get<std::string>().empty()) {
        wrong(where + ".config", "the path of a config file", ref);
      }
      fs::path path(ref.get<std::string>());
      if (path.is_relative()) path = (folder / path).lexically_normal();
      try {
        const Json raw = detail::parse_user_json(
            detail::read_input_file(path, "config file", BenchmarkConfig::kMaxFileBytes),
            path.string(), /*comments=*/true);
        (void)BenchmarkConfig::from_json(raw, path.parent_path(), path.string());
        add_keys(out, raw, path.parent_path(), path.string(), /*outputs_allowed=*/true);
      } catch (const Error& e) {
        throw UsageError(fmt::format("{}: '{}.config': {}", suite, where, e.what()));
      }
    }
    Json own = v;
    own.erase("config");
    add_keys(out, own, folder, fmt::format("{}: '{}'", suite, where), /*outputs_allowed=*/false);
    return out;
  }

  // An axis: entry name -> merged partial config, in the file's order.
  std::vector<std::pair<std::string, Json>> axis(const char* name, const Json& v) const {
    if (!v.is_object()) wrong(name, "an object of named entries", v);
    if (v.empty()) {
      throw UsageError(
          fmt::format("{}: '{}' is empty: give at least one entry, or leave the "
                      "key out",
                      suite, name));
    }
    std::vector<std::pair<std::string, Json>> out;
    for (const auto& [key, value] : v.items()) {
      if (key.size() > kMaxEntryNameLength) {
        throw UsageError(fmt::format(
            "{}: '{}': the entry name '{}...' is {} characters long: at most {} (it names a "
            "folder under OUT/runs)",
            suite, name, detail::printable(key.substr(0, 40), 60), key.size(),
            kMaxEntryNameLength));
      }
      if (!good_entry_name(key)) {
        throw UsageError(fmt::format(
            "{}: '{}': the entry name '{}' is not a folder name (use letters, digits, '.', '_' "
            "and '-', not starting with '.')",
            suite, name, detail::printable(key, 60)));
      }
      out.emplace_back(key, entry(fmt::format("{}.{}", name, key), value));
    }
    return out;
  }

  int integer(const std::string& key, const Json& v, int low, int high) const {
    if (!v.is_number_integer() || v.get<int64_t>() < low || v.get<int64_t>() > high) {
      wrong(key, fmt::format("an integer from {} to {}", low, high).c_str(), v);
    }
    return static_cast<int>(v.get<int64_t>());
  }
};

// What `neurobench run` checks before it loads the model (PreparedRun::check: processors, the
// data set's kind and options, metrics and their options, the timing settings), and the device.
// Throws UsageError as they do.
void check_names(const BenchmarkConfig& c) {
  PreparedRun::check(c);
  // A GPU that is not there: every run would fail. (The lazy device needs no check here, and
  // initialising its backend in the suite's process would serve no run.)
  const RunOptions options = c.run_options();
  if (options.device.is_cuda()) check_device(options.device);
}

// One group's config, merged from its entries, checked as `neurobench run` would check it
// before starting. `checked` holds the plugin parts already checked (groups often differ only
// in settings such as batch_size): each is checked once.
SuiteGroup make_group(const std::string& id, const Json& merged, const std::string& suite,
                      std::set<std::string>& checked) {
  const std::string source = fmt::format("{}: run '{}'", suite, id);
  SuiteGroup group{id, BenchmarkConfig::from_json(merged, {}, source), false};
  try {
    group.config.validate();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", source, e.what()));
  }
  const BenchmarkConfig& c = group.config;
  if (c.model.empty()) {
    throw UsageError(fmt::format("{}: no 'model' (give it in an entry or its config)", source));
  }
  if (c.data.empty() && c.dataset.empty()) {
    throw UsageError(
        fmt::format("{}: no 'data' or 'dataset' (give it in an entry or its config)", source));
  }
  if (c.static_metrics.empty() && c.workload_metrics.empty() && c.metrics.empty()) {
    throw UsageError(fmt::format("{}: no metrics ('static', 'workload' or 'metrics')", source));
  }
  const Json config = c.to_json();
  Json plugins = Json::object();
  for (const char* key :
       {"pre", "post", "dataset", "static", "workload", "metrics", "warmup", "runs", "min_time",
        "max_time", "latency_batch_size", "startup_runs", "device"}) {
    if (config.contains(key)) plugins[key] = config[key];
  }
  if (checked.insert(plugins.dump()).second) {
    try {
      check_names(c);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: {}", source, e.what()));
    }
  }
  group.timed = c.asks_for_timing();
  return group;
}

}  // namespace

SuiteFile parse_suite(const Json& json, const fs::path& file) {
  const Parser p{file.string(), fs::absolute(file).lexically_normal().parent_path()};
  if (!json.is_object()) {
    throw UsageError(
        fmt::format("{}: a suite must be a JSON object with keys {}", p.suite, kKnownKeys));
  }
  SuiteFile s;
  s.file = file;
  s.name = file.stem().string();
  std::vector<std::vector<std::pair<std::string, Json>>> axes;
  for (const auto& [key, value] : json.items()) {
    if (key.rfind('_', 0) == 0) continue;  // notes
    if (key == "name") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        p.wrong(key, "a non-empty string", value);
      }
      s.name = value.get<std::string>();
    } else if (key == "repeats") {
      s.repeats = p.integer(key, value, 1, kMaxRepeats);
    } else if (key == "jobs") {
      s.jobs = p.integer(key, value, 1, kMaxJobs);
    } else if (key == "baseline") {
      if (!value.is_string()) p.wrong(key, "a group name such as \"cnn/b250\"", value);
      s.baseline = value.get<std::string>();
    } else if (key == "timeout_seconds") {
      if (!value.is_number() || !(value.get<double>() > 0) ||
          value.get<double>() > kMaxTimeoutSeconds) {
        p.wrong(
            key,
            fmt::format("a number of seconds above 0, at most {:g}", kMaxTimeoutSeconds).c_str(),
            value);
      }
      s.timeout_seconds = value.get<double>();
    } else if (key != "models" && key != "datasets" && key != "settings") {
      throw UsageError(fmt::format("{}: unknown key '{}' (known: {})", p.suite,
                                   detail::printable(key, 60), kKnownKeys));
    }
  }
  if (!json.contains("models")) {
    throw UsageError(
        fmt::format("{}: 'models' is missing: a suite names at least one model", p.suite));
  }
  // The size, counted before anything is expanded (or any entry's config read): a suite of a
  // million runs is refused in a moment rather than planned for minutes in gigabytes.
  {
    std::string product;
    double groups = 1;  // exact to 2^53, far past any limit; never overflows
    for (const char* name : kAxes) {
      if (!json.contains(name) || !json[name].is_object()) continue;
      const std::size_t n = json[name].size();
      groups *= static_cast<double>(n);
      product += fmt::format("{}{} {}", product.empty() ? "" : " x ", n, name);
    }
    const double runs = groups * s.repeats;
    if (runs > static_cast<double>(kMaxRuns)) {
      const auto count = [](double n) {
        return n < 1e15 ? fmt::format("{:.0f}", n) : fmt::format("{:.3g}", n);
      };
      throw UsageError(fmt::format(
          "{}: {} = {} group{} x {} repeat{} = {} runs: too many (a suite may have at most {} "
          "runs): split it into smaller suites, or give fewer entries or repeats",
          p.suite, product, count(groups), groups == 1 ? "" : "s", s.repeats,
          s.repeats == 1 ? "" : "s", count(runs), kMaxRuns));
    }
  }
  for (const char* name : kAxes) {
    if (json.contains(name)) axes.push_back(p.axis(name, json[name]));
  }

  // The cross product, the first axis outermost, the last fastest.
  std::vector<std::size_t> index(axes.size(), 0);
  std::set<std::string> checked;
  for (bool done = false; !done;) {
    std::string id;
    Json merged = Json::object();
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const auto& [name, partial] = axes[a][index[a]];
      id += (id.empty() ? "" : "/") + name;
      for (const auto& [key, value] : partial.items()) {
        merged[key] = value;
        if (key == "data") merged.erase("dataset");
        if (key == "dataset") merged.erase("data");
      }
    }
    s.groups.push_back(make_group(id, merged, p.suite, checked));
    std::size_t a = axes.size();
    for (;;) {
      if (a == 0) {
        done = true;
        break;
      }
      --a;
      if (++index[a] < axes[a].size()) break;
      index[a] = 0;
    }
  }

  if (s.baseline.empty()) {
    s.baseline = s.groups.front().id;
  } else {
    bool found = false;
    std::string known;
    for (const auto& g : s.groups) {
      found = found || g.id == s.baseline;
      if (known.size() < 400) known += (known.empty() ? "" : ", ") + g.id;
    }
    if (!found) {
      throw UsageError(fmt::format("{}: 'baseline' \"{}\" is not one of the groups ({})", p.suite,
                                   detail::printable(s.baseline, 80), known));
    }
  }
  return s;
}

SuiteFile read_suite_file(const fs::path& file) {
  const Json json = detail::parse_user_json(
      detail::read_input_file(file, "suite file", BenchmarkConfig::kMaxFileBytes), file.string(),
      /*comments=*/true);
  return parse_suite(json, file);
}

}  // namespace neurobench::suite
