// SPDX-License-Identifier: Apache-2.0
// FSCIL results files in reports and comparisons: the results file's `_fscil` read back
// (RunResults::fscil), the session tables, the chart of accuracy over sessions, the comparison
// session by session, and `neurobench report` / `compare` on such files.
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>
#include <neurobench/fscil.hpp>
#include <neurobench/reporters/compare.hpp>
#include <neurobench/reporters/html_report.hpp>
#include <neurobench/reporters/markdown_report.hpp>

#include "reporters/report_support.hpp"

using neurobench::FlatValue;
using neurobench::Json;
using neurobench::RunResults;
using neurobench::test::count;
using neurobench::test::section;

namespace {

// One session of a made-up FSCIL run.
struct FscilReportSession {
  double all;                  // accuracy on all classes seen
  std::optional<double> news;  // on the new classes alone (none: the base session)
  double sparsity;
  double macs;
  double acs;
};

// The results document save_fscil_results() writes for these sessions: the base session of 100
// classes, then sessions of 10 new classes named `names`.
Json fscil_report_document(const std::vector<FscilReportSession>& sessions,
                           const std::vector<std::string>& names = {"de", "fr", "es"}) {
  neurobench::FscilResults r;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    const auto& s = sessions[i];
    neurobench::FscilSessionResult out;
    out.session = static_cast<int64_t>(i);
    out.name = i == 0 ? "base" : names.at(i - 1);
    out.classes = 100 + 10 * static_cast<int64_t>(i);
    out.all.values = {{"ClassificationAccuracy", s.all},
                      {"ActivationSparsity", s.sparsity},
                      {"SynapticOperations",
                       {{"Effective_MACs", s.macs}, {"Effective_ACs", s.acs}, {"Dense", 5000}}}};
    out.all.samples = 1000 + 100 * static_cast<int64_t>(i);
    if (s.news) {
      neurobench::Results q;
      q.values = {{"ClassificationAccuracy", *s.news}};
      q.samples = 100 * static_cast<int64_t>(i);
      out.new_classes_only = q;
    }
    r.sessions.push_back(out);
  }
  return neurobench::fscil_results_document(r);
}

RunResults fscil_report_run(const std::string& label,
                            const std::vector<FscilReportSession>& sessions) {
  return neurobench::parse_run_results(fscil_report_document(sessions), label, label + ".json");
}

const std::vector<FscilReportSession>& fscil_report_a() {
  static const std::vector<FscilReportSession> a = {{0.9, std::nullopt, 0.5, 1000, 0},
                                                    {0.8, 0.6, 0.4, 1100, 10},
                                                    {0.75, 0.5, 0.45, 1200, 20},
                                                    {0.7, 0.4, 0.375, 1300, 30}};
  return a;
}

// B: session 2 worse on all classes seen (-10%), better on the new classes.
const std::vector<FscilReportSession>& fscil_report_b() {
  static const std::vector<FscilReportSession> b = {{0.9, std::nullopt, 0.5, 1000, 0},
                                                    {0.8, 0.6, 0.4, 1100, 10},
                                                    {0.675, 0.625, 0.45, 1200, 20},
                                                    {0.7, 0.4, 0.375, 1300, 30}};
  return b;
}

// The text of the HTML row of `session` in the session table of `run`.
std::string fscil_report_row(const std::string& html, const std::string& run, int session) {
  const auto table = html.find("<table class=\"fscil-sessions\" data-run=\"" + run + "\"");
  REQUIRE(table != std::string::npos);
  const auto begin = html.find("<tr data-session=\"" + std::to_string(session) + "\">", table);
  REQUIRE(begin != std::string::npos);
  const auto end = html.find("</tr>", begin);
  REQUIRE(html.find("</table>", table) > end);
  return html.substr(begin, end - begin);
}

// The value a cell of `row` holds for `key` (data-value), or its data-state.
std::string fscil_report_cell(const std::string& row, const std::string& key) {
  std::smatch m;
  const std::regex value("data-key=\"" + key + "\" data-value=\"([^\"]*)\"");
  if (std::regex_search(row, m, value)) return m[1];
  const std::regex state("data-key=\"" + key + "\" data-state=\"([^\"]*)\"");
  if (std::regex_search(row, m, state)) return "state:" + m[1].str();
  FAIL("no cell " << key << " in " << row);
  return "";
}

