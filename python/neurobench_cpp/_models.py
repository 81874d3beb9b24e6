# SPDX-License-Identifier: Apache-2.0
"""Models as NeuroBench's Benchmark takes them, made into TorchScript for the C++ harness.

`prepare_model(model, example_input=None)` returns a `PreparedModel`. It accepts NeuroBench's
own `TorchModel(net)` and `SNNTorchModel(net, custom_forward=...)` (recognised by class name and
module, NeuroBench is never imported here), this module's `TorchModel` and `SNNTorchModel`
(the same constructors, for use without NeuroBench), a `torch.jit.ScriptModule`, or the path of
a TorchScript file. Eager networks go through the project's exporter (`neurobench_export`),
checked against the eager network; a network it refuses raises `ModelError`.
"""

import os
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple


@dataclass(frozen=True)
class PreparedModel:
    """A model ready for the C++ harness.

    script: the torch.jit.ScriptModule the harness runs (a property: an exported one is loaded
        back from `path` when first read).
    kind: "torchscript" (a ScriptModule or file given as is), "torch" (TorchModel),
        "snntorch" (SNNTorchModel) or "nir" (a NIR graph or file, built by the harness).
    original: the object the user gave (NeuroBench's wrapper, ours, a ScriptModule or a path):
        what Python metrics receive as `model`, as NeuroBench gives them the wrapper.
    describe: names it in messages ("SNNTorchModel(Net)", "TorchScript file 'net.pt'").
    path: a TorchScript file holding `script` (the exporter's output, the file given, or the
        given ScriptModule saved): what ModelFileSize and StartupTime measure.
    stepwise: True when the harness must call the model once per timestep, data[:, t], after a
        reset, stacking outputs along dimension 1 (SNNTorchModel without custom_forward;
        `neurobench run --stepwise`); False: one call per batch.
    activation_modules: class names of the layers NeuroBench's hooks count as activations for
        this model (TorchModel: ReLU and Sigmoid; SNNTorchModel: those and snnTorch's neurons;
        plus classes added with add_activation_module), found among the network's modules;
        None: the harness's default (a model given as TorchScript).
    """

    loaded: Any  # the ScriptModule, or None: loaded from `path` when `script` is first read
    kind: str
    original: Any
    describe: str
    path: Optional[str] = None
    stepwise: bool = False
    activation_modules: Optional[Tuple[str, ...]] = None
    # Keeps the temporary folder of an exported or saved file alive as long as the model.
    workdir: Any = field(default=None, repr=False, compare=False)

    @property
    def script(self):
        """The ScriptModule; an exported one is loaded from `path` on first use (the harness
        loads the file itself, so a run need not load it in Python too)."""
        if self.loaded is None:
            import torch
            object.__setattr__(self, "loaded", torch.jit.load(self.path, map_location="cpu"))
        return self.loaded


class ModelError(ValueError):
    """A model the C++ harness cannot run exactly as NeuroBench would: the message names the
    model and the reason (the exporter's refusal, a file that does not load, ...)."""


_EXAMPLE_SAMPLES = 8  # the exporter's check runs on at most this many samples of the batch

_NB_MODEL_MODULES = {"TorchModel": ("neurobench.models.torch_model",),
                     "SNNTorchModel": ("neurobench.models.snntorch_models",)}


def _default_activation_modules():
    import torch.nn as nn
    return [nn.ReLU, nn.Sigmoid]


class TorchModel:
    """neurobench_cpp's equivalent of NeuroBench's TorchModel(net), for use without NeuroBench:
    the same constructor, call, `__net__()` and `add_activation_module()`."""

    def __init__(self, net):
        self.net = net
        self.net.eval()
        self.activation_modules = _default_activation_modules()

    def __call__(self, batch):
        return self.net(batch)

    def __net__(self):
        return self.net

    def add_activation_module(self, activation_module):
        self.activation_modules.append(activation_module)

    def activation_layers(self):
        """NeuroBench's activation_layers(): [{"layer_name", "layer"}], children searched
        recursively, an activation layer's own children not."""
        return _activation_layers(self.net, self.activation_modules)


