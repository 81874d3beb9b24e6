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

from . import _registry


@dataclass(frozen=True)
class CppMetric:
    """A metric of the C++ harness's registry.

    name: its registry name ("SynapticOperations", "Latency").
    options: its options (a JSON object; for NeuroBench's metrics, those that make the C++
        metric compute NeuroBench's: `{"keys": "name"}` for ActivationSparsityByLayer).
    result_key: the key of its value in the results dict, as NeuroBench keys it: the class's
        __name__ for a class, the string as given for a name ("synaptic_operations").
    """

    name: str
    options: Dict[str, Any] = field(default_factory=dict)
    result_key: str = ""
    # True for NeuroBench's metric classes and names: their results follow NeuroBench's where
    # its own code fails (_reference.py); False for a CppMetric or one of the harness's names.
    neurobench: bool = False


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


# NeuroBench 2.x's metric classes: neurobench.metrics.static / neurobench.metrics.workload.
_NB_STATIC_CLASSES = ("Footprint", "ParameterCount", "ConnectionSparsity")
_NB_WORKLOAD_CLASSES = (
    "ClassificationAccuracy", "MSE", "SMAPE", "R2", "ActivationSparsity",
    "ActivationSparsityByLayer", "SynapticOperations", "MembraneUpdates", "NeuronOperations",
    "CocoMap",
)

# NeuroBench 1.x names that have no metric of the same meaning here.
_REMOVED_NAMES = {
    "numberneuronupdates": "NeuroBench 1.x's number_neuron_updates has no counterpart in "
                           "NeuroBench 2.x or here (NeuronOperations and MembraneUpdates count "
                           "differently)",
}

# Attributes a class body always has; defining anything else changes a metric's behaviour.
_CLASS_BOOKKEEPING = frozenset(
    ("__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__abstractmethods__",
     "_abc_impl", "__annotations__", "__orig_bases__", "__parameters__"))


def _canonical(name):
    """The registry's lookup key: case and underscores ignored."""
    return name.replace("_", "").lower()


def _neurobench_options(name):
    """The C++ options that make metric `name` compute what NeuroBench's metric of that name
    computes: ActivationSparsityByLayer keyed by each layer's attribute name, layers sharing a
    name merged, as NeuroBench's hooks name them (the C++ default is the dotted path)."""
    return {"keys": "name"} if name == "ActivationSparsityByLayer" else {}


def _cpp_by_key():
    """Lookup key -> (family, name) of the harness's metrics (its registry, _registry.py)."""
    out = {_canonical(n): ("static", n) for n in _registry.metrics("static")}
    out.update({_canonical(n): ("workload", n) for n in _registry.metrics("workload")})
    return out


def _is_neurobench_module(module, *packages):
    """Whether `module` (a __module__ string) is in one of NeuroBench's `packages`."""
    module = module or ""
    return any(module == p or module.startswith(p + ".") for p in packages)


def _neurobench_base(cls, packages, names):
    """The first class in cls's MRO that is one of NeuroBench's classes `names` defined in
    `packages`, or None. Recognised by module and name: NeuroBench is never imported here."""
    for base in getattr(cls, "__mro__", ()):
        if base.__name__ in names and _is_neurobench_module(base.__module__, *packages):
            return base
    return None


def _overrides_between(cls, base):
    """Names that the classes from cls down to (not including) `base` define themselves."""
    names = []
    for klass in cls.__mro__:
        if klass is base:
            break
        names += [k for k in vars(klass) if k not in _CLASS_BOOKKEEPING]
    return names


def _accepted_text(family):
    nb = _NB_STATIC_CLASSES if family == "static" else _NB_WORKLOAD_CLASSES
    ours = _registry.metrics(family)
    return (f"NeuroBench's {family} metric classes ({', '.join(nb)}), their names as strings "
            f"(2.x or 1.x spelling, e.g. 'classification_accuracy'), neurobench-cpp's {family} "
            f"metrics by name ({', '.join(ours)}), a CppMetric, or a subclass of NeuroBench's "
            f"{'StaticMetric' if family == 'static' else 'WorkloadMetric or AccumulatedMetric'}")


