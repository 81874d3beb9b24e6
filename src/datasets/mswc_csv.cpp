// SPDX-License-Identifier: Apache-2.0
// NeuroBench's MSWC list files, read line by line as Python reads them, and its keyword table.
#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include <neurobench/datasets/mswc.hpp>
#include <neurobench/errors.hpp>

#include "datasets/mswc_csv.hpp"
#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {

const std::vector<std::string>& mswc_keywords() {
  // NeuroBench's FSCIL_KEYWORDS (neurobench/datasets/MSWC_dataset.py), in its order: the
  // first 100 are the base classes (20 each of English, French, Catalan, German and
  // Kinyarwanda), the other 100 the evaluation classes (10 each of fa, eo, pt, eu, pl, cy, nl,
  // ru, es and it).
  static const std::vector<std::string> words = {
      "surrounding",    "appearance",    "collection",     "subsequently",   "experience",
      "previously",     "professional",  "immediately",    "independent",    "successful",
      "traditional",    "development",   "international",  "established",    "information",
      "instruments",    "construction",  "performance",    "university",     "significant",
      "nombreuses",     "l’amendement",  "nationale",      "défavorable",    "toutefois",
      "professeur",     "française",     "commission",     "actuellement",   "politique",
      "territoire",     "aujourd’hui",   "gouvernement",   "rapidement",     "notamment",
      "troisième",      "plusieurs",     "maintenant",     "personnes",      "cinquante",
      "tanmateix",      "superior",      "catalunya",      "finalment",      "treballar",
      "qualsevol",      "principalment", "rectangular",    "important",      "mitjançant",
      "president",      "finestres",     "caràcter",       "diferents",      "programari",
      "obertures",      "posteriorment", "barcelona",      "importants",     "informació",
      "allerdings",     "arbeitete",     "deutschland",    "schließlich",    "verheiratet",
      "vielleicht",     "verschiedene",  "bezeichnet",     "gleichzeitig",   "parlament",
      "unternehmen",    "entwicklung",   "europäischen",   "zahlreiche",     "geschichte",
      "verwendet",      "anschließend",  "hauptstadt",     "errichtet",      "eigentlich",
      "amahirwe",       "umutekano",     "gukomeza",       "amafaranga",     "abanyarwanda",
      "urubyiruko",     "n’abandi",      "ashobora",       "umuryango",      "abayobozi",
      "w’umupira",      "perezida",      "umukinnyi",      "gitaramo",       "w’amaguru",
      "abaturage",      "amashusho",     "minisitiri",     "indirimbo",      "bitandukanye",
      "میخواستم",       "امیدوارم",      "تلویزیون",       "آپارتمان",       "بینالمللی",
      "بنابراین",       "اسفندیار",      "پرسپولیس",       "بفرمایید",       "میتوانند",
      "demandis",       "respondis",     "sinjorino",      "rigardis",       "fernando",
      "ankoraŭ",        "beatrico",      "troviĝas",       "ekzistas",       "esperanto",
      "enquanto",       "correndo",      "olhando",        "dinheiro",       "vestindo",
      "segurando",      "crianças",      "mulheres",       "trabalho",       "cachorro",
      "bakarrik",       "ezagutzen",     "hizkuntza",      "horregatik",     "bitartean",
      "erabiltzen",     "horrelako",     "gertatzen",      "eskatzen",       "batzuetan",
      "podlasiak",      "zupełnie",      "odpowiedział",   "dziwożona",      "jednoręki",
      "widocznie",      "powiedział",    "spojrzał",       "człowiek",       "wszystkich",
      "gobeithio",      "newyddion",     "wybodaeth",      "ddigwyddodd",    "eisteddfod",
      "genedlaethol",   "gwasanaeth",    "gwahaniaeth",    "ffrindiau",      "gerddoriaeth",
      "gezien",         "iedereen",      "tussen",         "kinderen",       "tijdens",
      "worden",         "hoeveel",       "kunnen",         "nieuwe",         "gemaakt",
      "приверженность", "действительно", "сотрудничества", "необходимость",  "деятельности",
      "правительства",  "поблагодарить", "представителю",  "международного", "ответственность",
      "comunicación",   "arquitectura",  "completamente",  "continuación",   "departamento",
      "internacional",  "especialmente", "posteriormente", "investigación",  "generalmente",
      "particolare",    "territorio",    "campionato",     "importante",     "capoluogo",
      "nonostante",     "attraverso",    "posizione",      "soprattutto",    "produzione",
  };
  return words;
}

std::optional<int64_t> mswc_label(std::string_view word) {
  const auto& words = mswc_keywords();
  const auto it = std::find(words.begin(), words.end(), word);
  if (it == words.end()) return std::nullopt;
  return static_cast<int64_t>(it - words.begin());
}

namespace mswc_detail {

namespace fs = std::filesystem;

namespace {

// The length of the whitespace character of str.isspace() starting at text[i], or 0.
std::size_t space_at(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
  };
  const unsigned c = byte(0);
  if (c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f)) return 1;
  if (c == 0xc2 && (byte(1) == 0x85 || byte(1) == 0xa0)) return 2;  // U+0085, U+00A0
  if (c == 0xe1 && byte(1) == 0x9a && byte(2) == 0x80) return 3;    // U+1680
  if (c == 0xe2 && byte(1) == 0x80) {
    const unsigned d = byte(2);
    if ((d >= 0x80 && d <= 0x8a) || d == 0xa8 || d == 0xa9 || d == 0xaf) return 3;
  }
  if (c == 0xe2 && byte(1) == 0x81 && byte(2) == 0x9f) return 3;  // U+205F
  if (c == 0xe3 && byte(1) == 0x80 && byte(2) == 0x80) return 3;  // U+3000
  return 0;
}

