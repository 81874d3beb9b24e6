// SPDX-License-Identifier: Apache-2.0
#include <neurobench/reporters/report.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

using nlohmann::ordered_json;

// --- small helpers -----------------------------------------------------------------------

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

// Text for HTML element content and attribute values alike.
std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Text in a Markdown table cell: GitHub renders inline HTML and splits cells on '|'.
std::string md_esc(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A number in full precision, for data-* attributes that tests read back.
std::string exact(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::abs(v) < 9007199254740992.0) {
    return fmt::format("{}", static_cast<int64_t>(v));
  }
  return fmt::format("{}", v);
}

std::string px(double v) { return fmt::format("{:.1f}", v); }

std::string json_text(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return format_number(v.get<double>());
  return v.dump();
}

// Shortens text for a chart label; the full text goes in a <title>.
std::string shorten(const std::string& s, std::size_t max_chars) {
  if (s.size() <= max_chars || max_chars < 2) return s;
  return s.substr(0, max_chars - 1) + "\xE2\x80\xA6";  // U+2026 ellipsis
}

void check_metric_value(const ordered_json& v, const std::string& key, const std::string& source) {
  if (v.is_number() || v.is_null()) return;
  if (v.is_object()) {
    for (const auto& [k, sub] : v.items()) check_metric_value(sub, key + "." + k, source);
    return;
  }
  throw InputError(
      fmt::format("{}: metric '{}' is {} {}; expected a number, an object of numbers or null",
                  source, key, v.is_array() || v.is_object() ? "an" : "a", v.type_name()));
}

void flatten_into(const ordered_json& v, const std::string& key, std::vector<FlatValue>& out) {
  if (v.is_object()) {
    for (const auto& [k, sub] : v.items()) flatten_into(sub, key + "." + k, out);
    return;
  }
  FlatValue f;
  f.key = key;
  if (v.is_number()) {
    f.state = FlatValue::State::Number;
    f.number = v.get<double>();
  } else if (v.is_null()) {
    f.state = FlatValue::State::Failed;
  }  // Anything else was refused on loading; treat it as absent.
  out.push_back(std::move(f));
}

// The flattened values of one run, by key.
class FlatRun {
 public:
  explicit FlatRun(const RunResults& run) : values_(flatten_metrics(run.metrics)) {
    for (std::size_t i = 0; i < values_.size(); ++i) index_.emplace(values_[i].key, i);
  }
  [[nodiscard]] FlatValue get(const std::string& key) const {
    const auto it = index_.find(key);
    if (it != index_.end()) return values_[it->second];
    FlatValue missing;
    missing.key = key;
    return missing;
  }
  [[nodiscard]] std::optional<double> number(const std::string& key) const {
    const FlatValue v = get(key);
    if (v.state != FlatValue::State::Number) return std::nullopt;
    return v.number;
  }
  [[nodiscard]] const std::vector<FlatValue>& values() const { return values_; }

 private:
  std::vector<FlatValue> values_;
  std::unordered_map<std::string, std::size_t> index_;
};

std::vector<FlatRun> flat_runs(const std::vector<RunResults>& runs) {
  std::vector<FlatRun> out;
  out.reserve(runs.size());
  for (const auto& r : runs) out.emplace_back(r);
  return out;
}

// Every flattened key of the runs, in order of first appearance.
std::vector<std::string> union_keys(const std::vector<FlatRun>& runs) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& r : runs) {
    for (const auto& v : r.values()) {
      if (seen.insert(v.key).second) keys.push_back(v.key);
    }
  }
  return keys;
}

// The difference of b to a, as reports show it.
struct Difference {
  bool available = false;  // both numbers
  double abs = 0;
  bool has_percent = false;
  double percent = 0;
  enum class Verdict { Same, Better, Worse, Neutral } verdict = Verdict::Neutral;
};

Difference difference(const FlatValue& a, const FlatValue& b, Better better) {
  Difference d;
  if (a.state != FlatValue::State::Number || b.state != FlatValue::State::Number) return d;
  d.available = true;
  d.abs = b.number - a.number;
  if (a.number != 0) {
    d.has_percent = true;
    d.percent = 100.0 * d.abs / std::abs(a.number);
  } else if (b.number == 0) {
    d.has_percent = true;  // 0 -> 0 is no change
  }
  if (d.abs == 0) {
    d.verdict = Difference::Verdict::Same;
  } else if (better == Better::None) {
    d.verdict = Difference::Verdict::Neutral;
  } else {
    const bool up = d.abs > 0;
    d.verdict = (up == (better == Better::Higher)) ? Difference::Verdict::Better
                                                   : Difference::Verdict::Worse;
  }
  return d;
}

std::string signed_number(double v) {
  if (v == 0) return "0";
  return (v > 0 ? "+" : "-") + format_number(std::abs(v));
}

std::string percent_text(const Difference& d) {
  if (!d.has_percent) return "new";
  if (d.percent == 0) return "0%";
  return fmt::format("{:+.1f}%", d.percent);
}

std::string value_text(const FlatValue& v, const char* failed, const char* missing) {
  switch (v.state) {
    case FlatValue::State::Number:
      return format_number(v.number);
    case FlatValue::State::Failed:
      return failed;
    case FlatValue::State::Missing:
      return missing;
  }
  return missing;
}

}  // namespace

// --- loading -------------------------------------------------------------------------------

RunResults parse_run_results(const ordered_json& document, std::string label,
                             const std::string& source) {
  if (!document.is_object()) {
    throw InputError(fmt::format(
        "{}: not a results file: expected a JSON object keyed by metric name, found {} {}", source,
        document.is_array() || document.is_object() ? "an" : "a", document.type_name()));
  }
  const ordered_json* flat = &document;
  if (document.contains("results")) {
    const auto& inner = document["results"];
    if (!inner.is_object()) {
      throw InputError(fmt::format("{}: 'results' is {}; expected an object keyed by metric name",
                                   source, inner.type_name()));
    }
    flat = &inner;
  }
  RunResults out;
  out.label = std::move(label);
  out.source = source;
  auto metadata = [&](const std::string& key, const ordered_json& v) {
    if (key != "_run" && key != "_environment") return;  // other `_` keys: ignored metadata
    if (!v.is_object() && !v.is_null()) {
      throw InputError(
          fmt::format("{}: '{}' is {}; expected an object", source, key, v.type_name()));
    }
    (key == "_run" ? out.run : out.environment) = v;
  };
  for (const auto& [key, v] : flat->items()) {
    if (!key.empty() && key[0] == '_') {
      metadata(key, v);
      continue;
    }
    check_metric_value(v, key, source);
    out.metrics[key] = v;
  }
  if (flat != &document) {  // `_run`/`_environment` may sit beside "results"
    for (const auto& [key, v] : document.items()) {
      if ((key == "_run" && out.run.is_null()) ||
          (key == "_environment" && out.environment.is_null())) {
        metadata(key, v);
      }
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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw InputError(fmt::format("{}: no such results file", name));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: is a directory, not a results file", name));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the results file", name));
  std::stringstream text;
  text << in.rdbuf();
  ordered_json document;
  try {
    document = ordered_json::parse(text.str());
  } catch (const ordered_json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", name, e.what()));
  }
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

void make_labels_unique(std::vector<RunResults>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].label.empty()) runs[i].label = fmt::format("run {}", i + 1);
  }
  // Runs that share a label: try telling them apart by their folders.
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
  // Whatever is still shared gets a number.
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

// --- metric information ----------------------------------------------------------------------

