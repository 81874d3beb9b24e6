# SPDX-License-Identifier: Apache-2.0
"""Models as NeuroBench's Benchmark takes them, made into TorchScript for the C++ harness.

`prepare_model(model, example_input=None)` returns a `PreparedModel`. It accepts NeuroBench's
own `TorchModel(net)` and `SNNTorchModel(net, custom_forward=...)` (recognised by class name and
module, NeuroBench is never imported here), this module's `TorchModel` and `SNNTorchModel`
(the same constructors, for use without NeuroBench), a `torch.jit.ScriptModule`, or the path of
a TorchScript file. Eager networks go through the project's exporter (`neurobench_export`),
checked against the eager network; a network it refuses raises `ModelError`.
"""

from dataclasses import dataclass, field
from typing import Any, Optional, Tuple


@dataclass(frozen=True)
class PreparedModel:
    """A model ready for the C++ harness.

    script: the torch.jit.ScriptModule the harness runs (loaded back from `path`).
    kind: "torchscript" (a ScriptModule or file given as is), "torch" (TorchModel) or
        "snntorch" (SNNTorchModel).
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

    script: Any
    kind: str
    original: Any
    describe: str
    path: Optional[str] = None
    stepwise: bool = False
    activation_modules: Optional[Tuple[str, ...]] = None
    # Keeps the temporary folder of an exported or saved file alive as long as the model.
    workdir: Any = field(default=None, repr=False, compare=False)
