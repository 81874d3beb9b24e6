#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Export snnTorch networks to TorchScript with their exact behaviour, for neurobench-cpp.

    from neurobench_export import export
    export(net, "net.pt", example_input=x)                        # SNNTorchModel(net): --stepwise
    export(net, "net.pt", example_input=x, custom_forward=True)   # ...(net, custom_forward=True)
    export(net, "net.pt", example_input=x)                        # TorchModel(net)

`example_input` is one batch as the model is called with it: one timestep `data[:, t]` for a
network that NeuroBench runs step by step, the whole `(batch, time, ...)` tensor otherwise.

`torch.jit.script` fails on snnTorch's neurons and `torch.jit.trace` drops their state. This
module replaces every snnTorch neuron with a TorchScript module of the same class name that keeps
its state (`mem`, `syn`, ...) as attributes and computes what snnTorch 0.9 computes, operation
for operation. It then scripts the network around them (or, for a network stepped by NeuroBench
whose code TorchScript cannot compile, traces it: a traced parent records calls into scripted
children, so their state lives on). Module paths and class names stay those of the eager net.

Before the file is written, the eager net and the saved file run side by side (several timesteps
and two batch sizes, states carried, resets as NeuroBench does them); they must agree exactly,
or nothing is written and ExportError names the first neuron that differs. The eager net is left
as it was given. Needs only torch and the network's own snnTorch; the C++ library needs neither.

Command line (see docs/snntorch.md):
    python3 python/neurobench_export.py my_module:make_net out.pt --example-shape 8,40