namespace {

struct KnownMetric {
  std::string_view name;
  std::string_view unit;
  Better better;
};

// Single-valued metrics (spec: static and workload metrics; notes/results_format.md units).
constexpr std::array<KnownMetric, 10> kScalarMetrics = {{
    {"Footprint", "bytes", Better::Lower},
    {"ModelFileSize", "bytes", Better::Lower},
    {"ParameterCount", "parameters", Better::Lower},
    {"ConnectionSparsity", "fraction", Better::Higher},
    {"ClassificationAccuracy", "fraction", Better::Higher},
    {"MSE", "", Better::Lower},
    {"SMAPE", "%", Better::Lower},
    {"R2", "", Better::Higher},
    {"ActivationSparsity", "fraction", Better::Higher},
    {"MembraneUpdates", "updates/sample", Better::Lower},
}};

// Multi-valued metrics whose every key shares a unit and a direction.
constexpr std::array<KnownMetric, 3> kGroupMetrics = {{
    {"ActivationSparsityByLayer", "fraction", Better::Higher},
    {"SynapticOperations", "ops/sample", Better::Lower},
    {"NeuronOperations", "ops/sample", Better::Lower},
}};

// Timing and memory metrics: keys named by their unit suffix.
constexpr std::array<std::string_view, 5> kMeasuredMetrics = {
    "Latency", "InferenceTime", "Throughput", "StartupTime", "PeakMemory"};

MetricInfo measured_key(std::string_view sub) {
  if (sub == "batch_size" || sub == "samples") return {"samples", Better::None};
  if (sub == "runs" || sub == "warmup_runs" || ends_with(sub, "_runs")) {
    return {"count", Better::None};
  }
  // A spread is not a speed: no direction, so noise in it never fails a comparison.
  if (ends_with(sub, "_std_ms")) return {"ms", Better::None};
  if (ends_with(sub, "_ms")) return {"ms", Better::Lower};
  if (ends_with(sub, "_per_s")) {
    return {starts_with(sub, "samples") ? "samples/s" : "1/s", Better::Higher};
  }
  if (sub == "seconds" || ends_with(sub, "_s")) return {"s", Better::None};
  if (ends_with(sub, "_bytes")) return {"bytes", Better::Lower};
  return {};
}

}  // namespace

MetricInfo metric_info(std::string_view key) {
  const auto dot = key.find('.');
  const std::string_view top = key.substr(0, dot);
  if (dot == std::string_view::npos) {
    for (const auto& m : kScalarMetrics) {
      if (m.name == top) return {std::string(m.unit), m.better};
    }
    return {};
  }
  const std::string_view sub = key.substr(dot + 1);
  for (const auto& m : kGroupMetrics) {
    if (m.name == top) return {std::string(m.unit), m.better};
  }
  if (top == "DenseMACs") {
    if (sub == "MACs") return {"MACs/sample", Better::Lower};
    if (sub == "FLOPs") return {"FLOPs/sample", Better::Lower};
    return {"ops/sample", Better::Lower};
  }
  for (const auto& m : kMeasuredMetrics) {
    if (m == top) return measured_key(sub);
  }
  return {};
}

std::vector<FlatValue> flatten_metrics(const ordered_json& metrics) {
  std::vector<FlatValue> out;
  if (!metrics.is_object()) return out;
  for (const auto& [key, v] : metrics.items()) {
    if (!key.empty() && key[0] == '_') continue;
    flatten_into(v, key, out);
  }
  return out;
}

FlatValue lookup(const RunResults& run, std::string_view key) {
  return FlatRun(run).get(std::string(key));
}

namespace {

// Three significant digits in scientific notation, without '+' or leading zeros: `1.9e6`.
std::string scientific(double value) {
  const std::string s = fmt::format("{:.2e}", value);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;  // inf, nan
  std::string mantissa = s.substr(0, e);
  mantissa.erase(mantissa.find_last_not_of('0') + 1);
  if (mantissa.back() == '.') mantissa.pop_back();
  std::string exponent = s.substr(e + 1);
  const bool negative = !exponent.empty() && exponent[0] == '-';
  if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return mantissa + "e" + (negative ? "-" : "") + exponent;
}

}  // namespace

std::string format_number(double value) {
  if (!std::isfinite(value)) return fmt::format("{}", value);
  const double a = std::abs(value);
  if (value == std::floor(value) && a < 1e6) return fmt::format("{}", static_cast<int64_t>(value));
  if (a >= 1e6 || a < 1e-3) return scientific(value);
  return fmt::format("{:.6g}", value);
}

// --- comparison ------------------------------------------------------------------------------

void CompareOptions::validate() const {
  if (!std::isfinite(fail_above_percent) || fail_above_percent < 0) {
    throw UsageError(
        fmt::format("fail_above_percent must be a number >= 0, not {}", fail_above_percent));
  }
  for (const auto& m : metrics) {
    if (m.empty()) throw UsageError("metrics: an empty prefix");
  }
}

std::vector<ComparisonRow> compare(const RunResults& a, const RunResults& b,
                                   const CompareOptions& options) {
  options.validate();
  const std::vector<FlatRun> runs = flat_runs({a, b});
  const std::vector<std::string> keys = union_keys(runs);
  for (const auto& prefix : options.metrics) {
    if (std::none_of(keys.begin(), keys.end(),
                     [&](const std::string& k) { return istarts_with(k, prefix); })) {
      throw UsageError(
          fmt::format("no metric starting with '{}' in {} or {}", prefix, a.source, b.source));
    }
  }
  std::vector<ComparisonRow> rows;
  for (const auto& key : keys) {
    if (!options.metrics.empty() &&
        std::none_of(options.metrics.begin(), options.metrics.end(),
                     [&](const std::string& p) { return istarts_with(key, p); })) {
      continue;
    }
    ComparisonRow row;
    row.key = key;
    row.info = metric_info(key);
    row.a = runs[0].get(key);
    row.b = runs[1].get(key);
    const Difference d = difference(row.a, row.b, row.info.better);
    row.has_difference = d.available;
    row.difference = d.abs;
    row.has_percent = d.available && d.has_percent;
    row.percent = d.percent;
    if (d.verdict == Difference::Verdict::Worse) {
      // "More than" the threshold; a rounding error at the threshold itself does not count.
      const double threshold = options.fail_above_percent * (1 + 1e-9) + 1e-12;
      row.regression = !d.has_percent || std::abs(d.percent) > threshold;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

bool has_regression(const std::vector<ComparisonRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ComparisonRow& r) { return r.regression; });
}

std::string render_comparison(const std::vector<ComparisonRow>& rows, const RunResults& a,
                              const RunResults& b, const CompareOptions& options) {
  struct Line {
    std::array<std::string, 7> cells;
  };
  std::vector<Line> lines;
  lines.push_back({{"metric", "unit", a.label, b.label, "diff", "%diff", ""}});
  for (const auto& r : rows) {
    Line l;
    l.cells[0] = r.key;
    l.cells[1] = r.info.unit;
    l.cells[2] = value_text(r.a, "FAILED", "missing");
    l.cells[3] = value_text(r.b, "FAILED", "missing");
    if (r.has_difference) {
      l.cells[4] = signed_number(r.difference);
      Difference d;
      d.has_percent = r.has_percent;
      d.percent = r.percent;
      l.cells[5] = percent_text(d);
      const Difference verdict = difference(r.a, r.b, r.info.better);
      if (r.regression) {
        l.cells[6] = fmt::format("<< REGRESSION ({} is better)", to_string(r.info.better));
      } else if (verdict.verdict == Difference::Verdict::Worse) {
        l.cells[6] = "worse";
      } else if (verdict.verdict == Difference::Verdict::Better) {
        l.cells[6] = "better";
      }
    }
    lines.push_back(std::move(l));
  }
  std::array<std::size_t, 7> width{};
  for (const auto& l : lines) {
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], l.cells[c].size());
  }
  std::string out = fmt::format("A: {} ({})\nB: {} ({})\n\n", a.label, a.source, b.label, b.source);
  auto emit = [&](const Line& l) {
    std::string s = fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}", l.cells[0],
                                width[0], l.cells[1], width[1], l.cells[2], width[2], l.cells[3],
                                width[3], l.cells[4], width[4], l.cells[5], width[5]);
    if (!l.cells[6].empty()) s += "  " + l.cells[6];
    s.erase(s.find_last_not_of(' ') + 1);
    out += s + "\n";
  };
  emit(lines[0]);
  Line rule;
  for (std::size_t c = 0; c < 6; ++c) rule.cells[c] = std::string(width[c], '-');
  emit(rule);
  for (std::size_t i = 1; i < lines.size(); ++i) emit(lines[i]);
  std::vector<std::string> regressions;
  for (const auto& r : rows) {
    if (r.regression) regressions.push_back(r.key);
  }
  const std::string threshold = format_number(options.fail_above_percent) + "%";
  if (regressions.empty()) {
    out += fmt::format("\nno regression above {} ({} metrics compared)\n", threshold, rows.size());
  } else {
    out += fmt::format("\n{} regression{} above {}: {}\n", regressions.size(),
                       regressions.size() == 1 ? "" : "s", threshold, fmt::join(regressions, ", "));
  }
  return out;
}