class SNNTorchModel(TorchModel):
    """neurobench_cpp's equivalent of NeuroBench's SNNTorchModel(net, custom_forward=False):
    called on (batch, timesteps, ...), the net is reset and called once per timestep (or, with
    custom_forward, once on the whole batch, its (timesteps, batch, ...) output transposed)."""

    def __init__(self, net, custom_forward=False):
        super().__init__(net)
        try:  # snnTorch's neurons count as activations, as in NeuroBench
            import snntorch
            self.add_activation_module(snntorch.SpikingNeuron)
        except ImportError:  # then the net has no snnTorch neurons to find
            pass
        self.custom_forward = custom_forward

    def __call__(self, data):
        import torch
        if self.custom_forward:
            return self.net(data).transpose(0, 1)
        if hasattr(self.net, "reset"):
            self.net.reset()
        else:
            from snntorch import utils
            utils.reset(self.net)
        spikes = [self.net(data[:, step, ...])[0] for step in range(data.shape[1])]
        return torch.stack(spikes).transpose(0, 1)


def _activation_layers(net, activation_modules):
    kinds = tuple(activation_modules)
    layers = []
    for name, child in net.named_children():
        if isinstance(child, kinds):
            layers.append({"layer_name": name, "layer": child})
        elif list(child.children()):
            layers.extend(_activation_layers(child, kinds))
    return layers


def _is_script_module(obj):
    import torch
    return isinstance(obj, torch.jit.ScriptModule)


def _wrapper_kind(model):
    """'TorchModel' or 'SNNTorchModel' for NeuroBench's wrappers and ours (subclasses that do
    not change __call__ included), with who made it; None for anything else."""
    cls = type(model)
    for base in cls.__mro__:
        if base in (TorchModel, SNNTorchModel):
            owner = "neurobench_cpp"
        elif base.__name__ in _NB_MODEL_MODULES and base.__module__ in _NB_MODEL_MODULES[
                base.__name__]:
            owner = "NeuroBench's"
        else:
            continue
        overriding = [k.__name__ for k in cls.__mro__[:cls.__mro__.index(base)]
                      if "__call__" in vars(k)]
        if overriding:
            raise ModelError(
                f"{cls.__name__} (a subclass of {owner} {base.__name__}) defines its own __call__"
                f" ({overriding[0]}.__call__): the C++ harness runs the network as "
                f"{base.__name__} does and cannot run Python code in its place; export the "
                f"behaviour you want as TorchScript (neurobench_export) and pass the module")
        return base.__name__, owner
    return None


class _Workdir:
    """A temporary folder removed when the PreparedModel holding it goes (or at exit)."""

    def __init__(self):
        import shutil
        import tempfile
        import weakref
        self.name = tempfile.mkdtemp(prefix="neurobench_cpp_")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.name, ignore_errors=True)

    def cleanup(self):
        self._finalizer()


def _prepare_script(script, original, kind, describe, stepwise, activation_modules):
    import torch
    workdir = _Workdir()
    path = f"{workdir.name}/model.pt"
    torch.jit.save(script, path)
    return PreparedModel(script, kind, original, describe, path, stepwise, activation_modules,
                         workdir)


