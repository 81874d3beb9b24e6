# SPDX-License-Identifier: Apache-2.0
"""The names the C++ harness knows: its metrics by family and its processors by stage, read
from the compiled core's registries (the built-ins and any plugin library loaded), and the keys
of a run from its table (run_keys(), docs/cli.md "Every key of a run"). Nothing is copied
here: a metric, processor or run key added to the C++ side is known to Python at once.

The pure-Python layers' unit tests run without the compiled core: they give the names the
command line lists instead (use()).
"""
_NAMES = None


def _load():
    from . import CORE_IMPORT_ERROR, _core
    if _core is None:
        raise ImportError(f"neurobench_cpp needs its compiled core (neurobench_cpp._core) to know "
                          f"the harness's metrics and processors: {CORE_IMPORT_ERROR}; build it "
                          f"(cmake target neurobench_cpp_core) or pip install ./python") \
            from CORE_IMPORT_ERROR
    metrics = {"static": [], "workload": []}
    for name, kind in _core.metric_names():
        metrics["static" if kind == "static" else "workload"].append(name)
    return {"metrics": {k: tuple(v) for k, v in metrics.items()},
            "processors": {stage: tuple(_core.processor_names(stage)) for stage in ("pre", "post")},
            "run_keys": tuple(_core.run_keys())}


def _names():
    global _NAMES
    if _NAMES is None:
        _NAMES = _load()
    return _NAMES


def use(static, workload, pre, post, run_keys=()):
    """Names for the unit tests without the compiled core (as `neurobench list` gives them):
    metrics by family (timing metrics with the workload ones), processors by stage."""
    global _NAMES
    _NAMES = {"metrics": {"static": tuple(static), "workload": tuple(workload)},
              "processors": {"pre": tuple(pre), "post": tuple(post)},
              "run_keys": tuple(run_keys)}


def metrics(family):
    """The harness's metric names of `family`: 'static', or 'workload' (timing included)."""
    return _names()["metrics"][family]


def processors(stage):
    """The harness's processor names of `stage`: 'pre' or 'post'."""
    return _names()["processors"][stage]


def run_keys():
    """Every key of a run as the core's table has it: dicts with `key` (the config key, empty
    for a flag of the command line alone), `flag`, `value` (its kind), `help` and
    `suite_may_set`."""
    return _names()["run_keys"]
