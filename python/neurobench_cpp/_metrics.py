# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's metric lists translated for the C++ harness.

`translate_metrics(metric_list) -> (static, workload)`: `metric_list` is NeuroBench's
`[[static...], [workload...]]`; each entry becomes a `CppMetric` (NeuroBench's metric classes,
their names as strings in 2.x and 1.x spelling, the project's own metric names) or a
`PythonMetric` (a user's StaticMetric / WorkloadMetric / AccumulatedMetric subclass, run in
Python). Anything else raises TypeError or ValueError naming it and listing what is accepted.
"""

from dataclasses import dataclass, field
from typing import Any, Dict


@dataclass(frozen=True)
class CppMetric:
    """A metric of the C++ harness's registry.

    name: its registry name ("SynapticOperations", "Latency").
    options: its options (a JSON object; {} for NeuroBench's metrics, which take none).
    result_key: the key of its value in the results dict, as NeuroBench keys it: the class's
        __name__ for a class, the string as given for a name ("synaptic_operations").
    """

    name: str
    options: Dict[str, Any] = field(default_factory=dict)
    result_key: str = ""


@dataclass(frozen=True)
class PythonMetric:
    """A user's metric that runs in Python.

    obj: the metric object, instantiated from the class given (as NeuroBench's managers do when
        the Benchmark is built): static ones are called `obj(model)`, workload ones
        `obj(model, preds, data)`, accumulated ones also `obj.reset()` before a run and
        `obj.compute()` as NeuroBench calls them.
    kind: "static", "workload" or "accumulated" (an AccumulatedMetric: its value replaces the
        previous one each batch; a plain workload metric's is weighted by batch_size /
        dataset length and summed, as NeuroBench's WorkloadMetricManager does).
    result_key: the class's __name__, NeuroBench's key.
    requires_hooks: the object's requires_hooks (NeuroBench registers its hooks then).
    """

    obj: Any
    kind: str
    result_key: str = ""
    requires_hooks: bool = False