def _example_for(describe, example_input, stepwise):
    import torch
    if example_input is None:
        raise ModelError(f"{describe}: an eager network is exported to TorchScript on a batch of "
                         f"the data, and none was given (example_input)")
    if not isinstance(example_input, torch.Tensor):
        # Tensors in lists and tuples ([x, (h, c)]: a recurrent network given its state), as
        # the pre-processors made them; the whole batch is the example.
        from neurobench_export import inputs
        bad = inputs.problem(example_input, "the model's input")
        if bad:
            raise ModelError(f"{describe}: {bad}")
        if stepwise:
            raise ModelError(f"{describe}: SNNTorchModel's input is one tensor (batch, "
                             f"timesteps, ...), got {inputs.describe(example_input)}")
        return inputs.map_leaves(torch.Tensor.detach, example_input)
    if stepwise and example_input.dim() < 2:
        raise ModelError(f"{describe}: SNNTorchModel's input is (batch, timesteps, ...), got "
                         f"shape {list(example_input.shape)}")
    if stepwise and example_input.shape[1] == 0:
        raise ModelError(f"{describe}: the batch has no timesteps (shape "
                         f"{list(example_input.shape)})")
    example = example_input.detach()[:_EXAMPLE_SAMPLES]
    return example[:, 0] if stepwise else example


def _state_with_history(net):
    """Dotted names of plain attributes (not parameters or buffers) of net's modules holding
    tensors with autograd history: state a forward pass with gradients left behind, which
    neither a copy nor TorchScript can carry."""
    import torch
    found = []
    for path, m in net.named_modules():
        for key, value in vars(m).items():
            items = value if isinstance(value, (list, tuple)) else [value]
            if any(isinstance(v, torch.Tensor) and v.grad_fn is not None for v in items):
                found.append(f"{path}.{key}" if path else key)
    return found


def _export(net, original, kind, describe, example_input, custom_forward, stepwise,
            activation_modules, cache=None):
    try:
        from neurobench_export import EagerNetworkError, ExportError, export
        from neurobench_export.pruning import masks_applied
    except ImportError as e:
        raise ModelError(f"{describe}: the exporter (package neurobench_export, installed with "
                         f"neurobench_cpp) cannot be imported: {e}") from e
    with masks_applied(net):  # a pruned layer's masked weight has autograd history: not state
        held = _state_with_history(net)
    if held:
        raise ModelError(
            f"{describe}: the network cannot be exported to TorchScript with its exact "
            f"behaviour, so the C++ harness cannot run it: {type(net).__name__} keeps state "
            f"between calls in plain Python attributes ({', '.join(held)}), tensors with "
            f"autograd history left by a forward pass run with gradients; the exporter cannot "
            f"copy them, and TorchScript carries state only in buffers")
    example = _example_for(describe, example_input, stepwise)
    from . import _cache
    cache_key = _cache.key(net, kind, custom_forward, stepwise, example) if cache else None
    cached = _cache.lookup(cache, cache_key)
    if cached is not None:  # exported and checked by an earlier process
        return PreparedModel(None, kind, original, describe, cached, stepwise,
                             activation_modules, None)
    workdir = _Workdir()
    path = f"{workdir.name}/model.pt"
    rng = _RngState()  # the export's own runs leave torch's generators as they found them
    try:
        export(net, path, example_input=example, custom_forward=custom_forward,
               stepwise=stepwise)
    except EagerNetworkError as e:
        workdir.cleanup()
        # The network itself fails on the batch: NeuroBench's run raises the same error.
        cause = e.cause
        if hasattr(cause, "add_note"):
            cause.add_note(f"neurobench_cpp: raised by the network of {describe} on the first "
                           f"batch")
        raise cause from None
    except ExportError as e:
        workdir.cleanup()
        raise ModelError(f"{describe}: the network cannot be exported to TorchScript with its "
                         f"exact behaviour, so the C++ harness cannot run it: {e}") from e
    finally:
        rng.restore()
    _cache.store(cache, cache_key, path, describe)
    return PreparedModel(None, kind, original, describe, path, stepwise, activation_modules,
                         workdir)


