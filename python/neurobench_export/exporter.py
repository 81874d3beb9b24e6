# SPDX-License-Identifier: Apache-2.0
"""The export: export() and what it needs of its own."""

import os

import torch
from torch import Tensor, nn

from .build import _build, _define_snntorch_reset, _is_user_module, _snntorch_reset
from . import inputs
from .errors import EagerNetworkError, ExportArgumentError, ExportError
from .files import _SIGNALS, _Interrupted, _TemporaryFolder, _commit, _output_target
from .neurons import STATE_ATTRIBUTES, _is_snntorch_neuron
from .pruning import masks_applied
from .rewrite import _user_functions
from .verify import _check, _restore, _set_initial_state, _snapshot


MAX_STEPS = 10000
"""The largest `steps` export() takes: calls per batch in the check, three batches or more."""


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


SHARED_MODULES_ATTRIBUTE = "__neurobench_shared_modules__"
"""The root attribute (Dict[str, str]) naming each later path of a module object the network
uses at several places, with the first path: TorchScript gives every path an object of its own,
and neurobench-cpp lists the module once, at its first path, as torch's named_modules() does."""


def _shared_modules(net):
    """{later path: first path} of every module object reached by several paths in `net`."""
    first, aliases = {}, {}
    for path, m in net.named_modules(remove_duplicate=False):
        if id(m) in first:
            aliases[path] = first[id(m)]
        else:
            first[id(m)] = path
    return aliases


def _record_shared_modules(module, net):
    aliases = _shared_modules(net)
    if aliases:
        kind = torch._C.DictType(torch._C.StringType.get(), torch._C.StringType.get())
        module._c._register_attribute(SHARED_MODULES_ATTRIBUTE, kind, aliases)


def _save_and_load(module, directory):
    # Through file objects: torch.jit.save/load take a path as UTF-8 only, and a folder's name
    # need not be UTF-8.
    path = os.path.join(directory, "candidate.pt")
    with open(path, "wb") as f:
        torch.jit.save(module, f)
    with open(path, "rb") as f:
        return torch.jit.load(f), path


def export(net, path, *, example_input=None, custom_forward=False, stepwise=None, steps=8,
           same_draws=False, verbose=False):
    """Saves `net` (an eager torch.nn.Module, with or without snnTorch neurons; eval mode) as a
    TorchScript file whose results under `neurobench run` equal Python NeuroBench's on the eager
    net.

    - SNNTorchModel(net): run with `neurobench run --stepwise`; `example_input` is one
      timestep `data[:, t]`, shape (batch, features...).
    - SNNTorchModel(net, custom_forward=True): `custom_forward=True`; `example_input` is
      (batch, time, features...); the saved model returns (batch, time, ...).
    - TorchModel(net): `example_input` is one batch as the net is called with it.

    A network without snnTorch neurons (an ANN such as NeuroBench's M5, an MLP, a CNN, a GRU) is
    compiled with torch.jit.script or, where that fails, traced with torch.jit.trace on
    `example_input`; the report says which. Either way the same check against the eager net
    decides, so a trace that took one path through control flow depending on the input's
    values is refused, not written.

    `stepwise`: True or False when known (False: a TorchModel net, never reset between
    batches); None checks both. `steps`: calls per batch in the check, 1 to MAX_STEPS.
    `same_draws`: the net draws from torch's global generator on purpose (sparch's neurons
    start from torch.rand states): the check runs the eager and the saved call of each pair
    from the same generator state, so the draws must be the same operations in the same order.
    Off, a net whose output depends on
    the generator is refused: its results could not equal NeuroBench's.
    `path`: a regular file (replaced whole), a symbolic link to one (the file it leads to is
    replaced) or a new name in an existing, writable folder; a directory, device, FIFO or
    socket is refused.
    A network pruned with torch.nn.utils.prune whose masks are still in place is exported with
    its masked weights (and its `*_orig` parameters and `*_mask` buffers kept): pruning.py.
    Returns a short report (str). Raises ExportError, writing nothing, when the saved file would
    not behave exactly as the eager net; ExportArgumentError (an ExportError) for a bad argument.
    """
    if isinstance(net, nn.Module):
        with masks_applied(net):
            return _export(net, path, example_input=example_input,
                           custom_forward=custom_forward, stepwise=stepwise, steps=steps,
                           same_draws=same_draws, verbose=verbose)
    return _export(net, path, example_input=example_input, custom_forward=custom_forward,
                   stepwise=stepwise, steps=steps, same_draws=same_draws, verbose=verbose)


