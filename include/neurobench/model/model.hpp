// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/export.hpp>
#include <neurobench/model/hooks.hpp>
#include <neurobench/model/nir_options.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench {

/// A model under benchmark: runs batches and describes its modules, parameters and buffers.
///
/// Hook support is optional: the default hook functions throw UsageError, and metrics that
/// need hooks report that error under their own name.
class NeuroBenchModel {
 public:
  virtual ~NeuroBenchModel() = default;

  /// Runs inference on one batch `(batch, timesteps, features...)` and returns the
  /// predictions (whatever shape the model gives; post-processors may reshape them).
  [[nodiscard]] virtual torch::Tensor forward(const torch::Tensor& batch) = 0;
  /// Runs inference on one batch whose input is not one tensor (Batch::input: tuples or lists
  /// of tensors, such as `[x, (h, c)]`). The default calls forward() when `input` is a tensor
  /// and throws InputError naming the model otherwise: a model class that takes such inputs
  /// overrides it (TorchScriptModel does).
  [[nodiscard]] virtual torch::Tensor forward_input(const c10::IValue& input);

  /// Every module once, root first, in `named_modules()` order.
  [[nodiscard]] virtual std::vector<ModuleInfo> modules() const = 0;

  /// Every parameter with its dotted name (all modules' parameters, in module order).
  [[nodiscard]] std::vector<NamedTensor> parameters() const;
  /// Every buffer with its dotted name (all modules' buffers, in module order).
  [[nodiscard]] std::vector<NamedTensor> buffers() const;

  /// Where the model came from (a file path or a short description), for messages.
  [[nodiscard]] virtual std::string describe() const = 0;

  /// Called by Benchmark before each batch; step-wise models reset their state here.
  virtual void begin_batch() {}

  /// Called by Benchmark after begin_batch() when the batch has the extra `starts_recording`
  /// (a sequential data set's, such as `gen4-detection`'s): `mask`, bool `(batch)`, marks the
  /// slots where a new recording starts, whose recurrent state must be reset before the
  /// forward. Every slot is marked at the first batch of the workload pass, of a sharded run's
  /// shard, and of each cycle of the timing pass through its batches, so that no state carries
  /// over from another pass or rank. The default does nothing; TorchScriptModel calls the
  /// module's method `reset_slots(Tensor mask)` when it has one (docs/cli.md, "Recurrent state
  /// across batches").
  virtual void reset_slots(const torch::Tensor& mask) { (void)mask; }

  /// Moves the model to `device` (parameters, buffers and every other tensor it holds), as
  /// Benchmark::run does before the workload pass when RunOptions::device is not the CPU. The
  /// default does nothing for the CPU and throws UsageError naming the model for any other
  /// device: a model class that can run elsewhere overrides it and device().
  virtual void to(const c10::Device& device);
  /// Where the model's tensors are: the CPU unless to() moved them.
  [[nodiscard]] virtual c10::Device device() const { return c10::kCPU; }

  /// The file the model was loaded from, when it was (ModelFileSize reads its size).
  [[nodiscard]] virtual std::optional<std::filesystem::path> source_file() const {
    return std::nullopt;
  }
  /// The SHA-256 of the file the model was loaded from (64 lowercase hex digits), computed from
  /// the bytes loaded; Benchmark::run records it in the results as `_run.model_sha256`. None by
  /// default.
  [[nodiscard]] virtual std::optional<std::string> source_sha256() const { return std::nullopt; }
  /// A fresh copy loaded from `source_file()` with the same options, without hooks; null
  /// when the model cannot be loaded again (StartupTime times this).
  [[nodiscard]] virtual std::unique_ptr<NeuroBenchModel> load_again() const { return nullptr; }

  /// What the user should know about how the model ran so far, one message per finding (for
  /// instance, a step-wise network whose neurons keep no state). Benchmark::run adds these to
  /// `Results::warnings` after inference, each once. The default has none.
  [[nodiscard]] virtual std::vector<std::string> warnings() const { return {}; }

