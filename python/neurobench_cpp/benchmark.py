# SPDX-License-Identifier: Apache-2.0
"""neurobench_cpp.Benchmark: NeuroBench 2.3's Benchmark on the C++ harness (docs/python.md).

What the user gives is translated here (models by `_models.prepare_model`, metrics by
`_metrics.translate_metrics`, processors by `_processors.translate_processors`) into the plain
description `_core.run()` takes; the C++ side runs the loops without the GIL and calls back into
Python only for the user's own processors and metrics, and for the next batch of an iterable.
"""
import contextlib
import csv
import json
import os
import pathlib
import sys

from . import _cache, _reference, _registry
from ._metrics import PythonMetric, translate_metrics
from ._models import ModelError, _wrapper_kind, is_nir_graph, prepare_model
from ._processors import PythonProcessor, translate_processors
from ._stream import ManagedMetric, Stream


class DatasetKind:
    """One of neurobench-cpp's data set kinds, read in C++ (docs/datasets.md), in place of a
    DataLoader: `DatasetKind("speech-commands:PATH", batch_size=64, subset="testing")`, or
    `DatasetKind("speech-commands", "PATH", ...)`. Options are the kind's (`neurobench list`),
    as keywords or in `options` (a dict, for an option named like a parameter here:
    gen4-detection's `batch_size`, its slots)."""

    def __init__(self, kind, path=None, batch_size=64, options=None, **more):
        if path is None:
            if ":" not in kind:
                raise ValueError(f"DatasetKind: '{kind}' is not KIND:PATH and no path is given")
            kind, path = kind.split(":", 1)
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"DatasetKind: batch_size must be a positive integer, got "
                             f"{batch_size!r}")
        self.kind, self.path, self.batch_size = kind, os.fspath(path), batch_size
        self.options = {**dict(options or {}), **more}

    def __repr__(self):
        return f"DatasetKind({self.kind}:{self.path}, batch_size={self.batch_size})"


def _core_module():
    from . import CORE_IMPORT_ERROR, _core
    if _core is None:
        raise ImportError(f"neurobench_cpp's compiled core (neurobench_cpp._core) cannot be "
                          f"imported: {CORE_IMPORT_ERROR}; build it (cmake target "
                          f"neurobench_cpp_core) or pip install ./python") from CORE_IMPORT_ERROR
    return _core


# The keys of a run this module fills itself, from NeuroBench's arguments, the model and the
# data; run() takes every other key of the core's table (_registry.run_keys()) by name.
_FILLED_HERE = frozenset(("model", "data", "dataset", "batch_size", "stepwise", "static",
                          "workload", "metrics", "pre", "post", "activation_modules",
                          "connection_modules", "metrics_scope", "quiet", "verbose", "device",
                          "threads", "outputs"))


def _run_options(options):
    """run()'s keyword arguments beyond NeuroBench's: keys of the core's table of a run."""
    settable = sorted(k["key"] for k in _registry.run_keys()
                      if k["key"] and k["key"] not in _FILLED_HERE)
    for name in options:
        if name not in settable:
            raise TypeError(f"Benchmark.run() got an unexpected keyword argument {name!r}: "
                            f"besides NeuroBench's arguments it takes the harness's run keys "
                            f"{', '.join(settable)} (docs/cli.md, 'Every key of a run')")
    return dict(options)


def _describe(obj):
    name = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{name}"


class _CalledOncePerBatch:
    """A Python pre-processor that an export ran on the first batch: its result is kept and
    given back for the run's first call, so that the script's pre-processor runs once per
    batch, as under NeuroBench (a counter, a print or a random draw in it happens as often)."""

    def __init__(self, fn):
        self.fn = fn
        self._recording = False
        self._kept = None

    def record(self):
        """The next call is the export's: kept for the run's first call."""
        self._recording, self._kept = True, None

    def forget(self):
        self._recording, self._kept = False, None

    def __call__(self, batch):
        if self._recording:
            self._recording = False
            self._kept = (self.fn(batch),)
            return self._kept[0]
        if self._kept is not None:
            kept, self._kept = self._kept, None
            return kept[0]
        return self.fn(batch)


