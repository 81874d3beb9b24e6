// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

#include "cli/commands.hpp"

namespace neurobench::cli {

/// Reads a benchmark config (JSON) into `args`. Relative paths are taken from the config's
/// folder. Throws UsageError naming the file and key for unknown keys and wrong types, and
/// InputError when the file is missing or not JSON.
void load_config(const std::filesystem::path& path, RunArgs& args);

/// The keys a config may have, for `--help` and docs.
[[nodiscard]] const char* config_keys();

}  // namespace neurobench::cli
