// SPDX-License-Identifier: Apache-2.0
// The MSWC FSCIL sessions: draws reproducible from a seed and shaped as NeuroBench draws them,
// draws files written and read back, the support and query sets built from them, and every
// draws file and release they refuse, by name.
#include <neurobench/datasets/mswc_sessions.hpp>

#include <algorithm>
#include <set>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/errors.hpp>

#include "datasets/mswc_release.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::Json;
using neurobench::UsageError;
using neurobench::datasets::Mswc;
using neurobench::datasets::MswcDraws;
using neurobench::datasets::MswcSessionOptions;
using neurobench::datasets::MswcSessions;
using neurobench::test::TempDir;
using neurobench::test::write_bytes;

namespace fs = std::filesystem;

namespace {

// Three languages of three classes of six clips: pools of three and three, two shots, two
// queries, two new classes a session.
MswcSessionOptions small() {
  MswcSessionOptions o;
  o.k_shot = 2;
  o.query_shots = 2;
  o.support_pool = 3;
  o.query_pool = 3;
  o.ways = 2;
  o.clips_per_class = 6;
  o.languages = {"fa", "eo", "pt"};
  return o;
}

fs::path make_sessions_release(const fs::path& root) {
  const fs::path m = root / "MSWC";
  neurobench::test::mswc_evaluation(m, "fa", 100, 3, 6);
  neurobench::test::mswc_evaluation(m, "eo", 110, 3, 6);
  neurobench::test::mswc_evaluation(m, "pt", 120, 3, 6);
  return m;
}

// The row of `path` in `lang`'s evaluation list (0-based, header left out).
int64_t row_of(const fs::path& m, const std::string& lang, const std::string& path) {
  neurobench::datasets::MswcOptions o;
  o.subset = neurobench::datasets::MswcSubset::Evaluation;
  o.language = lang;
  o.quiet = true;
  const Mswc list(m, o);
  for (int64_t i = 0; i < list.size(); ++i) {
    if (list.listed_path(i) == path) return i;
  }
  return -1;
}

}  // namespace

TEST_CASE("draws are the same for a seed and shaped as IncrementalFewShot draws them",
          "[datasets][mswc][sessions]") {
  TempDir tmp;
  const fs::path m = make_sessions_release(tmp.path());
  const MswcDraws a = neurobench::datasets::draw_mswc_sessions(m, small(), 7);
  const MswcDraws b = neurobench::datasets::draw_mswc_sessions(tmp.path(), small(), 7);
  CHECK(to_json(a) == to_json(b));
  CHECK(a.seed == 7U);
  std::set<std::string> orders;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    const MswcDraws d = neurobench::datasets::draw_mswc_sessions(m, small(), seed);
    std::string order;
    for (const auto& s : d.sessions) order += s.language + " ";
    orders.insert(order);
  }
  CHECK(orders.size() >= 4);  // the language order is drawn (6 orders of 3)

  REQUIRE(a.sessions.size() == 3);
  std::set<std::string> languages;
  for (const auto& s : a.sessions) {
    INFO(s.language);
    languages.insert(s.language);
    const int64_t first = s.language == "fa" ? 100 : s.language == "eo" ? 110 : 120;
    REQUIRE(s.classes.size() == 2);
    CHECK(s.classes[0] != s.classes[1]);
    for (std::size_t c = 0; c < 2; ++c) {
      CHECK(s.classes[c] >= first);
      CHECK(s.classes[c] < first + 3);
      REQUIRE(s.support[c].size() == 2);
      REQUIRE(s.query[c].size() == 2);
      const int64_t block = (s.classes[c] - first) * 6;
      for (const auto& p : s.support[c]) {
        const int64_t r = row_of(m, s.language, p) - block;
        CHECK((r >= 0 && r < 3));  // the support pool: the class's first three clips
      }
      for (const auto& p : s.query[c]) {
        const int64_t r = row_of(m, s.language, p) - block;
        CHECK((r >= 3 && r < 6));  // the query pool: the next three
      }
      CHECK(s.support[c][0] != s.support[c][1]);
      CHECK(s.query[c][0] != s.query[c][1]);
    }
  }
  CHECK(languages == std::set<std::string>{"eo", "fa", "pt"});
}