// --- Markdown --------------------------------------------------------------------------------

namespace {

// The task's correctness metric: the first of these that any run has.
struct Correctness {
  std::string key;
  std::string header;
};

std::optional<Correctness> correctness_metric(const std::vector<FlatRun>& runs) {
  static const std::array<std::pair<const char*, const char*>, 4> kCandidates = {{
      {"ClassificationAccuracy", "Accuracy"},
      {"SMAPE", "sMAPE (%)"},
      {"R2", "R\xC2\xB2"},  // R²
      {"MSE", "MSE"},
  }};
  for (const auto& [key, header] : kCandidates) {
    for (const auto& r : runs) {
      if (r.get(key).state != FlatValue::State::Missing) return Correctness{key, header};
    }
  }
  return std::nullopt;
}

// Timed runs and warm-ups behind a run's timing figures, when it has any.
struct TimingBasis {
  std::optional<double> runs;
  std::optional<double> warmup;
};

TimingBasis timing_basis(const RunResults& run, const FlatRun& flat) {
  TimingBasis t;
  for (const char* m : {"Latency", "InferenceTime", "Throughput"}) {
    if (!t.runs) t.runs = flat.number(std::string(m) + ".runs");
    if (!t.warmup) t.warmup = flat.number(std::string(m) + ".warmup_runs");
  }
  if (run.run.is_object() && run.run.contains("timing") && run.run["timing"].is_object()) {
    const auto& timing = run.run["timing"];
    if (!t.runs && timing.contains("runs") && timing["runs"].is_number() &&
        timing["runs"].get<double>() > 0) {
      t.runs = timing["runs"].get<double>();
    }
    if (!t.warmup && timing.contains("warmup") && timing["warmup"].is_number()) {
      t.warmup = timing["warmup"].get<double>();
    }
  }
  return t;
}

std::string env_field(const RunResults& run, const char* key) {
  if (!run.environment.is_object() || !run.environment.contains(key)) return "";
  const auto& v = run.environment[key];
  if (v.is_null()) return "";
  return json_text(v);
}

std::string run_field(const RunResults& run, const char* key) {
  if (!run.run.is_object() || !run.run.contains(key)) return "";
  const auto& v = run.run[key];
  if (v.is_null()) return "";
  return json_text(v);
}

std::string commit_text(const RunResults& run) {
  std::string commit = env_field(run, "git_commit");
  if (!commit.empty() && run.environment.contains("git_dirty") &&
      run.environment["git_dirty"].is_boolean() && run.environment["git_dirty"].get<bool>()) {
    commit += " (dirty)";
  }
  return commit;
}

// One line on where a run ran, for the Markdown report.
std::string environment_line(const RunResults& run, const TimingBasis& timing) {
  std::vector<std::string> parts;
  if (auto cpu = env_field(run, "cpu"); !cpu.empty()) parts.push_back(cpu);
  if (auto threads = env_field(run, "threads"); !threads.empty()) {
    parts.push_back(threads + (threads == "1" ? " thread" : " threads"));
  }
  if (auto lt = env_field(run, "libtorch"); !lt.empty()) parts.push_back("LibTorch " + lt);
  if (auto commit = commit_text(run); !commit.empty()) parts.push_back("commit " + commit);
  if (auto date = env_field(run, "date"); !date.empty()) parts.push_back(date);
  std::string line = fmt::format("{}", fmt::join(parts, ", "));
  if (timing.runs) {
    std::string t = fmt::format("timings over {} runs", format_number(*timing.runs));
    if (timing.warmup) t += fmt::format(" after {} warm-ups", format_number(*timing.warmup));
    line += (line.empty() ? "" : "; ") + t;
  }
  return line;
}

std::string md_diff(const FlatValue& a, const FlatValue& b, Better better) {
  const Difference d = difference(a, b, better);
  if (!d.available) return "n/a";
  std::string text = signed_number(d.abs) + " (" + percent_text(d);
  if (d.verdict == Difference::Verdict::Better) text += ", better";
  if (d.verdict == Difference::Verdict::Worse) text += ", worse";
  return text + ")";
}

}  // namespace

std::string render_markdown_report(const std::vector<RunResults>& runs) {
  if (runs.empty()) throw UsageError("a report needs at least one run");
  const std::vector<FlatRun> flat = flat_runs(runs);
  const auto correctness = correctness_metric(flat);
  struct Column {
    std::string key;
    std::string header;
  };
  // NeuroBench's leaderboard columns, with units in the header.
  const std::vector<Column> columns = {
      {correctness ? correctness->key : "ClassificationAccuracy",
       correctness ? correctness->header : "Accuracy"},
      {"Footprint", "Footprint (bytes)"},
      {"ConnectionSparsity", "Connection sparsity"},
      {"ActivationSparsity", "Activation sparsity"},
      {"SynapticOperations.Dense", "Dense (ops/sample)"},
      {"SynapticOperations.Effective_MACs", "Eff_MACs (ops/sample)"},
      {"SynapticOperations.Effective_ACs", "Eff_ACs (ops/sample)"},
  };
  std::string out = "| Run |";
  for (const auto& c : columns) out += " " + c.header + " |";
  out += "\n|:---|";
  for (std::size_t i = 0; i < columns.size(); ++i) out += "---:|";
  out += "\n";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    out += "| " + md_esc(runs[r].label) + " |";
    for (const auto& c : columns)
      out += " " + value_text(flat[r].get(c.key), "failed", "n/a") + " |";
    out += "\n";
  }

  std::set<std::string> shown;
  for (const auto& c : columns) shown.insert(c.key);
  std::vector<std::string> others;
  for (const auto& key : union_keys(flat)) {
    if (!shown.count(key)) others.push_back(key);
  }
  if (!others.empty()) {
    out += "\n| Metric | Unit |";
    for (const auto& r : runs) out += " " + md_esc(r.label) + " |";
    for (std::size_t r = 1; r < runs.size(); ++r)
      out += " \xCE\x94 " + md_esc(runs[r].label) + " |";
    out += "\n|:---|:---|";
    for (std::size_t r = 0; r < 2 * runs.size() - 1; ++r) out += "---:|";
    out += "\n";
    for (const auto& key : others) {
      const MetricInfo info = metric_info(key);
      out += "| " + md_esc(key) + " | " + info.unit + " |";
      for (const auto& f : flat) out += " " + value_text(f.get(key), "failed", "n/a") + " |";
      for (std::size_t r = 1; r < runs.size(); ++r) {
        out += " " + md_diff(flat[0].get(key), flat[r].get(key), info.better) + " |";
      }
      out += "\n";
    }
  }

  std::string environment;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::string line = environment_line(runs[r], timing_basis(runs[r], flat[r]));
    if (!line.empty()) environment += "- **" + md_esc(runs[r].label) + "**: " + md_esc(line) + "\n";
  }
  if (!environment.empty()) out += "\n" + environment;
  return out;
}

// --- HTML ------------------------------------------------------------------------------------