// The (x, y) points of the polyline of `run` and `kind` (all-seen, new-classes).
std::vector<std::pair<double, double>> fscil_report_polyline(const std::string& svg,
                                                             const std::string& run,
                                                             const std::string& kind) {
  std::smatch m;
  const std::regex line("<polyline class=\"line " + kind + "\" data-run=\"" + run +
                        "\" data-points=\"(\\d+)\" points=\"([^\"]*)\"");
  REQUIRE(std::regex_search(svg, m, line));
  std::vector<std::pair<double, double>> points;
  const std::string text = m[2];
  const std::regex point("(-?[0-9.]+),(-?[0-9.]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), point);
       it != std::sregex_iterator(); ++it) {
    points.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  }
  REQUIRE(std::stoul(m[1]) == points.size());
  return points;
}

}  // namespace

TEST_CASE("an FSCIL results file is read back with every session", "[report][fscil]") {
  const RunResults run = fscil_report_run("a", fscil_report_a());
  REQUIRE(run.fscil.has_value());
  REQUIRE(run.fscil->base_classes == 100);
  REQUIRE(run.fscil->sessions.size() == 4);
  const auto& base = run.fscil->sessions[0];
  REQUIRE(base.session == 0);
  REQUIRE(base.name == "base");
  REQUIRE(base.classes == 100);
  REQUIRE(base.samples == 1000);
  REQUIRE(base.new_classes_accuracy.state == FlatValue::State::Missing);
  const auto& s2 = run.fscil->sessions[2];
  REQUIRE(s2.name == "fr");
  REQUIRE(s2.classes == 120);
  REQUIRE(s2.query_samples == 200);
  REQUIRE(s2.new_classes_accuracy.state == FlatValue::State::Number);
  REQUIRE(s2.new_classes_accuracy.number == 0.5);
  REQUIRE(s2.values["ClassificationAccuracy"].get<double>() == 0.75);
  REQUIRE(s2.values["SynapticOperations"]["Effective_ACs"].get<double>() == 20);
  // The means stay the run's metrics.
  REQUIRE(run.metrics["ClassificationAccuracy"].get<double>() ==
          Approx((0.9 + 0.8 + 0.75 + 0.7) / 4));
  REQUIRE(run.metrics["FscilNewClassesAccuracy"].get<double>() == Approx(0.5));
  // A results file of `neurobench run` has none.
  REQUIRE_FALSE(neurobench::test::run_of("plain", R"({"ClassificationAccuracy": 0.5})").fscil);
}

TEST_CASE("a malformed _fscil is an InputError naming the entry", "[report][fscil]") {
  Json doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][1]["values"] = "x";
  REQUIRE_THROWS_WITH(neurobench::parse_run_results(doc, "a", "a.json"),
                      Catch::Contains("a.json") && Catch::Contains("_fscil.sessions[1].values") &&
                          Catch::Contains("expected an object"));
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][2]["values"]["ClassificationAccuracy"] = "high";
  REQUIRE_THROWS_WITH(neurobench::parse_run_results(doc, "a", "a.json"),
                      Catch::Contains("_fscil.sessions[2].values.ClassificationAccuracy"));
  // An accuracy that is an object would be shown and compared as missing.
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][1]["values"]["ClassificationAccuracy"] = {{"top1", 0.5}};
  REQUIRE_THROWS_WITH(neurobench::parse_run_results(doc, "a", "a.json"),
                      Catch::Contains("'_fscil.sessions[1].values.ClassificationAccuracy' is an "
                                      "object; expected a number"));
  // Session numbers: none negative, none twice.
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][2]["session"] = -1;
  REQUIRE_THROWS_WITH(neurobench::parse_run_results(doc, "a", "a.json"),
                      Catch::Contains("'_fscil.sessions[2].session' is -1; expected 0 or more"));
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][3]["session"] = 1;
  REQUIRE_THROWS_WITH(neurobench::parse_run_results(doc, "a", "a.json"),
                      Catch::Contains("'_fscil.sessions[3].session' is 1, as "
                                      "'_fscil.sessions[1].session' is"));
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][0].erase("classes");
  REQUIRE_THROWS_WITH(neurobench::parse_run_results(doc, "a", "a.json"),
                      Catch::Contains("'_fscil.sessions[0]' has no 'classes'"));
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"] = Json::object();
  REQUIRE_THROWS_AS(neurobench::parse_run_results(doc, "a", "a.json"), neurobench::InputError);
  // A failed new-classes accuracy (null in an incremental session) is Failed, not Missing.
  doc = fscil_report_document(fscil_report_a());
  doc["_fscil"]["sessions"][3]["new_classes_accuracy"] = nullptr;
  const RunResults run = neurobench::parse_run_results(doc, "a", "a.json");
  REQUIRE(run.fscil->sessions[3].new_classes_accuracy.state == FlatValue::State::Failed);
}

