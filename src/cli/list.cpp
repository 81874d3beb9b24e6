// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include <fmt/format.h>

#include <neurobench/metrics/metric.hpp>
#include <neurobench/processors/processors.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

namespace {
template <class Base>
void print(std::ostream& out, const char* title, const Registry<Base>& registry) {
  out << title << ":\n";
  if (registry.entries().empty()) out << "  (none)\n";
  std::size_t width = 0;
  for (const auto& e : registry.entries()) width = std::max(width, e.name.size());
  for (const auto& e : registry.entries()) {
    out << fmt::format("  {:<{}}  {}\n", e.name, width, e.description);
  }
}
}  // namespace

int list_command(std::ostream& out) {
  print(out, "static metrics (--static or --metrics)", static_metrics());
  out << "\n";
  print(out, "workload metrics (--workload or --metrics)", workload_metrics());
  out << "\n";
  print(out, "pre-processors (--pre)", pre_processors());
  out << "\n";
  print(out, "post-processors (--post)", post_processors());
  out << "\nNames are matched ignoring case and underscores (classification_accuracy works).\n";
  return kExitOk;
}

}  // namespace neurobench::cli