def _processor_entries(items, stage):
    """The chain as the run describes it: ("cpp", name, options) for the harness's processors,
    ("py", name, callable) for the script's own, named `python-I-DESCRIBE` (I its place) so
    that the config's chain and `_run` name it."""
    out = []
    for i, p in enumerate(translate_processors(items, stage)):
        if isinstance(p, PythonProcessor):
            fn = _CalledOncePerBatch(p.fn) if stage == "pre" else p.fn
            out.append(("py", f"python-{i}-{p.describe or _describe(p.fn)}", fn))
        else:
            out.append(("cpp", p.name, dict(p.options)))
    return out


def _chain_config(entries):
    """The config's `pre` or `post`: every processor by name, the harness's with options."""
    return [{"name": name, "options": value} if kind == "cpp" else {"name": name}
            for kind, name, value in entries]


def _chain_parts(entries):
    """The script's own processors of a chain, (name, callable), for run()'s parts."""
    return [(name, fn) for kind, name, fn in entries if kind == "py"]


def _python_pre(entries):
    """The kept-result wrappers of the Python pre-processors of `entries`."""
    return [fn for kind, _, fn in entries if kind == "py" and isinstance(fn, _CalledOncePerBatch)]


def _net_state(net):
    """What the exported copy of `net` was made from: its modules (by name and identity), a
    copy of each parameter, and its buffers' names (their values, the network's state, are
    given to each run as they are then)."""
    modules, tensors, buffers = _net_state_views(net)
    return modules, {k: v.clone() for k, v in tensors.items()}, buffers


def _same_net_state(snapshot, net):
    """Whether `net` still has the modules, the parameter values and the buffers of
    `snapshot`."""
    import torch
    if net is None:
        return False
    modules, tensors, buffers = _net_state_views(net)
    if modules != snapshot[0] or tensors.keys() != snapshot[1].keys() or buffers != snapshot[2]:
        return False
    return all(t.dtype == snapshot[1][k].dtype and t.shape == snapshot[1][k].shape
               and torch.equal(t, snapshot[1][k]) for k, t in tensors.items())


def _net_state_views(net):
    modules = [(name, id(m)) for name, m in net.named_modules()]
    tensors = {f"p:{k}": v.detach() for k, v in net.named_parameters()}
    buffers = [name for name, _ in net.named_buffers()]
    return modules, tensors, buffers


def _buffers_of(net):
    """The network's buffers now, (name, tensor) on the CPU: the state NeuroBench's run starts
    from (a spiking neuron's membrane after the last run, a recurrent network's state)."""
    return [(name, b.detach().to("cpu")) for name, b in net.named_buffers()]


def _write_back(net, buffers):
    """Puts the state the C++ run left (`buffers`, (name, tensor) pairs) into the eager network,
    as NeuroBench's run leaves its own network: a later Footprint sees a membrane of the last
    batch's shape, and a network that carries state between batches starts the next run from
    it. Only buffers that changed are replaced, each on its own device."""
    import torch
    own = dict(net.named_buffers())
    for name, value in buffers:
        old = own.get(name)
        if old is None or (old.shape == value.shape and old.dtype == value.dtype and
                           torch.equal(old.detach().cpu(), value)):
            continue
        owner = net
        *path, local = name.split(".")
        for part in path:
            owner = getattr(owner, part)
        owner._buffers[local] = value.to(old.device)


def _metrics_scope_of(model):
    """NeuroBench's static and hook metrics see `model.__net__()`: its dotted path in the
    network the model runs (`model.net`), for the harness's metrics scope; "" when it is that
    network (or the model has no eager wrapper)."""
    net = getattr(model, "net", None)
    get = getattr(type(model), "__net__", None)
    if net is None or get is None:
        return ""
    seen = model.__net__()
    if seen is net:
        return ""
    for path, module in net.named_modules():
        if module is seen:
            return path
    raise ModelError(
        f"{type(model).__name__}.__net__() returns {type(seen).__name__}, which is not a "
        f"submodule of the network the model runs ({type(net).__name__}): NeuroBench's metrics "
        f"would measure a module the benchmark never runs, and the C++ harness measures only "
        f"the network it runs or one of its submodules")


