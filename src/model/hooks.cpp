// SPDX-License-Identifier: Apache-2.0
// The selectors of modules that hooks and layer setups use.
#include <neurobench/model/hooks.hpp>

#include <algorithm>

namespace neurobench {

bool ModuleSelector::matches(const ModuleInfo& info) const {
  return std::find(paths.begin(), paths.end(), info.path) != paths.end() ||
         std::find(type_names.begin(), type_names.end(), info.type_name) != type_names.end();
}

}  // namespace neurobench