namespace {

constexpr std::array<const char*, 8> kRunColours = {"#4269d0", "#efb118", "#ff725c", "#6cc5b0",
                                                    "#3ca951", "#ff8ab7", "#a463f2", "#97bbf5"};

const char* run_colour(std::size_t i) { return kRunColours[i % kRunColours.size()]; }

// Approximate width of chart text at 11px, for layout only.
double text_width(std::string_view s) { return 6.4 * static_cast<double>(s.size()); }

double nice_step(double raw) {
  if (!(raw > 0) || !std::isfinite(raw)) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / magnitude;
  const double nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  return nice * magnitude;
}

// Maps values to pixels, linear or logarithmic (base 10), with tick positions.
struct Scale {
  double lo = 0;
  double hi = 1;
  bool log = false;
  double p0 = 0;  // pixel of lo
  double p1 = 1;  // pixel of hi
  std::vector<double> ticks;

  [[nodiscard]] double operator()(double v) const {
    double t;
    if (log) {
      if (v <= 0) return p0;  // zero has no place on a log axis: drawn at the baseline
      t = (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    } else {
      t = (v - lo) / (hi - lo);
    }
    return p0 + t * (p1 - p0);
  }
};

Scale linear_scale(double lo, double hi, bool from_zero, double p0, double p1) {
  if (from_zero) {
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  if (!(hi > lo)) {
    const double pad = hi != 0 ? std::abs(hi) * 0.1 : 1.0;
    if (!from_zero || lo < 0) lo -= pad;
    hi += pad;
  }
  Scale s;
  const double step = nice_step((hi - lo) / 5);
  s.lo = std::floor(lo / step + 1e-9) * step;
  s.hi = std::ceil(hi / step - 1e-9) * step;
  if (!(s.hi > s.lo)) s.hi = s.lo + step;
  for (int i = 0;; ++i) {
    double t = s.lo + i * step;
    if (t > s.hi + step * 1e-6) break;
    if (std::abs(t) < step * 1e-9) t = 0;
    s.ticks.push_back(t);
  }
  s.p0 = p0;
  s.p1 = p1;
  return s;
}

Scale log_scale(double min_positive, double hi, double p0, double p1) {
  Scale s;
  s.log = true;
  int e0 = static_cast<int>(std::floor(std::log10(min_positive) + 1e-9));
  int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (e1 <= e0) e1 = e0 + 1;
  s.lo = std::pow(10.0, e0);
  s.hi = std::pow(10.0, e1);
  const int every = (e1 - e0) > 10 ? 2 : 1;
  for (int e = e0; e <= e1; e += every) s.ticks.push_back(std::pow(10.0, e));
  s.p0 = p0;
  s.p1 = p1;
  return s;
}

// Linear from zero, or logarithmic when the positive values span more than two decades.
Scale auto_scale(const std::vector<double>& values, double p0, double p1) {
  double min_positive = 0, max = 0;
  for (const double v : values) {
    max = std::max(max, v);
    if (v > 0 && (min_positive == 0 || v < min_positive)) min_positive = v;
  }
  if (min_positive > 0 && max / min_positive > 100) return log_scale(min_positive, max, p0, p1);
  return linear_scale(0, max, true, p0, p1);
}

// Tick labels of one axis share a style: all scientific from 1e3 up when the axis reaches 1e5.
std::string tick_text(double t, const Scale& s) {
  if (s.hi >= 1e5 && std::abs(t) >= 1e3) return scientific(t);
  return format_number(t);
}

struct Plot {
  double left, top, width, height;
  [[nodiscard]] double right() const { return left + width; }
  [[nodiscard]] double bottom() const { return top + height; }
};

void y_axis(std::string& out, const Scale& s, const Plot& p, const std::string& label) {
  out += "<g class=\"axis y-axis\">";
  for (const double t : s.ticks) {
    const double y = s(t);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        px(p.left), px(y), px(p.right()), px(y), px(p.left - 6), px(y + 4), esc(tick_text(t, s)));
  }
  out += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>",
                     px(p.left), px(p.top), px(p.bottom()));
  out += fmt::format(
      "<text class=\"axis-label\" transform=\"translate({},{}) rotate(-90)\" "
      "text-anchor=\"middle\">{}</text></g>",
      px(p.left - 54), px(p.top + p.height / 2), esc(label));
}

void x_axis(std::string& out, const Scale& s, const Plot& p, const std::string& label) {
  out += "<g class=\"axis x-axis\">";
  for (const double t : s.ticks) {
    const double x = s(t);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        px(x), px(p.top), px(x), px(p.bottom()), px(x), px(p.bottom() + 16), esc(tick_text(t, s)));
  }
  out += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>",
                     px(p.left), px(p.bottom()), px(p.right()));
  out += fmt::format(
      "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>",
      px(p.left + p.width / 2), px(p.bottom() + 38), esc(label));
}

// A legend of coloured swatches, wrapped to the width; returns its height.
struct LegendItem {
  std::string text;
  std::string colour;
  std::string run;  // data-run, when the item is a run
};

double legend(std::string& out, const std::vector<LegendItem>& items, double left, double top,
              double width) {
  out += "<g class=\"legend\">";
  double x = left, y = top;
  for (const auto& item : items) {
    const double w = 22 + text_width(item.text) + 14;
    if (x + w > left + width && x > left) {
      x = left;
      y += 18;
    }
    out += fmt::format("<g class=\"legend-item\"{}>",
                       item.run.empty() ? "" : " data-run=\"" + esc(item.run) + "\"");
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" rx=\"2\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text></g>",
        px(x), px(y), item.colour, px(x + 17), px(y + 10), esc(item.text));
    x += w;
  }
  out += "</g>";
  return y - top + 18;
}

std::string svg_open(const char* id, double width, double height, const std::string& title) {
  return fmt::format(
      "<svg id=\"{}\" class=\"chart-svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
      "role=\"img\" aria-label=\"{}\"><title>{}</title>",
      id, px(width), px(height), px(width), px(height), esc(title), esc(title));
}

std::string left_out(const char* id, const std::string& title, const std::string& why) {
  return fmt::format(
      "<section id=\"{}\" class=\"chart left-out\"><h2>{}</h2>"
      "<p class=\"note left-out-note\">Left out: {}</p></section>\n",
      id, esc(title), esc(why));
}

std::string not_shown_note(const std::vector<std::string>& labels, const std::string& why) {
  if (labels.empty()) return "";
  std::vector<std::string> escaped;
  for (const auto& l : labels) escaped.push_back(esc(l));
  return fmt::format("<p class=\"note not-shown\">Not shown: {} ({}).</p>",
                     fmt::join(escaped, ", "), esc(why));
}

