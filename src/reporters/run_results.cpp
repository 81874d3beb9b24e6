// SPDX-License-Identifier: Apache-2.0
// Reading results files back for reports and comparisons: parsing, loading, labels.
#include <neurobench/reporters/run_results.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "io/input_file.hpp"
#include "reporters/flat_values.hpp"
#include "util/json_input.hpp"
#include "util/non_finite.hpp"
#include "util/text.hpp"

namespace neurobench {

using nlohmann::ordered_json;

namespace {

const char* article(const ordered_json& v) { return v.is_array() || v.is_object() ? "an" : "a"; }

// A metric's value: a number, one of the strings "NaN", "Infinity", "-Infinity" (numbers that
// are not finite), null (failed), or an object of these at any depth. Iterative: a document
// built in memory may be nested deeper than a file may (parse_user_json refuses that).
void check_metric_value(const ordered_json& value, const std::string& metric,
                        const std::string& source) {
  std::vector<std::pair<const ordered_json*, std::string>> pending{{&value, metric}};
  while (!pending.empty()) {
    auto [v, key] = std::move(pending.back());
    pending.pop_back();
    if (v->is_number() || v->is_null() || detail::non_finite_from_token(*v)) continue;
    if (v->is_object()) {
      for (const auto& [k, sub] : v->items()) pending.emplace_back(&sub, key + "." + k);
      continue;
    }
    throw InputError(fmt::format(
        "{}: metric '{}' is {} {}{}; expected a number, \"NaN\", \"Infinity\", \"-Infinity\", "
        "null (failed), or an object of these",
        source, key, article(*v), v->type_name(),
        v->is_string() ? " (" + detail::json_excerpt(*v) + ")" : std::string()));
  }
}

// The object keyed by metric name: the document itself, or its "results".
const ordered_json& metrics_object(const ordered_json& document, const std::string& source) {
  if (!document.is_object()) {
    throw InputError(fmt::format(
        "{}: not a results file: expected a JSON object keyed by metric name, found {} {}", source,
        article(document), document.type_name()));
  }
  if (!document.contains("results")) return document;
  const auto& inner = document["results"];
  if (!inner.is_object()) {
    throw InputError(fmt::format("{}: 'results' is {}; expected an object keyed by metric name",
                                 source, inner.type_name()));
  }
  return inner;
}

// `_metrics`: one MetricDescription per entry, in the file's order.
std::vector<MetricDescription> read_descriptions(const ordered_json& v, const std::string& source) {
  std::vector<MetricDescription> out;
  for (const auto& [name, entry] : v.items()) {
    out.push_back(MetricDescription::from_json(entry, name, source));
  }
  return out;
}

bool is_metadata_key(const std::string& key) {
  return key == "_run" || key == "_environment" || key == "_metrics" || key == "_fscil";
}

// Whether `out` has read the metadata `key` already.
bool has_metadata(const RunResults& out, const std::string& key) {
  if (key == "_run") return !out.run.is_null();
  if (key == "_environment") return !out.environment.is_null();
  if (key == "_fscil") return out.fscil.has_value();
  return !out.descriptions.empty();
}

void read_metadata(const std::string& key, const ordered_json& v, RunResults& out) {
  if (!is_metadata_key(key)) return;  // other `_` keys: ignored metadata
  if (!v.is_object() && !v.is_null()) {
    throw InputError(fmt::format("{}: '{}' is {}; expected an object{}", out.source, key,
                                 v.type_name(), key == "_metrics" ? " keyed by metric name" : ""));
  }
  if (key == "_run") {
    out.run = v;
  } else if (key == "_environment") {
    out.environment = v;
  } else if (key == "_fscil") {
    if (v.is_object()) out.fscil = parse_fscil_run(v, out.source);
  } else if (v.is_object()) {
    out.descriptions = read_descriptions(v, out.source);
  }
}

}  // namespace

namespace {

// `_fscil.sessions[i].key`, which must be there and be what `ok` accepts.
const ordered_json& run_results_fscil_field(const ordered_json& entry, const std::string& where,
                                            const char* key, bool (ordered_json::*ok)() const,
                                            const char* expected, const std::string& source) {
  if (!entry.contains(key)) {
    throw InputError(fmt::format("{}: '{}' has no '{}'", source, where, key));
  }
  const ordered_json& v = entry[key];
  if (!(v.*ok)()) {
    throw InputError(fmt::format("{}: '{}.{}' is {} {}; expected {}", source, where, key,
                                 article(v), v.type_name(), expected));
  }
  return v;
}

FscilSessionEntry run_results_fscil_session(const ordered_json& entry, const std::string& where,
                                            const std::string& source) {
  if (!entry.is_object()) {
    throw InputError(fmt::format("{}: '{}' is {} {}; expected an object", source, where,
                                 article(entry), entry.type_name()));
  }
  const auto integer = [&](const char* key) {
    return run_results_fscil_field(entry, where, key, &ordered_json::is_number_integer,
                                   "an integer", source)
        .get<int64_t>();
  };
  const auto count = [&](const char* key) {
    const int64_t n = integer(key);
    if (n < 0) {
      throw InputError(fmt::format("{}: '{}.{}' is {}; expected 0 or more", source, where, key, n));
    }
    return n;
  };
  FscilSessionEntry s;
  s.session = count("session");
  s.classes = count("classes");
  s.samples = count("samples");
  s.name =
      run_results_fscil_field(entry, where, "name", &ordered_json::is_string, "a string", source)
          .get<std::string>();
  const ordered_json& values = run_results_fscil_field(
      entry, where, "values", &ordered_json::is_object, "an object keyed by metric name", source);
  for (const auto& [key, v] : values.items()) {
    check_metric_value(v, where + ".values." + key, source);
    // The session tables and comparisons read these as one number each: an object there would
    // be shown as missing.
    if ((key == "ClassificationAccuracy" || key == "ActivationSparsity") && v.is_structured()) {
      throw InputError(
          fmt::format("{}: '{}.values.{}' is {} {}; expected a number, \"NaN\", \"Infinity\", "
                      "\"-Infinity\" or null (a session's {} is one number)",
                      source, where, key, article(v), v.type_name(), key));
    }
    s.values.get_ref<ordered_json::object_t&>().emplace_back(key, v);
  }
  s.new_classes_accuracy.key = "new_classes_accuracy";
  if (entry.contains("new_classes_accuracy")) {
    const ordered_json& accuracy = entry["new_classes_accuracy"];
    if (accuracy.is_number()) {
      s.new_classes_accuracy.state = FlatValue::State::Number;
      s.new_classes_accuracy.number = accuracy.get<double>();
    } else if (const auto non_finite = detail::non_finite_from_token(accuracy)) {
      s.new_classes_accuracy.state = FlatValue::State::Number;
      s.new_classes_accuracy.number = *non_finite;
    } else if (!accuracy.is_null()) {
      throw InputError(fmt::format(
          "{}: '{}.new_classes_accuracy' is {} {}; expected a number, \"NaN\", \"Infinity\", "
          "\"-Infinity\" or null",
          source, where, article(accuracy), accuracy.type_name()));
    }
  }
  if (entry.contains("query_samples")) s.query_samples = count("query_samples");
  // null in an incremental session: it failed; the base session has none.
  if (s.new_classes_accuracy.state == FlatValue::State::Missing && s.session > 0) {
    s.new_classes_accuracy.state = FlatValue::State::Failed;
  }
  return s;
}

}  // namespace

FscilRun parse_fscil_run(const ordered_json& fscil, const std::string& source) {
  if (!fscil.is_object()) {
    throw InputError(fmt::format("{}: '_fscil' is {} {}; expected an object", source,
                                 article(fscil), fscil.type_name()));
  }
  FscilRun out;
  if (fscil.contains("base_classes")) {
    out.base_classes =
        run_results_fscil_field(fscil, "_fscil", "base_classes", &ordered_json::is_number_integer,
                                "an integer", source)
            .get<int64_t>();
  }
  const ordered_json& sessions = run_results_fscil_field(
      fscil, "_fscil", "sessions", &ordered_json::is_array, "an array of sessions", source);
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    const std::string where = fmt::format("_fscil.sessions[{}]", i);
    FscilSessionEntry entry = run_results_fscil_session(sessions[i], where, source);
    for (std::size_t j = 0; j < out.sessions.size(); ++j) {
      if (out.sessions[j].session == entry.session) {
        throw InputError(fmt::format(
            "{}: '{}.session' is {}, as '_fscil.sessions[{}].session' is: each session is "
            "numbered once",
            source, where, entry.session, j));
      }
    }
    out.sessions.push_back(std::move(entry));
  }
  return out;
}