class Benchmark:
    """NeuroBench 2.3's Benchmark, run by neurobench-cpp's C++ harness.

    Args:
        model: NeuroBench's TorchModel(net) or SNNTorchModel(net, custom_forward=...), ours
            (neurobench_cpp.TorchModel, SNNTorchModel), a torch.jit.ScriptModule or the path of
            a TorchScript file. Eager networks are exported to TorchScript (checked against the
            eager network) on the first batch of the first run.
        dataloader: a torch DataLoader, any iterable of (data, targets) or
            (data, targets, kwargs) batches, or a DatasetKind.
        preprocessors, postprocessors: lists of NeuroBench's processors or callables.
        metric_list: [[static metrics], [workload metrics]]: NeuroBench's classes, their names,
            the project's metric names, or the user's own metric classes (run in Python).
        cache_dir (keyword, not NeuroBench's): the folder exported networks are kept in between
            processes (docs/python.md, "The export cache"); None: the default folder; False:
            no cache.
    """

    def __init__(self, model, dataloader, preprocessors, postprocessors, metric_list, *,
                 cache_dir=None):
        self.model = model
        # Where exported networks are kept between processes (_cache.py; None: the default
        # folder, False: no cache).
        self._cache = _cache.folder(cache_dir)
        self.dataloader = dataloader
        self._pre_items = list(preprocessors or [])
        self._post_items = list(postprocessors or [])
        self._pre = _processor_entries(self._pre_items, "pre")
        self._post = _processor_entries(self._post_items, "post")
        self._static, self._workload = translate_metrics(metric_list)
        for m in self._workload:
            if isinstance(m, PythonMetric) and m.requires_hooks:
                raise TypeError(
                    f"workload metric {m.result_key}: requires_hooks is True: it reads the "
                    f"activations NeuroBench's hooks record on the eager network in Python, "
                    f"and neurobench_cpp runs the network in C++; use the C++ metrics "
                    f"(ActivationSparsity, SynapticOperations, ...) or write it in C++ "
                    f"(docs/writing-a-metric.md)")
        self._prepared = None
        self._net_snapshot = None  # the eager network's modules and tensors when exported
        # NeuroBench's SynapticOperations drops a layer it fails on for good: kept across runs.
        self._synaptic_replay = None
        self._loaded = None  # (key, PreparedModel, _core.LoadedModel) of the last run
        self.results = None
        self.last_run = None  # what the C++ harness returned for the last run (docs/python.md)

    # --- the run -------------------------------------------------------------------------------
    def _prepared_model(self, stream, kind_config):
        if self._prepared is not None and self._net_snapshot is not None and \
                not _same_net_state(self._net_snapshot, self._exported_net()):
            # The script changed the network between runs (FSCIL's prototypes written into
            # the readout): NeuroBench runs the network as it is now, so it is exported again.
            self._prepared = None
        for fn in _python_pre(self._pre):
            fn.forget()
        if self._prepared is None:
            example = None
            if not self._is_ready_script():
                for fn in _python_pre(self._pre):
                    fn.record()  # the run's first batch reuses what the export computed
            if stream is not None and not self._is_ready_script():
                if any(kind == "cpp" for kind, _, _ in self._pre):
                    # C++ pre-processors (NeuroBench's S2S and MFCC translated, ours by name)
                    # run in C++ on the example too, with the Python ones at their places.
                    example = _core_module().example_input(
                        json.dumps({"pre": _chain_config(self._pre)}),
                        {"pre": _chain_parts(self._pre)}, stream.first)
                else:
                    example = stream.first
                    for _, _, fn in self._pre:
                        example = fn(example)
                    example = example[0]
            elif kind_config is not None and not self._is_ready_script():
                example = _core_module().example_input(
                    json.dumps(kind_config), {"pre": _chain_parts(self._pre)})
            self._prepared = prepare_model(self.model, example, self._cache)
            net = self._exported_net()
            self._net_snapshot = _net_state(net) if net is not None else None
        return self._prepared

    def _exported_net(self):
        """The eager network the model wraps (exported for the harness), or None."""
        import torch
        net = getattr(self.model, "net", None)
        return net if isinstance(net, torch.nn.Module) and not isinstance(
            net, torch.jit.ScriptModule) else None

    def _is_ready_script(self):
        import torch
        return isinstance(self.model, (str, os.PathLike, torch.jit.ScriptModule)) or \
            is_nir_graph(self.model)

    def _python_workload(self, original, stream):
        """The user's workload metrics for the C++ side: (update, compute, reset, key). Over a
        Python iterable, NeuroBench's manager is followed in Python (ManagedMetric); over a data
        set kind, a plain metric's values are weighted in C++."""
        out = []
        for m in self._workload:
            if not isinstance(m, PythonMetric):
                continue
            accumulated = m.kind == "accumulated"
            if stream is not None:
                managed = ManagedMetric(m.obj, accumulated, m.result_key, original,
                                        stream.dataset_len)
                out.append((managed.update, managed.compute, managed.reset, m.result_key))
                continue
            obj = m.obj

            def update(preds, data, obj=obj):
                return obj(original, preds, data)

            if accumulated:
                out.append((update, obj.compute, obj.reset, m.result_key))
            else:
                out.append((update, None, None, m.result_key))
        return out

    def _cpp_workload(self):
        """The C++ workload metrics as the config's specs, with what NeuroBench's own code does
        where it fails (_reference.py): its SynapticOperations counted per layer on a network
        where its count can fail part-way."""
        net = self._exported_net()
        per_layer = False
        if net is not None:
            risky, copies = _reference.synaptic_failures(net)
            per_layer = risky
            if self._synaptic_replay is None or self._synaptic_replay.copy_failures != copies:
                self._synaptic_replay = _reference.SynapticOperationsReplay(copies)
        out = []
        for m in self._workload:
            if isinstance(m, PythonMetric):
                continue
            options = dict(m.options)
            if per_layer and m.neurobench and m.name == "SynapticOperations":
                options["per_layer"] = True
            out.append({"name": m.name, "options": options})
        return out

    def _description(self, data, quiet, verbose, device, options):
        """The run as the harness takes it: the config (BenchmarkConfig's documented keys, as
        `neurobench run` reads them) and the parts only Python has; with the prepared model and
        the Python iterable read (None for a data set kind)."""
        import torch
        stream, kind_config = None, None
        if isinstance(data, DatasetKind):
            kind_config = {"dataset": {**data.options, "kind": data.kind, "path": data.path},
                           "batch_size": data.batch_size, "pre": _chain_config(self._pre),
                           "quiet": bool(quiet)}
        else:
            stream = Stream(data, quiet)
        try:
            prepared = self._prepared_model(stream, kind_config)
        except BaseException:
            if stream is not None:
                stream.close()
            raise
        config = {
            "model": prepared.path,
            "stepwise": bool(prepared.stepwise),
            "static": [{"name": m.name, "options": m.options} for m in self._static
                       if not isinstance(m, PythonMetric)],
            "workload": self._cpp_workload(),
            "pre": _chain_config(self._pre),
            "post": _chain_config(self._post),
            # NeuroBench's tqdm bar stands for the C++ one over a Python iterable
            "quiet": bool(quiet) or stream is not None,
            "verbose": bool(verbose),
            "device": "cpu" if device is None else str(device),
            "threads": torch.get_num_threads(),  # the script's own setting, left as it is
        }
        config.update(options)  # the harness's own run keys the script gave run()
        if prepared.activation_modules is not None:
            config["activation_modules"] = list(prepared.activation_modules)
        scope = _metrics_scope_of(self.model)
        if scope:
            config["metrics_scope"] = scope
        # The model loaded once and kept for the next runs (compiled, instrumented, warm).
        nir = {k: config[k] for k in ("nir_time", "nir_dt", "nir_reset") if k in config}
        key = (id(prepared), config["device"], json.dumps(nir, sort_keys=True))
        if self._loaded is None or self._loaded[0] != key or self._loaded[1] is not prepared:
            self._loaded = (key, prepared, _core_module().load_model(
                prepared.path, bool(prepared.stepwise),
                json.dumps(nir) if prepared.kind == "nir" else ""))
        parts = {"loaded": self._loaded[2], "pre": _chain_parts(self._pre),
                 "post": _chain_parts(self._post),
                 "metrics": self._python_workload(prepared.original, stream)}
        net = self._exported_net()
        if net is not None:
            parts["buffers"] = _buffers_of(net)
        if stream is None:
            config.update(dataset=kind_config["dataset"], batch_size=kind_config["batch_size"])
        else:
            kinds = dict(_core_module().metric_names())
            timing = any(kinds.get(m["name"]) == "timing" for m in config["workload"])
            config["batch_size"] = stream.batch_size
            parts.update(batches=stream.iterator, num_batches=stream.num_batches,
                         dataset_len=stream.dataset_len, data_name=stream.name,
                         keep_batches=timing)
        return config, parts, prepared, stream

    def run(self, quiet=False, verbose=False, dataloader=None, preprocessors=None,
            postprocessors=None, device=None, **options):
        """Runs the benchmark (NeuroBench's Benchmark.run, same arguments) and returns the
        results dict: each metric's value under NeuroBench's key, static metrics first.
        `preprocessors` / `postprocessors` replace the lists for this run and the next, as in
        NeuroBench. With `quiet`, nothing is printed (NeuroBench redirects stdout too).

        `options`: the harness's own keys of a run, by config key (docs/cli.md, "Every key of
        a run"), for those this module does not fill itself: `warmup=10`, `runs=100`,
        `strict=True`, `tf32=True`, `profile=True`, ... Checked by the core as a config's are
        (a ValueError naming the key); an unknown name is a TypeError listing them."""
        core = _core_module()
        options = _run_options(options)
        with contextlib.redirect_stdout(None if quiet else sys.stdout):
            print("Running benchmark")
            return self._run(core, quiet, verbose, dataloader, preprocessors, postprocessors,
                             device, options)

    def _run(self, core, quiet, verbose, dataloader, preprocessors, postprocessors, device,
             options):
        self.results = None
        if preprocessors is not None:
            self._pre_items = list(preprocessors)
            self._pre = _processor_entries(self._pre_items, "pre")
        if postprocessors is not None:
            self._post_items = list(postprocessors)
            self._post = _processor_entries(self._post_items, "post")
        data = dataloader if dataloader is not None else self.dataloader
        if data is None:
            raise ValueError("no data: give a DataLoader (or any iterable of batches, or a "
                             "DatasetKind) to Benchmark(...) or to run(dataloader=...)")
        config, parts, prepared, stream = self._description(data, quiet, verbose, device,
                                                            options)
        try:
            results = {}
            for m in self._static:  # the user's static metrics, in Python on the model given
                if isinstance(m, PythonMetric):
                    try:
                        results[m.result_key] = m.obj(prepared.original)
                    except Exception as e:  # as NeuroBench: reported, the others still run
                        print(f"Error running metric '{m.result_key}': {e}")
                        results[m.result_key] = None
            try:
                out = core.run(json.dumps(config), parts)
            except (core.Error, core.InputError, core.UsageError) as e:
                # The harness names the model by its file; a network exported here is the
                # script's own network, not a temporary file.
                if prepared.path and prepared.path in str(e):
                    raise type(e)(str(e).replace(prepared.path, prepared.describe)) from None
                raise
            if stream is not None:
                stream.finish()
        finally:
            if stream is not None:
                stream.close()
        self.last_run = out
        net = self._exported_net()
        if net is not None:
            _write_back(net, out["buffers"])
        self.results = self._assemble(out, results, prepared)
        return self.results

    def _assemble(self, out, results, prepared):
        """The results dict in NeuroBench's order and keys, with its outcome where its own code
        fails (_reference.py), and its messages printed."""
        values = out["values"]
        names = iter(out["names"])
        failed = dict(out["failures"])
        neuron_failure = _reference.neuron_operations_failure(self.model) \
            if self._exported_net() is not None else None
        ordered = {}
        for m in self._static + self._workload:
            if isinstance(m, PythonMetric):
                key = m.result_key
                ordered[key] = results[key] if m.kind == "static" else values.get(key)
                if m.kind != "static" and key in failed:
                    print(f"Error running workload metric '{key}': {failed[key]}")
                    ordered[key] = 0.0
                continue
            registered = next(names)
            key, value = m.result_key or m.name, values.get(registered)
            static = m in self._static
            if m.neurobench and m.name == "NeuronOperations" and neuron_failure is not None:
                for _ in range(out["batches"]):
                    print(f"Error running workload metric '{key}': {neuron_failure}")
                value = 0.0
            elif registered in failed:
                kind = "metric" if static else "workload metric"
                print(f"Error running {kind} '{key}': {failed[registered]}")
                value = None if static else 0.0
            elif isinstance(value, dict) and "batches" in value and \
                    m.name == "SynapticOperations":
                value, messages = self._synaptic_replay.value(value)
                for message in messages:
                    print(f"Error running workload metric '{key}': {message}")
            ordered[key] = value
        for w in out["warnings"]:
            if prepared.path:
                w = w.replace(prepared.path, prepared.describe)
            print(f"neurobench_cpp: warning: {w}", file=sys.stderr)
        return ordered

    # --- exports of the network, as NeuroBench's Benchmark ---------------------------------------
    def _eager_net(self, method):
        """The network NeuroBench's to_onnx / to_nir export, `model.__net__()`, and the
        wrapper's kind; TypeError for a model given as TorchScript, which has none."""
        found = _wrapper_kind(self.model)
        if found is None:
            what = (f"the TorchScript file '{os.fspath(self.model)}'"
                    if isinstance(self.model, (str, os.PathLike)) else
                    f"a {type(self.model).__module__}.{type(self.model).__qualname__}")
            raise TypeError(
                f"Benchmark.{method}: the model is {what}, not a TorchModel or SNNTorchModel: "
                f"NeuroBench's {method} exports the eager network such a wrapper holds "
                f"(model.__net__()), and a model given as TorchScript has none here; pass "
                f"TorchModel(net) or SNNTorchModel(net) to Benchmark, or export the eager "
                f"network yourself")
        return found[0], self.model.__net__()

    def to_onnx(self, dummy_input, filename, **kwargs):
        """NeuroBench's Benchmark.to_onnx: exports the wrapper's eager network with
        `torch.onnx.export(net, dummy_input, filename, **kwargs)`, as NeuroBench does it (its
        parameters and buffers set to requires_grad=False, an SNNTorchModel's neurons reset,
        the network put in eval mode, no grad). TypeError for a model given as TorchScript."""
        import torch
        wrapper, net = self._eager_net("to_onnx")
        if dummy_input.requires_grad:
            dummy_input = dummy_input.detach()
        for param in net.parameters():
            param.requires_grad = False
        if wrapper == "SNNTorchModel":
            from snntorch import utils as snntorch_utils
            snntorch_utils.reset(net)
        for buffer in net.buffers():
            buffer.requires_grad = False
        with torch.no_grad():
            net.eval()
            torch.onnx.export(net, dummy_input, filename, **kwargs)
        print(f"Model exported to {filename}")

    def to_nir(self, dummy_input, filename, **kwargs):
        """NeuroBench's Benchmark.to_nir: exports the wrapper's eager network to NIR with
        snnTorch's `export_to_nir(net, dummy_input, **kwargs)` and `nir.write(filename, ...)`.
        ImportError (NeuroBench's message) without the `nir` package, ValueError with snnTorch
        older than 0.9.0, TypeError for a model given as TorchScript."""
        _, net = self._eager_net("to_nir")
        try:
            import nir
        except ImportError:
            raise ImportError("Exporting to NIR requires the `nir` package. Install it using "
                              "`pip install nir`.") from None
        import snntorch
        if snntorch.__version__ < "0.9.0":
            raise ValueError("Exporting to NIR requires snntorch version >= 0.9.0")
        from snntorch.export_nir import export_to_nir
        nir.write(filename, export_to_nir(net, dummy_input, **kwargs))
        print(f"Model exported to {filename}")

    # --- results files -------------------------------------------------------------------------
    def save_benchmark_results(self, file_path, file_format="json"):
        """Saves the last results as NeuroBench does: `file_path` without the extension,
        `file_format` "json" (indented by 4), "csv" (keys, then values) or "txt" (`key: value`
        lines). Raises ValueError for another format."""
        file_format = file_format.lower()
        if file_format not in ("json", "csv", "txt"):
            raise ValueError(f"Unsupported file format: {file_format}")
        pathlib.Path(os.path.dirname(file_path)).mkdir(parents=True, exist_ok=True)
        target = f"{file_path}.{file_format}"
        if file_format == "json":
            with open(target, "w") as f:
                json.dump(self.results, f, indent=4)
        elif file_format == "csv":
            with open(target, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerow(self.results.keys())
                writer.writerow(self.results.values())
        else:
            with open(target, "w") as f:
                for key, value in self.results.items():
                    f.write(f"{key}: {value}\n")
        print(f"Results saved to {target}")