class _RngState:
    """torch's CPU generator (and the current CUDA device's, when there is one) as it is now,
    put back by restore(): a seeded script's shuffles and draws come out as under NeuroBench,
    whose runs draw nothing of their own before the first batch."""

    def __init__(self):
        import torch
        self.cpu = torch.get_rng_state()
        self.cuda = torch.cuda.get_rng_state() if torch.cuda.is_available() and \
            torch.cuda.is_initialized() else None

    def restore(self):
        import torch
        torch.set_rng_state(self.cpu)
        if self.cuda is not None:
            torch.cuda.set_rng_state(self.cuda)


def _activation_names(net, activation_modules):
    """Class names of the layers NeuroBench's hooks would treat as activations in `net`."""
    names = []
    for layer in _activation_layers(net, activation_modules):
        name = type(layer["layer"]).__name__
        if name not in names:
            names.append(name)
    return tuple(names)


def _prepare_wrapper(model, wrapper, owner, example_input, cache=None):
    net = getattr(model, "net", None)
    if net is None:
        raise ModelError(f"{owner} {wrapper} {type(model).__name__} has no network (.net)")
    snn = wrapper == "SNNTorchModel"
    custom_forward = bool(getattr(model, "custom_forward", False)) if snn else False
    stepwise = snn and not custom_forward
    kind = "snntorch" if snn else "torch"
    describe = (f"{owner} {wrapper}({type(net).__name__}"
                f"{', custom_forward=True' if custom_forward else ''})")
    if _is_script_module(net):
        # Already TorchScript: run as it is. NeuroBench's hooks find no layer in a
        # ScriptModule; the harness finds them by class name (its defaults).
        return _prepare_script(net, model, kind, describe, stepwise, None)
    activation_modules = _activation_names(
        net, getattr(model, "activation_modules", _default_activation_modules()))
    if stepwise and isinstance(example_input, _tensor_type()):
        _check_step_output(net, _example_for(describe, example_input, stepwise), describe)
    return _export(net, model, kind, describe, example_input, custom_forward, stepwise,
                   activation_modules, cache)


def _tensor_type():
    import torch
    return torch.Tensor


def _check_step_output(net, step, describe):
    """NeuroBench's SNNTorchModel unpacks each timestep's output as `spk_out, _ = net(x)`: an
    output that does not unpack into two raises ValueError there, and here the same."""
    import torch
    from neurobench_export.verify import _reset_like_neurobench, _restore, _snapshot
    saved = _snapshot(net)
    try:
        with torch.no_grad():
            _reset_like_neurobench(net)
            out = net(step)
    except Exception:  # noqa: BLE001 (the export reports the network's own failure)
        return
    finally:
        _restore(saved)
    count = len(out) if isinstance(out, (tuple, list)) else (
        out.shape[0] if isinstance(out, torch.Tensor) and out.dim() else None)
    if count == 2 and isinstance(out, (tuple, list)):
        return
    if count is None:
        raise TypeError(f"cannot unpack non-iterable {type(out).__name__} object")
    if count > 2:
        raise ValueError("too many values to unpack (expected 2)")
    if count < 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {count})")
    raise ModelError(
        f"{describe}: each timestep returns one tensor of shape {list(out.shape)}; NeuroBench's "
        f"SNNTorchModel unpacks it as (spikes, membrane) along its first dimension, which "
        f"works only for a batch of 2 and then reads the first sample as the batch's spikes: "
        f"return (spikes, membrane) from the network")


_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def is_nir_graph(model):
    """True for a `nir.NIRGraph` (the NIR package's graph, as NIR's frameworks export it)."""
    return any(base.__name__ == "NIRGraph" and base.__module__.split(".")[0] == "nir"
               for base in type(model).__mro__)


def is_nir_file(path):
    """True for a `.nir` path or a regular file starting with HDF5's signature: a NIR graph,
    which the C++ harness reads itself (docs/nir.md)."""
    if path.endswith(".nir"):
        return True
    if not os.path.isfile(path):  # a FIFO would block
        return False
    try:
        with open(path, "rb") as f:
            return f.read(8) == _HDF5_SIGNATURE
    except OSError:
        return False