// (a) Activation sparsity by layer: one group per layer, one bar per run.
std::string sparsity_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-sparsity";
  const std::string title = "Activation sparsity by layer";
  const std::string prefix = "ActivationSparsityByLayer.";
  std::vector<std::string> layers;
  std::set<std::string> seen;
  std::vector<std::size_t> with;  // runs that have per-layer values
  std::vector<std::string> without;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    bool any = false;
    for (const auto& v : flat[r].values()) {
      if (!starts_with(v.key, prefix) || v.state != FlatValue::State::Number) continue;
      any = true;
      const std::string layer = v.key.substr(prefix.size());
      if (seen.insert(layer).second) layers.push_back(layer);
    }
    if (any) {
      with.push_back(r);
    } else {
      without.push_back(runs[r].label);
    }
  }
  if (layers.empty()) {
    return left_out(id, title,
                    "no run has per-layer activation sparsity (the ActivationSparsityByLayer "
                    "metric).");
  }
  const double slot = std::max(14.0, 60.0 / static_cast<double>(with.size()));
  const double group = std::max(48.0, slot * static_cast<double>(with.size()) / 0.8);
  const double width = std::max(960.0, 90 + 24 + group * static_cast<double>(layers.size()));
  std::string body;
  std::vector<LegendItem> items;
  for (const std::size_t r : with) items.push_back({runs[r].label, run_colour(r), runs[r].label});
  const double legend_h = legend(body, items, 90, 12, width - 110);
  std::size_t longest = 0;
  for (const auto& l : layers) longest = std::max(longest, std::min<std::size_t>(l.size(), 32));
  const Plot p{90, 24 + legend_h, width - 90 - 24, 260};
  const double height = p.bottom() + 24 + text_width(std::string(longest, 'x')) * 0.65;
  const Scale y = linear_scale(0, 1, true, p.bottom(), p.top);
  std::string svg = svg_open("svg-sparsity", width, height, title) + body;
  y_axis(svg, y, p, "activation sparsity (higher is better)");
  const double gw = p.width / static_cast<double>(layers.size());
  const double bw = gw * 0.8 / static_cast<double>(with.size());
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const double gx = p.left + gw * static_cast<double>(l);
    svg += fmt::format("<g class=\"group\" data-layer=\"{}\">", esc(layers[l]));
    for (std::size_t j = 0; j < with.size(); ++j) {
      const std::size_t r = with[j];
      const auto v = flat[r].number(prefix + layers[l]);
      if (!v) continue;
      const double top = y(std::clamp(*v, 0.0, 1.0));
      svg += fmt::format(
          "<rect class=\"bar\" data-run=\"{}\" data-layer=\"{}\" data-value=\"{}\" x=\"{}\" "
          "y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}, {}: {}</title></rect>",
          esc(runs[r].label), esc(layers[l]), exact(*v),
          px(gx + gw * 0.1 + bw * static_cast<double>(j)), px(top), px(std::max(bw - 1, 1.0)),
          px(p.bottom() - top), run_colour(r), esc(runs[r].label), esc(layers[l]),
          esc(format_number(*v)));
    }
    const double cx = gx + gw / 2;
    svg += fmt::format(
        "<text class=\"tick-label layer-label\" transform=\"translate({},{}) rotate(-40)\" "
        "text-anchor=\"end\">{}<title>{}</title></text></g>",
        px(cx), px(p.bottom() + 12), esc(shorten(layers[l], 32)), esc(layers[l]));
  }
  svg += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>",
                     px(p.left), px(p.bottom()), px(p.right()));
  svg += "</svg>";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">Fraction of zero outputs of each activation layer over the whole "
      "run, one bar per run. Layers are the union over all runs; a missing bar means that run "
      "has no such layer.</p>{}{}</section>\n",
      id, esc(title), svg, not_shown_note(without, "no ActivationSparsityByLayer"));
}

// (b) Synaptic operations per model.
std::string operations_chart(const std::vector<RunResults>& runs,
                             const std::vector<FlatRun>& flat) {
  const char* id = "chart-operations";
  const std::string title = "Synaptic operations per sample";
  struct Kind {
    const char* key;
    const char* name;
    const char* colour;
  };
  const std::array<Kind, 3> kinds = {{
      {"SynapticOperations.Effective_MACs", "Effective_MACs", "#4269d0"},
      {"SynapticOperations.Effective_ACs", "Effective_ACs", "#ff725c"},
      {"SynapticOperations.Dense", "Dense", "#9aa3b0"},
  }};
  std::vector<std::size_t> with;
  std::vector<std::string> without;
  std::vector<double> values;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    bool any = false;
    for (const auto& k : kinds) {
      if (auto v = flat[r].number(k.key)) {
        any = true;
        values.push_back(*v);
      }
    }
    if (any) {
      with.push_back(r);
    } else {
      without.push_back(runs[r].label);
    }
  }
  if (with.empty()) {
    return left_out(id, title, "no run has synaptic operations (the SynapticOperations metric).");
  }
  const double group = 3 * 34 + 40;
  const double width = std::max(960.0, 90 + 24 + group * static_cast<double>(with.size()));
  std::string body;
  std::vector<LegendItem> items;
  for (const auto& k : kinds) items.push_back({k.name, k.colour, ""});
  const double legend_h = legend(body, items, 90, 12, width - 110);
  const Plot p{90, 30 + legend_h, width - 90 - 24, 280};
  const double height = p.bottom() + 44;
  const Scale y = auto_scale(values, p.bottom(), p.top);
  std::string svg = svg_open("svg-operations", width, height, title) + body;
  y_axis(svg, y, p, y.log ? "operations per sample (log scale)" : "operations per sample");
  const double gw = p.width / static_cast<double>(with.size());
  const double bw = std::min(34.0, gw * 0.8 / 3);
  for (std::size_t j = 0; j < with.size(); ++j) {
    const std::size_t r = with[j];
    const double cx = p.left + gw * (static_cast<double>(j) + 0.5);
    svg += fmt::format("<g class=\"group\" data-run=\"{}\">", esc(runs[r].label));
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      const auto v = flat[r].number(kinds[k].key);
      if (!v) continue;
      const double x = cx - 1.5 * bw + bw * static_cast<double>(k);
      const double top = std::min(y(std::max(*v, 0.0)), p.bottom());
      svg += fmt::format(
          "<rect class=\"bar\" data-run=\"{}\" data-op=\"{}\" data-value=\"{}\" x=\"{}\" y=\"{}\" "
          "width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}, {}: {}</title></rect>"
          "<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
          esc(runs[r].label), kinds[k].name, exact(*v), px(x + 1), px(top), px(bw - 2),
          px(p.bottom() - top), kinds[k].colour, esc(runs[r].label), kinds[k].name,
          esc(format_number(*v)), px(x + bw / 2), px(top - 4), esc(format_number(*v)));
    }
    svg += fmt::format(
        "<text class=\"tick-label run-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}"
        "<title>{}</title></text></g>",
        px(cx), px(p.bottom() + 18), esc(shorten(runs[r].label, static_cast<std::size_t>(gw / 7))),
        esc(runs[r].label));
  }
  svg += fmt::format("<line class=\"axis-line\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>",
                     px(p.left), px(p.bottom()), px(p.right()));
  svg += "</svg>";
  const std::string scale_note =
      y.log ? " The values span more than two decades, so the axis is logarithmic; a zero sits "
              "on the baseline."
            : "";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">Effective multiply-accumulates (non-spiking inputs), effective "
      "accumulates (spiking inputs) and the dense count, per sample, for each run.{}</p>"
      "{}{}</section>\n",
      id, esc(title), esc(scale_note), svg, not_shown_note(without, "no SynapticOperations"));
}

