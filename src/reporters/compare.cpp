// SPDX-License-Identifier: Apache-2.0
// Two runs compared key by key, the regression gate, and the terminal table of `compare`.
#include <neurobench/reporters/compare.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/reporters/format.hpp>

#include "reporters/flat_values.hpp"
#include "reporters/fscil_sessions.hpp"
#include "reporters/metric_index.hpp"
#include "reporters/run_context.hpp"
#include "reporters/text.hpp"

namespace neurobench {

using detail::Difference;

void CompareOptions::validate() const {
  if (!std::isfinite(fail_above_percent) || fail_above_percent < 0) {
    throw UsageError(
        fmt::format("fail_above_percent must be a number >= 0, not {}", fail_above_percent));
  }
  for (const auto& m : metrics) {
    if (m.empty()) throw UsageError("metrics: an empty prefix");
  }
}

namespace {

// The key is selected by the prefix, or is a metric (null or a number in one run) that the
// selection lies within.
bool matches(const std::string& key, const std::string& prefix) {
  return detail::istarts_with(key, prefix) ||
         (prefix.size() > key.size() && prefix[key.size()] == '.' &&
          detail::istarts_with(prefix, key));
}

bool selected(const std::string& key, const CompareOptions& options) {
  return options.metrics.empty() ||
         std::any_of(options.metrics.begin(), options.metrics.end(),
                     [&](const std::string& p) { return matches(key, p); });
}

void check_prefixes(const std::vector<std::string>& keys, const CompareOptions& options,
                    const RunResults& a, const RunResults& b) {
  for (const auto& prefix : options.metrics) {
    if (std::none_of(keys.begin(), keys.end(),
                     [&](const std::string& k) { return matches(k, prefix); })) {
      throw UsageError(
          fmt::format("no metric starting with '{}' in {} or {}", prefix, a.source, b.source));
    }
  }
}

// What a run holds around keys it lacks: every dotted prefix of its keys (`Latency` of
// `Latency.runs`), so that a key of the other run is missing only when the run has nothing
// under it and no value at a metric containing it.
class Coverage {
 public:
  explicit Coverage(const detail::FlatRun& run) : run_(run) {
    for (const auto& v : run.values()) {
      for (auto dot = v.key.find('.'); dot != std::string::npos; dot = v.key.find('.', dot + 1)) {
        within_.insert(v.key.substr(0, dot));
      }
    }
  }

  // True when the run has a value at `key`, within it, or at a dotted prefix of it.
  [[nodiscard]] bool covers(const std::string& key) const {
    if (run_.get(key).state != FlatValue::State::Missing || within_.count(key) > 0) return true;
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
      if (run_.get(key.substr(0, dot)).state != FlatValue::State::Missing) return true;
    }
    return false;
  }

 private:
  const detail::FlatRun& run_;
  std::unordered_set<std::string> within_;
};

// Two values of `key` compared; `b_covered`: b has something at, within or around the key.
ComparisonRow compare_values(const std::string& key, FlatValue a, FlatValue b, bool b_covered,
                             MetricInfo info, double fail_above_percent) {
  ComparisonRow row;
  row.key = key;
  row.info = std::move(info);
  row.a = std::move(a);
  row.b = std::move(b);
  const Difference d = detail::difference(row.a, row.b, row.info.better);
  row.has_difference = d.available;
  row.difference = d.abs;
  row.has_percent = d.available && d.has_percent;
  row.percent = d.percent;
  if (d.verdict == Difference::Verdict::Worse) {
    // "More than" the threshold; a rounding error at the threshold itself does not count.
    const double threshold = fail_above_percent * (1 + 1e-9) + 1e-12;
    row.regression = !d.has_percent || std::abs(d.percent) > threshold;
  }
  // NaN or an infinity is no measurement: a regression whichever way is better.
  if (detail::is_non_finite(row.b) && !detail::same_non_finite(row.a, row.b)) {
    row.regression = true;
  }
  row.failed_in_b = row.b.state == FlatValue::State::Failed;
  row.missing_in_b = row.b.state == FlatValue::State::Missing &&
                     row.a.state != FlatValue::State::Missing && !b_covered;
  return row;
}

ComparisonRow compare_key(const std::string& key, const detail::FlatRun& a,
                          const detail::FlatRun& b, const Coverage& b_coverage, MetricInfo info,
                          double fail_above_percent) {
  return compare_values(key, a.get(key), b.get(key), b_coverage.covers(key), std::move(info),
                        fail_above_percent);
}

}  // namespace

std::vector<ComparisonRow> compare(const RunResults& a, const RunResults& b,
                                   const CompareOptions& options) {
  options.validate();
  const std::vector<detail::FlatRun> flat = {detail::FlatRun(a), detail::FlatRun(b)};
  const std::vector<std::string> keys = detail::union_keys(flat);
  check_prefixes(keys, options, a, b);
  // The newest description: b's `_metrics`, then a's, then the legacy table.
  const detail::MetricIndex newest(std::vector<const RunResults*>{&b, &a});
  const Coverage b_coverage(flat[1]);
  std::vector<ComparisonRow> rows;
  for (const auto& key : keys) {
    if (!selected(key, options)) continue;
    rows.push_back(compare_key(key, flat[0], flat[1], b_coverage, newest.info(key),
                               options.fail_above_percent));
  }
  return rows;
}

