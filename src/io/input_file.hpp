// SPDX-License-Identifier: Apache-2.0
#pragma once

// The one check every file input goes through before it is opened: a model, an .npz, .npy or
// IDX file, a config, a results file. Private to the library (src/).

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace neurobench::detail {

/// Checks with stat(), without opening it, that `path` names a regular file (a symbolic link to
/// one is fine), and returns its size in bytes. Opening a FIFO for reading would block until a
/// writer comes, and a device such as /dev/zero never ends: neither is opened.
///
/// `what` names the file in messages ("model file", "config file", "file"). Throws InputError:
/// - `PATH: no such WHAT` when nothing is there (a dangling symbolic link adds
///   `(a symbolic link to TARGET, which does not exist)`);
/// - `PATH: the WHAT is a directory, not a regular file` (or `a FIFO (named pipe)`,
///   `a character device`, `a block device`, `a socket`);
/// - `PATH: cannot read the WHAT: REASON` when stat() fails otherwise (no permission, a loop of
///   symbolic links).
std::uint64_t check_regular_input(const std::filesystem::path& path, std::string_view what);

/// check_regular_input(), and an InputError `PATH: the WHAT is N bytes, more than the limit of
/// LIMIT` when the file is larger than `max_bytes`.
std::uint64_t check_regular_input(const std::filesystem::path& path, std::string_view what,
                                  std::uint64_t max_bytes);

/// Checks that this process may open `path` for reading (open() with O_NONBLOCK, closed at
/// once): InputError `PATH: cannot open the WHAT: REASON` (Permission denied) otherwise. For
/// readers that hand the path to a library (libsndfile) or a stream, whose own failure would
/// name another cause.
void check_openable(const std::filesystem::path& path, std::string_view what);
/// Checks that this process may list the folder `path`: InputError `PATH: cannot list the WHAT:
/// REASON` when it exists but cannot be read, so that a folder without permission is not taken
/// for one of the wrong layout. Nothing when it does not exist.
void check_listable(const std::filesystem::path& path, std::string_view what);

/// Checks an entry a data set kind found listing a folder, before it decides by the entry's type
/// whether to take it (a label folder, a trial, a recording): InputError `PATH: the WHAT is a
/// symbolic link to TARGET, which does not exist`, `... is a symbolic link loop`, or `cannot
/// read the WHAT: REASON`, so that no entry whose type cannot be known is left out in silence.
void check_entry_resolves(const std::filesystem::path& path, std::string_view what);

/// The whole of a regular file of at most `max_bytes`, checked by check_regular_input() first.
/// Reads at most `max_bytes` + 1 bytes, so a file that grows meanwhile is refused rather than read
/// without end. Throws InputError naming the file when it cannot be opened or read.
[[nodiscard]] std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                                          std::uint64_t max_bytes);

/// A byte count for messages: `16 MiB` when it is a whole number of MiB, else `N bytes`.
[[nodiscard]] std::string byte_count(std::uint64_t bytes);

}  // namespace neurobench::detail