// (c) Latency distribution: a box-and-whisker glyph per run.
std::string latency_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-latency";
  const std::string title = "Latency distribution per batch";
  struct Stats {
    std::size_t run;
    double min, median, max;
    std::optional<double> mean, p90, p99, batch_size;
    TimingBasis basis;
  };
  std::vector<Stats> rows;
  std::vector<std::string> without;
  std::vector<double> values;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto& f = flat[r];
    const auto min = f.number("Latency.batch_min_ms");
    const auto median = f.number("Latency.batch_median_ms");
    const auto max = f.number("Latency.batch_max_ms");
    if (!min || !median || !max) {
      without.push_back(runs[r].label);
      continue;
    }
    Stats s{r,
            *min,
            *median,
            *max,
            f.number("Latency.batch_mean_ms"),
            f.number("Latency.batch_p90_ms"),
            f.number("Latency.batch_p99_ms"),
            f.number("Latency.batch_size"),
            timing_basis(runs[r], f)};
    for (const auto& v : {std::optional<double>(s.min), std::optional<double>(s.median),
                          std::optional<double>(s.max), s.mean, s.p90, s.p99}) {
      if (v) values.push_back(*v);
    }
    rows.push_back(s);
  }
  if (rows.empty()) {
    return left_out(id, title,
                    "no run has latency figures (the Latency metric with batch_min_ms, "
                    "batch_median_ms and batch_max_ms).");
  }
  const double width = 960;
  std::string body;
  // Legend: the parts of the glyph.
  body += "<g class=\"legend glyph-legend\">";
  const double ly = 18;
  body += fmt::format(
      "<line class=\"whisker\" x1=\"190\" y1=\"{0}\" x2=\"230\" y2=\"{0}\"/>"
      "<text x=\"236\" y=\"{1}\">min to max</text>"
      "<rect class=\"box\" x=\"320\" y=\"{2}\" width=\"30\" height=\"12\" fill=\"#bbb\"/>"
      "<text x=\"356\" y=\"{1}\">median to p90</text>"
      "<line class=\"median\" x1=\"460\" y1=\"{2}\" x2=\"460\" y2=\"{3}\"/>"
      "<text x=\"468\" y=\"{1}\">median</text>"
      "<path class=\"mean\" d=\"M540,{4}l5,5l-5,5l-5,-5z\"/>"
      "<text x=\"550\" y=\"{1}\">mean</text>"
      "<line class=\"p99\" x1=\"610\" y1=\"{2}\" x2=\"610\" y2=\"{3}\"/>"
      "<text x=\"618\" y=\"{1}\">p99</text></g>",
      px(ly), px(ly + 4), px(ly - 6), px(ly + 6), px(ly - 5));
  const double row_h = 46;
  const Plot p{190, 40, width - 190 - 30, row_h * static_cast<double>(rows.size())};
  const double height = p.bottom() + 52;
  const Scale x = auto_scale(values, p.left, p.right());
  std::string svg = svg_open("svg-latency", width, height, title) + body;
  x_axis(svg, x, p, x.log ? "ms per batch (log scale)" : "ms per batch");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Stats& s = rows[i];
    const std::string& label = runs[s.run].label;
    const char* colour = run_colour(s.run);
    const double cy = p.top + row_h * (static_cast<double>(i) + 0.5);
    std::string attrs = fmt::format(
        "data-run=\"{}\" data-value=\"{}\" data-min=\"{}\" "
        "data-median=\"{}\" data-max=\"{}\"",
        esc(label), exact(s.median), exact(s.min), exact(s.median), exact(s.max));
    if (s.mean) attrs += fmt::format(" data-mean=\"{}\"", exact(*s.mean));
    if (s.p90) attrs += fmt::format(" data-p90=\"{}\"", exact(*s.p90));
    if (s.p99) attrs += fmt::format(" data-p99=\"{}\"", exact(*s.p99));
    svg += fmt::format("<g class=\"latency-glyph\" {}>", attrs);
    std::string detail;
    if (s.batch_size) detail = fmt::format("batch {}", format_number(*s.batch_size));
    if (s.basis.runs) {
      detail += fmt::format("{}{} runs", detail.empty() ? "" : ", ", format_number(*s.basis.runs));
    }
    svg += fmt::format(
        "<text class=\"run-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}<title>{}</title>"
        "</text><text class=\"run-detail\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        px(p.left - 10), px(cy - 2), esc(shorten(label, 26)), esc(label), px(p.left - 10),
        px(cy + 12), esc(detail));
    svg += fmt::format(
        "<line class=\"whisker\" data-stat=\"range\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" "
        "stroke=\"{3}\"/>",
        px(x(s.min)), px(x(s.max)), px(cy), colour);
    for (const auto& [stat, v] : {std::pair<const char*, double>{"min", s.min}, {"max", s.max}}) {
      svg += fmt::format(
          "<line class=\"cap\" data-stat=\"{0}\" data-value=\"{1}\" x1=\"{2}\" y1=\"{3}\" "
          "x2=\"{2}\" y2=\"{4}\" stroke=\"{5}\"/>",
          stat, exact(v), px(x(v)), px(cy - 7), px(cy + 7), colour);
    }
    if (s.p90) {
      const double x0 = x(s.median), x1 = x(*s.p90);
      svg += fmt::format(
          "<rect class=\"box\" data-stat=\"p90\" data-value=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
          "height=\"20\" fill=\"{}\" stroke=\"{}\"/>",
          exact(*s.p90), px(std::min(x0, x1)), px(cy - 10), px(std::max(std::abs(x1 - x0), 1.0)),
          colour, colour);
    }
    svg += fmt::format(
        "<line class=\"median\" data-stat=\"median\" data-value=\"{0}\" x1=\"{1}\" y1=\"{2}\" "
        "x2=\"{1}\" y2=\"{3}\"/>",
        exact(s.median), px(x(s.median)), px(cy - 12), px(cy + 12));
    if (s.mean) {
      svg += fmt::format(
          "<path class=\"mean\" data-stat=\"mean\" data-value=\"{}\" "
          "d=\"M{},{}l5,5l-5,5l-5,-5z\"/>",
          exact(*s.mean), px(x(*s.mean)), px(cy - 5));
    }
    if (s.p99) {
      svg += fmt::format(
          "<line class=\"p99\" data-stat=\"p99\" data-value=\"{0}\" x1=\"{1}\" y1=\"{2}\" "
          "x2=\"{1}\" y2=\"{3}\"/>",
          exact(*s.p99), px(x(*s.p99)), px(cy - 9), px(cy + 9));
    }
    svg += fmt::format("<title>{}: min {} ms, median {} ms{}{}{}, max {} ms</title></g>",
                       esc(label), esc(format_number(s.min)), esc(format_number(s.median)),
                       s.mean ? esc(", mean " + format_number(*s.mean) + " ms") : "",
                       s.p90 ? esc(", p90 " + format_number(*s.p90) + " ms") : "",
                       s.p99 ? esc(", p99 " + format_number(*s.p99) + " ms") : "",
                       esc(format_number(s.max)));
  }
  svg += "</svg>";
  std::string basis;
  for (const auto& s : rows) {
    if (!s.basis.runs) continue;
    basis += fmt::format("{}{}: {} timed runs", basis.empty() ? "" : "; ", runs[s.run].label,
                         format_number(*s.basis.runs));
    if (s.basis.warmup) basis += fmt::format(" after {} warm-ups", format_number(*s.basis.warmup));
  }
  if (!basis.empty()) basis = " Figures rest on " + basis + ".";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">Time of one forward call on a batch (the Latency metric), in ms: "
      "whiskers from min to max, a box from the median to p90, the median as a thick line, the "
      "mean as a diamond, p99 as a short tick.{}</p>{}{}</section>\n",
      id, esc(title), esc(basis), svg, not_shown_note(without, "no Latency figures"));
}