TEST_CASE("the Markdown report has a table of every FSCIL session", "[report][fscil]") {
  const RunResults a = fscil_report_run("a", fscil_report_a());
  const RunResults plain = neurobench::test::run_of("plain", R"({"ClassificationAccuracy": 0.5})");
  const std::string md = neurobench::render_markdown_report({a, plain});
  REQUIRE_THAT(md, Catch::Contains("### FSCIL sessions: a\n"));
  REQUIRE_THAT(md, Catch::Contains("| Session | Name | Classes seen | Accuracy, all seen | "
                                   "Accuracy, new classes | Activation sparsity |"));
  REQUIRE_THAT(md, Catch::Contains("| 0 | base | 100 | 0.9 | n/a | 0.5 | 1000 | 0 |\n"));
  REQUIRE_THAT(md, Catch::Contains("| 1 | de | 110 | 0.8 | 0.6 | 0.4 | 1100 | 10 |\n"));
  REQUIRE_THAT(md, Catch::Contains("| 2 | fr | 120 | 0.75 | 0.5 | 0.45 | 1200 | 20 |\n"));
  REQUIRE_THAT(md, Catch::Contains("| 3 | es | 130 | 0.7 | 0.4 | 0.375 | 1300 | 30 |\n"));
  REQUIRE_THAT(md, Catch::Contains("No sessions for plain: not an FSCIL results file."));
  // Without an FSCIL run, nothing of it.
  REQUIRE_THAT(neurobench::render_markdown_report({plain}), !Catch::Contains("FSCIL"));
}

TEST_CASE("the HTML report has a table of every FSCIL session and a chart of accuracy",
          "[report][fscil]") {
  const RunResults a = fscil_report_run("a", fscil_report_a());
  const RunResults b = fscil_report_run("b", fscil_report_b());
  const std::string html = neurobench::render_html_report({a, b});
  REQUIRE_THAT(html, Catch::Contains("<a href=\"#fscil\">"));
  const std::string tables = section(html, "fscil");
  REQUIRE(count(tables, "<table class=\"fscil-sessions\"") == 2);
  REQUIRE(count(tables, "<tr data-session=") == 8);
  const std::string row = fscil_report_row(html, "a", 2);
  REQUIRE(fscil_report_cell(row, "classes") == "120");
  REQUIRE(fscil_report_cell(row, "ClassificationAccuracy") == "0.75");
  REQUIRE(fscil_report_cell(row, "new_classes_accuracy") == "0.5");
  REQUIRE(fscil_report_cell(row, "ActivationSparsity") == "0.45");
  REQUIRE(fscil_report_cell(row, "SynapticOperations.Effective_MACs") == "1200");
  REQUIRE(fscil_report_cell(row, "SynapticOperations.Effective_ACs") == "20");
  REQUIRE(fscil_report_cell(fscil_report_row(html, "b", 2), "ClassificationAccuracy") == "0.675");
  REQUIRE(fscil_report_cell(fscil_report_row(html, "a", 0), "new_classes_accuracy") ==
          "state:missing");

  const std::string chart = section(html, "chart-fscil");
  REQUIRE_THAT(chart, Catch::Contains("<svg id=\"svg-fscil\""));
  REQUIRE(count(chart, "<polyline ") == 4);  // two runs, two lines each
  for (const char* run : {"a", "b"}) {
    const auto& sessions = std::string(run) == "a" ? fscil_report_a() : fscil_report_b();
    const auto all = fscil_report_polyline(chart, run, "all-seen");
    const auto news = fscil_report_polyline(chart, run, "new-classes");
    REQUIRE(all.size() == 4);   // sessions 0 to 3
    REQUIRE(news.size() == 3);  // sessions 1 to 3: the base session has no new classes
    // Sessions evenly spaced along x; the new-classes line starts at session 1.
    const double step = all[1].first - all[0].first;
    REQUIRE(step > 0);
    for (std::size_t i = 1; i < all.size(); ++i) {
      REQUIRE(all[i].first - all[i - 1].first == Approx(step).margin(0.11));
    }
    REQUIRE(news[0].first == Approx(all[1].first));
    // y on one linear scale from 0 to 1, downwards: y = y0 - accuracy * h.
    const double h = (all[1].second - all[0].second) / (sessions[0].all - sessions[1].all);
    REQUIRE(h > 0);
    const double y0 = all[0].second + sessions[0].all * h;
    for (std::size_t i = 0; i < all.size(); ++i) {
      REQUIRE(all[i].second == Approx(y0 - sessions[i].all * h).margin(0.11));
    }
    for (std::size_t i = 0; i < news.size(); ++i) {
      REQUIRE(news[i].second == Approx(y0 - *sessions[i + 1].news * h).margin(0.11));
    }
  }
  // The points carry the exact values.
  REQUIRE(count(chart, "class=\"point new-classes\" data-session=\"2\" data-value=\"0.625\"") == 1);
  // A plain run alone: no section, no chart, no link.
  const RunResults plain = neurobench::test::run_of("plain", R"({"ClassificationAccuracy": 0.5})");
  const std::string bare = neurobench::render_html_report({plain});
  REQUIRE_THAT(bare, !Catch::Contains("id=\"fscil\"") && !Catch::Contains("svg-fscil") &&
                         !Catch::Contains("#fscil"));
  // Beside an FSCIL run: named as not shown.
  REQUIRE_THAT(section(neurobench::render_html_report({a, plain}), "fscil"),
               Catch::Contains("Not shown: plain (not an FSCIL results file)"));
}