bool has_regression(const std::vector<ComparisonRow>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const ComparisonRow& r) { return r.regression; });
}

bool comparison_failed(const std::vector<ComparisonRow>& rows, const CompareOptions& options) {
  return std::any_of(rows.begin(), rows.end(), [&](const ComparisonRow& r) {
    return r.regression || (r.failed_in_b && !options.allow_failed) ||
           (r.missing_in_b && !options.allow_missing);
  });
}

// --- FSCIL sessions ----------------------------------------------------------------------------

namespace {

// The session numbered `number` of a run, or nullptr.
const FscilSessionEntry* compare_fscil_session(const FscilRun& run, int64_t number) {
  for (const auto& s : run.sessions) {
    if (s.session == number) return &s;
  }
  return nullptr;
}

// A session's value, Missing when the run lacks the session.
FlatValue compare_fscil_value(const FscilSessionEntry* s, const std::string& key) {
  if (s != nullptr) return detail::fscil_session_value(*s, key);
  FlatValue missing;
  missing.key = key;
  return missing;
}

}  // namespace

FscilComparison compare_fscil_sessions(const RunResults& a, const RunResults& b,
                                       const CompareOptions& options) {
  options.validate();
  FscilComparison out;
  if (!a.fscil || !b.fscil) {
    if (a.fscil || b.fscil) {
      const RunResults& other = a.fscil ? b : a;
      out.skipped = fmt::format(
          "{} ({}) is not an FSCIL results file: the sessions are not compared, the means are",
          other.label, other.source);
    }
    return out;
  }
  out.compared = true;
  const detail::MetricIndex newest(std::vector<const RunResults*>{&b, &a});
  // The session values compared: (the value's key, the metric giving its unit and direction).
  const std::array<std::pair<std::string, std::string>, 2> values = {
      std::pair<std::string, std::string>{"ClassificationAccuracy", "ClassificationAccuracy"},
      {detail::kFscilNewClassesKey, "FscilNewClassesAccuracy"}};
  std::vector<int64_t> numbers;
  for (const auto* run : {&*a.fscil, &*b.fscil}) {
    for (const auto& s : run->sessions) {
      if (std::find(numbers.begin(), numbers.end(), s.session) == numbers.end()) {
        numbers.push_back(s.session);
      }
    }
  }
  for (const int64_t n : numbers) {
    const FscilSessionEntry* sa = compare_fscil_session(*a.fscil, n);
    const FscilSessionEntry* sb = compare_fscil_session(*b.fscil, n);
    if (sa != nullptr && sb != nullptr && sa->name != sb->name) {
      out.renamed.push_back(fmt::format("session {}: {} in A, {} in B", n, sa->name, sb->name));
    }
    for (const auto& [key, metric] : values) {
      if (!selected(metric, options)) continue;
      const FlatValue va = compare_fscil_value(sa, key);
      const FlatValue vb = compare_fscil_value(sb, key);
      if (va.state == FlatValue::State::Missing && vb.state == FlatValue::State::Missing) continue;
      MetricInfo info = newest.info(metric);
      if (info.unit.empty() && info.better == Better::None) info = {"fraction", Better::Higher};
      out.rows.push_back(compare_values(fmt::format("session {}.{}", n, key), va, vb, false,
                                        std::move(info), options.fail_above_percent));
    }
  }
  return out;
}

// --- the terminal table ----------------------------------------------------------------------