// (d) Accuracy (or the task's correctness metric) against effective operations.
std::string accuracy_chart(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  const char* id = "chart-accuracy";
  const auto correctness = correctness_metric(flat);
  const std::string metric = correctness ? correctness->key : "ClassificationAccuracy";
  const std::string title = metric + " against operations";
  struct Point {
    std::size_t run;
    double x, y;
    std::string source;
  };
  std::vector<Point> points;
  std::vector<std::string> without;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const auto& f = flat[r];
    const auto y = f.number(metric);
    const auto macs = f.number("SynapticOperations.Effective_MACs");
    const auto acs = f.number("SynapticOperations.Effective_ACs");
    std::optional<double> x;
    std::string source;
    if (macs || acs) {
      x = macs.value_or(0) + acs.value_or(0);
      source = "Effective_MACs + Effective_ACs";
    } else if (auto dense_macs = f.number("DenseMACs.MACs")) {
      x = dense_macs;
      source = "DenseMACs.MACs";
    } else if (auto dense = f.number("SynapticOperations.Dense")) {
      x = dense;
      source = "SynapticOperations.Dense";
    }
    if (!x || !y) {
      without.push_back(runs[r].label);
      continue;
    }
    points.push_back({r, *x, *y, source});
  }
  if (points.empty()) {
    return left_out(id, title,
                    correctness ? "no run has both " + metric +
                                      " and operation counts (SynapticOperations or DenseMACs)."
                                : "no run has a correctness metric (ClassificationAccuracy, "
                                  "SMAPE, R2 or MSE).");
  }
  const double width = 960;
  std::string body;
  std::vector<LegendItem> items;
  for (const auto& pt : points)
    items.push_back({runs[pt.run].label, run_colour(pt.run), runs[pt.run].label});
  const double legend_h = legend(body, items, 100, 12, width - 120);
  const Plot p{100, 30 + legend_h, width - 100 - 60, 320};
  const double height = p.bottom() + 56;
  std::vector<double> xs, ys;
  for (const auto& pt : points) {
    xs.push_back(pt.x);
    ys.push_back(pt.y);
  }
  const Scale x = auto_scale(xs, p.left, p.right());
  double ylo = *std::min_element(ys.begin(), ys.end());
  double yhi = *std::max_element(ys.begin(), ys.end());
  const double pad = yhi > ylo ? (yhi - ylo) * 0.15 : std::max(std::abs(yhi) * 0.05, 0.01);
  ylo -= pad;
  yhi += pad;
  const MetricInfo info = metric_info(metric);
  if (info.unit == "fraction") {
    ylo = std::max(ylo, 0.0);
    yhi = std::min(yhi, 1.0);
  }
  const Scale y = linear_scale(ylo, yhi, false, p.bottom(), p.top);
  std::set<std::string> sources;
  for (const auto& pt : points) sources.insert(pt.source);
  const std::string x_label =
      (sources.size() == 1 ? "operations per sample (" + *sources.begin() + ")"
                           : std::string("operations per sample (see the note)")) +
      (x.log ? ", log scale" : "");
  const std::string y_label =
      metric + (info.unit.empty() ? "" : " (" + info.unit + ")") +
      (info.better == Better::None ? ""
                                   : ", " + std::string(to_string(info.better)) + " is better");
  std::string svg = svg_open("svg-accuracy", width, height, title) + body;
  y_axis(svg, y, p, y_label);
  x_axis(svg, x, p, x_label);
  for (const auto& pt : points) {
    const std::string& label = runs[pt.run].label;
    const double cx = x(pt.x), cy = y(pt.y);
    svg += fmt::format(
        "<g class=\"point-group\" data-run=\"{0}\"><circle class=\"point\" data-run=\"{0}\" "
        "data-value=\"{1}\" data-x=\"{2}\" data-y=\"{1}\" data-ops-source=\"{3}\" cx=\"{4}\" "
        "cy=\"{5}\" r=\"6\" fill=\"{6}\"><title>{0}: {7} {8}, {9} operations</title></circle>"
        "<text class=\"point-label\" x=\"{10}\" y=\"{11}\">{0}</text></g>",
        esc(label), exact(pt.y), exact(pt.x), esc(pt.source), px(cx), px(cy), run_colour(pt.run),
        esc(metric), esc(format_number(pt.y)), esc(format_number(pt.x)), px(cx + 9), px(cy - 8));
  }
  svg += "</svg>";
  std::string sources_note;
  if (sources.size() > 1) {
    for (const auto& pt : points) {
      sources_note +=
          fmt::format("{}{}: {}", sources_note.empty() ? "" : "; ", runs[pt.run].label, pt.source);
    }
    sources_note = " Operations counted as: " + sources_note + ".";
  }
  const std::string direction = info.better == Better::Higher  ? " Up and to the left is better."
                                : info.better == Better::Lower ? " Down and to the left is better."
                                                               : "";
  return fmt::format(
      "<section id=\"{}\" class=\"chart\"><h2>{}</h2>"
      "<p class=\"caption\">{} of each run against its operations per sample: effective MACs "
      "plus effective ACs, or the dense MAC count when a run has no synaptic operations.{}{}</p>"
      "{}{}</section>\n",
      id, esc(title), esc(metric), esc(direction), esc(sources_note), svg,
      not_shown_note(without, "no " + metric + " or no operation counts"));
}

std::string metrics_table(const std::vector<RunResults>& runs, const std::vector<FlatRun>& flat) {
  std::string out =
      "<div class=\"scroll\"><table id=\"metrics\"><thead><tr>"
      "<th scope=\"col\">Metric</th><th scope=\"col\">Unit</th>"
      "<th scope=\"col\">Better</th>";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    out += fmt::format(
        "<th scope=\"col\" class=\"run\" data-run=\"{0}\"><span class=\"swatch\" "
        "style=\"background:{1}\"></span>{0}</th>",
        esc(runs[r].label), run_colour(r));
  }
  for (std::size_t r = 1; r < runs.size(); ++r) {
    out += fmt::format(
        "<th scope=\"col\" class=\"diff\" data-run=\"{0}\" title=\"{0} minus {1}\">"
        "\xCE\x94 {0}</th>",
        esc(runs[r].label), esc(runs[0].label));
  }
  out += "</tr></thead><tbody>\n";
  for (const auto& key : union_keys(flat)) {
    const MetricInfo info = metric_info(key);
    const std::string better =
        info.better == Better::None ? "" : std::string(to_string(info.better));
    out += fmt::format(
        "<tr data-key=\"{0}\" data-better=\"{1}\"><th scope=\"row\" class=\"key\">{0}</th>"
        "<td class=\"unit\">{2}</td><td class=\"better\">{3}</td>",
        esc(key), to_string(info.better), esc(info.unit),
        better.empty() ? "" : (better == "higher" ? "\xE2\x86\x91 higher" : "\xE2\x86\x93 lower"));
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const FlatValue v = flat[r].get(key);
      switch (v.state) {
        case FlatValue::State::Number:
          out += fmt::format(
              "<td class=\"value\" data-run=\"{}\" data-state=\"number\" data-value=\"{}\" "
              "title=\"{}\">{}</td>",
              esc(runs[r].label), exact(v.number), exact(v.number), esc(format_number(v.number)));
          break;
        case FlatValue::State::Failed:
          out += fmt::format(
              "<td class=\"value failed\" data-run=\"{}\" data-state=\"failed\">failed</td>",
              esc(runs[r].label));
          break;
        case FlatValue::State::Missing:
          out += fmt::format(
              "<td class=\"value missing\" data-run=\"{}\" data-state=\"missing\">\xE2\x80\x94"
              "</td>",
              esc(runs[r].label));
          break;
      }
    }
    for (std::size_t r = 1; r < runs.size(); ++r) {
      const Difference d = difference(flat[0].get(key), flat[r].get(key), info.better);
      if (!d.available) {
        out += fmt::format("<td class=\"diff na\" data-run=\"{}\">\xE2\x80\x94</td>",
                           esc(runs[r].label));
        continue;
      }
      const char* verdict = d.verdict == Difference::Verdict::Better  ? "better"
                            : d.verdict == Difference::Verdict::Worse ? "worse"
                            : d.verdict == Difference::Verdict::Same  ? "same"
                                                                      : "neutral";
      out += fmt::format("<td class=\"diff {}\" data-run=\"{}\" data-diff=\"{}\"{}>{} ({})</td>",
                         verdict, esc(runs[r].label), exact(d.abs),
                         d.has_percent ? fmt::format(" data-percent=\"{}\"", exact(d.percent)) : "",
                         esc(signed_number(d.abs)), esc(percent_text(d)));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  return out;
}

