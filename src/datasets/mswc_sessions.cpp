// SPDX-License-Identifier: Apache-2.0
// The incremental sessions of NeuroBench's MSWC FSCIL task: drawn as its IncrementalFewShot
// draws them (with a generator of our own), or read from a draws file, and checked against the
// release.
#include <neurobench/datasets/mswc_sessions.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <utility>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "datasets/mswc_csv.hpp"
#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {

namespace fs = std::filesystem;

void MswcSessionOptions::validate() const {
  const auto at_least_one = [](int64_t value, const char* field) {
    if (value < 1) {
      throw UsageError(
          fmt::format("MswcSessionOptions: {} must be 1 or more, got {}", field, value));
    }
  };
  at_least_one(k_shot, "k_shot");
  if (query_shots != -1) at_least_one(query_shots, "query_shots (or -1: k_shot)");
  at_least_one(support_pool, "support_pool");
  at_least_one(query_pool, "query_pool");
  at_least_one(ways, "ways");
  at_least_one(clips_per_class, "clips_per_class");
  if (support_pool > clips_per_class - query_pool) {
    throw UsageError(fmt::format(
        "MswcSessionOptions: the pools ({} support + {} query clips) do not fit in a class's {} "
        "clips",
        support_pool, query_pool, clips_per_class));
  }
  if (k_shot > support_pool) {
    throw UsageError(
        fmt::format("MswcSessionOptions: k_shot {} is more than the {} clips of the support pool",
                    k_shot, support_pool));
  }
  if (queries() > query_pool) {
    throw UsageError(fmt::format(
        "MswcSessionOptions: query_shots {} is more than the {} clips of the query pool", queries(),
        query_pool));
  }
  if (languages.empty()) throw UsageError("MswcSessionOptions: languages is empty");
  std::set<std::string> seen;
  for (const std::string& language : languages) {
    MswcOptions check;
    check.subset = MswcSubset::Evaluation;
    check.language = language;
    check.validate();
    if (!seen.insert(language).second) {
      throw UsageError(fmt::format("MswcSessionOptions: language '{}' is given twice",
                                   detail::printable(language, 60)));
    }
  }
}

namespace mswc_sessions_detail {
namespace {

// Our generator (docs/datasets.md, "MSWC session draws"): std::mt19937_64, whose output the
// C++ standard fixes, and draws of our own on it (the standard's distributions differ between
// standard libraries).
class Draw {
 public:
  explicit Draw(uint64_t seed) : engine_(seed) {}

  // Uniform in [0, n), by rejection: values below 2^64 mod n are drawn again.
  uint64_t below(uint64_t n) {
    const uint64_t threshold = (uint64_t{0} - n) % n;
    uint64_t r = engine_();
    while (r < threshold) r = engine_();
    return r % n;
  }

  // `k` of `pool` without replacement, in drawn order: a Fisher-Yates shuffle stopped after k.
  template <class T>
  std::vector<T> sample(std::vector<T> pool, std::size_t k) {
    for (std::size_t i = 0; i < k; ++i) {
      std::swap(pool[i], pool[i + below(pool.size() - i)]);
    }
    pool.resize(k);
    return pool;
  }

