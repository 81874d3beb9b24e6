// SPDX-License-Identifier: Apache-2.0
// Plugin libraries: metrics, processors and data set kinds registered by a shared library
// loaded at run time.
#include <neurobench/plugins.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/processors/processors.hpp>

#include "io/input_file.hpp"
#include "registry_source.hpp"

namespace neurobench {

namespace {

// Every registered plugin name with its source, across the families.
std::set<std::string> registered_names() {
  std::set<std::string> names;
  for (const auto* m : all_metrics()) names.insert(m->name);
  for (const auto& e : pre_processors().entries()) names.insert(e.name);
  for (const auto& e : post_processors().entries()) names.insert(e.name);
  for (const auto& e : dataset_kinds().entries()) names.insert(e.name);
  return names;
}

struct Loaded {
  std::mutex mutex;
  std::map<std::filesystem::path, LoadedPlugin> by_path;
  std::vector<std::filesystem::path> order;  // by_path's keys, in the order loaded
};
Loaded& loaded() {
  static Loaded l;
  return l;
}

}  // namespace

LoadedPlugin load_plugin(const std::filesystem::path& path) {
  // dlopen() opens the file for reading: a FIFO would block it until a writer came.
  try {
    detail::check_regular_input(path, "plugin library");
  } catch (const InputError& e) {
    throw UsageError(e.what());
  }
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(path, ec);
  if (ec) throw UsageError(fmt::format("plugin {}: {}", path.string(), ec.message()));
  auto& l = loaded();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (const auto it = l.by_path.find(canonical); it != l.by_path.end()) return it->second;

  const std::set<std::string> before = registered_names();
  {
    detail::ScopedRegistrationSource source(canonical.string());
    // RTLD_NOW: a missing symbol (a plugin built against another version) fails here, not in
    // the middle of a run. The handle is kept for ever: the metrics' code lives in it.
    if (dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
      const char* why = dlerror();
      throw UsageError(fmt::format("cannot load plugin {}: {}", path.string(),
                                   why != nullptr ? why : "unknown reason"));
    }
  }
  std::set<std::string> after;
  try {
    after = registered_names();  // runs the plugin's registrations
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("plugin {}: {}", path.string(), e.what()));
  }
  LoadedPlugin plugin{canonical, {}};
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(plugin.names));
  if (plugin.names.empty()) {
    throw UsageError(fmt::format(
        "plugin {} registered no metric, processor or data set kind (a "
        "NEUROBENCH_REGISTER_METRIC, NEUROBENCH_REGISTER_PROCESSOR or "
        "NEUROBENCH_REGISTER_DATASET_KIND line in a .cpp file of the library registers one)",
        path.string()));
  }
  l.by_path.emplace(canonical, plugin);
  l.order.push_back(canonical);
  return plugin;
}

std::vector<std::filesystem::path> loaded_plugins() {
  auto& l = loaded();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.order;
}

std::vector<LoadedPlugin> load_plugins_from_environment() {
  std::vector<LoadedPlugin> plugins;
  const char* value = std::getenv("NEUROBENCH_PLUGIN_PATH");
  if (value == nullptr) return plugins;
  std::stringstream entries(value);
  std::string entry;
  while (std::getline(entries, entry, ':')) {
    if (entry.empty()) continue;
    std::error_code ec;
    if (std::filesystem::is_directory(entry, ec)) {
      std::vector<std::filesystem::path> libraries;
      for (const auto& file : std::filesystem::directory_iterator(entry, ec)) {
        if (file.path().extension() == ".so") libraries.push_back(file.path());
      }
      std::sort(libraries.begin(), libraries.end());
      for (const auto& library : libraries) plugins.push_back(load_plugin(library));
    } else if (std::filesystem::exists(entry, ec)) {
      plugins.push_back(load_plugin(entry));
    } else {
      throw UsageError(fmt::format("NEUROBENCH_PLUGIN_PATH names {}, which does not exist", entry));
    }
  }
  return plugins;
}

}  // namespace neurobench
