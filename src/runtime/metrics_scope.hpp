// SPDX-License-Identifier: Apache-2.0
#pragma once

// The metrics scope of a run (RunOptions::metrics_scope): the model as its metrics see it when
// they are restricted to one submodule, as NeuroBench's metrics see only a model's `__net__()`.
// Private to the library.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <neurobench/model/model.hpp>

namespace neurobench::detail {

/// A view of `inner` that runs the whole model but shows the metrics only the submodule at a
/// dotted path and its descendants: modules() (hence parameters() and buffers()) lists that
/// subtree, root first, with their paths from the model's root (`net`, `net.conv1`, ...), and
/// hooks are registered on the subtree's modules only (module hooks on those the selector
/// chooses; operator hooks in those modules' code, never in the code of the model around
/// them). Everything else (forward, begin_batch, reset_slots, the device, the file, warnings)
/// is the whole model's. `inner` must outlive the view.
class ScopedModel final : public NeuroBenchModel {
 public:
  /// Throws UsageError naming `path` when it is empty or the model has no submodule there,
  /// listing the model's top-level submodules (and, for a nested path whose first parts
  /// exist, the submodules of the deepest one found).
  ScopedModel(NeuroBenchModel& inner, std::string path);

  [[nodiscard]] torch::Tensor forward(const torch::Tensor& batch) override;
  [[nodiscard]] torch::Tensor forward_input(const c10::IValue& input) override;
  [[nodiscard]] std::vector<ModuleInfo> modules() const override;
  /// The whole model's description with the scope: `net.pt, submodule 'net'`.
  [[nodiscard]] std::string describe() const override;
  void begin_batch() override;
  void reset_slots(const torch::Tensor& mask) override;
  void to(const c10::Device& device) override;
  [[nodiscard]] c10::Device device() const override;
  [[nodiscard]] std::optional<std::filesystem::path> source_file() const override;
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  [[nodiscard]] std::unique_ptr<NeuroBenchModel> load_again() const override;
  [[nodiscard]] std::vector<std::string> warnings() const override;
  HookHandle register_forward_pre_hook(const ModuleSelector& where, ModuleHook hook) override;
  HookHandle register_forward_hook(const ModuleSelector& where, ModuleHook hook) override;
  HookHandle register_operator_hook(const OperatorSelector& where, OperatorHook hook) override;
  void remove_hook(HookHandle handle) override;
  [[nodiscard]] bool is_inlined() const override;

  /// The dotted path of the submodule.
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  [[nodiscard]] bool in_scope(const std::string& module_path) const;
  // The subtree's modules that `where` chooses (every one of them when `all_when_empty` and
  // `where` is empty), by path.
  [[nodiscard]] ModuleSelector scoped(const ModuleSelector& where, bool all_when_empty) const;
  HookHandle keep(HookHandle inner_handle);

  NeuroBenchModel& inner_;
  std::string path_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, HookHandle> handles_;  // ours -> the inner model's (id 0: none)
};

}  // namespace neurobench::detail