def _describe(item):
    if isinstance(item, type):
        return f"class {item.__module__}.{item.__qualname__}"
    return f"{type(item).__name__} {item!r}"[:200]


def _from_name(name, family, position):
    key = _canonical(name)
    if key in _REMOVED_NAMES:
        raise ValueError(f"{family} metric {position} '{name}': {_REMOVED_NAMES[key]}")
    found = _cpp_by_key().get(key)
    if found is None:
        raise ValueError(f"{family} metric {position}: unknown metric name '{name}'; accepted: "
                         f"{_accepted_text(family)}")
    if found[0] != family:
        raise ValueError(f"{family} metric {position} '{name}' is a {found[0]} metric: put it in "
                         f"the {'first' if found[0] == 'static' else 'second'} list of "
                         f"metric_list")
    from_neurobench = any(_canonical(n) == key for n in _NB_STATIC_CLASSES + _NB_WORKLOAD_CLASSES)
    if from_neurobench:
        _print_deprecation(name)
    return CppMetric(found[1], _neurobench_options(found[1]), name, from_neurobench)


def _from_cpp_metric(metric, family, position):
    found = _cpp_by_key().get(_canonical(metric.name))
    if found is None or found[0] != family:
        names = _registry.metrics(family)
        raise ValueError(f"{family} metric {position}: {metric!r} names no {family} metric of "
                         f"neurobench-cpp; accepted: {', '.join(names)}")
    if not isinstance(metric.options, dict):
        raise TypeError(f"{family} metric {position}: {metric!r}: options must be a dict")
    return CppMetric(found[1], dict(metric.options), metric.result_key or metric.name)


def _python_kind(cls):
    """'static', 'workload' or 'accumulated' for a subclass of NeuroBench's abstract metric
    classes (2.x: neurobench.metrics.abstract), else None."""
    abstract = ("neurobench.metrics.abstract",)
    if _neurobench_base(cls, abstract, ("AccumulatedMetric",)) is not None:
        return "accumulated"
    if _neurobench_base(cls, abstract, ("WorkloadMetric",)) is not None:
        return "workload"
    if _neurobench_base(cls, abstract, ("StaticMetric",)) is not None:
        return "static"
    return None


def _from_class(cls, family, position):
    packages = ("neurobench.metrics.static",) if family == "static" else (
        "neurobench.metrics.workload",)
    names = _NB_STATIC_CLASSES if family == "static" else _NB_WORKLOAD_CLASSES
    builtin = _neurobench_base(cls, packages, names)
    if builtin is not None and not _overrides_between(cls, builtin):
        # NeuroBench's class, or a subclass that only renames it: the C++ metric, keyed as
        # NeuroBench keys it (the class's own name).
        cpp_name = _cpp_by_key()[_canonical(builtin.__name__)][1]
        return CppMetric(cpp_name, _neurobench_options(cpp_name), cls.__name__, True)
    other = _neurobench_base(cls, ("neurobench.metrics.static", "neurobench.metrics.workload"),
                             _NB_STATIC_CLASSES + _NB_WORKLOAD_CLASSES)
    if builtin is None and other is not None:
        other_family = "static" if family == "workload" else "workload"
        raise TypeError(f"{family} metric {position}: {cls.__name__} is NeuroBench's "
                        f"{other_family} metric {other.__name__}: put it in the other list of "
                        f"metric_list")
    kind = _python_kind(cls)
    if kind is None:
        raise TypeError(f"{family} metric {position}: {_describe(cls)} is not accepted; "
                        f"accepted: {_accepted_text(family)}")
    if (family == "static") != (kind == "static"):
        raise TypeError(f"{family} metric {position}: custom metric '{cls.__name__}' must inherit "
                        f"from {'StaticMetric' if family == 'static' else 'WorkloadMetric'} "
                        f"(it is a {kind} metric: put it in the "
                        f"{'first' if kind == 'static' else 'second'} list)")
    try:
        obj = cls()
    except Exception as e:  # the user's constructor: name it
        raise TypeError(f"{family} metric {position}: constructing '{cls.__name__}' raised "
                        f"{type(e).__name__}: {e}") from e
    return PythonMetric(obj, kind, cls.__name__, bool(getattr(obj, "requires_hooks", False)))