// The length of the whitespace character of str.isspace() that ends at text[end - 1], or 0.
std::size_t space_before(std::string_view text, std::size_t end) {
  for (std::size_t n = 1; n <= 3 && n <= end; ++n) {
    if (space_at(text, end - n) == n) return n;
  }
  return 0;
}

std::vector<std::string_view> split_commas(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
}

// The 1-based line of byte `offset`, as python_lines() counts lines.
std::size_t line_of(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++line;
    }
  }
  return line;
}

// The offset of the first byte that is not valid UTF-8 as Python's strict decoder sees it (no
// overlong forms, no surrogates, nothing above U+10FFFF), or text.size() when all are.
std::size_t first_bad_utf8(std::string_view text) {
  std::size_t i = 0;
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const auto continuation = [&](std::size_t k) {
    return k < text.size() && (at(k) & 0xc0) == 0x80;
  };
  while (i < text.size()) {
    const unsigned c = at(i);
    std::size_t n = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xbf;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 3;
      if (c == 0xe0) lo = 0xa0;  // overlong
      if (c == 0xed) hi = 0x9f;  // surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 4;
      if (c == 0xf0) lo = 0x90;  // overlong
      if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + 1 >= text.size() || at(i + 1) < lo || at(i + 1) > hi) return i;
    for (std::size_t k = 2; k < n; ++k) {
      if (!continuation(i + k)) return i;
    }
    i += n;
  }
  return i;
}

}  // namespace

std::string_view python_strip(std::string_view text) {
  std::size_t a = 0;
  std::size_t b = text.size();
  for (std::size_t n = 0; a < b && (n = space_at(text.substr(0, b), a)) > 0;) a += n;
  for (std::size_t n = 0; b > a && (n = space_before(text.substr(0, b), b)) > 0;) b -= n;
  return text.substr(a, b - a);
}

std::string python_join(const std::string& a, const std::string& b) {
  if (!b.empty() && b.front() == '/') return b;
  if (a.empty() || a.back() == '/') return a + b;
  return a + "/" + b;
}

std::vector<std::string_view> python_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
    if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n') ++start;
  }
  return lines;
}

std::vector<ListedClip> read_list(const fs::path& file) {
  return parse_list(detail::read_input_file(file, "MSWC list file", kMaxListBytes), file);
}

std::vector<ListedClip> parse_list(std::string_view text, const fs::path& file) {
  const std::size_t bad = first_bad_utf8(text);
  if (bad < text.size()) {
    throw InputError(
        fmt::format("{} line {}: not UTF-8 text (byte {}); NeuroBench reads the "
                    "list as UTF-8",
                    detail::path_text(file), line_of(text, bad), bad));
  }
  const std::string where = detail::path_text(file);
  std::vector<ListedClip> clips;
  int64_t number = 0;
  for (const std::string_view raw : python_lines(text)) {
    ++number;
    const std::string_view line = python_strip(raw);
    const std::size_t nul = line.find('\0');
    if (nul != std::string_view::npos) {
      throw InputError(fmt::format("{} line {}: a NUL byte at column {} ('{}')", where, number,
                                   nul + 1, detail::printable(line, 100)));
    }
    const std::vector<std::string_view> fields = split_commas(line);
    if (fields.size() != 3) {
      throw InputError(fmt::format(
          "{} line {}: {} field{} ('{}'); expected three, PATH,WORD,LANG (an empty line is "
          "refused too: NeuroBench's loader fails on it)",
          where, number, fields.size(), fields.size() == 1 ? "" : "s",
          detail::printable(line, 100)));
    }
    if (fields[1] == "WORD") continue;  // a header line, wherever it is
    const std::optional<int64_t> label = mswc_label(fields[1]);
    if (!label) {
      throw InputError(fmt::format(
          "{} line {}: '{}' is not one of NeuroBench's 200 FSCIL keywords (FSCIL_KEYWORDS; "
          "the first is '{}')",
          where, number, detail::printable(fields[1], 60), mswc_keywords().front()));
    }
    clips.push_back(
        {std::string(fields[0]), std::string(fields[1]), std::string(fields[2]), *label, number});
  }
  return clips;
}

std::string clip_file(const fs::path& folder, const ListedClip& clip) {
  return python_join(python_join(python_join(folder.string(), clip.lang), "clips"), clip.path);
}

namespace {

// Whether anything is at `p` itself, a link to nothing or a link loop included: the reader then
// says what is wrong with it rather than that it is not there.
bool entry_at(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found && !ec;
}

}  // namespace

fs::path find_release(const fs::path& path, const std::string& list) {
  std::error_code ec;
  if (entry_at(path / list)) return path;
  if (entry_at(path / "MSWC" / list)) return path / "MSWC";
  detail::check_listable(path, "MSWC folder");
  const std::string looked_for = fmt::format(
      "looked for {} (the release folder) and {} (NeuroBench's root); the release is {}",
      detail::path_text(path / list), detail::path_text(path / "MSWC" / list), kMswcUrl);
  if (!fs::exists(path, ec)) {
    throw InputError(
        fmt::format("{}: no such MSWC folder: {}", detail::path_text(path), looked_for));
  }
  if (!fs::is_directory(path, ec)) {
    throw InputError(fmt::format("{}: not a folder; an MSWC data set is a folder: {}",
                                 detail::path_text(path), looked_for));
  }
  throw InputError(
      fmt::format("{}: no MSWC list {}: {}", detail::path_text(path), list, looked_for));
}

}  // namespace mswc_detail
}  // namespace neurobench::datasets