RunResults parse_run_results(const ordered_json& document, std::string label,
                             const std::string& source) {
  const ordered_json& flat = metrics_object(document, source);
  RunResults out;
  out.label = std::move(label);
  out.source = source;
  for (const auto& [key, v] : flat.items()) {
    if (!key.empty() && key[0] == '_') {
      read_metadata(key, v, out);
      continue;
    }
    check_metric_value(v, key, source);
    // The document's keys are unique: appended without operator[]'s search of every key
    // before it (quadratic in the number of metrics).
    out.metrics.get_ref<ordered_json::object_t&>().emplace_back(key, v);
  }
  if (&flat != &document) {  // metadata may sit beside "results"
    for (const auto& [key, v] : document.items()) {
      if (is_metadata_key(key) && !has_metadata(out, key)) read_metadata(key, v, out);
    }
  }
  if (out.metrics.empty()) {
    throw InputError(
        fmt::format("{}: no metrics: expected an object keyed by metric name, as "
                    "written by 'neurobench run --json'",
                    source));
  }
  return out;
}

RunResults load_run_results(const std::filesystem::path& path, std::string label) {
  const std::string name = path.string();
  const ordered_json document = detail::parse_user_json(
      detail::read_input_file(path, "results file", kMaxResultsFileBytes), name);
  if (label.empty()) label = path.stem().string();
  return parse_run_results(document, std::move(label), name);
}