 private:
  std::mt19937_64 engine_;
};

// A language's evaluation classes: its list read in blocks of clips_per_class lines, each
// block one class (NeuroBench labels a block by its first line).
struct LanguageClasses {
  fs::path list;
  std::vector<mswc_detail::ListedClip> rows;
  std::map<int64_t, int64_t> first_row;  // label -> its block's first row
};

LanguageClasses language_classes(const fs::path& folder, const std::string& language,
                                 const MswcSessionOptions& options) {
  LanguageClasses out;
  out.list = folder / language / "evaluation.csv";
  out.rows = mswc_detail::read_list(out.list);
  const auto per = options.clips_per_class;
  const auto n = static_cast<int64_t>(out.rows.size());
  if (n % per != 0) {
    throw InputError(fmt::format(
        "{}: {} clips, not a whole number of classes of {} (NeuroBench's loader would leave "
        "the last {} out)",
        detail::path_text(out.list), n, per, n % per));
  }
  for (int64_t start = 0; start < n; start += per) {
    const auto& first = out.rows[static_cast<std::size_t>(start)];
    for (int64_t r = start; r < start + per; ++r) {
      const auto& row = out.rows[static_cast<std::size_t>(r)];
      if (row.label != first.label) {
        throw InputError(fmt::format(
            "{} line {}: word '{}' in the block of {} clips of '{}' (from line {}); a class's "
            "clips are {} consecutive lines",
            detail::path_text(out.list), row.line, detail::printable(row.word, 60), per,
            detail::printable(first.word, 60), first.line, per));
      }
    }
    if (!out.first_row.emplace(first.label, start).second) {
      throw InputError(fmt::format("{} line {}: word '{}' has a second block of clips",
                                   detail::path_text(out.list), first.line,
                                   detail::printable(first.word, 60)));
    }
  }
  if (static_cast<int64_t>(out.first_row.size()) < options.ways) {
    throw InputError(fmt::format("{}: {} classes; a session needs {}", detail::path_text(out.list),
                                 out.first_row.size(), options.ways));
  }
  return out;
}

std::vector<int64_t> pool_rows(int64_t first_row, int64_t begin, int64_t count) {
  std::vector<int64_t> rows(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) rows[static_cast<std::size_t>(i)] = first_row + begin + i;
  return rows;
}

// A list of clips to decode: a support or query set.
class ClipList final : public Dataset {
 public:
  using Clip = std::pair<std::string, int64_t>;  // the clip's file and its class
  ClipList(std::vector<Clip> clips, std::string name)
      : clips_(std::move(clips)), name_(std::move(name)) {}

  int64_t size() const override { return static_cast<int64_t>(clips_.size()); }

  Batch get(const std::vector<int64_t>& indices) const override {
    for (const int64_t index : indices) {
      if (index < 0 || index >= size()) {
        throw UsageError(
            fmt::format("{}: sample index {} is out of range (size {})", name_, index, size()));
      }
    }
    const auto n = static_cast<int64_t>(indices.size());
    torch::Tensor data = torch::empty({n, Mswc::kClipSamples, 1}, torch::kFloat32);
    torch::Tensor targets = torch::empty({n}, torch::kInt64);
    float* out = data.data_ptr<float>();
    int64_t* target = targets.data_ptr<int64_t>();
    at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const Clip& c = clips_[static_cast<std::size_t>(indices[static_cast<std::size_t>(i)])];
        const torch::Tensor samples = load_mswc_clip(c.first);
        std::memcpy(out + i * Mswc::kClipSamples, samples.data_ptr<float>(),
                    static_cast<std::size_t>(Mswc::kClipSamples) * sizeof(float));
        target[i] = c.second;
      }
    });
    return Batch{std::move(data), std::move(targets), {}};
  }

  std::string describe() const override { return name_; }

  std::vector<fs::path> input_files() const override {
    std::vector<fs::path> files;
    files.reserve(clips_.size());
    for (const Clip& c : clips_) files.emplace_back(c.first);
    return files;
  }

 private:
  std::vector<Clip> clips_;
  std::string name_;
};

}  // namespace
}  // namespace mswc_sessions_detail