def _prepare_nir_graph(graph):
    """A nir.NIRGraph written with its own package's nir.write into a temporary file, which the
    harness reads as any NIR file."""
    import sys
    import tempfile
    nir = sys.modules[type(graph).__module__.split(".")[0]]
    workdir = tempfile.TemporaryDirectory(prefix="neurobench_cpp_nir_")
    path = os.path.join(workdir.name, "graph.nir")
    try:
        nir.write(path, graph)
    except Exception as e:  # the nir package's own error
        workdir.cleanup()
        raise ModelError(f"NIRGraph: nir.write could not write it: {type(e).__name__}: {e}") \
            from e
    return PreparedModel(None, "nir", graph, "NIRGraph", path, True, None, workdir)


def prepare_model(model, example_input=None, cache_dir=None):
    """The model as NeuroBench's Benchmark takes it -> PreparedModel for the C++ harness.

    model: NeuroBench's TorchModel(net) or SNNTorchModel(net, custom_forward=...), ours
        (neurobench_cpp.TorchModel / SNNTorchModel), a torch.jit.ScriptModule, the path of a
        TorchScript file or of a NIR graph (str or os.PathLike), or a nir.NIRGraph.
    example_input: one batch's data as the model is called with it (after the
        pre-processors); needed for an eager network, which is exported on it. For
        SNNTorchModel without custom_forward it is (batch, timesteps, ...) and its first
        timestep is the exporter's example.
    cache_dir: the export cache's folder (_cache.py), or None for no cache.
    Raises TypeError for anything else, ModelError when the model cannot run exactly.
    """
    import os
    found = _wrapper_kind(model)
    if found is not None:
        wrapper, owner = found
        return _prepare_wrapper(model, wrapper, owner, example_input, cache_dir)
    if _is_script_module(model):
        return _prepare_script(model, model, "torchscript",
                               f"TorchScript module {getattr(model, 'original_name', '')}".strip(),
                               False, None)
    if is_nir_graph(model):
        return _prepare_nir_graph(model)
    if isinstance(model, (str, os.PathLike)) and is_nir_file(os.fspath(model)):
        path = os.fspath(model)
        return PreparedModel(None, "nir", model, f"NIR graph '{path}'", os.path.abspath(path),
                             True, None)
    if isinstance(model, (str, os.PathLike)):
        import torch
        path = os.fspath(model)
        describe = f"TorchScript file '{path}'"
        if not os.path.isfile(path):
            raise ModelError(f"{describe}: no such file")
        try:
            script = torch.jit.load(path, map_location="cpu")
        except Exception as e:  # torch's RuntimeError with the reason
            raise ModelError(f"{describe} cannot be loaded as TorchScript: {e}") from e
        return PreparedModel(script, "torchscript", model, describe, os.path.abspath(path), False,
                             None)
    for base in type(model).__mro__:
        if base.__name__ == "NeuroBenchModel" and base.__module__ in (
                "neurobench.models.neurobench_model", "neurobench.models.model"):
            raise ModelError(
                f"{type(model).__name__} is the script's own NeuroBenchModel: its __call__ is "
                f"Python code, which the C++ harness cannot run in its loop; wrap the network in "
                f"TorchModel or SNNTorchModel, or export what __call__ does as one TorchScript "
                f"module (neurobench_export, docs/snntorch.md) and pass that")
    hint = ""
    if hasattr(model, "forward") and hasattr(model, "parameters"):
        hint = " (wrap the network as NeuroBench does: TorchModel(net) or SNNTorchModel(net))"
    raise TypeError(f"model: {type(model).__module__}.{type(model).__qualname__} is not accepted"
                    f"{hint}; accepted: NeuroBench's TorchModel or SNNTorchModel, "
                    f"neurobench_cpp.TorchModel or SNNTorchModel, a torch.jit.ScriptModule, "
                    f"the path of a TorchScript file or NIR graph, or a nir.NIRGraph")