"""

import argparse
import ast
import copy
import importlib
import importlib.util
import inspect
import linecache
import math
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import textwrap
import traceback
import types
from typing import Optional, Tuple

import torch
from torch import Tensor, nn

__all__ = ["export", "ExportError", "ExportArgumentError", "MAX_STEPS"]


class ExportError(RuntimeError):
    """The network cannot be exported with its exact behaviour; the message says why and where."""


class ExportArgumentError(ExportError):
    """An argument of export() is bad: an output path that cannot be written (a directory, a
    device, a FIFO, a missing folder), an example_input that is not one, steps out of range.
    The message names the argument or the file. The command line exits 2 for these."""


MAX_STEPS = 10000
"""The largest `steps` export() takes: calls per batch in the check, three batches or more."""


# ---------------------------------------------------------------------------------------------
# Scripted neurons. Each computes what snnTorch 0.9.4's class of the same name computes in
# inference, in the same order of floating-point operations, and keeps its state as attributes.
# In inference every snnTorch surrogate fires a Heaviside step, `(x > 0).float()`.

class _Neuron(nn.Module):
    """Common part of the scripted neurons: constants, spike functions, explicit state."""

    __constants__ = ["init_hidden", "output", "inhibition", "reset_delay", "_state_fn",
                     "_honour_state_args", "_reset_mechanism"]

    def _fire(self, mem: Tensor) -> Tensor:
        if self.inhibition:
            mem_shift = mem - self.threshold
            index = torch.argmax(mem_shift, dim=1)
            spk_tmp = (mem_shift > 0).float()
            mask = torch.zeros_like(spk_tmp)
            mask[torch.arange(mem.size(0)), index] = 1
            return spk_tmp * mask
        spk = (mem - self.threshold > 0).float()
        return spk * self.graded_spikes_factor

    def _mem_reset(self, mem: Tensor) -> Tensor:
        return (mem - self.threshold > 0).float()

    def _reset_now(self, spk: Tensor, reset: Tensor) -> None:
        # reset_delay=False: the neurons that fired now are reset in this step (minus those the
        # delayed reset already took), by the reset mechanism in force now
        do_reset = spk / self.graded_spikes_factor - reset
        if int(self.reset_mechanism_val) == 0:
            self.mem = self.mem - do_reset * self.threshold
        elif int(self.reset_mechanism_val) == 1:
            self.mem = self.mem - do_reset * self.mem

    def _neurobench_noop(self) -> None:
        pass

    def _neurobench_reset_state(self) -> None:
        # What the class's snnTorch reset_hidden() does to one neuron: its reset_mem().
        self.reset_mem()

    # snnTorch's class methods reset_hidden()/detach_hidden() act on every instance of a class;
    # calls to them in a network's code are rewritten to reset the network's own neurons of
    # that class. These instance versions serve the exporter's eager trial runs.
    def reset_hidden(self) -> None:
        self._neurobench_reset_state()

    def detach_hidden(self) -> None:
        pass


class _Leaky(_Neuron):
    def _step(self, input_: Tensor, mem: Optional[Tensor]) -> Tensor:
        if self._honour_state_args and mem is not None:
            self.mem = mem
        if self.init_hidden and self._honour_state_args and mem is not None:
            raise RuntimeError("`mem` should not be passed as an argument while `init_hidden=True`")
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self._mem_reset(self.mem)
        if self._state_fn == 0:
            self.mem = self.beta.clamp(0, 1) * self.mem + input_ - reset * self.threshold
        elif self._state_fn == 1:
            self.mem = (1 - reset) * self.mem
            self.mem = self.beta.clamp(0, 1) * self.mem + input_
        else:
            self.mem = self.beta.clamp(0, 1) * self.mem + input_
        spk = self._fire(self.mem)
        if not self.reset_delay:
            self._reset_now(spk, reset)
        return spk

    def reset_mem(self) -> Tensor:
        self.mem = torch.zeros_like(self.mem)
        return self.mem

    def init_leaky(self) -> Tensor:
        return self.reset_mem()


def _leaky_hidden(self, input_: Tensor, mem: Optional[Tensor] = None) -> Tensor:
    return self._step(input_, mem)


def _leaky_tuple(self, input_: Tensor, mem: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    spk = self._step(input_, mem)
    return spk, self.mem


class _Lapicque(_Neuron):
    def _state(self, input_: Tensor) -> Tensor:
        return (input_ * self.R * (1 / (self.R * self.C)) * self.time_step
                + (1 - self.time_step / (self.R * self.C)) * self.mem)

    def _step(self, input_: Tensor, mem: Optional[Tensor]) -> Tensor:
        if self._honour_state_args and mem is not None:
            self.mem = mem
        if self.init_hidden and self._honour_state_args and mem is not None:
            raise RuntimeError("`mem` should not be passed as an argument while `init_hidden=True`")
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self._mem_reset(self.mem)
        if self._state_fn == 0:
            self.mem = self._state(input_) - reset * self.threshold
        elif self._state_fn == 1:
            self.mem = self._state(input_) - reset * self._state(input_)
        else:
            self.mem = self._state(input_)
        return self._fire(self.mem)

    def reset_mem(self) -> Tensor:
        self.mem = torch.zeros_like(self.mem)
        return self.mem

    def init_lapicque(self) -> Tensor:
        return self.reset_mem()


class _Synaptic(_Neuron):
    def _step(self, input_: Tensor, syn: Optional[Tensor], mem: Optional[Tensor]) -> Tensor:
        if self._honour_state_args:
            if syn is not None:
                self.syn = syn
            if mem is not None:
                self.mem = mem
            if self.init_hidden and (mem is not None or syn is not None):
                raise RuntimeError(
                    "`mem` or `syn` should not be passed as an argument while `init_hidden=True`")
        if self.syn.shape != input_.shape:
            self.syn = torch.zeros_like(input_)
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self._mem_reset(self.mem)
        new_syn = self.alpha.clamp(0, 1) * self.syn + input_
        new_mem = self.beta.clamp(0, 1) * self.mem + new_syn
        if self._state_fn == 0:
            new_mem = new_mem - reset * self.threshold
        elif self._state_fn == 1:
            # snnTorch subtracts `0 * reset` from syn (no change) and a second evaluation of the
            # same state function, times reset, from mem.
            mem2 = self.beta.clamp(0, 1) * self.mem + (self.alpha.clamp(0, 1) * self.syn + input_)
            new_mem = new_mem - mem2 * reset
        self.syn = new_syn
        self.mem = new_mem
        spk = self._fire(self.mem)
        if not self.reset_delay:
            self._reset_now(spk, reset)
        return spk

    def reset_mem(self) -> Tuple[Tensor, Tensor]:
        self.syn = torch.zeros_like(self.syn)
        self.mem = torch.zeros_like(self.mem)
        return self.syn, self.mem

    def init_synaptic(self) -> Tuple[Tensor, Tensor]:
        return self.reset_mem()


def _synaptic_hidden(self, input_: Tensor, syn: Optional[Tensor] = None,
                     mem: Optional[Tensor] = None) -> Tensor:
    return self._step(input_, syn, mem)


def _synaptic_tuple(self, input_: Tensor, syn: Optional[Tensor] = None,
                    mem: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor]:
    spk = self._step(input_, syn, mem)
    return spk, self.syn, self.mem


class _Alpha(_Neuron):
    def _base(self, input_: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        syn_exc = self.alpha.clamp(0, 1) * self.syn_exc + input_
        syn_inh = self.beta.clamp(0, 1) * self.syn_inh - input_
        tau_alpha = (torch.log(self.alpha.clamp(0, 1))
                     / (torch.log(self.beta.clamp(0, 1)) - torch.log(self.alpha.clamp(0, 1))) + 1)
        mem = tau_alpha * (syn_exc + syn_inh)
        return syn_exc, syn_inh, mem

    def _step(self, input_: Tensor, syn_exc: Optional[Tensor], syn_inh: Optional[Tensor],
              mem: Optional[Tensor]) -> Tensor:
        if self._honour_state_args:
            if syn_exc is not None:
                self.syn_exc = syn_exc
            if syn_inh is not None:
                self.syn_inh = syn_inh
            if mem is not None:
                self.mem = mem
            if self.init_hidden and (mem is not None or syn_exc is not None
                                     or syn_inh is not None):
                raise RuntimeError("When `init_hidden=True`, Alpha expects 1 input argument.")
        if self.syn_exc.shape != input_.shape:
            self.syn_exc = torch.zeros_like(input_)
        if self.syn_inh.shape != input_.shape:
            self.syn_inh = torch.zeros_like(input_)
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self._mem_reset(self.mem)
        syn_exc_new, syn_inh_new, mem_new = self._base(input_)
        if self._state_fn == 0:
            syn_exc_new = syn_exc_new - self.threshold * reset
            syn_inh_new = syn_inh_new - (self.beta.clamp(0, 1) * self.syn_inh - input_) * reset
            mem_new = mem_new - (-self.syn_inh) * reset
        elif self._state_fn == 1:
            exc2, inh2, mem2 = self._base(input_)
            syn_exc_new = syn_exc_new - exc2 * reset
            syn_inh_new = syn_inh_new - inh2 * reset
            mem_new = mem_new - mem2 * reset
        self.syn_exc = syn_exc_new
        self.syn_inh = syn_inh_new
        self.mem = mem_new
        return self._fire(self.mem)

    def reset_mem(self) -> Tuple[Tensor, Tensor, Tensor]:
        self.syn_exc = torch.zeros_like(self.syn_exc)
        self.syn_inh = torch.zeros_like(self.syn_inh)
        self.mem = torch.zeros_like(self.mem)
        return self.syn_exc, self.syn_inh, self.mem

    def init_alpha(self) -> Tuple[Tensor, Tensor, Tensor]:
        return self.reset_mem()


def _alpha_hidden(self, input_: Tensor, syn_exc: Optional[Tensor] = None,
                  syn_inh: Optional[Tensor] = None, mem: Optional[Tensor] = None) -> Tensor:
    return self._step(input_, syn_exc, syn_inh, mem)


def _alpha_tuple(self, input_: Tensor, syn_exc: Optional[Tensor] = None,
                 syn_inh: Optional[Tensor] = None,
                 mem: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    spk = self._step(input_, syn_exc, syn_inh, mem)
    return spk, self.syn_exc, self.syn_inh, self.mem


class _RLeaky(_Neuron):
    def _state(self, input_: Tensor) -> Tensor:
        return self.beta.clamp(0, 1) * self.mem + input_ + self.recurrent(self.spk)

    def _step(self, input_: Tensor, spk: Optional[Tensor], mem: Optional[Tensor]) -> Tensor:
        if self._honour_state_args:
            if spk is not None:
                self.spk = spk
            if mem is not None:
                self.mem = mem
            if self.init_hidden and (mem is not None or spk is not None):
                raise RuntimeError("When `init_hidden=True`,RLeaky expects 1 input argument.")
        if self.spk.shape != input_.shape:
            self.spk = torch.zeros_like(input_)
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self._mem_reset(self.mem)
        if self._state_fn == 0:
            self.mem = self._state(input_) - reset * self.threshold
        elif self._state_fn == 1:
            # snnTorch evaluates the state function, and so the recurrent layer, twice here
            self.mem = self._state(input_) - reset * self._state(input_)
        else:
            self.mem = self._state(input_)
        self.spk = self._fire(self.mem)
        if not self.reset_delay:
            self._reset_now(self.spk, reset)
        return self.spk

    def reset_mem(self) -> Tuple[Tensor, Tensor]:
        self.spk = torch.zeros_like(self.spk)
        self.mem = torch.zeros_like(self.mem)
        return self.spk, self.mem

    def init_rleaky(self) -> Tuple[Tensor, Tensor]:
        return self.reset_mem()


def _rleaky_hidden(self, input_: Tensor, spk: Optional[Tensor] = None,
                   mem: Optional[Tensor] = None) -> Tensor:
    return self._step(input_, spk, mem)


def _rleaky_tuple(self, input_: Tensor, spk: Optional[Tensor] = None,
                  mem: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
    out = self._step(input_, spk, mem)
    return out, self.mem


class _RSynaptic(_Neuron):
    def _state(self, input_: Tensor) -> Tuple[Tensor, Tensor]:
        syn = self.alpha.clamp(0, 1) * self.syn + input_ + self.recurrent(self.spk)
        mem = self.beta.clamp(0, 1) * self.mem + syn
        return syn, mem

    def _step(self, input_: Tensor, spk: Optional[Tensor], syn: Optional[Tensor],
              mem: Optional[Tensor]) -> Tensor:
        if self._honour_state_args:
            if spk is not None:
                self.spk = spk
            if syn is not None:
                self.syn = syn
            if mem is not None:
                self.mem = mem
            if self.init_hidden and (spk is not None or syn is not None or mem is not None):
                raise RuntimeError("When `init_hidden=True`, RSynaptic expects 1 input argument.")
        if self.spk.shape != input_.shape:
            self.spk = torch.zeros_like(input_)
        if self.syn.shape != input_.shape:
            self.syn = torch.zeros_like(input_)
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self._mem_reset(self.mem)
        new_syn, new_mem = self._state(input_)
        if self._state_fn == 0:
            new_mem = new_mem - reset * self.threshold
        elif self._state_fn == 1:
            # a second evaluation (and recurrent call), as snnTorch's reset-to-zero does
            _, mem2 = self._state(input_)
            new_mem = new_mem - mem2 * reset
        self.syn = new_syn
        self.mem = new_mem
        # snnTorch's RSynaptic applies reset_delay=False to local copies only: no effect here.
        self.spk = self._fire(self.mem)
        return self.spk

    def reset_mem(self) -> Tuple[Tensor, Tensor, Tensor]:
        self.spk = torch.zeros_like(self.spk)
        self.syn = torch.zeros_like(self.syn)
        self.mem = torch.zeros_like(self.mem)
        return self.spk, self.syn, self.mem

    def init_rsynaptic(self) -> Tuple[Tensor, Tensor, Tensor]:
        return self.reset_mem()

    def _neurobench_reset_state(self) -> None:
        # as snnTorch 0.9.4's RSynaptic.reset_hidden, which leaves spk (the recurrent input)
        self.syn = torch.zeros_like(self.syn)
        self.mem = torch.zeros_like(self.mem)


def _rsynaptic_hidden(self, input_: Tensor, spk: Optional[Tensor] = None,
                      syn: Optional[Tensor] = None, mem: Optional[Tensor] = None) -> Tensor:
    return self._step(input_, spk, syn, mem)


def _rsynaptic_tuple(self, input_: Tensor, spk: Optional[Tensor] = None,
                     syn: Optional[Tensor] = None,
                     mem: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Tensor]:
    out = self._step(input_, spk, syn, mem)
    return out, self.syn, self.mem


def _neuron_class(name, base, forward):
    # A class named as snnTorch's (per-layer results and the C++ side go by the class name);
    # TorchScript mangles the qualified names of same-named classes, the C++ side demangles.
    return type(name, (base,), {"forward": forward, "__module__": __name__, "__qualname__": name})


# class name -> (implementation, forward returning spikes, forward returning a tuple,
#                state attributes, learnable or buffer tensors it needs, snnTorch arguments
#                that have no scripted counterpart here)
_NEURONS = {
    "Leaky": (_Leaky, _leaky_hidden, _leaky_tuple, ("mem",),
              ("beta", "threshold", "graded_spikes_factor", "reset_mechanism_val")),
    "Lapicque": (_Lapicque, _leaky_hidden, _leaky_tuple, ("mem",),
                 ("threshold", "graded_spikes_factor", "R", "C", "time_step")),
    "Synaptic": (_Synaptic, _synaptic_hidden, _synaptic_tuple, ("syn", "mem"),
                 ("alpha", "beta", "threshold", "graded_spikes_factor", "reset_mechanism_val")),
    "Alpha": (_Alpha, _alpha_hidden, _alpha_tuple, ("syn_exc", "syn_inh", "mem"),
              ("alpha", "beta", "threshold", "graded_spikes_factor")),
    "RLeaky": (_RLeaky, _rleaky_hidden, _rleaky_tuple, ("spk", "mem"),
               ("beta", "threshold", "graded_spikes_factor", "reset_mechanism_val")),
    "RSynaptic": (_RSynaptic, _rsynaptic_hidden, _rsynaptic_tuple, ("spk", "syn", "mem"),
                  ("alpha", "beta", "threshold", "graded_spikes_factor")),
}
_CLASSES = {}  # (name, tuple_output) -> class, made once so TorchScript compiles each once


def _scripted_class(name, tuple_output):
    key = (name, tuple_output)
    if key not in _CLASSES:
        impl, hidden, tupled = _NEURONS[name][:3]
        _CLASSES[key] = _neuron_class(name, impl, tupled if tuple_output else hidden)
    return _CLASSES[key]


# Every state attribute a neuron keeps, reset by the C++ harness when the net has no reset().
STATE_ATTRIBUTES = ("mem", "syn", "syn_exc", "syn_inh", "spk")


def _is_snntorch_neuron(module):
    return any(c.__name__ == "SpikingNeuron" and c.__module__.startswith("snntorch.")
               for c in type(module).__mro__)


def _heaviside_probe():
    return torch.tensor([-1e30, -2.0, -1e-7, -0.0, 0.0, 1e-7, 0.5, 2.0, 1e30,
                         float("inf"), float("-inf")])


def _convert_neuron(path, m, honour_state_args):
    """A scripted-neuron module equal to snnTorch neuron `m` (at `path`), sharing its tensors."""
    cls = type(m)
    where = f"module '{path}' ({cls.__name__})"
    if cls.__name__ not in _NEURONS or not cls.__module__.startswith("snntorch."):
        supported = ", ".join(_NEURONS)
        if cls.__name__ in _NEURONS or any(b.__name__ in _NEURONS for b in cls.__mro__[1:]):
            raise ExportError(f"{where} derives from snnTorch's neuron classes; only snnTorch's "
                              f"own {supported} are exported (their behaviour is known). Use the "
                              "snnTorch class itself, or export a network without this subclass.")
        raise ExportError(f"{where}: snnTorch neuron class {cls.__module__}.{cls.__name__} is not "
                          f"supported; supported are {supported}.")
    impl, _, _, states, tensors = _NEURONS[cls.__name__]
    if getattr(m, "state_quant", False):
        raise ExportError(f"{where} quantises its state (state_quant); that is not exported. "
                          "Export the network with state_quant=False.")
    probe = _heaviside_probe()
    with torch.no_grad():
        try:
            fired = m.spike_grad(probe.clone())
        except Exception as e:  # noqa: BLE001
            raise ExportError(f"{where}: its spike function spike_grad cannot be evaluated "
                              f"({type(e).__name__}: {e})") from e
    if not (isinstance(fired, Tensor) and fired.shape == probe.shape
            and torch.equal(fired.float(), (probe > 0).float())):
        raise ExportError(f"{where}: its spike function spike_grad does not fire a Heaviside "
                          "step (x > 0) in inference, as every snnTorch surrogate does; a custom "
                          "spike function is not exported.")
    state_fn = getattr(getattr(m, "state_function", None), "__name__", None)
    if state_fn not in ("_base_sub", "_base_zero", "_base_int"):
        raise ExportError(f"{where}: unknown state function {state_fn!r}")
    for name in tensors + states:
        if not isinstance(getattr(m, name, None), Tensor):
            raise ExportError(f"{where}: expected tensor attribute '{name}' (snnTorch 0.9)")
    tuple_output = bool(m.output) or not bool(m.init_hidden)
    new = _scripted_class(cls.__name__, tuple_output).__new__(_scripted_class(cls.__name__,
                                                                              tuple_output))
    nn.Module.__init__(new)
    for name, p in m._parameters.items():
        if p is not None:
            new.register_parameter(name, p)
    for name, b in m._buffers.items():
        if b is not None:
            new.register_buffer(name, b, persistent=name not in m._non_persistent_buffers_set)
    for name, child in m._modules.items():
        new.add_module(name, child)
    if cls.__name__ in ("RLeaky", "RSynaptic") and "recurrent" not in new._modules:
        raise ExportError(f"{where}: has no recurrent layer 'recurrent'")
    new.init_hidden = bool(m.init_hidden)
    new.output = bool(m.output)
    new.inhibition = bool(m.inhibition)
    new.reset_delay = bool(getattr(m, "reset_delay", True))
    new._state_fn = ("_base_sub", "_base_zero", "_base_int").index(state_fn)
    new._honour_state_args = honour_state_args
    new._reset_mechanism = str(m._reset_mechanism)
    return new


# ---------------------------------------------------------------------------------------------
# Rewriting the parts of a user's forward that TorchScript cannot compile but whose meaning is
# known: snnTorch's `utils.reset(net)` and the neurons' `reset_hidden()` / `detach_hidden()`
# class methods. The rewritten source keeps the original line numbers, so TorchScript's errors
# point at the user's lines.

_SELF = object()  # _resolve's answer for a chain that starts at `self`


def _resolve(expr, fn):
    """The Python object an attribute chain like `snn.utils.reset` names in fn's globals."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None, None
    parts.append(expr.id)
    parts.reverse()
    if parts[0] == "self":
        return _SELF, parts[1:]
    scope = dict(fn.__globals__)
    if fn.__closure__:
        scope.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
    if parts[0] not in scope:
        obj = getattr(__builtins__, parts[0], None) if not isinstance(__builtins__, dict) \
            else __builtins__.get(parts[0])
    else:
        obj = scope[parts[0]]
    for p in parts[1:]:
        obj = getattr(obj, p, None)
    return obj, None


