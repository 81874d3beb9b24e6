# SPDX-License-Identifier: Apache-2.0
"""Networks pruned with torch.nn.utils.prune whose masks are still in place: each pruned tensor
`weight` is then the parameter `weight_orig` times the buffer `weight_mask`, recomputed before
every call by a forward pre-hook, and held as a plain attribute with autograd history, which
neither copy.deepcopy nor TorchScript takes.

While the export runs, `masks_applied(net)` gives each pruned module its masked tensor as a plain
tensor without history and sets its pruning hooks aside; afterwards the module is as it was. The
saved module keeps `weight_orig` and `weight_mask` (so its footprint and parameter count are the
eager network's) and computes with the masked `weight`; neurobench-cpp's ConnectionSparsity
reads the masked weight of such a layer."""

import contextlib

import torch


def _pruning_hooks(module):
    """{hook id: hook} of the module's forward pre-hooks that torch.nn.utils.prune installed."""
    from torch.nn.utils.prune import BasePruningMethod
    return {k: h for k, h in module._forward_pre_hooks.items()
            if isinstance(h, BasePruningMethod)}


def _pruned_names(hook):
    """The tensor names a pruning hook recomputes (a PruningContainer holds several methods of
    one tensor)."""
    return [hook._tensor_name]


def pruned_modules(net):
    """[(path, module, [tensor names])] of every module with pruning masks in place."""
    out = []
    for path, m in net.named_modules():
        names = []
        for hook in _pruning_hooks(m).values():
            names += [n for n in _pruned_names(hook) if n not in names]
        if names:
            out.append((path, m, names))
    return out


@contextlib.contextmanager
def masks_applied(net):
    """While the block runs, each pruned module of `net` holds its masked tensors (orig * mask,
    detached) and has no pruning hooks; both are put back afterwards."""
    saved = []
    try:
        for _, m, names in pruned_modules(net):
            hooks = _pruning_hooks(m)
            values = {n: m.__dict__.get(n) for n in names}
            saved.append((m, hooks, values))
            for k in hooks:
                del m._forward_pre_hooks[k]
            with torch.no_grad():
                for n in names:
                    setattr(m, n, (getattr(m, n + "_orig") * getattr(m, n + "_mask")).detach())
        yield
    finally:
        for m, hooks, values in reversed(saved):
            for n, v in values.items():
                if v is None:
                    m.__dict__.pop(n, None)
                else:
                    m.__dict__[n] = v
            # the hooks back in their places (their ids are kept, so their order is too)
            m._forward_pre_hooks.update(hooks)
            order = sorted(m._forward_pre_hooks)
            items = {k: m._forward_pre_hooks[k] for k in order}
            m._forward_pre_hooks.clear()
            m._forward_pre_hooks.update(items)
