// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// How write_output_file() writes to a path.
enum class OutputMode {
  /// A regular file, or a path where nothing is yet: written whole into a temporary file in the
  /// file's folder, flushed to disk, then renamed over the file. Through a symbolic link, the
  /// file the link leads to is replaced and the link stays.
  Replace,
  /// A character device (`/dev/null`, a terminal) or a FIFO: opened and written in place, never
  /// replaced, with no temporary file.
  WriteThrough,
};

/// Where an output goes and how, as check_output_file() found it.
struct OutputTarget {
  std::filesystem::path path;  ///< The path as given.
  /// What is written: for Replace, the file the path leads to through symbolic links (the
  /// rename's target, whose folder holds the temporary file); for WriteThrough, `path`.
  std::filesystem::path file;
  OutputMode mode = OutputMode::Replace;
  bool exists = false;  ///< Something is there already (a file to replace, a device, a FIFO).
};

/// Examines `path` as an output without writing anything, following symbolic links.
///
/// A regular file or a new path needs a folder that exists and that this process may write in
/// (for the temporary file and the rename); a character device or a FIFO needs write permission.
/// Throws InputError naming the path, `PATH: cannot open for writing: ...`, when it is a
/// directory, a block device, a socket, a symbolic link to nothing (a dangling link is refused:
/// create its target or remove it), or when its folder is missing or not writable.
///
/// ```cpp
/// if (neurobench::check_output_file("/dev/null").mode == neurobench::OutputMode::WriteThrough) {}
/// ```
[[nodiscard]] OutputTarget check_output_file(const std::filesystem::path& path);

/// A file named for messages: its path and the option or role that gave it (`--json`,
/// `--model`, `results file`).
struct NamedFile {
  std::filesystem::path path;
  std::string role;
};

/// Throws InputError when two of `outputs` are the same file, or when an output is one of
/// `inputs`, so that no output overwrites an input or another output. Files that exist are
/// compared by device and inode (so also through symbolic and hard links); paths where nothing
/// is yet by their absolute, normalised path. Inputs that do not exist are left to the code that
/// reads them. The message names both files and their roles.
void check_distinct_files(const std::vector<NamedFile>& outputs,
                          const std::vector<NamedFile>& inputs);

/// `files` named for check_distinct_files(), each with `role` (the files a data set reads:
/// Dataset::input_files()).
[[nodiscard]] std::vector<NamedFile> named_files(const std::vector<std::filesystem::path>& files,
                                                 const std::string& role);

/// One output: its path and its whole contents.
struct OutputFile {
  std::filesystem::path path;
  std::string contents;
};

/// Writes every file whole, or, as far as it can, none of them (docs/cli.md, "Output files").
///
/// Each path is checked by check_output_file() and the paths by check_distinct_files() before
/// anything is written. Then every temporary file is written and flushed, every character
/// device and FIFO opened (a FIFO must get a reader within kFifoReaderWaitSeconds) and written,
/// and only then are the temporary files renamed into place, in order. When a step fails, the
/// temporary files are removed and no file is replaced; should a rename fail after earlier
/// ones succeeded, those are undone (the old files put back with an exchanging rename, new files
/// removed) where the file system allows it, and the message says what could not be undone.
/// What went into a device or FIFO cannot be taken back. Throws InputError naming the file.
void write_output_files(const std::vector<OutputFile>& files);

/// Writes one file whole or not at all: write_output_files() of one file.
///
/// ```cpp
/// neurobench::write_output_file("results/summary.md", text);
/// ```
void write_output_file(const std::filesystem::path& path, std::string_view contents);

/// How long writing to a FIFO waits for a reader to open it before giving up, in seconds.
inline constexpr double kFifoReaderWaitSeconds = 2.0;

}  // namespace neurobench
NEUROBENCH_API_END
