// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A shared library of metrics, processors and data set kinds loaded at run time (`neurobench
/// run --plugin`).
struct LoadedPlugin {
  std::filesystem::path path;      ///< The library, as loaded.
  std::vector<std::string> names;  ///< The metrics, processors and data set kinds it registered.
};

/// Loads a shared library built against this package whose `NEUROBENCH_REGISTER_METRIC`,
/// `NEUROBENCH_REGISTER_PROCESSOR` and `NEUROBENCH_REGISTER_DATASET_KIND` lines register
/// metrics, processors and data set kinds; they are then found by name like the built-ins, and
/// `neurobench list` shows the library as their source. Loading the same library again does
/// nothing. The library stays loaded until the process ends. Throws UsageError naming the library
/// when it is not a regular file (a FIFO, a directory or a device is refused before it is opened),
/// cannot be loaded (with the dynamic loader's reason), registers nothing, or registers a name that
/// is already taken.
LoadedPlugin load_plugin(const std::filesystem::path& path);

/// Loads every library named by `NEUROBENCH_PLUGIN_PATH`: a `:`-separated list of library
/// files and folders (a folder: each `*.so` in it, in name order). Empty entries are skipped;
/// a missing entry is a UsageError naming it.
std::vector<LoadedPlugin> load_plugins_from_environment();

/// Every library load_plugin() has loaded in this process (through a command's `--plugin` or
/// `NEUROBENCH_PLUGIN_PATH`), each once, in the order loaded: inputs no output of a run may
/// overwrite.
[[nodiscard]] std::vector<std::filesystem::path> loaded_plugins();

}  // namespace neurobench
NEUROBENCH_API_END
