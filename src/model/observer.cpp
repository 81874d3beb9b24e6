// SPDX-License-Identifier: Apache-2.0
// The observer operator `neurobench::observe` (see observer.hpp): its registration with the
// dispatcher, its kernel, and the graph node that calls it.
//
// CONSERVATIVE alias analysis keeps the op (it has no outputs, so it would otherwise be removed
// as dead code) and keeps it in program order. The registration is a static object in this
// file; the library is static, and the linker keeps this object file because
// instrumentation.cpp calls insert_observe().
#include "model/observer.hpp"

#include <exception>

#include <torch/library.h>

#include "model/instrumentation.hpp"

namespace neurobench::detail {
namespace {

void observe_kernel(const c10::OperatorHandle& /*op*/, torch::jit::Stack* stack) {
  const auto n = stack->size();
  const auto* site = reinterpret_cast<const Site*>(  // NOLINT(performance-no-int-to-ptr)
      static_cast<std::intptr_t>((*stack)[n - 1].toInt()));
  if (site != nullptr && site->magic == kSiteMagic && site->owner != nullptr) {
    try {
      site->owner->fire(*site, (*stack)[n - 3], (*stack)[n - 2]);
    } catch (...) {
      site->owner->keep_exception(std::current_exception());
      throw;
    }
  }
  torch::jit::drop(*stack, 3);
}

}  // namespace

void insert_observe(torch::jit::Graph& g, torch::jit::Value* self, torch::jit::Value* payload,
                    const Site* site) {
  torch::jit::Value* site_value =
      g.insertConstant(static_cast<int64_t>(reinterpret_cast<std::intptr_t>(site)));
  g.insertNode(g.create(c10::Symbol::fromQualString(kObserveOp), {self, payload, site_value},
                        /*num_outputs=*/0));
}

}  // namespace neurobench::detail

TORCH_LIBRARY(neurobench, m) {
  m.def(torch::schema("neurobench::observe(Any self, Any payload, int site) -> ()",
                      c10::AliasAnalysisKind::CONSERVATIVE),
        torch::CppFunction::makeFromBoxedFunction<&neurobench::detail::observe_kernel>());
}
