// SPDX-License-Identifier: Apache-2.0
// MSWC session draws files: the draws as JSON, written whole, read back with every key checked.
#include <limits>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/datasets/mswc_sessions.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>

#include "io/input_file.hpp"
#include "util/json_input.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {

namespace {

constexpr const char* kDrawsFormat = "neurobench-mswc-sessions";
constexpr int kDrawsVersion = 1;
constexpr std::uint64_t kMaxDrawsBytes = std::uint64_t{64} << 20;

// Reads the keys of one object of a draws file, each named by its path in messages.
class DrawsReader {
 public:
  explicit DrawsReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw InputError(fmt::format("{}: '{}' {}", source_, key, why));
  }

  const Json& at(const Json& object, const std::string& parent, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(parent + key, "is missing");
    return *it;
  }

  int64_t integer(const Json& value, const std::string& key) const {
    if (!value.is_number_integer())
      fail(key, "must be an integer, got " + detail::json_excerpt(value));
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail(key, "is out of range: " + value.dump());
    }
    return value.get<int64_t>();
  }

  std::string text(const Json& value, const std::string& key) const {
    if (!value.is_string()) fail(key, "must be a string, got " + detail::json_excerpt(value));
    return value.get<std::string>();
  }

  const Json& array(const Json& value, const std::string& key, std::size_t size) const {
    if (!value.is_array()) fail(key, "must be an array, got " + detail::json_excerpt(value));
    if (value.size() != size) {
      fail(key, fmt::format("has {} entries; expected {}", value.size(), size));
    }
    return value;
  }

  void only(const Json& object, const std::string& parent, std::set<std::string> keys) const {
    if (!object.is_object()) {
      fail(parent.empty() ? "(top)" : parent.substr(0, parent.size() - 1),
           "must be an object, got " + detail::json_excerpt(object));
    }
    for (const auto& [key, value] : object.items()) {
      if (keys.count(key) == 0) {
        fail(parent + key, fmt::format("is not a key of a draws file (keys: {})",
                                       fmt::format("{}", fmt::join(keys, ", "))));
      }
    }
  }

 private:
  std::string source_;
};

MswcSessionOptions read_options(const Json& json, const DrawsReader& r) {
  MswcSessionOptions o;
  o.k_shot = r.integer(r.at(json, "", "k_shot"), "k_shot");
  o.query_shots = r.integer(r.at(json, "", "query_shots"), "query_shots");
  const Json& split = r.array(r.at(json, "", "support_query_split"), "support_query_split", 2);
  o.support_pool = r.integer(split[0], "support_query_split[0]");
  o.query_pool = r.integer(split[1], "support_query_split[1]");
  o.ways = r.integer(r.at(json, "", "ways"), "ways");
  o.clips_per_class = r.integer(r.at(json, "", "clips_per_class"), "clips_per_class");
  const Json& languages = r.at(json, "", "languages");
  if (!languages.is_array()) r.fail("languages", "must be an array of language folders");
  o.languages.clear();
  for (std::size_t i = 0; i < languages.size(); ++i) {
    o.languages.push_back(r.text(languages[i], fmt::format("languages[{}]", i)));
  }
  try {
    o.validate();
  } catch (const UsageError& e) {
    r.fail("(options)", e.what());
  }
  return o;
}

std::vector<std::vector<std::string>> read_clips(const Json& json, const DrawsReader& r,
                                                 const std::string& key, std::size_t ways,
                                                 std::size_t per_class,
                                                 std::set<std::string>& seen) {
  std::vector<std::vector<std::string>> out;
  const Json& classes = r.array(json, key, ways);
  for (std::size_t c = 0; c < ways; ++c) {
    const std::string class_key = fmt::format("{}[{}]", key, c);
    const Json& clips = r.array(classes[c], class_key, per_class);
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < per_class; ++i) {
      const std::string clip_key = fmt::format("{}[{}]", class_key, i);
      std::string path = r.text(clips[i], clip_key);
      if (!seen.insert(path).second) {
        r.fail(clip_key, fmt::format("names clip '{}' a second time in its session",
                                     detail::printable(path, 100)));
      }
      paths.push_back(std::move(path));
    }
    out.push_back(std::move(paths));
  }
  return out;
}

}  // namespace

