# SPDX-License-Identifier: Apache-2.0
"""Scripted neurons. Each computes what snnTorch 0.9.4's class of the same name computes in
inference, in the same order of floating-point operations, and keeps its state as attributes.
In inference every snnTorch surrogate fires a Heaviside step, `(x > 0).float()`."""

from typing import Optional, Tuple

import torch
from torch import Tensor, nn

# The module the scripted neuron classes name as theirs: the package, as when the exporter
# was one module neurobench_export, so that TorchScript calls them
# __torch__.neurobench_export.Leaky and so on.
NEURON_MODULE = __package__


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
    return type(name, (base,), {"forward": forward, "__module__": NEURON_MODULE,
                                "__qualname__": name})


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
