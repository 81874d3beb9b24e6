// SPDX-License-Identifier: Apache-2.0
// The suite's summary: statistics of repeats (statistics.hpp) over the runs' flattened values.
#include "suite/summary.hpp"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include <neurobench/reporters/format.hpp>
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/metric_info.hpp>

#include "reporters/flat_values.hpp"
#include "reporters/text.hpp"
#include "suite/statistics.hpp"

namespace neurobench::suite {
namespace {

// The finite values of every flattened key of a group's runs with results, keys in order of
// first appearance.
struct GroupValues {
  std::vector<std::string> keys;
  std::map<std::string, std::vector<double>> values;
};

GroupValues group_values(const std::vector<const SummaryRun*>& runs) {
  GroupValues g;
  for (const SummaryRun* run : runs) {
    if (!run->results) continue;
    for (const FlatValue& v : flatten_metrics(run->results->metrics)) {
      if (g.values.find(v.key) == g.values.end()) {
        g.keys.push_back(v.key);
        g.values[v.key];
      }
      if (detail::is_finite(v)) g.values[v.key].push_back(v.number);
    }
  }
  return g;
}

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

const char* verdict_text(detail::Difference::Verdict v) {
  switch (v) {
    case detail::Difference::Verdict::Same: return "same";
    case detail::Difference::Verdict::Better: return "better";
    case detail::Difference::Verdict::Worse: return "worse";
    case detail::Difference::Verdict::Neutral: return "neutral";
  }
  return "neutral";
}

Json stats_json(const SampleStats& s) {
  Json j = Json::object();
  j["n"] = s.n;
  j["mean"] = s.n > 0 ? Json(s.mean) : Json(nullptr);
  j["sd"] = optional_number(s.sd);
  j["ci95_half_width"] = optional_number(s.ci95_half_width);
  j["ci95"] = s.ci95_half_width ? Json::array({s.mean - *s.ci95_half_width,
                                               s.mean + *s.ci95_half_width})
                                : Json(nullptr);
  return j;
}

}  // namespace

Json summary_json(const SuiteFile& suite, const std::vector<SummaryRun>& runs, int jobs,
                  std::optional<double> timeout_seconds) {
  Json out = Json::object();
  out["suite"] = suite.name;
  out["file"] = suite.file.string();
  out["repeats"] = suite.repeats;
  out["jobs"] = jobs;
  out["timeout_seconds"] = optional_number(timeout_seconds);
  out["baseline"] = suite.baseline;

  // Runs by group, and every run with results for the metrics' units and directions.
  std::map<std::string, std::vector<const SummaryRun*>> by_group;
  std::vector<RunResults> all_results;
  for (const auto& run : runs) {
    by_group[run.group].push_back(&run);
    if (run.results) all_results.push_back(*run.results);
  }
  std::map<std::string, GroupValues> values;
  for (const auto& g : suite.groups) values[g.id] = group_values(by_group[g.id]);
  const GroupValues& base = values[suite.baseline];

  Json runs_json = Json::array();
  for (const auto& run : runs) runs_json.push_back(run.record);
  out["runs"] = runs_json;

  Json groups = Json::array();
  int failed_runs = 0;
  for (const auto& g : suite.groups) {
    Json group = Json::object();
    group["id"] = g.id;
    group["baseline"] = g.id == suite.baseline;
    group["timed"] = g.timed;
    int ok = 0;
    Json failures = Json::array();
    for (const SummaryRun* run : by_group[g.id]) {
      const std::string status = run->record.value("status", "");
      if (status == "ok") {
        ++ok;
      } else {
        ++failed_runs;
        failures.push_back(Json{{"repeat", run->repeat},
                                {"status", status},
                                {"cause", run->record.value("cause", "")}});
      }
    }
    group["runs"] = by_group[g.id].size();
    group["ok"] = ok;
    group["failures"] = failures;
    Json metrics = Json::object();
    const GroupValues& mine = values[g.id];
    for (const std::string& key : mine.keys) {
      const SampleStats stats = summarize(mine.values.at(key));
      Json m = stats_json(stats);
      const MetricInfo info = metric_info(all_results, key);
      m["unit"] = info.unit;
      m["better"] = std::string(to_string(info.better));
      const auto b = base.values.find(key);
      if (g.id != suite.baseline && b != base.values.end() && !b->second.empty() && stats.n > 0) {
        const SampleStats base_stats = summarize(b->second);
        FlatValue a{key, FlatValue::State::Number, base_stats.mean};
        FlatValue v{key, FlatValue::State::Number, stats.mean};
        const detail::Difference d = detail::difference(a, v, info.better);
        m["vs_baseline"] = Json{{"difference", d.abs},
                                {"percent", d.has_percent && base_stats.mean != 0
                                                ? Json(d.percent)
                                                : Json(nullptr)},
                                {"verdict", verdict_text(d.verdict)},
                                {"welch_p", optional_number(welch_p_value(base_stats, stats))}};
      }
      metrics[key] = m;
    }
    group["metrics"] = metrics;
    groups.push_back(group);
  }
  out["groups"] = groups;
  out["failed_runs"] = failed_runs;
  return out;
}

namespace {

std::string number_or_dash(const Json& v) {
  return v.is_number() ? format_number(v.get<double>()) : std::string("-");
}

std::string seconds_text(const Json& v) {
  return v.is_number() ? fmt::format("{:.2f}", v.get<double>()) : std::string("-");
}

std::string mib_text(const Json& v) {
  return v.is_number() ? fmt::format("{:.1f}", v.get<double>() / (1024.0 * 1024.0))
                       : std::string("-");
}

}  // namespace

std::string summary_markdown(const Json& s) {
  std::string md = fmt::format("# Suite {}\n\n", detail::md_esc(s.value("suite", "")));
  const Json& groups = s["groups"];
  md += fmt::format(
      "{} group{} x {} repeat{}; baseline `{}`; {} job{} at once; per-run timeout {}.\n\n",
      groups.size(), groups.size() == 1 ? "" : "s", s["repeats"].get<int>(),
      s["repeats"].get<int>() == 1 ? "" : "s", detail::md_esc(s.value("baseline", "")),
      s["jobs"].get<int>(), s["jobs"].get<int>() == 1 ? "" : "s",
      s["timeout_seconds"].is_number()
          ? fmt::format("{:g} s", s["timeout_seconds"].get<double>())
          : std::string("none"));
  const int failed = s.value("failed_runs", 0);
  md += failed == 0 ? std::string("Every run succeeded.\n\n")
                    : fmt::format("**{} run{} failed** (below).\n\n", failed,
                                  failed == 1 ? "" : "s");

  md += "## Runs\n\n| run | status | wall (s) | peak RSS (MiB) | alone | cause |\n"
        "|---|---|---:|---:|---|---|\n";
  for (const Json& r : s["runs"]) {
    md += fmt::format("| {}/rep-{} | {} | {} | {} | {} | {} |\n",
                      detail::md_esc(r.value("group", "")), r.value("repeat", 0),
                      r.value("status", ""), seconds_text(r.value("wall_seconds", Json())),
                      mib_text(r.value("peak_rss_bytes", Json())),
                      r.value("alone", false) ? "yes" : "no",
                      detail::md_esc(r.value("cause", "")));
  }
  md += "\n## Metrics\n\nMean, sample standard deviation (n - 1), 95% confidence interval of the "
        "mean (Student's t), and the difference of the means to the baseline group with "
        "Welch's two-sided p-value.\n";
  // Keys in order of first appearance over the groups.
  std::vector<std::string> keys;
  std::map<std::string, bool> seen;
  for (const Json& g : groups) {
    for (const auto& [key, m] : g["metrics"].items()) {
      if (!seen[key]) keys.push_back(key);
      seen[key] = true;
    }
  }
  for (const std::string& key : keys) {
    std::string unit, better;
    for (const Json& g : groups) {
      if (g["metrics"].contains(key)) {
        unit = g["metrics"][key].value("unit", "");
        better = g["metrics"][key].value("better", "none");
        break;
      }
    }
    md += fmt::format("\n### {}\n\n", detail::md_esc(key));
    if (!unit.empty() || better != "none") {
      md += fmt::format("{}{}{}\n\n", unit.empty() ? "" : "unit: " + detail::md_esc(unit),
                        !unit.empty() && better != "none" ? "; " : "",
                        better == "none" ? "" : better + " is better");
    }
    md += "| group | n | mean | sd | 95% CI | vs baseline | % | verdict | p (Welch) |\n"
          "|---|---:|---:|---:|---|---:|---:|---|---:|\n";
    for (const Json& g : groups) {
      if (!g["metrics"].contains(key)) continue;
      const Json& m = g["metrics"][key];
      const std::string ci =
          m["ci95"].is_array()
              ? fmt::format("[{}, {}]", format_number(m["ci95"][0].get<double>()),
                            format_number(m["ci95"][1].get<double>()))
              : std::string("-");
      std::string diff = g.value("baseline", false) ? "baseline" : "-";
      std::string pct = "-", verdict = "-", p = "-";
      if (m.contains("vs_baseline")) {
        const Json& vb = m["vs_baseline"];
        diff = detail::signed_number(vb["difference"].get<double>());
        pct = vb["percent"].is_number() ? fmt::format("{:+.2f}%", vb["percent"].get<double>())
                                        : std::string("-");
        verdict = vb.value("verdict", "-");
        p = vb["welch_p"].is_number() ? fmt::format("{:.3g}", vb["welch_p"].get<double>())
                                      : std::string("-");
      }
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                        detail::md_esc(g.value("id", "")), m.value("n", 0),
                        number_or_dash(m["mean"]), number_or_dash(m["sd"]), ci, diff, pct,
                        verdict, p);
    }
  }
  return md;
}

std::string summary_html(const SuiteFile& suite, const std::vector<SummaryRun>& runs) {
  std::vector<RunResults> chosen;
  const auto first_of = [&](const std::string& group) {
    for (const auto& run : runs) {
      if (run.group == group && run.results) {
        RunResults r = *run.results;
        r.label = group;
        chosen.push_back(std::move(r));
        return;
      }
    }
  };
  first_of(suite.baseline);
  for (const auto& g : suite.groups) {
    if (g.id != suite.baseline) first_of(g.id);
  }
  if (chosen.empty()) return "";
  return render_html_report(chosen);
}

}  // namespace neurobench::suite