MswcDraws draw_mswc_sessions(const fs::path& path, const MswcSessionOptions& options,
                             uint64_t seed) {
  using namespace mswc_sessions_detail;
  options.validate();
  const fs::path folder =
      mswc_detail::find_release(path, options.languages.front() + "/evaluation.csv");
  MswcDraws draws;
  draws.seed = seed;
  draws.options = options;
  Draw draw(seed);
  // NeuroBench's order of draws: the languages; per language its classes, then every class's
  // queries, then every class's support.
  for (const std::string& language : draw.sample(options.languages, options.languages.size())) {
    const LanguageClasses classes = language_classes(folder, language, options);
    std::vector<int64_t> labels;
    for (const auto& [label, row] : classes.first_row) labels.push_back(label);  // sorted
    MswcSessionDraw session;
    session.language = language;
    session.classes = draw.sample(labels, static_cast<std::size_t>(options.ways));
    const auto listed = [&](const std::vector<int64_t>& rows) {
      std::vector<std::string> paths;
      for (const int64_t r : rows) paths.push_back(classes.rows[static_cast<std::size_t>(r)].path);
      return paths;
    };
    for (const int64_t label : session.classes) {
      const auto pool =
          pool_rows(classes.first_row.at(label), options.support_pool, options.query_pool);
      session.query.push_back(
          listed(draw.sample(pool, static_cast<std::size_t>(options.queries()))));
    }
    for (const int64_t label : session.classes) {
      const auto pool = pool_rows(classes.first_row.at(label), 0, options.support_pool);
      session.support.push_back(
          listed(draw.sample(pool, static_cast<std::size_t>(options.k_shot))));
    }
    draws.sessions.push_back(std::move(session));
  }
  return draws;
}

namespace {

// Session `s`'s clips resolved in its language's list: support shot-major, query class by
// class. Throws InputError naming the list and the clip for one that is not where it may be.
void resolve_session(const fs::path& folder, const MswcDraws& draws, std::size_t s,
                     std::vector<mswc_sessions_detail::ClipList::Clip>& support,
                     std::vector<mswc_sessions_detail::ClipList::Clip>& query) {
  using namespace mswc_sessions_detail;
  const MswcSessionOptions& o = draws.options;
  const MswcSessionDraw& session = draws.sessions[s];
  const LanguageClasses classes = language_classes(folder, session.language, o);
  std::map<std::string, std::vector<int64_t>> rows_of;
  for (std::size_t r = 0; r < classes.rows.size(); ++r) {
    const auto& row = classes.rows[r];
    try {
      (void)detail::check_regular_input(mswc_detail::clip_file(folder, row), "MSWC clip");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} line {} names a clip that is not there: {}",
                                   detail::path_text(classes.list), row.line, e.what()));
    }
    rows_of[row.path].push_back(static_cast<int64_t>(r));
  }
  const auto resolve = [&](std::size_t c, const std::string& path, bool in_support) {
    const int64_t label = session.classes[c];
    const std::string where = fmt::format(
        "session {} ({}), class {} ('{}'), {} clip '{}'", s, session.language, label,
        mswc_keywords()[label], in_support ? "support" : "query", detail::printable(path, 100));
    const auto it = rows_of.find(path);
    if (it == rows_of.end()) {
      throw InputError(fmt::format("{}: {}: not listed in {}", detail::path_text(classes.list),
                                   where, detail::path_text(classes.list)));
    }
    if (it->second.size() != 1) {
      throw InputError(fmt::format("{}: {}: listed {} times, so which one is meant is unclear",
                                   detail::path_text(classes.list), where, it->second.size()));
    }
    const int64_t r = it->second.front();
    const auto& row = classes.rows[static_cast<std::size_t>(r)];
    const int64_t offset = r - classes.first_row.at(row.label);
    const int64_t begin = in_support ? 0 : o.support_pool;
    const int64_t end = in_support ? o.support_pool : o.support_pool + o.query_pool;
    if (row.label != label || offset < begin || offset >= end) {
      throw InputError(fmt::format(
          "{} line {}: {}: the clip is number {} of word '{}', not in the {} pool of class {} "
          "(its clips {} to {})",
          detail::path_text(classes.list), row.line, where, offset, detail::printable(row.word, 60),
          in_support ? "support" : "query", label, begin, end - 1));
    }
    return ClipList::Clip{mswc_detail::clip_file(folder, row), label};
  };
  for (const int64_t label : session.classes) {
    if (classes.first_row.count(label) == 0) {
      throw InputError(fmt::format("{}: session {} draws class {} ('{}'), which {} does not hold",
                                   detail::path_text(classes.list), s, label,
                                   mswc_keywords()[label], detail::path_text(classes.list)));
    }
  }
  for (int64_t shot = 0; shot < o.k_shot; ++shot) {
    for (std::size_t c = 0; c < session.classes.size(); ++c) {
      support.push_back(resolve(c, session.support[c][static_cast<std::size_t>(shot)], true));
    }
  }
  for (std::size_t c = 0; c < session.classes.size(); ++c) {
    for (const std::string& path : session.query[c]) query.push_back(resolve(c, path, false));
  }
}

}  // namespace

