# SPDX-License-Identifier: Apache-2.0
"""A network's input as the exporter handles it: one tensor, or tensors in (nested) lists and
tuples, as a recurrent network that takes its state with its input is called (`[x, (h, c)]`,
NeuroBench's LSTM, RNN and GRU test models). The check feeds such inputs to the eager network
as they were given and to the saved module as its forward's argument type says."""

import torch
from torch import Tensor


def is_structured(value):
    """True for tensors in (nested) lists and tuples, False for one tensor."""
    return not isinstance(value, Tensor)


def leaves(value):
    """The tensors of an input, depth first."""
    if isinstance(value, Tensor):
        return [value]
    return [t for v in value for t in leaves(v)]


def problem(value, where="example_input"):
    """What makes `value` no input the exporter takes, or None: a tensor, or tensors in
    non-empty (nested) lists and tuples."""
    if isinstance(value, Tensor):
        return None
    if not isinstance(value, (list, tuple)):
        return f"{where} must be a tensor or tensors in lists and tuples, got " \
               f"{type(value).__name__}"
    if not value:
        return f"{where} is an empty {type(value).__name__}"
    for i, v in enumerate(value):
        found = problem(v, f"{where}[{i}]")
        if found:
            return found
    return None


def map_leaves(fn, value):
    """`value` with `fn` applied to each tensor, lists and tuples kept as they are."""
    if isinstance(value, Tensor):
        return fn(value)
    return type(value)(map_leaves(fn, v) for v in value)


def as_tuples(value):
    """Lists made tuples, at every depth: what torch.jit.trace takes as one argument."""
    if isinstance(value, Tensor):
        return value
    return tuple(as_tuples(v) for v in value)


def batch_size(value):
    """The first dimension of the input's first tensor."""
    first = leaves(value)[0]
    return first.shape[0] if first.dim() else 1


def describe(value):
    """`[8, 20]`, or `([8, 25], ([8, 5], [8, 5]))` for a structured input."""
    if isinstance(value, Tensor):
        return str(list(value.shape))
    inner = ", ".join(describe(v) for v in value)
    return f"[{inner}]" if isinstance(value, list) else f"({inner})"


def for_module(module, value):
    """`value` as the saved module's forward takes it: lists and tuples converted where its
    argument's type says Tuple or List (a traced module takes tuples)."""
    if isinstance(value, Tensor):
        return value
    try:
        kind = module.forward.schema.arguments[1].type
    except (AttributeError, IndexError):
        return as_tuples(value)
    return _converted(value, kind)


def _converted(value, kind):
    if isinstance(value, Tensor) or kind is None:
        return value
    if isinstance(kind, torch._C.OptionalType):
        return _converted(value, kind.getElementType())
    if isinstance(kind, torch._C.ListType):
        return [_converted(v, kind.getElementType()) for v in value]
    if isinstance(kind, torch._C.TupleType):
        elements = kind.elements()
        if len(elements) == len(value):
            return tuple(_converted(v, k) for v, k in zip(value, elements))
    return as_tuples(value)
