# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's pre- and post-processors translated for the C++ harness.

`translate_processors(items, stage) -> list[CppProcessor | PythonProcessor]`, stage "pre" or
"post": NeuroBench's processor classes the C++ side implements become `CppProcessor` with their
constructor arguments (read from the object's attributes) mapped onto the C++ options exactly;
whatever cannot be represented exactly, and any other callable, becomes a `PythonProcessor`
that runs in Python at its place in the chain.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict


@dataclass(frozen=True)
class CppProcessor:
    """A processor of the C++ registry (`neurobench list`): its name and options (JSON)."""

    name: str
    options: Dict[str, Any] = field(default_factory=dict)
    describe: str = ""


@dataclass(frozen=True)
class PythonProcessor:
    """A Python callable run in the chain: pre-processors are called with the batch tuple
    `(data, targets)` or `(data, targets, kwargs)` and return one; post-processors with the
    model's output tensor and return a tensor (NeuroBench's ProcessorManager)."""

    fn: Callable
    describe: str = ""