namespace {

using Cells = std::array<std::string, 7>;

Cells row_cells(const ComparisonRow& r, const CompareOptions& options) {
  Cells cells;
  cells[0] = r.key;
  cells[1] = r.info.unit;
  cells[2] = detail::value_text(r.a, "FAILED", "missing");
  cells[3] = detail::value_text(r.b, "FAILED", "missing");
  if (r.has_difference) {
    cells[4] = detail::signed_number(r.difference);
    Difference d;
    d.has_percent = r.has_percent;
    d.percent = r.percent;
    cells[5] = detail::percent_text(d);
  }
  const Difference verdict = detail::difference(r.a, r.b, r.info.better);
  if (r.regression && detail::is_non_finite(r.b)) {
    cells[6] = "<< REGRESSION (not a finite number)";
  } else if (r.regression) {
    cells[6] = fmt::format("<< REGRESSION ({} is better)", to_string(r.info.better));
  } else if (r.failed_in_b) {
    cells[6] = options.allow_failed ? "failed in B (allowed)" : "<< FAILED in B";
  } else if (r.missing_in_b) {
    cells[6] = options.allow_missing ? "missing in B (allowed)" : "<< MISSING in B";
  } else if (r.b.state == FlatValue::State::Unavailable &&
             r.a.state != FlatValue::State::Unavailable) {
    cells[6] = "unavailable in B";  // not measurable where B ran: no failure
  } else if (verdict.verdict == Difference::Verdict::Worse) {
    cells[6] = "worse";
  } else if (verdict.verdict == Difference::Verdict::Better) {
    cells[6] = "better";
  }
  return cells;
}

// The lines aligned in columns (text left, numbers right), with a rule under the header.
std::string aligned(const std::vector<Cells>& lines) {
  std::array<std::size_t, 7> width{};
  for (const auto& l : lines) {
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], l[c].size());
  }
  std::string out;
  auto emit = [&](const Cells& l) {
    std::string s =
        fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}", l[0], width[0], l[1],
                    width[1], l[2], width[2], l[3], width[3], l[4], width[4], l[5], width[5]);
    if (!l[6].empty()) s += "  " + l[6];
    s.erase(s.find_last_not_of(' ') + 1);
    out += s + "\n";
  };
  emit(lines[0]);
  Cells rule;
  for (std::size_t c = 0; c < 6; ++c) rule[c] = std::string(width[c], '-');
  emit(rule);
  for (std::size_t i = 1; i < lines.size(); ++i) emit(lines[i]);
  return out;
}

// One line naming the rows `pick` selects, when there are any.
template <class Pick>
std::string summary_line(const std::vector<ComparisonRow>& rows, Pick pick, const char* what,
                         bool allowed) {
  std::vector<std::string> keys;
  for (const auto& r : rows) {
    if (pick(r)) keys.push_back(r.key);
  }
  if (keys.empty()) return "";
  return fmt::format("{} {} {}{}: {}\n", keys.size(), keys.size() == 1 ? "metric" : "metrics",
                     what, allowed ? " (allowed)" : "", fmt::join(keys, ", "));
}

std::string summary(const std::vector<ComparisonRow>& rows, const CompareOptions& options) {
  std::vector<std::string> regressions;
  for (const auto& r : rows) {
    if (r.regression) regressions.push_back(r.key);
  }
  const std::string threshold = format_number(options.fail_above_percent) + "%";
  std::string out =
      regressions.empty()
          ? fmt::format("\nno regression above {} ({} metrics compared)\n", threshold,
                        rows.size())
          : fmt::format("\n{} regression{} above {}: {}\n", regressions.size(),
                        regressions.size() == 1 ? "" : "s", threshold,
                        fmt::join(regressions, ", "));
  out += summary_line(
      rows, [](const ComparisonRow& r) { return r.failed_in_b; }, "failed in B",
      options.allow_failed);
  out += summary_line(
      rows, [](const ComparisonRow& r) { return r.missing_in_b; }, "missing in B",
      options.allow_missing);
  return out;
}

}  // namespace

std::string render_fscil_comparison(const FscilComparison& comparison, const RunResults& a,
                                    const RunResults& b, const CompareOptions& options) {
  if (!comparison.compared) {
    return comparison.skipped.empty() ? ""
                                      : "\nFSCIL sessions skipped: " + comparison.skipped + "\n";
  }
  std::string out = fmt::format("\nFSCIL sessions ({} compared with {}, session by session):\n",
                                b.label, a.label);
  for (const auto& r : comparison.renamed) out += "note: " + r + "\n";
  if (comparison.rows.empty()) return out + "no session value selected\n";
  std::vector<Cells> lines;
  lines.push_back({"session value", "unit", a.label, b.label, "diff", "%diff", ""});
  for (const auto& r : comparison.rows) lines.push_back(row_cells(r, options));
  return out + aligned(lines) + summary(comparison.rows, options);
}

std::string render_comparison(const std::vector<ComparisonRow>& rows, const RunResults& a,
                              const RunResults& b, const CompareOptions& options) {
  std::vector<Cells> lines;
  lines.push_back({"metric", "unit", a.label, b.label, "diff", "%diff", ""});
  for (const auto& r : rows) lines.push_back(row_cells(r, options));
  std::string out = fmt::format("A: {} ({})\nB: {} ({})\n", a.label, a.source, b.label, b.source);
  // Runs whose metrics saw different parts of the model (--metrics-scope) measure different
  // things: footprint, sparsity and operations.
  const std::string scope_a = detail::run_field(a, "metrics_scope");
  const std::string scope_b = detail::run_field(b, "metrics_scope");
  if (scope_a != scope_b) {
    const auto scope_text = [](const std::string& s) {
      return s.empty() ? std::string("the whole model") : "submodule '" + s + "'";
    };
    out += fmt::format(
        "note: the metrics scopes differ: A's static and layer metrics measure {}, B's {}; "
        "their footprints, sparsities and operations are not comparable\n",
        scope_text(scope_a), scope_text(scope_b));
  }
  return out + "\n" + aligned(lines) + summary(rows, options);
}

}  // namespace neurobench
