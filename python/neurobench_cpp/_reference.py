# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's outcome where its own metric code fails, for the results of neurobench_cpp to be
NeuroBench's (docs/python.md, "Where NeuroBench's own code fails").

NeuroBench 2.3's managers catch a metric's exception: a static metric's value is then None, a
workload metric's 0.0 (`Error running metric 'X': ...` and `Error running workload metric 'X':
...` printed). Some of its metrics fail only on some layers, some of the time:

- NeuronOperations reads every activation layer's `_reset_mechanism` and looks its class up in a
  table of four snnTorch neurons: on a ReLU, a Sigmoid or an RLeaky it raises on every batch.
- SynapticOperations takes each connection layer's hook off while it counts it, and puts it
  back only when the count returns: a layer its count cannot read (an RNN, LSTM or GRU layer,
  a GRU cell called without a state, a layer pruned with torch.nn.utils.prune whose weight
  cannot be deep-copied) fails the batch where it is first called, after the layers before it
  in hook order were counted and before the batch's samples are, and is never counted again by
  that network's hooks. The C++ metric's option per_layer gives each batch's per-layer counts
  and failures; SynapticOperationsReplay adds them up as NeuroBench's loop does.
"""

# NeuroBench 2.3's neuron_ops_reset_operations: the neuron classes and reset mechanisms its
# NeuronOperations knows.
_NEURON_RESETS = {"Leaky": ("subtract", "zero"), "Synaptic": ("subtract", "zero"),
                  "Lapicque": ("subtract", "zero"), "Alpha": ("subtract", "zero")}

# NeuroBench's message when deepcopy meets a tensor with autograd history (a pruned weight).
_DEEPCOPY_MESSAGE = ("Only Tensors created explicitly by the user (graph leaves) support the "
                     "deepcopy protocol at the moment")


def neuron_operations_failure(model):
    """The message NeuroBench's NeuronOperations raises on every batch of `model` (a wrapper
    with activation_layers()), or None when it runs."""
    layers = getattr(model, "activation_layers", None)
    if layers is None:
        return None
    for layer in layers():
        module = layer["layer"]
        try:
            mechanism = module._reset_mechanism
        except AttributeError as e:
            return str(e)
        name = type(module).__name__
        if name not in _NEURON_RESETS:
            return repr(name)
        if mechanism not in _NEURON_RESETS[name]:
            return repr(mechanism)
    return None


def _connection_layers(net):
    """NeuroBench's connection_layers(): (path, module) in hook order."""
    import torch.nn as nn
    kinds = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.RNNBase, nn.RNNCellBase)
    found = []

    def walk(module, prefix):
        for name, child in module.named_children():
            path = f"{prefix}{name}"
            if isinstance(child, kinds):
                found.append((path, child))
            elif list(child.children()):
                walk(child, path + ".")
    walk(net, "")
    return found


def synaptic_failures(net):
    """(whether NeuroBench's SynapticOperations may fail part-way on `net`, {layer path: the
    message it raises for a layer whose copy fails}): True when `net` has recurrent layers or
    cells, or pruned layers."""
    import torch.nn as nn
    from neurobench_export.pruning import pruned_modules
    layers = _connection_layers(net)
    risky = any(isinstance(m, (nn.RNNBase, nn.RNNCellBase)) for _, m in layers)
    pruned = {id(m): names for _, m, names in pruned_modules(net)}
    copies = {}
    for path, m in layers:
        names = pruned.get(id(m))
        # The forward NeuroBench runs (with gradients) leaves a pruned weight with autograd
        # history whenever the parameter it is made of requires gradients.
        if names and any(getattr(m, n + "_orig").requires_grad for n in names):
            copies[path] = _DEEPCOPY_MESSAGE
    return risky or bool(copies), copies


class SynapticOperationsReplay:
    """NeuroBench's SynapticOperations over the per-layer counts of the C++ metric's per_layer
    option, with the layers its hooks dropped kept from one run to the next (they belong to the
    network's hooks, which outlive a run)."""

    def __init__(self, copy_failures):
        self.copy_failures = dict(copy_failures)
        self.dropped = set()

    def value(self, per_layer):
        """(NeuroBench's value, [the message of each batch that failed]) for one run."""
        macs = acs = dense = 0
        samples = 0
        value = None
        messages = []
        for batch in per_layer["batches"]:
            failed = None
            for layer in batch["layers"]:
                path = layer["layer"]
                if path in self.dropped:
                    continue
                copy_failure = self.copy_failures.get(path)
                if copy_failure is None:
                    macs += layer["macs"]
                    acs += layer["acs"]
                    dense += layer["dense"]
                failed = copy_failure or layer["error"]
                if failed:
                    self.dropped.add(path)
                    break
            if failed:
                messages.append(failed)
                value = 0.0
                continue
            samples += batch["samples"]
            value = _compute(macs, acs, dense, samples)
        if value is None:
            value = _compute(macs, acs, dense, samples)
        return value, messages


def _compute(macs, acs, dense, samples):
    if samples == 0:
        return {"Effective_MACs": 0, "Effective_ACs": 0, "Dense": 0}
    return {"Effective_MACs": macs / samples, "Effective_ACs": acs / samples,
            "Dense": dense / samples}
