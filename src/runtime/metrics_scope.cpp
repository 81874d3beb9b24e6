// SPDX-License-Identifier: Apache-2.0
#include "runtime/metrics_scope.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

namespace neurobench::detail {

namespace {

bool scope_is_under(const std::string& module_path, const std::string& scope) {
  return module_path == scope ||
         (module_path.size() > scope.size() && module_path.compare(0, scope.size(), scope) == 0 &&
          module_path[scope.size()] == '.');
}

// The direct children of the module at `parent` ("" for the root), by path.
std::vector<std::string> scope_children(const std::vector<ModuleInfo>& modules,
                                        const std::string& parent) {
  std::vector<std::string> out;
  const std::size_t start = parent.empty() ? 0 : parent.size() + 1;
  for (const auto& m : modules) {
    if (m.path.empty() || m.path == parent) continue;
    if (!parent.empty() && !scope_is_under(m.path, parent)) continue;
    if (m.path.find('.', start) != std::string::npos) continue;
    out.push_back(m.path);
  }
  return out;
}

std::string scope_name_list(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 30;
  if (names.empty()) return "none";
  if (names.size() <= kShown) return fmt::format("{}", fmt::join(names, ", "));
  return fmt::format("{}, and {} more",
                     fmt::join(names.begin(), names.begin() + kShown, ", "), names.size() - kShown);
}

[[noreturn]] void scope_not_found(const NeuroBenchModel& model,
                                  const std::vector<ModuleInfo>& modules,
                                  const std::string& path) {
  std::string message = fmt::format("metrics scope '{}': {} has no submodule '{}'; its "
                                    "top-level submodules: {}",
                                    path, model.describe(), path,
                                    scope_name_list(scope_children(modules, "")));
  // The deepest submodule on the way that exists, when it is below the root.
  std::string found;
  for (std::size_t dot = path.find('.'); dot != std::string::npos;
       dot = path.find('.', dot + 1)) {
    const std::string prefix = path.substr(0, dot);
    const bool exists = std::any_of(modules.begin(), modules.end(),
                                    [&](const ModuleInfo& m) { return m.path == prefix; });
    if (!exists) break;
    found = prefix;
  }
  if (!found.empty()) {
    message += fmt::format("; the submodules of '{}': {}", found,
                           scope_name_list(scope_children(modules, found)));
  }
  throw UsageError(message);
}

}  // namespace

ScopedModel::ScopedModel(NeuroBenchModel& inner, std::string path)
    : inner_(inner), path_(std::move(path)) {
  const std::vector<ModuleInfo> modules = inner_.modules();
  if (path_.empty()) {
    throw UsageError(fmt::format("metrics scope: the path of a submodule is empty; {}'s "
                                 "top-level submodules: {}",
                                 inner_.describe(), scope_name_list(scope_children(modules, ""))));
  }
  const bool exists = std::any_of(modules.begin(), modules.end(),
                                  [&](const ModuleInfo& m) { return m.path == path_; });
  if (!exists) scope_not_found(inner_, modules, path_);
}

bool ScopedModel::in_scope(const std::string& module_path) const {
  return scope_is_under(module_path, path_);
}

torch::Tensor ScopedModel::forward(const torch::Tensor& batch) { return inner_.forward(batch); }

torch::Tensor ScopedModel::forward_input(const c10::IValue& input) {
  return inner_.forward_input(input);
}

std::vector<ModuleInfo> ScopedModel::modules() const {
  std::vector<ModuleInfo> out;
  for (auto& m : inner_.modules()) {
    if (in_scope(m.path)) out.push_back(std::move(m));
  }
  return out;
}

std::string ScopedModel::describe() const {
  return fmt::format("{}, submodule '{}'", inner_.describe(), path_);
}

void ScopedModel::begin_batch() { inner_.begin_batch(); }
void ScopedModel::reset_slots(const torch::Tensor& mask) { inner_.reset_slots(mask); }
void ScopedModel::to(const c10::Device& device) { inner_.to(device); }
c10::Device ScopedModel::device() const { return inner_.device(); }
std::optional<std::filesystem::path> ScopedModel::source_file() const {
  return inner_.source_file();
}
std::optional<std::string> ScopedModel::source_sha256() const { return inner_.source_sha256(); }
std::unique_ptr<NeuroBenchModel> ScopedModel::load_again() const { return inner_.load_again(); }
std::vector<std::string> ScopedModel::warnings() const { return inner_.warnings(); }
bool ScopedModel::is_inlined() const { return inner_.is_inlined(); }

ModuleSelector ScopedModel::scoped(const ModuleSelector& where, bool all_when_empty) const {
  std::vector<std::string> paths;
  for (const auto& m : inner_.modules()) {
    if (!in_scope(m.path)) continue;
    if ((all_when_empty && where.empty()) || where.matches(m)) paths.push_back(m.path);
  }
  return ModuleSelector::by_path(std::move(paths));
}

HookHandle ScopedModel::keep(HookHandle inner_handle) {
  const HookHandle mine{next_id_++};
  handles_.emplace(mine.id, inner_handle);
  return mine;
}

HookHandle ScopedModel::register_forward_pre_hook(const ModuleSelector& where, ModuleHook hook) {
  return keep(inner_.register_forward_pre_hook(scoped(where, false), std::move(hook)));
}

HookHandle ScopedModel::register_forward_hook(const ModuleSelector& where, ModuleHook hook) {
  return keep(inner_.register_forward_hook(scoped(where, false), std::move(hook)));
}

HookHandle ScopedModel::register_operator_hook(const OperatorSelector& where, OperatorHook hook) {
  OperatorSelector inside = where;
  inside.within = scoped(where.within, true);
  // No module of the subtree chosen: an empty `within` would mean the whole model.
  if (inside.within.empty()) return keep(HookHandle{});
  return keep(inner_.register_operator_hook(inside, std::move(hook)));
}

void ScopedModel::remove_hook(HookHandle handle) {
  const auto it = handles_.find(handle.id);
  if (it == handles_.end()) return;
  const HookHandle inner_handle = it->second;
  handles_.erase(it);
  if (inner_handle.id != 0) inner_.remove_hook(inner_handle);
}

}  // namespace neurobench::detail