  /// Registers `hook` to run before `forward` of every selected module.
  /// Throws UsageError when the model does not support hooks.
  virtual HookHandle register_forward_pre_hook(const ModuleSelector& where, ModuleHook hook);
  /// Registers `hook` to run after `forward` of every selected module (sees the output).
  virtual HookHandle register_forward_hook(const ModuleSelector& where, ModuleHook hook);
  /// Registers `hook` on every call site of the selected operators.
  virtual HookHandle register_operator_hook(const OperatorSelector& where, OperatorHook hook);
  /// Removes a hook; unknown handles are ignored.
  virtual void remove_hook(HookHandle handle);
  /// True when the model's submodule calls were inlined (a `torch.jit.freeze`d model): module
  /// hooks then find nothing and operator hooks must be used.
  [[nodiscard]] virtual bool is_inlined() const { return false; }
};

/// Options for loading a TorchScript model.
struct TorchScriptOptions {
  bool stepwise = false;  ///< Feed `data[:, t]` one timestep at a time (spiking networks).
  /// Where the model's tensors go when it is loaded (torch.jit.load's map_location): the file
  /// is checked on the CPU, then loaded onto the device from the same bytes, graph constants
  /// included (a frozen or traced model has some). `cuda` is `cuda:0`.
  c10::Device device = c10::kCPU;
  /// For a NIR graph (an HDF5 file, docs/nir.md): how its dynamics become timesteps. A NIR
  /// graph runs one timestep per call: its model is step-wise whatever `stepwise` says.
  NirOptions nir{};
};

/// A TorchScript module (saved by `torch.jit.script` or `torch.jit.trace`) run in eval
/// mode under inference mode, with forward hooks built by instrumenting its graphs.
///
/// ```cpp
/// neurobench::TorchScriptModel model("net.pt");
/// auto preds = model.forward(batch);
/// ```
///
/// Step-wise mode (the reference's `SNNTorchModel`): before each batch the network's state is
/// reset (its `reset()` method when it has one; otherwise, as snnTorch's `utils.reset`, every
/// state attribute `mem`, `syn`, `syn_exc`, `syn_inh`, `spk` that a spiking neuron holds as a
/// tensor is set to zeros); then the module is called on `data[:, t]` for every timestep `t`; a
/// `(spikes, mem)` result or a plain tensor is accepted, and the spikes are stacked along
/// dimension 1. Spiking neurons are modules whose class is one of snnTorch's neuron classes
/// (metrics::spiking_neuron_types()) or that hold a tensor attribute `mem`.
///
/// A step-wise model warns (see warnings()) when its neurons keep no state between timesteps,
/// the mark of a `torch.jit.trace` of an snnTorch network: when a neuron's class never assigns
/// `self.mem` in its forward methods, and when, in every batch of 2 or more timesteps, no
/// neuron's state changed between the first timestep and the last.
class TorchScriptModel final : public NeuroBenchModel {
 public:
  /// Loads `path`, reading it once: its SHA-256 is computed (source_sha256()), every entry of
  /// the zip archive has its CRC-32 checked, the module is loaded from the bytes checked, and
  /// every tensor it holds is checked to lie within its storage, and every storage within the
  /// file record it was read from (LibTorch itself checks neither). Throws InputError naming
  /// the file when it is missing, not a regular file (a directory, FIFO or device is refused by
  /// name before it is opened) or not TorchScript, and naming the entry or the tensor
  /// (`fc1.weight`) with the sizes found when the file is corrupt.
  explicit TorchScriptModel(const std::filesystem::path& path, TorchScriptOptions options = {});
  /// Wraps an already loaded module (used as is: not copied), on the device its parameters
  /// are on; moved to `options.device` when that is not the CPU.
  explicit TorchScriptModel(torch::jit::Module module, TorchScriptOptions options = {},
                            std::string description = "TorchScript module");
  ~TorchScriptModel() override;
  TorchScriptModel(TorchScriptModel&&) noexcept;
  TorchScriptModel& operator=(TorchScriptModel&&) noexcept;
  TorchScriptModel(const TorchScriptModel&) = delete;
  TorchScriptModel& operator=(const TorchScriptModel&) = delete;

