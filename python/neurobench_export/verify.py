# SPDX-License-Identifier: Apache-2.0
"""Checking the export against the eager network, and the state of the user's network kept and
put back around the export's own runs."""

import importlib
import sys

import torch
from torch import Tensor

from . import inputs
from .neurons import _NEURONS, STATE_ATTRIBUTES, _is_snntorch_neuron


def _tensors(value):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    if isinstance(value, dict):  # a plain network's outputs by name, compared name by name
        return [t for k in sorted(value, key=str) for t in _tensors(value[k])]
    return []


def _describe(value):
    if isinstance(value, Tensor):
        return f"tensor{list(value.shape)}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_describe(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(value[k])}" for k in sorted(value, key=str)) \
            + "}"
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
    keys_differ = isinstance(e_out, dict) and (
        not isinstance(x_out, dict) or sorted(map(str, e_out)) != sorted(map(str, x_out)))
    if len(et) != len(xt) or keys_differ:
        return (f"the network's output differs {where}: the eager net returns "
                f"{_describe(e_out)}, the export {_describe(x_out)}")
    for i, (a, b) in enumerate(zip(et, xt)):
        if not _same(a, b):
            what = f"shape {list(b.shape)} instead of {list(a.shape)}" if a.shape != b.shape \
                else "different values"
            return f"the network's output differs {where}: output tensor {i} has {what}"
    return None


def _permuted(example, generator):
    """The example's values in a random order (spikes stay spikes, the value mix stays), each
    tensor of a structured input on its own."""
    def permute(t):
        flat = t.reshape(-1)
        return flat[torch.randperm(flat.numel(), generator=generator)].reshape(t.shape)
    return inputs.map_leaves(permute, example)


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
    if not any(_is_snntorch_neuron(m) for m in net.modules()):
        return  # snntorch.utils.reset(net) resets only snnTorch neurons; none need be installed
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


STATELESS_STEPS = 2
"""Calls per batch of the check for a scripted network that keeps no state (the example and one
permutation of it): further calls of such a network see the same function on other values, which
the other batches of the check give it too."""


def _state_of(net):
    """The tensors a network holds besides its parameters (buffers, tensor attributes), as
    (module index, name, object, copy of its values): what a call that keeps state changes."""
    out = []
    for i, m in enumerate(net.modules()):
        items = list(m._buffers.items()) + [(k, v) for k, v in vars(m).items()
                                            if isinstance(v, Tensor)]
        for name, value in items:
            if isinstance(value, Tensor):
                out.append((i, name, value, value.detach().clone()))
    return out


def _kept_state(before, net):
    """Whether the net's state differs from `before` (_state_of): a tensor replaced, changed in
    place, added or removed."""
    after = _state_of(net)
    if len(after) != len(before):
        return True
    return any(a[:2] != b[:2] or a[2] is not b[2] or not _same(a[3], b[3])
               for a, b in zip(after, before))


def _check(net, loaded, example, *, custom_forward, stepwise, steps, same_draws=False,
           scripted=False):
    """Runs the eager net and the loaded export side by side; returns None or what differs.
    With same_draws, both calls of a pair start from the same state of torch's global generator
    (a net that draws from it on purpose, as sparch's neurons draw their initial states with
    torch.rand). `scripted`: the export was compiled, not traced; when such a network is also
    seen to keep no state over its first call, each batch of the check makes STATELESS_STEPS
    calls instead of `steps` (a trace keeps all of them: more inputs show more of the paths a
    trace may have fixed)."""
    gen = torch.Generator().manual_seed(0)
    half = max(1, inputs.batch_size(example) // 2)
    with torch.no_grad():
        if custom_forward:
            t = example.shape[1]
            longer = torch.cat([example, _permuted(example, gen)[:, : max(1, t // 2)]], 1)
            shorter = example[:half, : max(1, t - t // 3)]
            for i, x in enumerate([example, _permuted(example, gen), longer, shorter]):
                where = f"on call {i + 1} (input shape {list(x.shape)})"
                draws = torch.get_rng_state()
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
                if same_draws:
                    torch.set_rng_state(draws)
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
        steps_now = steps
        for protocol in protocols:
            # a second batch of the same size shows what the reset leaves; a smaller one,
            # what depends on the batch size
            second = _permuted(example, gen)
            smaller = inputs.map_leaves(lambda t: t[:half], example)
            for batch_no, batch in enumerate([example, second, smaller]):
                if protocol == "reset":
                    _reset_like_neurobench(net)
                    _reset_like_cpp(loaded)
                variants = _variants(batch, gen)
                stop = False
                for t in range(steps):
                    if t >= steps_now:
                        break  # a scripted network seen to keep no state: fewer calls
                    x = next(variants)
                    how = "after a reset" if protocol == "reset" else "state carried"
                    where = (f"at call {t + 1} of batch {batch_no + 1} (input shape "
                             f"{inputs.describe(x)}, {how})")
                    draws = torch.get_rng_state()
                    watch = scripted and protocol == "carry" and batch_no == t == 0
                    before = _state_of(net) if watch else None
                    try:
                        e_out = net(x)
                        if watch and not _kept_state(before, net):
                            steps_now = min(steps, STATELESS_STEPS)
                    except Exception:  # noqa: BLE001
                        if protocol == "carry" and stepwise is None and batch_no == t == 0:
                            break  # not callable without NeuroBench's reset: a step-wise net
                        if batch_no == 0:
                            raise
                        stop = True  # a net made for one batch size only
                        break
                    if same_draws:
                        torch.set_rng_state(draws)
                    x_out = loaded(inputs.for_module(loaded, x))
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