std::vector<RunResults> load_run_results(const std::vector<std::filesystem::path>& paths,
                                         const std::vector<std::string>& labels) {
  if (paths.empty()) throw UsageError("no results files given");
  if (!labels.empty() && labels.size() != paths.size()) {
    throw UsageError(fmt::format("{} labels given for {} results files; give one per file",
                                 labels.size(), paths.size()));
  }
  std::vector<RunResults> runs;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    runs.push_back(load_run_results(paths[i], labels.empty() ? "" : labels[i]));
  }
  make_labels_unique(runs);
  return runs;
}

namespace {

// Runs that share a label: told apart by their folders (`base/results`, `pr/results`) when
// that names each one differently and clashes with no other label. Returns every label given
// so far, old and new, which a numbered label must not take either.
std::set<std::string> label_by_folder(std::vector<RunResults>& runs) {
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < runs.size(); ++i) groups[runs[i].label].push_back(i);
  std::set<std::string> taken;
  for (const auto& r : runs) taken.insert(r.label);
  for (const auto& [label, members] : groups) {
    if (members.size() < 2) continue;
    std::set<std::string> candidates;
    std::vector<std::string> named;
    for (const std::size_t i : members) {
      const auto folder = std::filesystem::path(runs[i].source).parent_path().filename().string();
      named.push_back(folder.empty() ? "" : folder + "/" + label);
      candidates.insert(named.back());
    }
    const bool usable = candidates.size() == members.size() && !candidates.count("") &&
                        std::none_of(candidates.begin(), candidates.end(),
                                     [&](const std::string& c) { return taken.count(c) > 0; });
    if (!usable) continue;
    for (std::size_t k = 0; k < members.size(); ++k) {
      runs[members[k]].label = named[k];
      taken.insert(named[k]);
    }
  }
  return taken;
}

// Whatever is still shared gets a number: `results (2)`.
void label_by_number(std::vector<RunResults>& runs, const std::set<std::string>& taken) {
  std::set<std::string> used;
  for (auto& r : runs) {
    if (used.insert(r.label).second) continue;
    for (int n = 2;; ++n) {
      std::string candidate = fmt::format("{} ({})", r.label, n);
      if (!used.count(candidate) && !taken.count(candidate)) {
        r.label = std::move(candidate);
        used.insert(r.label);
        break;
      }
    }
  }
}

}  // namespace

void make_labels_unique(std::vector<RunResults>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].label.empty()) runs[i].label = fmt::format("run {}", i + 1);
  }
  label_by_number(runs, label_by_folder(runs));
}

namespace {

// One metric's value flattened into `Metric.key` values, in order. Iterative: a document built
// in memory may be nested deeper than a file may.
void flatten_into(const nlohmann::ordered_json& value, const std::string& metric,
                  std::vector<FlatValue>& out) {
  std::vector<std::pair<const nlohmann::ordered_json*, std::string>> pending{{&value, metric}};
  while (!pending.empty()) {
    auto [v, key] = std::move(pending.back());
    pending.pop_back();
    if (v->is_object()) {  // children pushed last to first: popped in order
      for (auto it = v->crbegin(); it != v->crend(); ++it) {
        pending.emplace_back(&it.value(), key + "." + it.key());
      }
      continue;
    }
    FlatValue f;
    f.key = std::move(key);
    if (v->is_number()) {
      f.state = FlatValue::State::Number;
      f.number = v->get<double>();
    } else if (const auto non_finite = detail::non_finite_from_token(*v)) {
      f.state = FlatValue::State::Number;  // "NaN", "Infinity", "-Infinity"
      f.number = *non_finite;
    } else if (v->is_null()) {
      f.state = FlatValue::State::Failed;
    }  // Anything else was refused on loading; treat it as absent.
    out.push_back(std::move(f));
  }
}

}  // namespace

std::vector<FlatValue> flatten_metrics(const nlohmann::ordered_json& metrics) {
  std::vector<FlatValue> out;
  if (!metrics.is_object()) return out;
  for (const auto& [key, v] : metrics.items()) {
    if (!key.empty() && key[0] == '_') continue;
    flatten_into(v, key, out);
  }
  return out;
}

FlatValue lookup(const RunResults& run, std::string_view key) {
  return detail::FlatRun(run).get(std::string(key));
}

}  // namespace neurobench