  [[nodiscard]] torch::Tensor forward(const torch::Tensor& batch) override;
  /// Calls the module's forward on `input` as it is (tuples and lists of tensors, on the
  /// model's device). Not in step-wise mode: InputError.
  [[nodiscard]] torch::Tensor forward_input(const c10::IValue& input) override;
  [[nodiscard]] std::vector<ModuleInfo> modules() const override;
  [[nodiscard]] std::string describe() const override;
  void begin_batch() override;
  /// Calls the module's `reset_slots(Tensor mask)` method, when it has one, with `mask` on
  /// the model's device, under inference mode, on the module forward() runs (the instrumented
  /// clone while hooks are registered). InputError naming the model when it fails.
  void reset_slots(const torch::Tensor& mask) override;
  [[nodiscard]] std::optional<std::filesystem::path> source_file() const override;
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// A fresh copy of the file, loaded onto the device the model is on now.
  [[nodiscard]] std::unique_ptr<NeuroBenchModel> load_again() const override;
  /// True when the model is fed one timestep per call (TorchScriptOptions::stepwise, or a NIR
  /// graph).
  [[nodiscard]] bool stepwise() const;
  /// For a model built from a NIR graph: the JSON record of the build (its NIR version, time
  /// convention, dt, reset, and each node's module and rule; docs/nir.md); else nothing.
  [[nodiscard]] std::optional<std::string> nir_record() const;
  /// Moves every tensor the modules hold (parameters, buffers, other tensor attributes, tensors
  /// in list attributes; shared tensors stay shared) to `device`; hooks stay registered. A
  /// model whose graphs hold tensor constants (frozen, traced) is loaded again from its file
  /// onto the device instead (InputError when the file changed since it was loaded); without a
  /// file, UsageError: load it with TorchScriptOptions::device. Does nothing when the model is
  /// there already.
  void to(const c10::Device& device) override;
  [[nodiscard]] c10::Device device() const override;
  /// In step-wise mode, a warning for each sign of neurons that keep no state between
  /// timesteps (naming the neurons by path and class); none otherwise.
  [[nodiscard]] std::vector<std::string> warnings() const override;

  HookHandle register_forward_pre_hook(const ModuleSelector& where, ModuleHook hook) override;
  HookHandle register_forward_hook(const ModuleSelector& where, ModuleHook hook) override;
  HookHandle register_operator_hook(const OperatorSelector& where, OperatorHook hook) override;
  void remove_hook(HookHandle handle) override;
  [[nodiscard]] bool is_inlined() const override;

  /// The module as loaded (never instrumented).
  [[nodiscard]] const torch::jit::Module& module() const;
  /// Every buffer, by dotted name, of the module the last forward ran (the instrumented clone
  /// when hooks were registered then): the network's state after it, such as a spiking
  /// neuron's `mem`.
  [[nodiscard]] std::vector<NamedTensor> live_buffers() const;
  /// What the module's forward returned for the last batch it ran whole (not step-wise): the
  /// predictions are its first tensor; a caller that wants the rest (a tuple's other elements)
  /// reads it here. None before the first forward.
  [[nodiscard]] const c10::IValue& last_output() const;
  /// Replaces the values of buffers by dotted name (state a network carries from one run into
  /// the next), on the model's device. InputError naming the buffer when the module has none
  /// of that name.
  void set_buffers(const std::vector<NamedTensor>& buffers);
  /// The options given at construction.
  [[nodiscard]] const TorchScriptOptions& options() const;
  /// Number of hooks currently registered.
  [[nodiscard]] std::size_t hook_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The class name of a TorchScript type name with its `__torch__.` prefix, module path and
/// `___torch_mangle_N` parts removed: `__torch__.a.___torch_mangle_3.Linear` gives `Linear`.
[[nodiscard]] std::string demangled_type_name(const std::string& qualified);
/// The qualified name without `__torch__.` and mangling: `a.Linear`.
[[nodiscard]] std::string demangled_qualified_name(const std::string& qualified);

}  // namespace neurobench
NEUROBENCH_API_END
