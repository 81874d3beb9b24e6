// SPDX-License-Identifier: Apache-2.0
#pragma once

// What stat() says a file is, in words, for the messages of the input and output checks.
// Private to the library (src/).

#include <sys/types.h>

namespace neurobench::detail {

/// The type in `mode` (a stat() st_mode) with its article: "a regular file", "a directory",
/// "a FIFO (named pipe)", "a character device", "a block device", "a socket",
/// "a symbolic link", or "a file of unknown type".
[[nodiscard]] const char* describe_file_type(mode_t mode);

}  // namespace neurobench::detail