TEST_CASE("two FSCIL results files are compared session by session", "[report][fscil]") {
  const RunResults a = fscil_report_run("a", fscil_report_a());
  const RunResults b = fscil_report_run("b", fscil_report_b());
  const neurobench::FscilComparison c = neurobench::compare_fscil_sessions(a, b);
  REQUIRE(c.compared);
  REQUIRE(c.skipped.empty());
  // Sessions 0 to 3 on all classes, 1 to 3 on the new classes.
  REQUIRE(c.rows.size() == 7);
  const auto& worse = neurobench::test::row(c.rows, "session 2.ClassificationAccuracy");
  REQUIRE(worse.a.number == 0.75);
  REQUIRE(worse.b.number == 0.675);
  REQUIRE(worse.difference == Approx(-0.075));
  REQUIRE(worse.percent == Approx(-10));
  REQUIRE(worse.info.better == neurobench::Better::Higher);
  REQUIRE(worse.regression);
  const auto& better = neurobench::test::row(c.rows, "session 2.new_classes_accuracy");
  REQUIRE(better.difference == Approx(0.125));
  REQUIRE(better.percent == Approx(25));
  REQUIRE(better.info.better == neurobench::Better::Higher);
  REQUIRE(better.info.unit == "fraction");
  REQUIRE_FALSE(better.regression);
  REQUIRE(neurobench::comparison_failed(c.rows));
  // With a threshold above 10%, no regression.
  neurobench::CompareOptions loose;
  loose.fail_above_percent = 11;
  REQUIRE_FALSE(
      neurobench::comparison_failed(neurobench::compare_fscil_sessions(a, b, loose).rows, loose));
  // --metrics selects the session values by metric.
  neurobench::CompareOptions only_new;
  only_new.metrics = {"FscilNew"};
  const auto selected = neurobench::compare_fscil_sessions(a, b, only_new);
  REQUIRE(selected.rows.size() == 3);
  REQUIRE_FALSE(neurobench::comparison_failed(selected.rows, only_new));

  const std::string text = neurobench::render_fscil_comparison(c, a, b);
  REQUIRE_THAT(text, Catch::Contains("FSCIL sessions (b compared with a, session by session)"));
  REQUIRE_THAT(text, Catch::Contains("session 2.ClassificationAccuracy") &&
                         Catch::Contains("-10.0%") &&
                         Catch::Contains("<< REGRESSION (higher is better)"));
  REQUIRE(count(text, "session 2.new_classes_accuracy .*better") == 1);
}