TEST_CASE("the sessions give support shot-major and the cumulative query of every session",
          "[datasets][mswc][sessions]") {
  TempDir tmp;
  const fs::path m = make_sessions_release(tmp.path());
  const MswcDraws draws = neurobench::datasets::draw_mswc_sessions(m, small(), 3);
  const MswcSessions sessions(tmp.path(), draws);
  REQUIRE(sessions.size() == 3);
  std::vector<int64_t> seen;
  int64_t queries = 0;
  for (int64_t i = 0; i < sessions.size(); ++i) {
    const auto& d = draws.sessions[static_cast<std::size_t>(i)];
    CHECK(sessions.new_classes(i) == d.classes);
    seen.insert(seen.end(), d.classes.begin(), d.classes.end());
    CHECK(sessions.query_classes(i) == seen);

    const auto support = sessions.support(i);
    REQUIRE(support->size() == 4);
    const neurobench::Batch s = support->get({0, 1, 2, 3});
    REQUIRE(s.data.sizes() == torch::IntArrayRef({4, 48000, 1}));
    // Clip shot * ways + class: shot 0 of each class, then shot 1 of each.
    CHECK(torch::equal(s.targets,
                       torch::tensor({d.classes[0], d.classes[1], d.classes[0], d.classes[1]})));
    const fs::path clips = m / d.language / "clips";
    CHECK(torch::equal(s.data[1], neurobench::datasets::load_mswc_clip(clips / d.support[1][0])));
    CHECK(torch::equal(s.data[2], neurobench::datasets::load_mswc_clip(clips / d.support[0][1])));

    const auto query = sessions.query(i);
    queries += 4;
    REQUIRE(query->size() == queries);
    const neurobench::Batch q = query->slice(queries - 4, queries);
    CHECK(torch::equal(q.targets,
                       torch::tensor({d.classes[0], d.classes[0], d.classes[1], d.classes[1]})));
    CHECK(torch::equal(q.data[3], neurobench::datasets::load_mswc_clip(clips / d.query[1][1])));
  }
  // The first session's query clips open every later query set.
  const auto& d0 = draws.sessions[0];
  CHECK(torch::equal(
      sessions.query(2)->get({1}).data[0],
      neurobench::datasets::load_mswc_clip(m / d0.language / "clips" / d0.query[0][1])));
  REQUIRE_THROWS_AS(sessions.support(3), UsageError);
  REQUIRE_THROWS_WITH(sessions.query(-1), Catch::Contains("session -1 is out of range"));
  REQUIRE_THROWS_AS(sessions.query(0)->get({4}), UsageError);
}

TEST_CASE("a draws file is written and read back whole", "[datasets][mswc][sessions]") {
  TempDir tmp;
  const fs::path m = make_sessions_release(tmp.path());
  const MswcDraws draws = neurobench::datasets::draw_mswc_sessions(m, small(), 11);
  neurobench::datasets::write_mswc_draws(draws, tmp / "draws.json");
  const MswcDraws back = neurobench::datasets::read_mswc_draws(tmp / "draws.json");
  CHECK(to_json(back) == to_json(draws));
  const Json json = Json::parse(neurobench::test::read_file(tmp / "draws.json"));
  CHECK(json["format"] == "neurobench-mswc-sessions");
  CHECK(json["version"] == 1);
  CHECK(json["seed"] == 11);
  CHECK(json["support_query_split"] == Json::array({3, 3}));
  CHECK(json["sessions"][0]["support"][1].size() == 2);

  MswcDraws no_seed = draws;
  no_seed.seed.reset();
  CHECK(to_json(no_seed)["seed"].is_null());
  CHECK_FALSE(neurobench::datasets::mswc_draws_from_json(to_json(no_seed), "x").seed);
}

