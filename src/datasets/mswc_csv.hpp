// SPDX-License-Identifier: Apache-2.0
#pragma once

// The list files of NeuroBench's MSWC subset read as its `_load_list` reads them, and the path
// joins of its loader. Private to the library (src/): the Mswc data set and the FSCIL sessions
// share them.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace neurobench::datasets::mswc_detail {

/// One clip line of a list file: `PATH,WORD,LANG`, stripped.
struct ListedClip {
  std::string path;   ///< The PATH field: the clip, relative to `LANG/clips`.
  std::string word;   ///< The WORD field.
  std::string lang;   ///< The LANG field: the folder of the clip's language.
  int64_t label = 0;  ///< The word's position among the FSCIL keywords.
  int64_t line = 0;   ///< The line of the file (1-based).
};

/// The largest list file read: the release's `base_train.csv` is about 4 MB.
inline constexpr std::uint64_t kMaxListBytes = std::uint64_t{256} << 20;

/// Python's `str.strip()` on UTF-8 text: the whitespace of `str.isspace()` (ASCII and the
/// Unicode spaces: U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
/// U+3000) removed from both ends.
[[nodiscard]] std::string_view python_strip(std::string_view text);

/// Python's os.path.join(a, b) for POSIX paths: b when absolute, else a, a '/' if a is not empty
/// and does not end in one, and b.
[[nodiscard]] std::string python_join(const std::string& a, const std::string& b);

/// The lines of `text` as Python's text mode splits them (universal newlines: "\n", "\r\n" and
/// "\r" end a line; no empty line after a final newline).
[[nodiscard]] std::vector<std::string_view> python_lines(std::string_view text);

/// Reads the list file `file` as NeuroBench's `_load_list` does: every line stripped and split
/// at ',' into exactly three fields, a line whose second field is `WORD` skipped as a header,
/// the word's label its position among the FSCIL keywords. Throws InputError naming the file
/// and line when the file is missing or not a regular file, is not UTF-8, or a line is not
/// three fields, holds a NUL byte, or names a word that is not a keyword.
[[nodiscard]] std::vector<ListedClip> read_list(const std::filesystem::path& file);

/// read_list() on the text of `file`, already read.
[[nodiscard]] std::vector<ListedClip> parse_list(std::string_view text,
                                                 const std::filesystem::path& file);

/// The clip file of `clip` in the release folder `folder`: `FOLDER/LANG/clips/PATH`, joined as
/// NeuroBench's loader joins it.
[[nodiscard]] std::string clip_file(const std::filesystem::path& folder, const ListedClip& clip);

/// The release folder holding `list` (a path relative to it: `base_test.csv`,
/// `fa/evaluation.csv`): `path` itself when `path/list` exists, else `path/MSWC` when that
/// holds it. Throws InputError saying what was looked for otherwise.
[[nodiscard]] std::filesystem::path find_release(const std::filesystem::path& path,
                                                 const std::string& list);

}  // namespace neurobench::datasets::mswc_detail
