# SPDX-License-Identifier: Apache-2.0
"""Export snnTorch networks, and networks without snnTorch neurons, to TorchScript with their
exact behaviour, for neurobench-cpp.

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
A network without snnTorch neurons (NeuroBench's M5 ANN, an MLP, a CNN, a GRU) is scripted as
it is or, where TorchScript cannot compile it, traced on `example_input`; the report says which.

Before the file is written, the eager net and the saved file run side by side (several timesteps
and two batch sizes, states carried, resets as NeuroBench does them); they must agree exactly,
or nothing is written and ExportError names the first neuron or output that differs (a trace
that fixed data-dependent control flow to the example's path among them). The eager net is left
as it was given. Needs only torch and the network's own snnTorch; the C++ library needs neither.

Command line (see docs/snntorch.md), installed (`pip install --no-build-isolation ./python`) or
from the source tree:
    neurobench-export my_module:make_net out.pt --example-shape 8,40
    python3 python/neurobench_export.py my_module:make_net out.pt --example-shape 8,40

The modules, by job: `exporter` (export()), `errors`, `neurons` (the scripted neurons),
`rewrite` (the user's source rewritten), `build` (the network to script or trace), `verify` (the
check against the eager network), `inputs` (an input of tensors in lists and tuples, such as
`[x, (h, c)]`), `pruning` (torch.nn.utils.prune's masks applied while exporting), `files` (the
output rules, signals), `cli` (the command line).
"""

from .errors import EagerNetworkError, ExportArgumentError, ExportError
from .exporter import MAX_STEPS, export
# The other public names of the single module the exporter was
from .neurons import STATE_ATTRIBUTES  # noqa: F401
from .cli import MAX_BATCH_SIZE, MAX_EXAMPLE_DIMS, MAX_EXAMPLE_VALUES, main  # noqa: F401

__all__ = ["export", "ExportError", "ExportArgumentError", "EagerNetworkError", "MAX_STEPS"]
