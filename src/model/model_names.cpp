// SPDX-License-Identifier: Apache-2.0
// Names of TorchScript modules as users write them: class names without TorchScript's
// `__torch__.` prefix and `___torch_mangle_N` atoms.
#include <neurobench/model/model.hpp>

#include <algorithm>
#include <regex>
#include <string>

namespace neurobench {

std::string demangled_qualified_name(const std::string& qualified) {
  std::string name = qualified;
  const std::string prefix = "__torch__.";
  if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
  // Drop every atom `___torch_mangle_N`, wherever it stands (also several in a row):
  // `a.___torch_mangle_3.Linear` -> `a.Linear`.
  static const std::regex mangle(R"(___torch_mangle_\d+)");
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = std::min(name.find('.', start), name.size());
    const std::string atom = name.substr(start, dot - start);
    if (!std::regex_match(atom, mangle)) out += (out.empty() ? "" : ".") + atom;
    start = dot + 1;
  }
  return out;
}

std::string demangled_type_name(const std::string& qualified) {
  const std::string name = demangled_qualified_name(qualified);
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

}  // namespace neurobench