Json to_json(const MswcDraws& draws) {
  const MswcSessionOptions& o = draws.options;
  Json json = Json::object();
  json["format"] = kDrawsFormat;
  json["version"] = kDrawsVersion;
  json["seed"] = draws.seed ? Json(*draws.seed) : Json();
  json["k_shot"] = o.k_shot;
  json["query_shots"] = o.query_shots;
  json["support_query_split"] = Json::array({o.support_pool, o.query_pool});
  json["ways"] = o.ways;
  json["clips_per_class"] = o.clips_per_class;
  json["languages"] = o.languages;
  json["sessions"] = Json::array();
  for (const MswcSessionDraw& s : draws.sessions) {
    Json session = Json::object();
    session["language"] = s.language;
    session["classes"] = s.classes;
    session["support"] = s.support;
    session["query"] = s.query;
    json["sessions"].push_back(std::move(session));
  }
  return json;
}

MswcDraws mswc_draws_from_json(const Json& json, const std::string& source) {
  const DrawsReader r(source);
  r.only(json, "",
         {"format", "version", "seed", "k_shot", "query_shots", "support_query_split", "ways",
          "clips_per_class", "languages", "sessions"});
  if (r.at(json, "", "format") != kDrawsFormat) {
    r.fail("format", fmt::format("is {}; expected \"{}\"", detail::json_excerpt(json.at("format")),
                                 kDrawsFormat));
  }
  if (r.integer(r.at(json, "", "version"), "version") != kDrawsVersion) {
    r.fail("version", fmt::format("is {}; this neurobench reads version {}",
                                  json.at("version").dump(), kDrawsVersion));
  }
  MswcDraws draws;
  const Json& seed = r.at(json, "", "seed");
  if (!seed.is_null()) {
    if (!seed.is_number_unsigned()) {
      r.fail("seed",
             "must be null or an integer from 0 to 2^64 - 1, got " + detail::json_excerpt(seed));
    }
    draws.seed = seed.get<uint64_t>();
  }
  draws.options = read_options(json, r);
  const MswcSessionOptions& o = draws.options;
  const Json& sessions = r.array(r.at(json, "", "sessions"), "sessions", o.languages.size());
  std::set<std::string> languages(o.languages.begin(), o.languages.end());
  std::set<int64_t> classes_seen;
  for (std::size_t s = 0; s < sessions.size(); ++s) {
    const std::string key = fmt::format("sessions[{}].", s);
    r.only(sessions[s], key, {"language", "classes", "support", "query"});
    MswcSessionDraw session;
    session.language = r.text(r.at(sessions[s], key, "language"), key + "language");
    if (languages.erase(session.language) == 0) {
      r.fail(key + "language",
             fmt::format("is '{}', which is not one of 'languages' or has a session already",
                         detail::printable(session.language, 60)));
    }
    const Json& classes = r.array(r.at(sessions[s], key, "classes"), key + "classes",
                                  static_cast<std::size_t>(o.ways));
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const std::string class_key = fmt::format("{}classes[{}]", key, c);
      const int64_t label = r.integer(classes[c], class_key);
      if (label < 0 || label >= static_cast<int64_t>(mswc_keywords().size())) {
        r.fail(class_key, fmt::format("is {}; a class is a keyword's label, 0 to {}", label,
                                      mswc_keywords().size() - 1));
      }
      if (!classes_seen.insert(label).second) {
        r.fail(class_key, fmt::format("is class {} ('{}') again", label, mswc_keywords()[label]));
      }
      session.classes.push_back(label);
    }
    std::set<std::string> clips_seen;
    const auto ways = static_cast<std::size_t>(o.ways);
    session.support = read_clips(r.at(sessions[s], key, "support"), r, key + "support", ways,
                                 static_cast<std::size_t>(o.k_shot), clips_seen);
    session.query = read_clips(r.at(sessions[s], key, "query"), r, key + "query", ways,
                               static_cast<std::size_t>(o.queries()), clips_seen);
    draws.sessions.push_back(std::move(session));
  }
  return draws;
}

MswcDraws read_mswc_draws(const std::filesystem::path& file) {
  const Json json = detail::parse_user_json(
      detail::read_input_file(file, "MSWC draws file", kMaxDrawsBytes), file.string());
  return mswc_draws_from_json(json, file.string());
}

void write_mswc_draws(const MswcDraws& draws, const std::filesystem::path& file) {
  write_output_file(file, to_json(draws).dump(1) + "\n");
}

}  // namespace neurobench::datasets