def _self_path(chain, module):
    obj = module
    for p in chain:
        obj = getattr(obj, p, None)
    return obj


def _submodule_of_self(expr, module):
    """The module an expression like `self`, `self.block` or `self.layers[0]` names, or None."""
    if isinstance(expr, ast.Name):
        return module if expr.id == "self" else None
    if isinstance(expr, ast.Attribute):
        parent = _submodule_of_self(expr.value, module)
        return None if parent is None else parent._modules.get(expr.attr)
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and \
            isinstance(expr.slice.value, int):
        parent = _submodule_of_self(expr.value, module)
        if parent is None:
            return None
        children = list(parent._modules.values())
        i = expr.slice.value
        return children[i] if -len(children) <= i < len(children) else None
    return None


def _path_expr(path):
    """Source text reaching the module at dotted `path` from `self`, in TorchScript that both
    scripted and traced modules accept (Sequential children are named "0", "1", ...)."""
    out = "self"
    for part in path.split(".") if path else []:
        out = f"{out}.{part}" if part.isidentifier() else f'getattr({out}, "{part}")'
    return out


def _module_expr(root, target):
    """Source text that reaches module `target` from `self` (= root)."""
    for path, m in root.named_modules():
        if m is target:
            return _path_expr(path)
    return None


class _Rewriter:
    """Per module instance: finds calls to rewrite in its methods and makes the new methods."""

    def __init__(self, root, module, path, neurons):
        self.root = root            # the whole (converted) network
        self.module = module        # the module whose methods are rewritten
        self.path = path
        self.neurons = neurons      # path -> converted neuron, in module order
        self.extra = {}             # generated method name -> source

    def _neurons_of_classes(self, classes, call_where):
        own = {id(m) for _, m in self.module.named_modules()}
        chosen = [(p, n) for p, n in self.neurons.items() if type(n).__name__ in classes]
        outside = [p for p, n in chosen if id(n) not in own]
        if outside:
            raise ExportError(
                f"{call_where} resets every snnTorch neuron of class {', '.join(sorted(classes))} "
                f"in the process, including {', '.join(outside)} outside module "
                f"'{self.path or '(root)'}', which TorchScript code there cannot reach. Reset the "
                "neurons from the top-level module instead.")
        return [n for _, n in chosen]

    def _reset_method(self, neurons):
        name = f"_neurobench_reset_{len(self.extra)}"
        lines = [f"def {name}(self) -> None:"]
        for n in neurons:
            lines.append(f"    {_module_expr(self.module, n)}._neurobench_reset_state()")
        if len(lines) == 1:
            lines.append("    pass")
        self.extra[name] = "\n".join(lines) + "\n"
        return f"self.{name}()"

    def replacement(self, call, fn):
        """Source to put in place of `call`, or None to leave it."""
        line = call.lineno + fn.__code__.co_firstlineno - 1
        where = f"{type(self.module).__name__}.{fn.__name__} (line {line})"
        target, chain = _resolve(call.func, fn)
        if target is None:
            return None
        if target is _SELF:
            # self.lif1.reset_hidden() / .detach_hidden() / .init_leaky() on a neuron
            if not chain or chain[-1] not in ("reset_hidden", "detach_hidden"):
                return None
            owner = _self_path(chain[:-1], self.module)
            if not hasattr(owner, "_neurobench_reset_state"):
                return None
            if chain[-1] == "detach_hidden":
                return "self._neurobench_noop()"
            return self._reset_method(self._neurons_of_classes({type(owner).__name__}, where))
        mod = getattr(target, "__module__", "") or ""
        name = getattr(target, "__name__", "")
        if mod == "snntorch.utils" and name == "reset":
            if len(call.args) != 1 or call.keywords:
                raise ExportError(f"{where}: snntorch.utils.reset takes the network only")
            net = _submodule_of_self(call.args[0], self.module)
            if net is None:
                raise ExportError(f"{where}: snntorch.utils.reset is exported only when called on "
                                  "self or a submodule of self (self.block, self.layers[0])")
            # snnTorch resets every neuron of the classes found among the net's direct children
            classes = {type(c).__name__ for c in net.children() if type(c).__name__ in _NEURONS}
            return self._reset_method(self._neurons_of_classes(classes, where))
        owner_cls = getattr(target, "__self__", None)
        if inspect.isclass(owner_cls) and owner_cls.__module__.startswith("snntorch.") and \
                name in ("reset_hidden", "detach_hidden"):
            if name == "detach_hidden":
                return "self._neurobench_noop()"
            return self._reset_method(self._neurons_of_classes({owner_cls.__name__}, where))
        return None

    def rewrite(self, fn):
        """fn rewritten (a new function object), or None when nothing in it needs rewriting."""
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            return None
        src = textwrap.dedent("".join(lines))
        try:
            tree = ast.parse(src)
        except SyntaxError:
            return None
        edits = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                new = self.replacement(node, fn)
                if new is not None:
                    edits.append((node.lineno, node.col_offset, node.end_lineno,
                                  node.end_col_offset, new))
        if not edits:
            return None
        src_lines = src.splitlines(keepends=True)
        for l0, c0, l1, c1, new in sorted(edits, reverse=True):
            head = src_lines[l0 - 1][:c0]
            tail = src_lines[l1 - 1][c1:]
            src_lines[l0 - 1:l1] = [head + new + tail] + [""] * (l1 - l0)
        new_src = "".join(src_lines)
        return _compile_function(new_src, fn.__name__, fn.__globals__,
                                 f"{fn.__code__.co_filename} (rewritten by neurobench_export)",
                                 first, fn.__defaults__)