MswcSessions::MswcSessions(const fs::path& path, MswcDraws draws) : draws_(std::move(draws)) {
  // The draws' shape (counts, languages, classes) was checked when they were read; checked
  // again here for draws made in code.
  draws_ = mswc_draws_from_json(to_json(draws_), "the MSWC draws");
  folder_ = mswc_detail::find_release(path, draws_.sessions.front().language + "/evaluation.csv");
  for (std::size_t s = 0; s < draws_.sessions.size(); ++s) {
    std::vector<mswc_sessions_detail::ClipList::Clip> support;
    std::vector<mswc_sessions_detail::ClipList::Clip> query;
    resolve_session(folder_, draws_, s, support, query);
    support_.push_back(std::move(support));
    query_.push_back(std::move(query));
  }
}

int64_t MswcSessions::size() const { return static_cast<int64_t>(draws_.sessions.size()); }

void MswcSessions::check_index(int64_t i) const {
  if (i < 0 || i >= size()) {
    throw UsageError(
        fmt::format("MSWC sessions: session {} is out of range ({} sessions)", i, size()));
  }
}

std::shared_ptr<Dataset> MswcSessions::support(int64_t i) const {
  check_index(i);
  const auto& session = draws_.sessions[static_cast<std::size_t>(i)];
  return std::make_shared<mswc_sessions_detail::ClipList>(
      support_[static_cast<std::size_t>(i)],
      fmt::format("MSWC session {} ({}) support: {} shots of {} classes of {}", i, session.language,
                  draws_.options.k_shot, session.classes.size(), detail::path_text(folder_)));
}

std::shared_ptr<Dataset> MswcSessions::query(int64_t i) const {
  check_index(i);
  std::vector<mswc_sessions_detail::ClipList::Clip> clips;
  for (int64_t s = 0; s <= i; ++s) {
    const auto& q = query_[static_cast<std::size_t>(s)];
    clips.insert(clips.end(), q.begin(), q.end());
  }
  const std::size_t n = clips.size();
  return std::make_shared<mswc_sessions_detail::ClipList>(
      std::move(clips), fmt::format("MSWC session {} query: {} clips of the {} classes of "
                                    "sessions 0 to {} of {}",
                                    i, n, query_classes(i).size(), i, detail::path_text(folder_)));
}

std::vector<int64_t> MswcSessions::query_classes(int64_t i) const {
  check_index(i);
  std::vector<int64_t> out;
  for (int64_t s = 0; s <= i; ++s) {
    const auto& c = draws_.sessions[static_cast<std::size_t>(s)].classes;
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

const std::vector<int64_t>& MswcSessions::new_classes(int64_t i) const {
  check_index(i);
  return draws_.sessions[static_cast<std::size_t>(i)].classes;
}

std::vector<fs::path> MswcSessions::input_files() const {
  std::vector<fs::path> files;
  for (std::size_t s = 0; s < draws_.sessions.size(); ++s) {
    files.push_back(folder_ / draws_.sessions[s].language / "evaluation.csv");
    for (const Clip& c : support_[s]) files.emplace_back(c.first);
    for (const Clip& c : query_[s]) files.emplace_back(c.first);
  }
  return files;
}

}  // namespace neurobench::datasets
