# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's Python API on neurobench-cpp's C++ harness (docs/python.md).

    from neurobench_cpp import Benchmark   # instead of: from neurobench.benchmarks import ...

`Benchmark(model, dataloader, preprocessors, postprocessors, metric_list)` takes what NeuroBench
2.3's Benchmark takes and runs it in C++ (the compiled module `neurobench_cpp._core`); the
models, metrics and processors NeuroBench defines are translated (`_models`, `_metrics`,
`_processors`), the user's own Python callables and metrics run in Python at their place.

The compiled module is found in the package, or, for a build tree not installed, in the folder
the environment variable NEUROBENCH_CPP_CORE_DIR names (build/release/python/neurobench_cpp).
"""
import os as _os

if _os.environ.get("NEUROBENCH_CPP_CORE_DIR"):
    __path__.append(_os.environ["NEUROBENCH_CPP_CORE_DIR"])  # noqa: F821 (the package's path)

try:
    from . import _core  # noqa: F401
    CORE_IMPORT_ERROR = None
except ImportError as _e:  # the pure-Python layers still import (their unit tests need no core)
    _core = None
    CORE_IMPORT_ERROR = _e

from ._metrics import CppMetric  # noqa: E402
from ._models import SNNTorchModel, TorchModel  # noqa: E402
from ._processors import CppProcessor  # noqa: E402
from .benchmark import Benchmark, DatasetKind  # noqa: E402

__all__ = ["Benchmark", "CppMetric", "CppProcessor", "DatasetKind", "SNNTorchModel",
           "TorchModel"]