_GENERATED = 0


def _compile_function(src, name, globals_, filename, first_line=1, defaults=None):
    """Defines function `name` from `src`, with source TorchScript can read back (linecache)."""
    global _GENERATED
    _GENERATED += 1
    filename = f"<{filename} #{_GENERATED}>"
    padded = "\n" * (first_line - 1) + src
    linecache.cache[filename] = (len(padded), None, padded.splitlines(keepends=True), filename)
    namespace = {}
    exec(compile(padded, filename, "exec"), globals_, namespace)  # noqa: S102
    fn = namespace[name]
    if defaults is not None:
        fn.__defaults__ = defaults
    return fn


def _copy_function(fn, name=None):
    # TorchScript compiles a method called from forward under its function's __name__.
    name = name or fn.__name__
    new = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__.rsplit(".", 1)[0] + "." + name
    return new


def _custom_forward(self, x: Tensor) -> Tensor:
    # NeuroBench's SNNTorchModel(net, custom_forward=True) transposes (time, batch) to
    # (batch, time); the exported model does it itself.
    return self._neurobench_user_forward(x).transpose(0, 1)


def _user_functions(cls):
    """Functions defined by the user's classes (not torch's, not snnTorch's), name -> function."""
    out = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith(("torch.", "snntorch.")) or klass is object:
            continue
        for name, value in vars(klass).items():
            if isinstance(value, types.FunctionType):
                out[name] = value
    return out


# ---------------------------------------------------------------------------------------------
# Building the exportable network

def _is_user_module(m):
    return not type(m).__module__.startswith(("torch.", "snntorch.")) and \
        type(m).__module__ != __name__


def _convert(net, honour_state_args):
    """A deep copy of net with every snnTorch neuron replaced; returns (copy, {path: neuron})."""
    try:
        work = copy.deepcopy(net)
    except Exception as e:  # noqa: BLE001
        raise ExportError(f"the network cannot be copied for export ({type(e).__name__}: {e})") \
            from e
    neurons = {}
    for path, m in list(work.named_modules()):
        for name, child in list(m._modules.items()):
            if child is None or not _is_snntorch_neuron(child):
                continue
            child_path = f"{path}.{name}" if path else name
            new = _convert_neuron(child_path, child, honour_state_args)
            m._modules[name] = new
    for path, m in work.named_modules():
        if type(m).__module__ == __name__:
            neurons[path] = m
    if _is_snntorch_neuron(work):
        raise ExportError("the network itself is a single snnTorch neuron; wrap it in a module")
    return work, neurons


def _attribute_types(work, example, stepwise_calls):
    """Names of plain attributes of user modules that are None now and hold tensors after the
    network ran (None-initialised state): TorchScript needs their type up front."""
    trial = copy.deepcopy(work)
    before = {p: {k for k, v in vars(m).items() if v is None and not k.startswith("_")}
              for p, m in trial.named_modules() if _is_user_module(m)}
    with torch.no_grad():
        try:
            if hasattr(trial, "reset") and callable(trial.reset):
                trial.reset()
            for x in stepwise_calls(example):
                trial(x)
        except Exception:  # noqa: BLE001
            return {}  # TorchScript then says which attribute it cannot type
    out = {}
    for p, m in trial.named_modules():
        names = [k for k in before.get(p, ()) if isinstance(vars(m).get(k), Tensor)]
        if names:
            out[p] = names
    return out


def _prepare_for_script(work, neurons, *, root_reset, custom_forward, optional_types,
                        none_as_empty):
    """Gives every user module a class of its own with rewritten methods where needed, the
    root a TorchScript `reset` (root_reset) or a transposing forward (custom_forward)."""
    for path, m in work.named_modules():
        if not _is_user_module(m):
            continue
        cls = type(m)
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        rewriter = _Rewriter(work, m, path, neurons)
        for name, fn in _user_functions(cls).items():
            new = rewriter.rewrite(fn)
            if new is not None:
                namespace[name] = new
        for name, src in rewriter.extra.items():
            namespace[name] = _compile_function(src, name, {"torch": torch},
                                                f"neurobench_export generated {name}")
        is_root = m is work
        if is_root and custom_forward:
            namespace["_neurobench_user_forward"] = _copy_function(
                namespace.get("forward", cls.forward), "_neurobench_user_forward")
            namespace["forward"] = _custom_forward
        if is_root and root_reset and "reset" in _user_functions(cls):
            reset = namespace.get("reset", _copy_function(_user_functions(cls)["reset"]))
            namespace["reset"] = torch.jit.export(reset)
        names = optional_types.get(path, [])
        if names and not none_as_empty:
            ann = dict(getattr(cls, "__annotations__", {}))
            for n in names:
                ann[n] = Optional[Tensor]
            namespace["__annotations__"] = ann
        new_cls = type(cls.__name__, (cls,), namespace)
        m.__class__ = new_cls
        if names and none_as_empty:
            for n in names:
                setattr(m, n, torch.zeros(0))


# ---------------------------------------------------------------------------------------------
# Checking the export against the eager network

def _tensors(value):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def _describe(value):
    if isinstance(value, Tensor):
        return f"tensor{list(value.shape)}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_describe(v) for v in value) + ")"
    return type(value).__name__


def _neuron_states(net):
    """[(path, class, {state: tensor})] of every neuron, in module order."""
    out = []
    for path, m in net.named_modules():
        name = getattr(m, "original_name", None) or type(m).__name__
        if name in _NEURONS:
            states = {}
            for s in _NEURONS[name][3]:
                v = getattr(m, s, None)
                if isinstance(v, Tensor):
                    states[s] = v
            out.append((path, name, states))
    return out


def _same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)


def _mismatch(eager, exported, where):
    """A message naming the first neuron or output that differs, or None."""
    ea, xa = eager
    for (path, cls, es), (_, _, xs) in zip(_neuron_states(ea), _neuron_states(xa)):
        for s, t in es.items():
            u = xs.get(s)
            if u is None or not _same(t, u):
                detail = "missing" if u is None else (
                    f"shape {list(u.shape)} instead of {list(t.shape)}" if u.shape != t.shape
                    else f"max difference {(t.double() - u.double()).abs().max().item():.3g}")
                return (f"module '{path}' ({cls}) differs first, {where}: its state '{s}' is "
                        f"{detail}")
    return None


def _compare_outputs(e_out, x_out, where):
    et, xt = _tensors(e_out), _tensors(x_out)
    if len(et) != len(xt):
        return (f"the network's output differs {where}: the eager net returns "
                f"{_describe(e_out)}, the export {_describe(x_out)}")
    for i, (a, b) in enumerate(zip(et, xt)):
        if not _same(a, b):
            what = f"shape {list(b.shape)} instead of {list(a.shape)}" if a.shape != b.shape \
                else "different values"
            return f"the network's output differs {where}: output tensor {i} has {what}"
    return None


def _permuted(example, generator):
    """The example's values in a random order (spikes stay spikes, the value mix stays)."""
    flat = example.reshape(-1)
    return flat[torch.randperm(flat.numel(), generator=generator)].reshape(example.shape)


def _variants(example, generator):
    """Inputs for the check: the example, then random permutations of its values, so that
    neurons see inputs other than the one given."""
    yield example
    while True:
        yield _permuted(example, generator)


def _reset_like_neurobench(net):
    if hasattr(net, "reset") and callable(net.reset):
        net.reset()
        return
    utils = sys.modules.get("snntorch.utils")
    if utils is None:
        utils = importlib.import_module("snntorch.utils")
    utils.reset(net)


