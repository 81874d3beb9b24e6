// SPDX-License-Identifier: Apache-2.0
// The observer operator that instrumentation inserts into a model's graphs:
//
//   neurobench::observe(Any self, Any payload, int site) -> ()
//
// `site` is the address of a Site owned by the Instrumentation that inserted the call; the
// instrumented clone never outlives it. When the interpreter runs the call, the operator hands
// `self` (the module object) and `payload` (a tuple of values) to the site's owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <torch/csrc/jit/ir/ir.h>

namespace neurobench::detail {

class Instrumentation;

/// The qualified name of the observer operator.
inline constexpr const char* kObserveOp = "neurobench::observe";
/// Marks a live Site ("neuroben"), checked before a site address from a graph is trusted.
inline constexpr std::uint64_t kSiteMagic = 0x6e6575726f62656eULL;

/// Where in a graph an observer call stands.
/// OperatorArgsAfter: after the operator, with its arguments (OperatorSelector::args_after).
enum class SiteKind { ModuleEntry, ModuleExit, OperatorBefore, OperatorAfter, OperatorArgsAfter };

/// One observer call site; its address is the `site` argument of the call.
struct Site {
  std::uint64_t magic = kSiteMagic;
  Instrumentation* owner = nullptr;  ///< Receives the calls (Instrumentation::fire).
  SiteKind kind = SiteKind::ModuleEntry;
  std::string op;           ///< Operator sites: qualified name.
  std::size_t index = 0;    ///< Operator sites: index of the call site within the model.
  std::string inline_name;  ///< Operator sites in inlined models: `aten::relu#2`.
};

/// Inserts a call of the observer operator at `g`'s insertion point: `self` is the module
/// object, `payload` a tuple of the values observed, `site` the site the call reports to.
void insert_observe(torch::jit::Graph& g, torch::jit::Value* self, torch::jit::Value* payload,
                    const Site* site);

}  // namespace neurobench::detail