TEST_CASE("a bad draws file is an InputError naming the file and the key at fault",
          "[datasets][mswc][sessions]") {
  TempDir tmp;
  const fs::path m = make_sessions_release(tmp.path());
  const Json good = to_json(neurobench::datasets::draw_mswc_sessions(m, small(), 5));
  const auto refused = [&](const Json& json, const std::string& text) {
    write_bytes(tmp / "bad.json", json.dump());
    INFO(text);
    REQUIRE_THROWS_AS(neurobench::datasets::read_mswc_draws(tmp / "bad.json"), InputError);
    REQUIRE_THROWS_WITH(neurobench::datasets::read_mswc_draws(tmp / "bad.json"),
                        Catch::Contains("bad.json: ") && Catch::Contains(text));
  };
  Json j = good;
  j["format"] = "other";
  refused(j, "'format' is \"other\"; expected \"neurobench-mswc-sessions\"");
  j = good;
  j["version"] = 2;
  refused(j, "'version' is 2; this neurobench reads version 1");
  j = good;
  j.erase("k_shot");
  refused(j, "'k_shot' is missing");
  j = good;
  j["ways"] = "2";
  refused(j, "'ways' must be an integer");
  j = good;
  j["extra"] = 1;
  refused(j, "'extra' is not a key of a draws file");
  j = good;
  j["seed"] = -1;
  refused(j, "'seed' must be null or an integer");
  j = good;
  j["k_shot"] = 4;
  refused(j, "k_shot 4 is more than the 3 clips of the support pool");
  j = good;
  j["sessions"].erase(2);
  refused(j, "'sessions' has 2 entries; expected 3");
  j = good;
  j["sessions"][1]["language"] = j["sessions"][0]["language"];
  refused(j, "'sessions[1].language' is '");
  j = good;
  j["sessions"][0]["classes"][1] = 200;
  refused(j, "'sessions[0].classes[1]' is 200; a class is a keyword's label, 0 to 199");
  j = good;
  j["sessions"][2]["classes"][0] = j["sessions"][0]["classes"][0];
  refused(j, "'sessions[2].classes[0]' is class");
  j = good;
  j["sessions"][0]["support"][1].push_back("x.opus");
  refused(j, "'sessions[0].support[1]' has 3 entries; expected 2");
  j = good;
  j["sessions"][0]["query"][0][1] = j["sessions"][0]["support"][0][0];
  refused(j, "'sessions[0].query[0][1]' names clip '");
  j = good;
  j["sessions"][0]["query"][0][1] = 3;
  refused(j, "'sessions[0].query[0][1]' must be a string");
  write_bytes(tmp / "bad.json", "{\"format\": ");
  REQUIRE_THROWS_WITH(neurobench::datasets::read_mswc_draws(tmp / "bad.json"),
                      Catch::Contains("bad.json"));
  REQUIRE_THROWS_WITH(neurobench::datasets::read_mswc_draws(tmp / "none.json"),
                      Catch::Contains("none.json: no such MSWC draws file"));
}

TEST_CASE("draws that do not fit the release are refused, naming the list and the clip",
          "[datasets][mswc][sessions]") {
  TempDir tmp;
  const fs::path m = make_sessions_release(tmp.path());
  const MswcDraws good = neurobench::datasets::draw_mswc_sessions(m, small(), 5);
  const auto refused = [&](const MswcDraws& d, const std::string& text) {
    INFO(text);
    REQUIRE_THROWS_AS(MswcSessions(m, d), InputError);
    REQUIRE_THROWS_WITH(MswcSessions(m, d), Catch::Contains(text));
  };
  MswcDraws d = good;
  auto& s0 = d.sessions[0];
  s0.support[0][0] = "nowhere.opus";
  refused(d, s0.language + "/evaluation.csv: session 0 (" + s0.language + "), class " +
                 std::to_string(s0.classes[0]));
  refused(d, "support clip 'nowhere.opus': not listed in");
  d = good;
  d.sessions[0].support[0][0] = good.sessions[0].query[0][0];
  d.sessions[0].query[0][0] = good.sessions[0].support[0][0];
  refused(d, "not in the support pool of class");
  d = good;
  d.sessions[0].support[0][0] = good.sessions[0].support[1][0];
  d.sessions[0].support[1][0] = good.sessions[0].support[0][0];
  refused(d, "not in the support pool of class " + std::to_string(good.sessions[0].classes[0]));

  // A clip the release lost since the draws were made.
  const std::string lang = good.sessions[1].language;
  fs::remove(m / lang / "clips" / good.sessions[1].query[1][0]);
  REQUIRE_THROWS_WITH(MswcSessions(m, good), Catch::Contains(lang + "/evaluation.csv line ") &&
                                                 Catch::Contains("names a clip that is not there"));
}