TEST_CASE("a session B lacks or names otherwise is marked, failed values too", "[report][fscil]") {
  const RunResults a = fscil_report_run("a", fscil_report_a());
  std::vector<FscilReportSession> shorter = fscil_report_a();
  shorter.pop_back();
  Json doc = fscil_report_document(shorter, {"de", "it", "es"});
  doc["_fscil"]["sessions"][1]["new_classes_accuracy"] = nullptr;
  const RunResults b = neurobench::parse_run_results(doc, "b", "b.json");
  const auto c = neurobench::compare_fscil_sessions(a, b);
  REQUIRE(neurobench::test::row(c.rows, "session 3.ClassificationAccuracy").missing_in_b);
  REQUIRE(neurobench::test::row(c.rows, "session 3.new_classes_accuracy").missing_in_b);
  REQUIRE(neurobench::test::row(c.rows, "session 1.new_classes_accuracy").failed_in_b);
  REQUIRE(c.renamed == std::vector<std::string>{"session 2: fr in A, it in B"});
  neurobench::CompareOptions allowed;
  allowed.allow_failed = allowed.allow_missing = true;
  REQUIRE(neurobench::comparison_failed(c.rows));
  REQUIRE_FALSE(neurobench::comparison_failed(c.rows, allowed));
  REQUIRE_THAT(neurobench::render_fscil_comparison(c, a, b),
               Catch::Contains("note: session 2: fr in A, it in B"));
}

TEST_CASE("an FSCIL file compared with a plain one: the means only, the sessions skipped",
          "[report][fscil]") {
  const RunResults a = fscil_report_run("a", fscil_report_a());
  const RunResults plain =
      neurobench::test::run_of("plain", R"({"ClassificationAccuracy": 0.8125})");
  for (const auto& [x, y] : {std::pair{a, plain}, std::pair{plain, a}}) {
    const auto c = neurobench::compare_fscil_sessions(x, y);
    REQUIRE_FALSE(c.compared);
    REQUIRE(c.rows.empty());
    REQUIRE_THAT(c.skipped, Catch::Contains("plain (plain.json) is not an FSCIL results file"));
    REQUIRE_THAT(neurobench::render_fscil_comparison(c, x, y),
                 Catch::Contains("FSCIL sessions skipped: plain (plain.json)"));
    REQUIRE(
        neurobench::test::row(neurobench::compare(x, y), "ClassificationAccuracy").has_difference);
  }
  const auto neither = neurobench::compare_fscil_sessions(plain, plain);
  REQUIRE_FALSE(neither.compared);
  REQUIRE(neither.skipped.empty());
  REQUIRE(neurobench::render_fscil_comparison(neither, plain, plain).empty());
}

TEST_CASE("neurobench report and compare show FSCIL sessions", "[cli][report][fscil]") {
  const neurobench::test::TempDir dir;
  const auto a =
      neurobench::test::write(dir, "a.json", fscil_report_document(fscil_report_a()).dump(2));
  const auto b =
      neurobench::test::write(dir, "b.json", fscil_report_document(fscil_report_b()).dump(2));
  const auto plain =
      neurobench::test::write(dir, "plain.json", R"({"ClassificationAccuracy": 0.8125})");
  using neurobench::test::q;
  using neurobench::test::run_cli;

  auto r = run_cli("compare " + q(a) + " " + q(b));
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);  // session 2 got 10% worse; the means only 2.5%
  REQUIRE_THAT(r.out,
               Catch::Contains("no regression above 5%") &&
                   Catch::Contains("FSCIL sessions (b compared with a") &&
                   Catch::Contains("1 regression above 5%: session 2.ClassificationAccuracy"));
  r = run_cli("compare " + q(a) + " " + q(b) + " --fail-above 11");
  REQUIRE(r.status == 0);
  r = run_cli("compare " + q(a) + " " + q(plain) + " --allow-missing");
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("FSCIL sessions skipped: plain (") &&
                          Catch::Contains("ClassificationAccuracy"));

  const auto html = dir / "report.html";
  r = run_cli("report " + q(a) + " " + q(b) + " -o " + q(html));
  REQUIRE(r.status == 0);
  const std::string page = neurobench::test::read_file(html);
  REQUIRE(count(page, "<polyline class=\"line all-seen\"") == 2);
  REQUIRE(fscil_report_cell(fscil_report_row(page, "b", 2), "ClassificationAccuracy") == "0.675");
  r = run_cli("report " + q(a));
  REQUIRE(r.status == 0);
  REQUIRE_THAT(r.out, Catch::Contains("| 2 | fr | 120 | 0.75 | 0.5 | 0.45 | 1200 | 20 |"));
}