def _export(net, path, *, example_input, custom_forward, stepwise, steps, same_draws, verbose):
    if not isinstance(net, nn.Module):
        raise ExportArgumentError(f"net must be a torch.nn.Module, got {type(net).__name__}")
    if example_input is None:
        raise ExportArgumentError(
            "example_input is required: the exporter checks the saved file against the eager "
            "net on it (one timestep data[:, t] for a step-wise net, the whole (batch, time, "
            "...) tensor otherwise)")
    bad = inputs.problem(example_input)
    if bad:
        raise ExportArgumentError(bad)
    structured = inputs.is_structured(example_input)
    if structured and (custom_forward or stepwise):
        raise ExportArgumentError(
            f"example_input is {inputs.describe(example_input)}, tensors in lists or tuples: "
            f"only a network called once per batch (TorchModel, stepwise=False) takes such an "
            f"input; a step-wise or custom_forward network takes one tensor")
    if structured:
        stepwise = False
    if custom_forward and example_input.dim() < 2:
        raise ExportArgumentError(f"with custom_forward=True example_input is (batch, time, "
                                  f"...), got shape {list(example_input.shape)}")
    if custom_forward:
        stepwise = False
    first = inputs.leaves(example_input)[0]
    if first.dim() == 0 or first.shape[0] == 0:
        raise ExportArgumentError(f"example_input needs a batch dimension, got shape "
                                  f"{inputs.describe(example_input)}")
    for t in inputs.leaves(example_input):
        if t.numel() == 0:
            raise ExportArgumentError(f"example_input is empty, shape "
                                      f"{inputs.describe(example_input)}")
        if t.is_floating_point() and bool(torch.isnan(t).any()):
            raise ExportArgumentError("example_input holds NaN: the check compares the eager "
                                      "net and the saved file bit for bit, and NaN equals "
                                      "nothing")
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
    plain = not initial  # no snnTorch neurons: scripted or traced as it is
    example = inputs.map_leaves(Tensor.detach, example_input)

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
        raise EagerNetworkError(f"the eager network fails on example_input of shape "
                                f"{inputs.describe(example)}: {type(e).__name__}: {e}",
                                e) from e
    _restore(saved)

    # A step-wise net without reset() gets one that does what NeuroBench does before a batch.
    mirror_reset = None
    if not plain and not custom_forward and stepwise is not False and \
            "reset" not in _user_functions(type(net)):
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
            label = (f"torch.jit.{how}" if plain else f"{how}") + \
                (" with reset()" if root_reset else "") + \
                (" (None state as empty tensors)" if none_as_empty else "")
            try:
                with torch.no_grad():
                    module = _build(net, example, how, root_reset, none_as_empty,
                                    custom_forward, calls)
                if mirror_reset:
                    _define_snntorch_reset(module, mirror_reset[0])
                _set_initial_state(module, initial)
                _record_shared_modules(module, net)
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
                                 stepwise=stepwise, steps=steps, same_draws=same_draws,
                                 scripted=plain and how == "script")
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
                kind = "; no snnTorch neurons" if plain else ""
                report.append(f"exported {type(net).__name__} to {path} ({label}{kind}); "
                              f"checked against the eager net")
                if plain and how == "trace":
                    report.append(_TRACED_NOTE)
                if mirror_reset and mirror_reset[1]:
                    report.append(
                        "note: snntorch.utils.reset(net), which NeuroBench calls before each "
                        f"batch, does not reset {'; '.join(mirror_reset[1])}; the saved reset() "
                        "does the same, so that the numbers agree (docs/snntorch.md)")
                break
            if plain and how == "trace":
                problem += _TRACE_HINT
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


_TRACED_NOTE = ("note: torch.jit.script cannot compile the network, so it was traced: the trace "
                "repeats the operations example_input took, and agreed with the eager net on "
                "every input of the check")
_TRACE_HINT = (". A trace records only the operations the example took: control flow that "
               "depends on the input's values (if, while, a loop over a tensor) stays fixed to "
               "the example's path. Make forward compile with torch.jit.script instead (the "
               "script attempt above says what stops it)")


def _failure_message(net, attempts):
    lines = [f"cannot export {type(net).__name__} with its exact behaviour; nothing was written."]
    for label, problem in attempts:
        lines.append(f"- {label}: {problem}")
    return "\n".join(lines)