TEST_CASE("an evaluation list not in whole blocks of one word is refused for drawing",
          "[datasets][mswc][sessions]") {
  TempDir tmp;
  const fs::path m = make_sessions_release(tmp.path());
  const std::string fa = neurobench::test::read_file(m / "fa" / "evaluation.csv");
  const auto refused = [&](const std::string& csv, const std::string& text) {
    write_bytes(m / "fa" / "evaluation.csv", csv);
    INFO(text);
    REQUIRE_THROWS_AS(neurobench::datasets::draw_mswc_sessions(m, small(), 1), InputError);
    REQUIRE_THROWS_WITH(neurobench::datasets::draw_mswc_sessions(m, small(), 1),
                        Catch::Contains("fa/evaluation.csv") && Catch::Contains(text));
  };
  // One line less: 17 clips are not whole classes of 6.
  refused(fa.substr(0, fa.rfind('\n', fa.size() - 2) + 1), "17 clips, not a whole number");
  // The second class's first clip given the first class's word.
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < fa.size()) {
    const std::size_t end = fa.find('\n', start);
    lines.push_back(fa.substr(start, end - start));
    start = end + 1;
  }
  std::string mixed;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (i == 8)
      line.replace(line.find(','), line.rfind(',') - line.find(','),
                   "," + neurobench::datasets::mswc_keywords()[100]);
    mixed += line + "\n";
  }
  refused(mixed, "line 9: word '");
  // Two classes only: fewer than a session's three.
  std::string two;
  for (std::size_t i = 0; i < 13; ++i) two += lines[i] + "\n";
  write_bytes(m / "fa" / "evaluation.csv", two);
  MswcSessionOptions three = small();
  three.ways = 3;
  REQUIRE_THROWS_WITH(neurobench::datasets::draw_mswc_sessions(m, three, 1),
                      Catch::Contains("fa/evaluation.csv: 2 classes; a session needs 3"));
}

TEST_CASE("session options that cannot be drawn are a UsageError naming the field",
          "[datasets][mswc][sessions]") {
  const auto refused = [](MswcSessionOptions o, const std::string& text) {
    INFO(text);
    REQUIRE_THROWS_AS(o.validate(), UsageError);
    REQUIRE_THROWS_WITH(o.validate(), Catch::Contains(text));
  };
  MswcSessionOptions o;
  CHECK_NOTHROW(o.validate());
  CHECK(o.queries() == 100);
  o.query_shots = -1;
  CHECK(o.queries() == 5);
  CHECK_NOTHROW(o.validate());
  o = {};
  o.k_shot = 0;
  refused(o, "k_shot must be 1 or more");
  o = {};
  o.query_shots = -2;
  refused(o, "query_shots (or -1: k_shot) must be 1 or more");
  o = {};
  o.support_pool = 150;
  refused(o, "the pools (150 support + 100 query clips) do not fit in a class's 200 clips");
  o = {};
  o.query_shots = 101;
  refused(o, "query_shots 101 is more than the 100 clips of the query pool");
  o = {};
  o.languages = {};
  refused(o, "languages is empty");
  o = {};
  o.languages = {"fa", "fa"};
  refused(o, "language 'fa' is given twice");
  o = {};
  o.languages = {"a/b"};
  refused(o, "is not the name of one folder");
}