def _reset_like_cpp(module):
    """What neurobench-cpp does before a step-wise batch: reset() when the model has one, else
    every neuron state attribute to zeros."""
    if module._c._has_method("reset"):
        module.reset()
        return
    for _, m in module.named_modules():
        name = getattr(m, "original_name", "")
        if name in _NEURONS or hasattr(m, "mem"):
            for s in STATE_ATTRIBUTES:
                v = getattr(m, s, None) if hasattr(m, s) else None
                if isinstance(v, Tensor):
                    setattr(m, s, torch.zeros_like(v))


def _check(net, loaded, example, *, custom_forward, stepwise, steps):
    """Runs the eager net and the loaded export side by side; returns None or what differs."""
    gen = torch.Generator().manual_seed(0)
    half = max(1, example.shape[0] // 2)
    with torch.no_grad():
        if custom_forward:
            t = example.shape[1]
            longer = torch.cat([example, _permuted(example, gen)[:, : max(1, t // 2)]], 1)
            shorter = example[:half, : max(1, t - t // 3)]
            for i, x in enumerate([example, _permuted(example, gen), longer, shorter]):
                where = f"on call {i + 1} (input shape {list(x.shape)})"
                try:
                    e_out = net(x)
                except Exception:  # noqa: BLE001
                    if x.shape == example.shape:
                        raise
                    break  # a net made for one length or batch size only: checked as far as it runs
                if not isinstance(e_out, Tensor):
                    return (f"with custom_forward=True the network must return one tensor "
                            f"(time, batch, ...), as NeuroBench transposes it; it returns "
                            f"{_describe(e_out)}")
                e_out = e_out.transpose(0, 1)
                x_out = loaded(x)
                bad = _mismatch((net, loaded), None, where) or \
                    _compare_outputs(e_out, x_out, where)
                if bad:
                    return bad
            return None
        # Consecutive calls carrying state (how NeuroBench's TorchModel calls a net, and how a
        # step-wise net sees its timesteps), then per batch a reset as NeuroBench's
        # SNNTorchModel does it next to the reset the C++ harness does.
        protocols = {True: ["reset"], False: ["carry"], None: ["carry", "reset"]}[stepwise]
        for protocol in protocols:
            # a second batch of the same size shows what the reset leaves; a smaller one,
            # what depends on the batch size
            second = _permuted(example, gen)
            for batch_no, batch in enumerate([example, second, example[:half]]):
                if protocol == "reset":
                    _reset_like_neurobench(net)
                    _reset_like_cpp(loaded)
                inputs = _variants(batch, gen)
                stop = False
                for t in range(steps):
                    x = next(inputs)
                    how = "after a reset" if protocol == "reset" else "state carried"
                    where = (f"at call {t + 1} of batch {batch_no + 1} (input shape "
                             f"{list(x.shape)}, {how})")
                    try:
                        e_out = net(x)
                    except Exception:  # noqa: BLE001
                        if protocol == "carry" and stepwise is None and batch_no == t == 0:
                            break  # not callable without NeuroBench's reset: a step-wise net
                        if batch_no == 0:
                            raise
                        stop = True  # a net made for one batch size only
                        break
                    x_out = loaded(x)
                    bad = _mismatch((net, loaded), None, where) or \
                        _compare_outputs(e_out, x_out, where)
                    if bad:
                        if protocol == "reset":
                            bad += (". The reset differs: NeuroBench calls the net's reset() or "
                                    "snntorch.utils.reset(net) before each batch")
                            if stepwise is None:
                                bad += ("; if the net is benchmarked as a TorchModel (never "
                                        "reset), pass stepwise=False")
                        return bad
                if stop:
                    break
    return None


# ---------------------------------------------------------------------------------------------
# State of the user's network, kept and put back around the export's own runs

def _snapshot(net):
    """The objects the net's modules hold now. snnTorch and the user's code replace state
    tensors rather than writing into them, so putting the same objects back restores the net
    exactly, shared tensors included."""
    return [(m, dict(vars(m)), dict(m._buffers), dict(m._modules)) for m in net.modules()]


def _restore(saved):
    for m, attrs, buffers, modules in saved:
        m._buffers.clear()
        m._buffers.update(buffers)
        m._modules.clear()
        m._modules.update(modules)
        for k in [k for k in vars(m) if k not in attrs]:
            delattr(m, k)  # attributes the runs added (snnTorch's `reset`, for one)
        for k, v in attrs.items():
            if k not in ("_buffers", "_modules") and vars(m).get(k) is not v:
                object.__setattr__(m, k, v)


def _set_initial_state(module, state):
    """Puts the snapshot's neuron state into the (scripted or traced) module before saving."""
    for path, m in module.named_modules():
        for s, v in state.get(path, {}).items():
            setattr(m, s, v.clone())


# ---------------------------------------------------------------------------------------------
# Files and signals. The output rules are neurobench's (docs/cli.md, "Output files"): a regular
# file is replaced whole through a temporary file beside it and a rename, a symbolic link is
# followed and the file it leads to replaced. The exporter writes regular files only: renaming
# over a device, FIFO or socket replaces it with a regular file (run as root, /dev/null became
# one), so those are refused by name, as are directories.

_FILE_TYPES = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
               (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISLNK, "a symbolic link"))


def _file_type(mode):
    """What a stat() st_mode is, in words, with its article (as neurobench's messages say it)."""
    for test, words in _FILE_TYPES:
        if test(mode):
            return words
    return "a file of unknown type"


def _stat_output(path):
    """os.stat(path), or None where nothing is there; a test replaces it to see the refusal of
    a character device without touching one."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _cannot_write(path, why):
    raise ExportArgumentError(f"{path}: cannot open for writing: {why}")


def _check_output_folder(path, file):
    folder = os.path.dirname(file) or "."
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        _cannot_write(path, f"directory {folder} does not exist")
    except OSError as e:
        _cannot_write(path, f"directory {folder}: {e.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        _cannot_write(path, f"{folder} is not a directory")
    effective = os.access in os.supports_effective_ids
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=effective):
        _cannot_write(path, f"directory {folder} is not writable")
    return folder


def _output_target(path):
    """The regular file that writing `path` replaces, whether it exists, and its mode:
    (file, st_mode or None). Raises ExportArgumentError naming `path` for anything else."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ExportArgumentError(f"path must be a file name, got {type(path).__name__}")
    path = os.fsdecode(os.fspath(path))
    if path == "":
        raise ExportArgumentError("cannot write to an empty path")
    if "\0" in path:
        _cannot_write(repr(path), "the name holds a NUL character")
    if path.endswith(os.sep):
        _cannot_write(path, "it ends in '/', the name of a directory (give a file name)")
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        _check_output_folder(path, path)
        return path, None
    except NotADirectoryError:
        _check_output_folder(path, path)  # names the folder that is not one
        _cannot_write(path, "a folder in it is not a directory")
    except OSError as e:
        _cannot_write(path, e.strerror)
    try:
        st = _stat_output(path)
    except OSError as e:
        _cannot_write(path, e.strerror)
    if st is None:
        _cannot_write(path, f"it is a symbolic link to {os.readlink(path)}, which does not "
                            "exist (create the file it names, or remove the link)")
    file = os.path.realpath(path) if stat.S_ISLNK(link.st_mode) else path
    if stat.S_ISDIR(st.st_mode):
        _cannot_write(path, "it is a directory (give a file name)")
    if not stat.S_ISREG(st.st_mode):
        _cannot_write(path, f"it is {_file_type(st.st_mode)}; the exporter writes only a regular "
                            "file, which it replaces whole")
    _check_output_folder(path, file)
    return file, st.st_mode


def _check_regular_input(path, what):
    """Raises ExportArgumentError unless `path` is a regular file (or a link to one): a FIFO
    would block the read, a device never end."""
    path = os.fsdecode(os.fspath(path))
    if path == "":
        raise ExportArgumentError(f"the {what} is an empty path")
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.islink(path):
            raise ExportArgumentError(f"{path}: no such {what} (a symbolic link to "
                                      f"{os.readlink(path)}, which does not exist)") from None
        raise ExportArgumentError(f"{path}: no such {what}") from None
    except (OSError, ValueError) as e:
        raise ExportArgumentError(f"{path}: cannot read the {what}: "
                                  f"{getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ExportArgumentError(f"{path}: the {what} is {_file_type(st.st_mode)}, not a "
                                  "regular file")
    return st


class _Interrupted(BaseException):
    """SIGINT or SIGTERM arrived (command line only): unwinds to main(), which removes what the
    export left and exits 130 or 143. A BaseException, so that no `except Exception` in the
    exporter or the user's code swallows it."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.written = None  # the file, when the signal came after it was renamed into place


class _Signals:
    """SIGINT and SIGTERM as an exception (installed by main() only). Sections that must not be
    cut in two (creating and removing the temporary folder, the rename) defer the exception to
    their end; once one signal has been taken, further ones are ignored while the export
    unwinds and cleans up."""

    def __init__(self):
        self.installed = False
        self.depth = 0
        self.pending = None
        self.taken = False
        self.temporaries = set()  # folders to remove should an interruption skip their cleanup

    def install(self):
        self.depth, self.pending, self.taken = 0, None, False
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue  # ignored when we started (nohup, a script's background job): stays so
            signal.signal(signum, self._handle)
        self.installed = True

    def _handle(self, signum, frame):
        if self.taken:
            return
        if self.depth:
            self.pending = signum
            return
        self.taken = True
        raise _Interrupted(signum)

    def deferred(self):
        signals = self

        class _Deferred:
            def __enter__(self):
                signals.depth += 1

            def __exit__(self, *exc):
                signals.depth -= 1
                if signals.depth == 0 and signals.pending is not None and not signals.taken:
                    signals.taken = True
                    raise _Interrupted(signals.pending)
                return False

        return _Deferred()

    def remove_temporaries(self):
        self.taken = True  # no more exceptions from here on
        for folder in list(self.temporaries):
            shutil.rmtree(folder, ignore_errors=True)
            self.temporaries.discard(folder)


_SIGNALS = _Signals()


class _TemporaryFolder:
    """A folder beside the output for the candidate file, removed on every way out."""

    def __init__(self, folder):
        self.folder = folder
        self.path = None

    def __enter__(self):
        with _SIGNALS.deferred():
            try:
                self.path = tempfile.mkdtemp(prefix="neurobench_export_", dir=self.folder)
            except OSError as e:
                raise ExportArgumentError(f"{self.folder}: cannot create a temporary folder "
                                          f"for the export: {e.strerror}") from None
            _SIGNALS.temporaries.add(self.path)
        return self.path

    def __exit__(self, *exc):
        with _SIGNALS.deferred():
            shutil.rmtree(self.path, ignore_errors=True)
            _SIGNALS.temporaries.discard(self.path)
        return False


def _commit(candidate, path, target):
    """Renames the checked candidate over the output, after checking the output again: a path
    that became a directory, device or FIFO meanwhile is refused, not replaced."""
    file, mode = _output_target(path)
    if file != target[0]:
        raise ExportArgumentError(f"{path}: it changed while the export was checked (it now "
                                  f"leads to {file}, not {target[0]}); nothing was written")
    os.chmod(candidate, stat.S_IMODE(mode) if mode is not None else 0o644)
    fd = os.open(candidate, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(candidate, file)
    try:
        fd = os.open(os.path.dirname(file) or ".", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# The export

def _script_error_message(e, what):
    text = str(e).strip()
    hints = []
    if "Wrong type for attribute assignment" in text or "NoneType" in text:
        hints.append("initialise state attributes to tensors (e.g. lif.init_leaky()) in "
                     "__init__ rather than None")
    if "Python builtin" in text or "is not supported" in text or "Unknown builtin op" in text:
        hints.append("TorchScript compiles only a subset of Python; move this code out of "
                     "forward or write it with torch operations")
    if "keyword-arg expansion" in text or "**" in text:
        hints.append("TorchScript does not take *args/**kwargs in forward")
    hint = (" What to change: " + "; ".join(hints) + ".") if hints else ""
    return f"TorchScript cannot compile {what}:\n{text}\n{hint}".rstrip()


def _save_and_load(module, directory):
    # Through file objects: torch.jit.save/load take a path as UTF-8 only, and a folder's name
    # need not be UTF-8.
    path = os.path.join(directory, "candidate.pt")
    with open(path, "wb") as f:
        torch.jit.save(module, f)
    with open(path, "rb") as f:
        return torch.jit.load(f), path


def export(net, path, *, example_input=None, custom_forward=False, stepwise=None, steps=8,
           verbose=False):
    """Saves `net` (an eager torch.nn.Module with snnTorch neurons; eval mode) as a TorchScript
    file whose results under `neurobench run` equal Python NeuroBench's on the eager net.

    - SNNTorchModel(net): run with `neurobench run --stepwise`; `example_input` is one
      timestep `data[:, t]`, shape (batch, features...).
    - SNNTorchModel(net, custom_forward=True): `custom_forward=True`; `example_input` is
      (batch, time, features...); the saved model returns (batch, time, ...).
    - TorchModel(net): `example_input` is one batch as the net is called with it.

    `stepwise`: True or False when known (False: a TorchModel net, never reset between
    batches); None checks both. `steps`: calls per batch in the check, 1 to MAX_STEPS.
    `path`: a regular file (replaced whole), a symbolic link to one (the file it leads to is
    replaced) or a new name in an existing, writable folder; a directory, device, FIFO or
    socket is refused.
    Returns a short report (str). Raises ExportError, writing nothing, when the saved file would
    not behave exactly as the eager net; ExportArgumentError (an ExportError) for a bad argument.
    """
    if not isinstance(net, nn.Module):
        raise ExportArgumentError(f"net must be a torch.nn.Module, got {type(net).__name__}")
    if example_input is None:
        raise ExportArgumentError(
            "example_input is required: the exporter checks the saved file against the eager "
            "net on it (one timestep data[:, t] for a step-wise net, the whole (batch, time, "
            "...) tensor otherwise)")
    if not isinstance(example_input, Tensor):
        raise ExportArgumentError(f"example_input must be a tensor, got "
                                  f"{type(example_input).__name__}")
    if custom_forward and example_input.dim() < 2:
        raise ExportArgumentError(f"with custom_forward=True example_input is (batch, time, "
                                  f"...), got shape {list(example_input.shape)}")
    if custom_forward:
        stepwise = False
    if example_input.dim() == 0 or example_input.shape[0] == 0:
        raise ExportArgumentError(f"example_input needs a batch dimension, got shape "
                                  f"{list(example_input.shape)}")
    if example_input.numel() == 0:
        raise ExportArgumentError(f"example_input is empty, shape {list(example_input.shape)}")
    if example_input.is_floating_point() and bool(torch.isnan(example_input).any()):
        raise ExportArgumentError("example_input holds NaN: the check compares the eager net "
                                  "and the saved file bit for bit, and NaN equals nothing")
    # steps=0 (or less) would skip the check and still report the file checked
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= MAX_STEPS:
        raise ExportArgumentError(f"steps: {steps!r} is out of range; expected an integer from "
                                  f"1 to {MAX_STEPS}")
    target = _output_target(path)
    path = os.fsdecode(os.fspath(path))
    out_dir = os.path.dirname(target[0]) or "."
    for name, t in list(net.named_parameters()) + list(net.named_buffers()):
        if t.is_floating_point() and bool(torch.isnan(t).any()):
            kind = "parameter" if isinstance(t, nn.Parameter) else "buffer"
            raise ExportError(f"{kind} '{name}' of the network holds NaN; nothing was written")

    was_training = net.training
    net.eval()
    saved = _snapshot(net)
    initial = {}
    for p, m in net.named_modules():
        if _is_snntorch_neuron(m):
            initial[p] = {s: getattr(m, s).detach().clone() for s in STATE_ATTRIBUTES
                          if isinstance(getattr(m, s, None), Tensor)}
    if not initial:
        raise ExportError("the network has no snnTorch neurons; save it with torch.jit.script "
                          "or torch.jit.trace directly")
    example = example_input.detach()

    def calls(x):
        return [x, x] if not custom_forward else [x]

    # The eager net must run on the example at all.
    try:
        with torch.no_grad():
            if stepwise is not False and "reset" in _user_functions(type(net)):
                net.reset()  # as NeuroBench's SNNTorchModel does before every batch
            net(example)
    except Exception as e:  # noqa: BLE001
        _restore(saved)
        raise ExportError(f"the eager network fails on example_input of shape "
                          f"{list(example.shape)}: {type(e).__name__}: {e}") from e
    _restore(saved)

    # A step-wise net without reset() gets one that does what NeuroBench does before a batch.
    mirror_reset = None
    if not custom_forward and stepwise is not False and "reset" not in _user_functions(type(net)):
        mirror_reset = _snntorch_reset(net)
    attempts = []  # (description, problem)
    report = []
    with _TemporaryFolder(out_dir) as tmp:
        has_reset = "reset" in _user_functions(type(net))
        has_none = any(v is None for m in net.modules() if _is_user_module(m)
                       for k, v in vars(m).items() if not k.startswith("_"))
        plans = [("script", r, e) for r in ((True, False) if has_reset else (False,))
                 for e in ((False, True) if has_none else (False,))]
        if not custom_forward:
            plans.append(("trace", False, False))
        for how, root_reset, none_as_empty in plans:
            label = f"{how}" + (" with reset()" if root_reset else "") + \
                (" (None state as empty tensors)" if none_as_empty else "")
            try:
                with torch.no_grad():
                    module = _build(net, example, how, root_reset, none_as_empty,
                                    custom_forward, calls)
                if mirror_reset:
                    _define_snntorch_reset(module, mirror_reset[0])
                _set_initial_state(module, initial)
                loaded, candidate = _save_and_load(module, tmp)
            except ExportError:
                _restore(saved)
                if was_training:
                    net.train()
                raise  # a neuron or call the exporter refuses: every plan meets it
            except Exception as e:  # noqa: BLE001
                _restore(saved)
                what = f"the network ({type(net).__name__})"
                msg = _script_error_message(e, what) if how == "script" else \
                    f"torch.jit.trace failed: {type(e).__name__}: {e}"
                attempts.append((label, msg))
                continue
            try:
                problem = _check(net, loaded, example, custom_forward=custom_forward,
                                 stepwise=stepwise, steps=steps)
            except Exception as e:  # noqa: BLE001
                problem = f"running it failed: {type(e).__name__}: {e}"
            finally:
                _restore(saved)
            if problem is None:
                committed = False
                try:
                    with _SIGNALS.deferred():
                        _commit(candidate, path, target)
                        committed = True
                except _Interrupted as e:
                    if committed:
                        e.written = path  # the signal came during the rename: it went through
                    raise
                except ExportArgumentError:
                    if was_training:
                        net.train()
                    raise
                except OSError as e:
                    if was_training:
                        net.train()
                    raise ExportArgumentError(f"{path}: cannot write the export: "
                                              f"{e.strerror or e}") from None
                report.append(f"exported {type(net).__name__} to {path} ({label}); checked "
                              f"against the eager net")
                if mirror_reset and mirror_reset[1]:
                    report.append(
                        "note: snntorch.utils.reset(net), which NeuroBench calls before each "
                        f"batch, does not reset {'; '.join(mirror_reset[1])}; the saved reset() "
                        "does the same, so that the numbers agree (docs/snntorch.md)")
                break
            attempts.append((label, f"the saved model does not behave as the eager net: {problem}"))
        else:
            if was_training:
                net.train()
            raise ExportError(_failure_message(net, attempts))
    if was_training:
        net.train()
    text = "\n".join(report)
    if verbose:
        print(text)
    return text


def _snntorch_reset(net):
    """What snntorch.utils.reset(net) resets, which NeuroBench's SNNTorchModel calls before each
    batch of a net without reset(): (paths it resets, what it leaves, as text). snnTorch 0.9.4
    resets every neuron of the classes found among net's direct children that it registered
    when it was made, and RSynaptic's reset leaves its spikes."""
    import snntorch  # the network's own snnTorch

    registered = {id(m) for m in snntorch.SpikingNeuron.instances}
    classes = {type(c).__name__ for c in net.children() if _is_snntorch_neuron(c)}
    reset, left = [], []
    for p, m in net.named_modules():
        if not _is_snntorch_neuron(m):
            continue
        name = type(m).__name__
        if name in classes and id(m) in registered:
            reset.append(p)
            if name == "RSynaptic":
                left.append(f"'{p}' (RSynaptic) its spikes spk")
        else:
            left.append(f"'{p}' ({name}) all its state")
    return reset, left


def _define_snntorch_reset(module, paths):
    lines = ["def reset(self) -> None:"]
    lines += [f"    {_path_expr(p)}._neurobench_reset_state()" for p in paths] or ["    pass"]
    module.define("\n".join(lines) + "\n")


def _failure_message(net, attempts):
    lines = [f"cannot export {type(net).__name__} with its exact behaviour; nothing was written."]
    for label, problem in attempts:
        lines.append(f"- {label}: {problem}")
    return "\n".join(lines)


def _build(net, example, how, root_reset, none_as_empty, custom_forward, calls):
    honour = how == "script"
    work, neurons = _convert(net, honour_state_args=honour)
    if how == "trace":
        for path, n in neurons.items():
            _replace(work, path, torch.jit.script(n))
        work.eval()
        return torch.jit.trace(work, example, check_trace=False)
    types_ = _attribute_types(work, example, calls)
    _prepare_for_script(work, neurons, root_reset=root_reset, custom_forward=custom_forward,
                        optional_types=types_, none_as_empty=none_as_empty)
    work.eval()
    return torch.jit.script(work)


def _replace(root, path, new):
    parent = root
    parts = path.split(".")
    for p in parts[:-1]:
        parent = parent._modules[p]
    parent._modules[parts[-1]] = new


# ---------------------------------------------------------------------------------------------
# Command line

MAX_EXAMPLE_VALUES = 1 << 26
"""The most values --example-shape may ask for (256 MiB of float32); the check runs the net on
the example and on copies of it many times."""
MAX_EXAMPLE_DIMS = 16
MAX_BATCH_SIZE = (1 << 31) - 1  # as `neurobench run --batch-size`

_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


class _CommandLineError(Exception):
    """A bad argument or option: printed as one line, `error: MESSAGE`, exit status 2."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"error: {message} (see --help)\n")


def _one_line(text):
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _shown(text, limit=40):
    return text if len(text) <= limit else text[:limit] + "..."


def _raised(e):
    """`Type: message (at file:line)` on one line, for an exception from the user's code."""
    text = _one_line(e)
    what = f"{type(e).__name__}: {text}" if text else type(e).__name__
    if isinstance(e, SyntaxError):
        return what  # its message gives the file and line
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not f.filename.startswith("<frozen")]
    return f"{what} (at {frames[-1].filename}:{frames[-1].lineno})" if frames else what


def _integer(option, text, low, high):
    expected = f"expected an integer from {low} to {high}"
    if not _INTEGER.match(text):
        raise _CommandLineError(f"{option}: '{_shown(text)}' is not an integer; {expected}")
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > 30:  # beyond any range here; int() of thousands of digits is refused
        raise _CommandLineError(f"{option}: {_shown(text)} is out of range; {expected}")
    value = int(text)
    if not low <= value <= high:
        raise _CommandLineError(f"{option}: {value} is out of range; {expected}")
    return value


def _decimal(option, text, low, high):
    expected = f"expected a number from {low} to {high}"
    if not _DECIMAL.match(text):
        raise _CommandLineError(f"{option}: '{_shown(text)}' is not a number; {expected}")
    value = float(text)
    if not (math.isfinite(value) and low <= value <= high):
        raise _CommandLineError(f"{option}: {_shown(text)} is out of range; {expected}")
    return value


def _example_shape(text):
    parts = text.split(",")
    if not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        raise _CommandLineError(f"--example-shape: '{_shown(text)}' is not a list of positive "
                                f"integers such as 8,40")
    if len(parts) > MAX_EXAMPLE_DIMS:
        raise _CommandLineError(f"--example-shape: {len(parts)} dimensions; at most "
                                f"{MAX_EXAMPLE_DIMS}")
    shape = [_integer("--example-shape", p, 1, MAX_BATCH_SIZE) for p in parts]
    if math.prod(shape) > MAX_EXAMPLE_VALUES:
        raise _CommandLineError(f"--example-shape: {text} is {math.prod(shape)} values; at most "
                                f"{MAX_EXAMPLE_VALUES}")
    return shape


def _check_options(a):
    """Numbers in range and options that go together, before anything is loaded."""
    if a.example_npz is not None and a.example_shape is not None:
        raise _CommandLineError("give --example-shape or --example-npz, not both")
    if a.example_npz is None and a.example_shape is None:
        raise _CommandLineError("give --example-shape or --example-npz (the exporter checks the "
                                "saved file against the eager network on that example)")
    if a.example_npz is not None:
        for option, value in (("--example-kind", a.example_kind), ("--spike-rate",
                                                                   a.spike_rate)):
            if value is not None:
                raise _CommandLineError(f"{option} makes a random example; it does not go with "
                                        f"--example-npz")
    else:
        if a.batch_size is not None:
            raise _CommandLineError("--batch-size takes the first samples of --example-npz; "
                                    "with --example-shape the batch is the shape's first number")
        if a.spike_rate is not None and a.example_kind == "normal":
            raise _CommandLineError("--spike-rate is for --example-kind spikes, not normal")
    a.steps = _integer("--steps", a.steps, 1, MAX_STEPS) if a.steps is not None else 8
    a.batch_size = _integer("--batch-size", a.batch_size, 1, MAX_BATCH_SIZE) \
        if a.batch_size is not None else 8
    a.spike_rate = _decimal("--spike-rate", a.spike_rate, 0, 1) \
        if a.spike_rate is not None else 0.3
    a.example_kind = a.example_kind or "spikes"
    a.shape = _example_shape(a.example_shape) if a.example_shape is not None else None


def _split_spec(spec):
    if ":" not in spec:
        raise _CommandLineError(f"'{spec}' is not MODULE:NAME (a module or .py file, then a "
                                f"network or a function making one)")
    mod_name, attr = spec.rsplit(":", 1)
    if not mod_name or not attr:
        raise _CommandLineError(f"'{spec}' is not MODULE:NAME: no "
                                f"{'module before' if not mod_name else 'name after'} the ':'")
    is_file = mod_name.endswith(".py") or os.sep in mod_name
    if not is_file and not all(p.isidentifier() for p in mod_name.split(".")):
        raise _CommandLineError(f"'{mod_name}' (in '{spec}') is neither a module name nor a "
                                f".py file")
    return mod_name, attr, is_file


def _import(mod_name, is_file):
    try:
        if is_file:
            sys.path.insert(0, os.path.dirname(os.path.abspath(mod_name)))
            s = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(mod_name))[0], mod_name)
            module = importlib.util.module_from_spec(s)
            sys.modules[s.name] = module
            s.loader.exec_module(module)
            return module
        sys.path.insert(0, os.getcwd())
        return importlib.import_module(mod_name)
    except (_Interrupted, KeyboardInterrupt):
        raise
    except ModuleNotFoundError as e:
        if not is_file and e.name is not None and (mod_name + ".").startswith(e.name + "."):
            raise _CommandLineError(f"{mod_name}: no such module (nor a .py file; give "
                                    f"FILE.py:NAME for a file)") from None
        raise _CommandLineError(f"{mod_name}: cannot import it: {_raised(e)}") from None
    except BaseException as e:  # noqa: BLE001 (SystemExit too: the module is not ours)
        raise _CommandLineError(f"{mod_name}: cannot import it: {_raised(e)}") from None


def _load_net(spec, mod_name, module):
    attr = spec.rsplit(":", 1)[1]
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise _CommandLineError(f"{mod_name} has no attribute '{attr}'") from None
    except (_Interrupted, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001
        raise _CommandLineError(f"{spec}: reading it raised {_raised(e)}") from None
    if isinstance(obj, nn.Module):
        net = obj
    elif callable(obj):
        try:
            net = obj()
        except (_Interrupted, KeyboardInterrupt):
            raise
        except BaseException as e:  # noqa: BLE001
            raise _CommandLineError(f"{spec}: making the network raised {_raised(e)}") from None
    else:
        raise _CommandLineError(f"{spec} is {type(obj).__name__}, neither a torch.nn.Module nor "
                                f"a function returning one")
    if not isinstance(net, nn.Module):
        raise _CommandLineError(f"{spec} gave {type(net).__name__}, not a torch.nn.Module")
    return net


def _load_weights(net, spec, weights):
    try:
        with open(weights, "rb") as f:
            state = torch.load(f, map_location="cpu")
    except (_Interrupted, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 (unpickling runs the file's own code)
        raise _CommandLineError(f"{weights}: cannot load the weights: {type(e).__name__}: "
                                f"{_one_line(e)}") from None
    if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
        state = state["state_dict"]
    if isinstance(state, nn.Module):
        raise _CommandLineError(f"{weights}: holds a whole network ({type(state).__name__}), "
                                f"not a state_dict; save net.state_dict() instead")
    if not isinstance(state, dict):
        raise _CommandLineError(f"{weights}: holds {type(state).__name__}, not a state_dict (a "
                                f"dict of tensors by parameter name)")
    try:
        net.load_state_dict(state)
    except (_Interrupted, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001
        raise _CommandLineError(f"{weights}: does not fit {spec}: {_one_line(e)}") from None


def _example_from_npz(a):
    try:
        import numpy as np  # only for this option
    except ImportError:
        raise _CommandLineError("--example-npz needs numpy (Debian: python3-numpy)") from None
    path = a.example_npz
    try:
        archive = np.load(path, allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        raise _CommandLineError(f"{path}: cannot read it as an .npz archive: "
                                f"{_one_line(e)}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise _CommandLineError(f"{path}: is a single .npy array, not an .npz archive with an "
                                f"array 'data'")
    with archive as z:
        if "data" not in z.files:
            names = ", ".join(z.files[:5]) + (f" and {len(z.files) - 5} more"
                                              if len(z.files) > 5 else "")
            raise _CommandLineError(f"{path}: has no array 'data' (it has "
                                    f"{names or 'no arrays'})")
        try:
            data = z["data"]
        except Exception as e:  # noqa: BLE001
            raise _CommandLineError(f"{path}: cannot read its array 'data': "
                                    f"{_one_line(e)}") from None
    if data.dtype.kind not in "biuf":
        raise _CommandLineError(f"{path}: array 'data' has dtype {data.dtype}; expected numbers "
                                f"(bool, integer or float)")
    if data.ndim == 0 or data.shape[0] == 0:
        raise _CommandLineError(f"{path}: array 'data' of shape {list(data.shape)} has no "
                                f"samples")
    x = data[: a.batch_size]
    if a.stepwise:
        if x.ndim < 2 or x.shape[1] == 0:
            raise _CommandLineError(f"{path}: step-wise data must be (batch, time, ...) with at "
                                    f"least one timestep, got shape {list(data.shape)}")
        x = x[:, 0]
    try:
        t = torch.from_numpy(np.ascontiguousarray(x))
    except TypeError as e:
        raise _CommandLineError(f"{path}: array 'data' of dtype {data.dtype}: {e}") from None
    if t.is_floating_point() and bool(torch.isnan(t).any()):
        raise _CommandLineError(f"{path}: array 'data' holds NaN in the samples taken as the "
                                f"example")
    return t


def _example_from_args(a):
    if a.example_npz is not None:
        return _example_from_npz(a)
    g = torch.Generator().manual_seed(0)
    if a.example_kind == "spikes":
        return (torch.rand(a.shape, generator=g) < a.spike_rate).float()
    return torch.randn(a.shape, generator=g)


def _check_not_an_input(out, target, inputs):
    """Refuses an output that is one of the inputs (by device and inode: links too)."""
    if target[1] is None:
        return
    o = os.stat(target[0])
    for path, role in inputs:
        try:
            i = os.stat(path)
        except OSError:
            continue
        if (o.st_dev, o.st_ino) == (i.st_dev, i.st_ino):
            raise _CommandLineError(f"{out} (the output) is the same file as {path} ({role}): "
                                    f"an output must not overwrite an input")


def _run(a):
    _check_options(a)
    target = _output_target(a.out)
    mod_name, _, is_file = _split_spec(a.net)
    inputs = []
    if is_file:
        _check_regular_input(mod_name, "module file")
        inputs.append((mod_name, "the network's module"))
    if a.weights is not None:
        _check_regular_input(a.weights, "weights file")
        inputs.append((a.weights, "--weights"))
    if a.example_npz is not None:
        _check_regular_input(a.example_npz, "example file")
        inputs.append((a.example_npz, "--example-npz"))
    _check_not_an_input(a.out, target, inputs)
    module = _import(mod_name, is_file)
    if not is_file and isinstance(getattr(module, "__file__", None), str):
        _check_not_an_input(a.out, target, [(module.__file__, "the network's module")])
    net = _load_net(a.net, mod_name, module)
    if a.weights is not None:
        _load_weights(net, a.net, a.weights)
    net.eval()
    example = _example_from_args(a)
    stepwise = True if a.stepwise else (False if (a.torch_model or a.custom_forward) else None)
    print(export(net, a.out, example_input=example, custom_forward=a.custom_forward,
                 stepwise=stepwise, steps=a.steps))
    return 0


def main(argv=None):
    """The command line; returns its exit status: 0 written, 1 refused, 2 bad arguments, 130 or
    143 interrupted by SIGINT or SIGTERM (nothing left behind)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")  # names that are not UTF-8
    ap = _ArgumentParser(
        prog="neurobench_export.py",
        description="Export an snnTorch network to TorchScript for neurobench-cpp, checked "
                    "against the eager network.")
    ap.add_argument("net", help="MODULE:NAME or FILE.py:NAME: a network, or a function "
                                "returning one")
    ap.add_argument("out", help="TorchScript file to write: a regular file (replaced whole) or "
                                "a new name; a directory, device or FIFO is refused")
    ap.add_argument("--weights", help="a state_dict file to load into the network first")
    ap.add_argument("--example-shape", help="shape of one example call, e.g. 8,40 (one "
                                            "timestep for --stepwise)")
    ap.add_argument("--example-kind", choices=["spikes", "normal"],
                    help="values of the generated example: 0/1 spikes (the default) or standard "
                         "normal")
    ap.add_argument("--spike-rate", help="probability of a spike in the generated example, "
                                         "0 to 1 (default 0.3)")
    ap.add_argument("--example-npz", help="take the example from the 'data' array of this .npz "
                                          "(first --batch-size samples)")
    ap.add_argument("--batch-size", help=f"samples taken from --example-npz, 1 to "
                                         f"{MAX_BATCH_SIZE} (default 8)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--stepwise", action="store_true",
                      help="NeuroBench's SNNTorchModel(net): run with neurobench run --stepwise")
    mode.add_argument("--custom-forward", action="store_true",
                      help="SNNTorchModel(net, custom_forward=True): the net loops over time")
    mode.add_argument("--torch-model", action="store_true",
                      help="TorchModel(net): called once per batch, never reset")
    ap.add_argument("--steps", help=f"calls per batch in the check, 1 to {MAX_STEPS} (default 8)")
    a = ap.parse_args(argv)
    import threading
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        _SIGNALS.install()
    try:
        return _run(a)
    except _CommandLineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ExportArgumentError as e:
        print(f"error: {_one_line(e)}", file=sys.stderr)
        return 2
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except _Interrupted as e:
        _SIGNALS.remove_temporaries()
        name = signal.Signals(e.signum).name
        if e.written:
            print(f"error: interrupted by {name} after {e.written} was written (checked)",
                  file=sys.stderr)
        else:
            print(f"error: interrupted by {name}: nothing was written", file=sys.stderr)
        return 128 + e.signum
    finally:
        _SIGNALS.remove_temporaries()
        for s, handler in previous.items():
            if handler is not None:
                signal.signal(s, handler)


if __name__ == "__main__":
    sys.exit(main())