def _translate_one(item, family, position):
    if isinstance(item, str):
        return _from_name(item, family, position)
    if isinstance(item, CppMetric):
        return _from_cpp_metric(item, family, position)
    if isinstance(item, type):
        return _from_class(item, family, position)
    hint = ""
    if _python_kind(type(item)) is not None or _neurobench_base(
            type(item), ("neurobench.metrics",), _NB_STATIC_CLASSES + _NB_WORKLOAD_CLASSES):
        hint = (f" (an instance: pass the class {type(item).__name__} itself, as NeuroBench "
                f"takes it)")
    raise TypeError(f"{family} metric {position}: {_describe(item)} is not accepted{hint}; "
                    f"accepted: {_accepted_text(family)}")


def _translate_family(items, family):
    if items is None:
        return []
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"metric_list's {family} entry must be a list of metrics, got "
                        f"{_describe(items)}")
    # NeuroBench's managers keep a dict keyed by result key: a repeated key keeps its first
    # position and its last metric.
    by_key = {}
    for position, item in enumerate(items):
        where = f"#{position} of metric_list[{0 if family == 'static' else 1}]"
        metric = _translate_one(item, family, where)
        by_key[metric.result_key] = metric
    return list(by_key.values())


# NeuroBench 2.3's workload metrics that set requires_hooks: its manager asks each metric in
# turn, until one says True.
_NB_HOOK_METRICS = ("ActivationSparsity", "SynapticOperations", "MembraneUpdates",
                    "NeuronOperations")


def _check_requires_hooks(workload):
    """NeuroBench's WorkloadMetricManager reads `requires_hooks` of its metrics in order until
    one is True; its ActivationSparsityByLayer never sets the attribute, so reaching it raises
    AttributeError when the Benchmark is built: raised here the same, so that a script behaves
    as under NeuroBench (docs/python.md)."""
    for m in workload:
        if isinstance(m, PythonMetric):
            if m.requires_hooks:
                return
            continue
        if m.neurobench and m.name in _NB_HOOK_METRICS:
            return
        if m.neurobench and m.name == "ActivationSparsityByLayer":
            error = AttributeError("'ActivationSparsityByLayer' object has no attribute "
                                   "'_requires_hooks'")
            if hasattr(error, "add_note"):
                error.add_note(
                    "neurobench_cpp: NeuroBench's ActivationSparsityByLayer does not call its "
                    "base class's __init__, so NeuroBench's Benchmark raises this when no metric "
                    "before it in the workload list needs hooks; put ActivationSparsity (or "
                    "another hook metric) before it, or use "
                    "CppMetric('ActivationSparsityByLayer', {'keys': 'name'})")
            raise error


def _print_deprecation(item):
    """NeuroBench's notice for a metric given by name (its managers print it)."""
    if item in ("sMAPE", "r2", "mse"):
        class_name = item.upper()
    else:
        class_name = "".join(word.title() for word in item.split("_"))
    print(f"[DEPRECATION WARNING]: Using string-based metric names ('{item}') is deprecated "
          "and will be removed in a future release. "
          "Please update your code to use the corresponding metric class directly instead. "
          f"For example, replace the string name with the class '{class_name}'.")


def translate_metrics(metric_list):
    """NeuroBench's `[[static...], [workload...]]` -> (static, workload): lists of CppMetric and
    PythonMetric, in NeuroBench's order, one per result key.

    Several entries may name the same C++ metric under different result keys
    (`[Footprint, "footprint"]`): the harness computes it once and reports it under each key.
    """
    if isinstance(metric_list, (str, bytes)) or not hasattr(metric_list, "__len__") or len(
            metric_list) != 2:
        raise TypeError("metric_list must be NeuroBench's [[static metrics], [workload metrics]], "
                        f"got {_describe(metric_list)}")
    static = _translate_family(metric_list[0], "static")
    workload = _translate_family(metric_list[1], "workload")
    _check_requires_hooks(workload)
    return static, workload