std::string environment_table(const std::vector<RunResults>& runs,
                              const std::vector<FlatRun>& flat) {
  struct Row {
    const char* key;
    const char* name;
    bool always;  // shown even when no run has it
    std::function<std::string(std::size_t)> value;
  };
  auto env = [&](const char* k) {
    return [&runs, k](std::size_t r) { return env_field(runs[r], k); };
  };
  auto run = [&](const char* k) {
    return [&runs, k](std::size_t r) { return run_field(runs[r], k); };
  };
  const std::vector<Row> rows = {
      {"source", "Results file", true, [&](std::size_t r) { return runs[r].source; }},
      {"model", "Model", false, run("model")},
      {"data", "Data", false, run("data")},
      {"samples", "Samples", false, run("samples")},
      {"batch_size", "Batch size", false, run("batch_size")},
      {"stepwise", "Step-wise", false, run("stepwise")},
      {"cpu", "CPU", true, env("cpu")},
      {"cores", "Cores", false, env("cores")},
      {"threads", "Threads", true, env("threads")},
      {"libtorch", "LibTorch", true, env("libtorch")},
      {"blas", "BLAS", false, env("blas")},
      {"build_type", "Build type", false, env("build_type")},
      {"compiler", "Compiler", false, env("compiler")},
      {"os", "OS", false, env("os")},
      {"neurobench", "neurobench", false, env("neurobench")},
      {"git_commit", "Commit", true, [&](std::size_t r) { return commit_text(runs[r]); }},
      {"date", "Date", true, env("date")},
      {"timed_runs", "Timed runs", true,
       [&](std::size_t r) {
         const auto t = timing_basis(runs[r], flat[r]);
         return t.runs ? format_number(*t.runs) : std::string();
       }},
      {"warmup_runs", "Warm-up runs", true,
       [&](std::size_t r) {
         const auto t = timing_basis(runs[r], flat[r]);
         return t.warmup ? format_number(*t.warmup) : std::string();
       }},
      {"failures", "Failed metrics", false,
       [&](std::size_t r) {
         std::vector<std::string> failed;
         const auto& meta = runs[r].run;
         if (meta.is_object() && meta.contains("failures") && meta["failures"].is_object()) {
           for (const auto& [name, why] : meta["failures"].items()) {
             failed.push_back(name + ": " + json_text(why));
           }
         }
         if (failed.empty()) {
           for (const auto& v : flat[r].values()) {
             if (v.state == FlatValue::State::Failed) failed.push_back(v.key);
           }
         }
         return fmt::format("{}", fmt::join(failed, "; "));
       }},
      {"warnings", "Warnings", false,
       [&](std::size_t r) {
         std::vector<std::string> warnings;
         const auto& meta = runs[r].run;
         if (meta.is_object() && meta.contains("warnings") && meta["warnings"].is_array()) {
           for (const auto& w : meta["warnings"]) warnings.push_back(json_text(w));
         }
         return fmt::format("{}", fmt::join(warnings, "; "));
       }},
  };
  std::string out =
      "<div class=\"scroll\"><table id=\"environment\"><thead><tr><th scope=\"col\">"
      "</th>";
  for (std::size_t r = 0; r < runs.size(); ++r) {
    out += fmt::format(
        "<th scope=\"col\" class=\"run\" data-run=\"{0}\"><span class=\"swatch\" "
        "style=\"background:{1}\"></span>{0}</th>",
        esc(runs[r].label), run_colour(r));
  }
  out += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    bool any = false;
    for (std::size_t r = 0; r < runs.size(); ++r) {
      cells.push_back(row.value(r));
      any = any || !cells.back().empty();
    }
    if (!any && !row.always) continue;
    out += fmt::format("<tr data-key=\"{}\"><th scope=\"row\">{}</th>", row.key, row.name);
    for (std::size_t r = 0; r < runs.size(); ++r) {
      out += cells[r].empty()
                 ? fmt::format("<td class=\"missing\" data-run=\"{}\">\xE2\x80\x94</td>",
                               esc(runs[r].label))
                 : fmt::format("<td data-run=\"{}\">{}</td>", esc(runs[r].label), esc(cells[r]));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  std::vector<std::string> bare;
  for (const auto& r : runs) {
    if (!r.environment.is_object()) bare.push_back(r.label);
  }
  if (!bare.empty()) {
    out += not_shown_note(bare, "the results file records no environment (_environment)");
  }
  return out;
}

constexpr const char* kStyle = R"(
:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--head:#f3f5f8;--better:#1a7f37;--worse:#c62828}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
  color:var(--fg);background:#fff;margin:0 auto;max-width:1240px;padding:24px 28px 48px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:18px;margin:36px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
nav a{color:#2f5bb7;margin-right:14px;text-decoration:none}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;width:100%}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--head);white-space:nowrap}
tbody th{font-weight:500;white-space:nowrap}
td.value,td.diff{text-align:right;white-space:nowrap}
td.unit,td.better{color:var(--muted);white-space:nowrap}
td.diff.better{color:var(--better)}
td.diff.worse{color:var(--worse);font-weight:600}
td.diff.same,td.diff.neutral,td.diff.na,td.missing{color:var(--muted)}
td.failed{color:var(--worse);font-style:italic}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}
.note,.caption{color:var(--muted);margin:6px 0}
.left-out-note{font-style:italic}
svg{display:block;max-width:100%;height:auto;margin:8px 0}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#333}
svg .axis-label{font-size:12px;fill:#444}
svg .grid{stroke:#e7eaf0;stroke-width:1}
svg .axis-line{stroke:#666;stroke-width:1}
svg .bar-label{font-size:10px;fill:#555}
svg .point{stroke:#fff;stroke-width:1.5}
svg .point-label{font-size:12px;font-weight:600}
svg .run-detail{font-size:10px;fill:#777}
svg .whisker,svg .cap{stroke-width:2}
svg .glyph-legend .whisker{stroke:#777}
svg .box{fill-opacity:.35;stroke-width:1.5}
svg .median{stroke:#1d2330;stroke-width:3}
svg .mean{fill:#1d2330}
svg .p99{stroke:#1d2330;stroke-width:1.5;stroke-dasharray:3 2}
footer{margin-top:40px;color:var(--muted);font-size:12px}
)";

}  // namespace

std::string render_html_report(const std::vector<RunResults>& runs) {
  if (runs.empty()) throw UsageError("a report needs at least one run");
  const std::vector<FlatRun> flat = flat_runs(runs);
  std::vector<std::string> labels;
  for (const auto& r : runs) labels.push_back(r.label);
  const std::string names = fmt::format("{}", fmt::join(labels, ", "));
  std::string out;
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>NeuroBench report: {}</title>\n", esc(names));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);
  out += "<header><h1>NeuroBench report</h1>";
  std::vector<std::string> chips;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    chips.push_back(
        fmt::format("<span class=\"run-chip\" data-run=\"{0}\"><span class=\"swatch\" "
                    "style=\"background:{1}\"></span>{0}</span>",
                    esc(runs[r].label), run_colour(r)));
  }
  out +=
      fmt::format("<p id=\"summary\" data-runs=\"{}\">{} {}: {}.{}</p>", runs.size(), runs.size(),
                  runs.size() == 1 ? "run" : "runs side by side", fmt::join(chips, ", "),
                  runs.size() > 1 ? " Differences are to the first run, " + esc(runs[0].label) +
                                        ": green is better, red is worse."
                                  : std::string());
  out +=
      "<nav><a href=\"#runs\">Runs</a><a href=\"#metrics-section\">Metrics</a>"
      "<a href=\"#chart-sparsity\">Sparsity</a><a href=\"#chart-operations\">Operations</a>"
      "<a href=\"#chart-latency\">Latency</a><a href=\"#chart-accuracy\">Accuracy</a></nav>"
      "</header>\n";
  out += "<section id=\"runs\"><h2>Runs and environment</h2>\n" + environment_table(runs, flat) +
         "</section>\n";
  out +=
      "<section id=\"metrics-section\"><h2>Metrics</h2>\n<p class=\"caption\">Every metric "
      "of every run, nested values as <code>Metric.key</code>.";
  if (runs.size() > 1) {
    out += " Differences are to " + esc(runs[0].label) +
           ", absolute and in percent; coloured when the metric has a better direction.";
  }
  out += "</p>\n" + metrics_table(runs, flat) + "</section>\n";
  out += sparsity_chart(runs, flat);
  out += operations_chart(runs, flat);
  out += latency_chart(runs, flat);
  out += accuracy_chart(runs, flat);
  out +=
      "<footer>Written by <code>neurobench report</code>. A self-contained page: no scripts, "
      "no external resources.</footer>\n</body>\n</html>\n";
  return out;
}

}  // namespace neurobench
