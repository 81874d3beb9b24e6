#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""neurobench_cpp.Benchmark driven as NeuroBench's Benchmark is, against Python NeuroBench 2.3.

  /usr/bin/python3 tests/neurobench_cpp/check_reference.py --core-dir BUILD/python/neurobench_cpp
      [--group cases|snntorch|api] [NAME ...]

- cases: the shared conformance cases (../shared/conformance/cases: a TorchScript model, its
  data and NeuroBench's results) with the metrics by name as NeuroBench 1.x/2.x scripts give
  them, fed as a torch DataLoader, a list of batches, a generator of (data, targets, kwargs)
  batches; one of them also with a Python post-processor in place of ChooseMaxCount and
  Python metrics (a NeuroBench WorkloadMetric, AccumulatedMetric and StaticMetric subclass)
  beside the C++ ones.
- snntorch: the six public snnTorch cases (../shared/conformance/snntorch) as NeuroBench's users
  write them: the eager network in NeuroBench's own SNNTorchModel or TorchModel, NeuroBench's
  metric and post-processor classes, a torch DataLoader.
  With --device cuda they run on the GPU (scripts/gpu-check), and must still give NeuroBench's
  numbers (the cases whose models make state on the CPU left out).
- api: what the module promises beyond the numbers: batches cross without a copy, the GIL is
  released while C++ runs, the user's exceptions come back as themselves, bad batches are
  exceptions naming the batch, save_benchmark_results writes what NeuroBench writes.
Integers must match exactly, floats to 1e-6 relative. Exits 77 (skipped) without torch, the
compiled core or the reference packages in ../shared/third_party (NEUROBENCH_THIRD_PARTY).
"""
import argparse
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77


sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402
THIRD_PARTY = None  # the reference packages' folder, set by setup()


def conformance_dir():
    return os.path.join(os.path.dirname(THIRD_PARTY), "conformance")


def setup(core_dir):
    global THIRD_PARTY
    THIRD_PARTY = reference_results.third_party(ROOT, packages=("neurobench",))
    reference_results.require(["numpy", "torch", "tqdm"], "python3-torch, -numpy, -tqdm")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ["NEUROBENCH_CPP_CORE_DIR"] = os.path.abspath(core_dir)
    import neurobench_cpp
    if neurobench_cpp.CORE_IMPORT_ERROR is not None:
        print(f"skipped: no compiled core: {neurobench_cpp.CORE_IMPORT_ERROR}")
        sys.exit(SKIP)
    reference_results.torch_var_shim()


def close(expected, got):
    if isinstance(expected, bool) or isinstance(got, bool):
        return expected == got
    if isinstance(expected, int) and isinstance(got, int):
        return expected == got
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        if isinstance(expected, float) and math.isnan(expected):
            return math.isnan(got)
        return abs(expected - got) <= 1e-6 * abs(expected) or expected == got
    return expected == got


def compare(expected, got, prefix=""):
    bad = []
    if set(expected) != set(got):
        bad.append(f"{prefix}keys: expected {sorted(expected)}, got {sorted(got)}")
    for k, v in expected.items():
        if k not in got:
            continue
        g = got[k]
        if isinstance(v, dict):
            if not isinstance(g, dict):
                bad.append(f"{prefix}{k}: expected an object, got {g!r}")
                continue
            bad += compare(v, g, prefix + k + ".")
        elif not close(v, g):
            bad.append(f"{prefix}{k}: expected {v!r}, got {g!r}")
    return bad


# --- the conformance cases --------------------------------------------------------------------

def load_case(folder):
    import numpy as np
    import torch
    case = json.load(open(os.path.join(folder, "case.json")))
    expected = json.load(open(os.path.join(folder, "expected.json")))
    z = np.load(os.path.join(folder, "data.npz"))
    return case, expected, torch.from_numpy(z["data"]), torch.from_numpy(z["targets"])


def snake(name):
    out = ""
    for i, c in enumerate(name):
        out += ("_" if c.isupper() and i and not name[i - 1].isupper() else "") + c.lower()
    return out


def feed(form, data, targets, batch_size):
    """The batches in one of the forms NeuroBench's users give them."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    if form == "dataloader":
        return DataLoader(TensorDataset(data, targets), batch_size=batch_size, shuffle=False)
    chunks = [(data[i:i + batch_size], targets[i:i + batch_size])
              for i in range(0, len(data), batch_size)]
    if form == "list":
        return [list(c) for c in chunks]
    return ((d, t, {"index": torch.arange(len(d))}) for d, t in chunks)  # a generator


DEVICE = None  # run(device=...) of the cases and the snnTorch cases (--device)

# Conformance cases whose models make their state on the CPU in forward (torch.ones([b, 5]), as
# their authors wrote them): NeuroBench fails on them with device="cuda" too.
NOT_ON_DEVICE = ("tm_synops_rnn", "tm_synops_gru", "tm_synops_lstm")


def run_case(name, form, names_as):
    from neurobench_cpp import Benchmark, SNNTorchModel
    import torch
    folder = os.path.join(conformance_dir(), "cases", name)
    case, expected, data, targets = load_case(folder)
    script = torch.jit.load(os.path.join(folder, "model.pt"))
    model = SNNTorchModel(script) if case["stepwise"] else script
    static = [names_as(n) for n in case["static"]]
    workload = [names_as(n) for n in case["workload"]]
    keyed = {names_as(n): v for n, v in expected.items()}
    bench = Benchmark(model, feed(form, data, targets, case["batch_size"]), [], case["post"],
                      [static, workload])
    got = bench.run(quiet=True, device=DEVICE)
    if list(got) != static + workload:
        return [f"order: expected {static + workload}, got {list(got)}"]
    return compare(keyed, got)


def python_extras_case():
    """rx_snn_mlp_stepwise with a Python post-processor instead of ChooseMaxCount and Python
    metrics beside the C++ ones: the same numbers, and the Python ones equal to theirs."""
    from neurobench.metrics.abstract import AccumulatedMetric, StaticMetric, WorkloadMetric
    from neurobench.metrics.workload import ClassificationAccuracy
    from neurobench_cpp import Benchmark, SNNTorchModel
    import torch

    class PyAccuracy(WorkloadMetric):
        def __init__(self):
            super().__init__(requires_hooks=False)

        def __call__(self, model, preds, data):
            return (preds == data[1]).float().mean().item()

    class SampleCount(AccumulatedMetric):
        def __init__(self):
            super().__init__(requires_hooks=False)
            self.n = 0

        def reset(self):
            self.n = 0

        def __call__(self, model, preds, data):
            self.n += data[0].size(0)
            return self.compute()

        def compute(self):
            return self.n

    class NetName(StaticMetric):
        def __call__(self, model):
            return len(list(model.__net__().parameters()))

    folder = os.path.join(conformance_dir(), "cases", "rx_snn_mlp_stepwise")
    case, expected, data, targets = load_case(folder)
    model = SNNTorchModel(torch.jit.load(os.path.join(folder, "model.pt")))

    def choose_max_count(spikes):
        return spikes.sum(1).argmax(-1)

    bench = Benchmark(model, feed("dataloader", data, targets, case["batch_size"]), [],
                      [choose_max_count],
                      [case["static"] + [NetName],
                       [ClassificationAccuracy, PyAccuracy, SampleCount] + case["workload"][1:]])
    got = bench.run(quiet=True)
    bad = []
    for key in ("PyAccuracy", "SampleCount", "NetName"):
        if key not in got:
            bad.append(f"{key} missing")
    if bad:
        return bad
    if not close(expected["ClassificationAccuracy"], got.pop("PyAccuracy")):
        bad.append("PyAccuracy differs from ClassificationAccuracy")
    if got.pop("SampleCount") != len(data):
        bad.append("SampleCount is not the number of samples")
    if got.pop("NetName") != 6:
        bad.append("the static Python metric did not see the model's 6 parameter tensors")
    return bad + compare(expected, got)


def group_cases(only):
    names = sorted(os.listdir(os.path.join(conformance_dir(), "cases")))
    forms = ["dataloader", "list", "generator"]
    styles = [("class names", lambda n: n), ("snake_case names (NeuroBench 1.x)", snake)]
    results = []
    for i, name in enumerate(names):
        if only and name not in only:
            continue
        if DEVICE not in (None, "cpu") and name in NOT_ON_DEVICE:
            continue
        form = forms[i % len(forms)]
        style, names_as = styles[i % len(styles)]
        results.append((f"{name} ({form}, {style})", lambda n=name, f=form, s=names_as:
                        run_case(n, f, s)))
    if not only or "python_extras" in only:
        results.append(("rx_snn_mlp_stepwise with Python processor and metrics",
                        python_extras_case))
    return results


# --- the six snnTorch cases -------------------------------------------------------------------

def snntorch_case(name):
    import importlib.util
    import numpy as np
    import torch
    from neurobench.metrics import static as nb_static
    from neurobench.metrics import workload as nb_workload
    from neurobench.models import SNNTorchModel, TorchModel
    from neurobench.processors.postprocessors import ChooseMaxCount
    from torch.utils.data import DataLoader, TensorDataset
    from neurobench_cpp import Benchmark
    base = os.path.join(conformance_dir(), "snntorch")
    spec = importlib.util.spec_from_file_location("conformance_models",
                                                  os.path.join(base, "models.py"))
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    folder = os.path.join(base, "cases", name)
    case = json.load(open(os.path.join(folder, "case.json")))
    expected = json.load(open(os.path.join(folder, "expected.json")))
    z = np.load(os.path.join(folder, "data.npz"))
    net = models.build_net(name)
    if case["wrapper"] == "SNNTorchModel":
        model = SNNTorchModel(net, custom_forward=bool(case.get("custom_forward")))
    else:
        # As make_cases.py built the case for NeuroBench: snnTorch's neurons added to the
        # TorchModel's activation classes (ReLU and Sigmoid alone find no layer in this net).
        import snntorch
        model = TorchModel(net)
        model.add_activation_module(snntorch.SpikingNeuron)
    loader = DataLoader(TensorDataset(torch.from_numpy(z["data"]), torch.from_numpy(z["targets"])),
                        batch_size=case["batch_size"], shuffle=False)
    post = [ChooseMaxCount() if p == "ChooseMaxCount" else p for p in case["post"]]
    metrics = [[getattr(nb_static, n) for n in case["static"]],
               [getattr(nb_workload, n) for n in case["workload"]]]
    got = Benchmark(model, loader, [], post, metrics).run(quiet=True, device=DEVICE)
    return compare(expected, got)


def group_snntorch(only):
    base = os.path.join(conformance_dir(), "snntorch", "cases")
    if not os.path.isdir(base):
        return []
    return [(f"snnTorch {n}", lambda n=n: snntorch_case(n)) for n in sorted(os.listdir(base))
            if not only or n in only]


# --- the API's promises -----------------------------------------------------------------------

def api_checks():
    import torch
    from torch import nn
    import neurobench_cpp
    from neurobench_cpp import Benchmark

    def script(width=8):
        torch.manual_seed(0)
        return torch.jit.script(nn.Sequential(nn.Linear(width, width), nn.ReLU(),
                                              nn.Linear(width, 3)).eval())

    def zero_copy():
        data = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(3)]
        seen = []

        def record(batch):
            seen.append(batch[0].data_ptr())
            return batch

        from neurobench.metrics.abstract import WorkloadMetric

        class SameTuple(WorkloadMetric):  # 1 when it is given the iterable's own tensors
            def __init__(self):
                super().__init__(requires_hooks=False)

            def __call__(self, model, preds, batch):
                return float(any(batch[0] is d for d, _ in data))

        r = Benchmark(script(), data, [record], [lambda p: p.argmax(-1)],
                      [[], ["ClassificationAccuracy", SameTuple]]).run(quiet=True)
        bad = []
        if seen != [d.data_ptr() for d, _ in data]:
            bad.append("the pre-processor saw copies of the batches' data")
        if r["SameTuple"] != 1.0:
            bad.append("the Python metric did not get the iterable's own batch")
        return bad

    def gil_released():
        big = torch.jit.script(nn.Sequential(*[nn.Linear(512, 512) for _ in range(8)]).eval())
        data = [(torch.randn(64, 512), torch.zeros(64)) for _ in range(40)]
        count = [0]
        done = threading.Event()

        def spin():
            while not done.is_set():
                count[0] += 1

        bench = Benchmark(big, data, [], [], [[], ["SynapticOperations"]])
        t = threading.Thread(target=spin)
        t.start()
        start = time.perf_counter()
        bench.run(quiet=True)
        took = time.perf_counter() - start
        done.set()
        t.join()
        # With the GIL held through the run, the spinning thread gets the 5 ms switch interval
        # at most a few times; released, it counts all along.
        return [] if count[0] > 100000 * took else [f"the other thread counted {count[0]} in "
                                                     f"{took:.2f} s: the GIL was held"]

    def interrupted():
        import signal
        big = torch.jit.script(nn.Sequential(*[nn.Linear(256, 256) for _ in range(4)]).eval())
        data = [(torch.randn(64, 256), torch.zeros(64))] * 2000  # a few seconds, 64 kB
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        start = time.perf_counter()
        try:
            Benchmark(big, data, [], [], [[], ["SynapticOperations"]]).run(quiet=True)
            return ["ran to the end"]
        except KeyboardInterrupt:
            took = time.perf_counter() - start
            return [] if took < 20 else [f"stopped only after {took:.1f} s"]
        finally:
            timer.cancel()

    def live_neurobench():
        """A Python pre-processor that changes the targets too (NeuroBench's metrics get the
        batch as the loader gave it), a Python post-processor and a Python metric, on an eager
        network in NeuroBench's TorchModel: the same dict as NeuroBench's Benchmark, run here."""
        import copy
        from neurobench.benchmarks import Benchmark as NeuroBenchBenchmark
        from neurobench.metrics.abstract import WorkloadMetric
        from neurobench.metrics.static import ConnectionSparsity, Footprint, ParameterCount
        from neurobench.metrics.workload import (ActivationSparsity, ClassificationAccuracy,
                                                 SynapticOperations)
        from neurobench.models import TorchModel
        from torch.utils.data import DataLoader, TensorDataset

        class MeanTarget(WorkloadMetric):
            def __init__(self):
                super().__init__(requires_hooks=False)

            def __call__(self, model, preds, data):
                return data[1].float().mean().item()

        torch.manual_seed(1)
        net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                            nn.Linear(16, 3)).eval()
        x, y = torch.randn(22, 8), torch.randint(0, 3, (22,))
        x[x.abs() < 0.3] = 0  # some zero inputs and activations

        def scale(batch):
            return batch[0] * 2, batch[1] + 1

        def argmax(preds):
            return preds.argmax(-1)

        metrics = [[Footprint, ConnectionSparsity, ParameterCount],
                   [ClassificationAccuracy, ActivationSparsity, SynapticOperations, MeanTarget]]
        got = Benchmark(TorchModel(copy.deepcopy(net)), DataLoader(TensorDataset(x, y),
                                                                   batch_size=5),
                        [scale], [argmax], metrics).run(quiet=True)
        want = NeuroBenchBenchmark(TorchModel(copy.deepcopy(net)),
                                   DataLoader(TensorDataset(x, y), batch_size=5), [scale],
                                   [argmax], metrics).run(quiet=True)
        want = json.loads(json.dumps(want, default=float))
        return compare(want, got)

    def nested_layer_names():
        """ActivationSparsityByLayer on a nested network whose blocks share child names (a ReLU
        at index 1 of two Sequentials, one ReLU called twice): NeuroBench keys layers by their
        attribute name and merges a name's counts; the same dict as NeuroBench's, run here."""
        import copy
        from neurobench.benchmarks import Benchmark as NeuroBenchBenchmark
        from neurobench.metrics.workload import ActivationSparsity, ActivationSparsityByLayer
        from neurobench.models import TorchModel
        from torch.utils.data import DataLoader, TensorDataset

        class Nested(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 8))
                self.head = nn.Sequential(nn.Linear(8, 5), nn.ReLU())
                self.act = nn.ReLU()

            def forward(self, x):
                return self.head(self.act(self.features(x))) - self.act(x[:, :5])

        torch.manual_seed(2)
        net = Nested().eval()
        x, y = torch.randn(9, 6), torch.randint(0, 5, (9,))
        metrics = [[], [ActivationSparsity, ActivationSparsityByLayer]]
        got = Benchmark(TorchModel(copy.deepcopy(net)), DataLoader(TensorDataset(x, y),
                                                                   batch_size=4),
                        [], [], metrics).run(quiet=True)
        want = NeuroBenchBenchmark(TorchModel(copy.deepcopy(net)),
                                   DataLoader(TensorDataset(x, y), batch_size=4), [], [],
                                   metrics).run(quiet=True)
        want = json.loads(json.dumps(want, default=float))
        bad = compare(want, got)
        if sorted(want.get("ActivationSparsityByLayer", {})) != ["1", "act"]:
            bad.append(f"NeuroBench's keys are not the names: {want}")
        return bad

    def cpp_pre_with_eager_network():
        """A translated MFCC (a CppProcessor, no Python code) before an eager network: the
        network is exported on the first batch through the C++ chain; the results equal
        NeuroBench's with its MFCCPreProcessor, run here."""
        import copy
        from neurobench.benchmarks import Benchmark as NeuroBenchBenchmark
        from neurobench.metrics.static import Footprint
        from neurobench.metrics.workload import (ActivationSparsity, ClassificationAccuracy,
                                                 SynapticOperations)
        from neurobench.models import TorchModel
        from neurobench.processors.preprocessors import MFCCPreProcessor
        from torch.utils.data import DataLoader, TensorDataset
        from neurobench_cpp import CppProcessor
        from neurobench_cpp._processors import translate_processors

        mfcc = MFCCPreProcessor(sample_rate=8000, n_mfcc=13,
                                melkwargs={"n_fft": 256, "hop_length": 128, "n_mels": 20})
        translated = translate_processors([mfcc], "pre")[0]
        if not isinstance(translated, CppProcessor):
            return [f"NeuroBench's MFCC was not translated to C++: {translated}"]
        torch.manual_seed(3)
        net = nn.Sequential(nn.Flatten(), nn.Linear(169, 8), nn.ReLU(), nn.Linear(8, 3)).eval()
        x, y = torch.randn(6, 1600, 1), torch.randint(0, 3, (6,))

        def argmax(preds):
            return preds.argmax(-1)

        metrics = [[Footprint], [ClassificationAccuracy, ActivationSparsity, SynapticOperations]]
        got = Benchmark(TorchModel(copy.deepcopy(net)), DataLoader(TensorDataset(x, y),
                                                                   batch_size=4),
                        [CppProcessor(translated.name, translated.options)], [argmax],
                        metrics).run(quiet=True)
        want = NeuroBenchBenchmark(TorchModel(copy.deepcopy(net)),
                                   DataLoader(TensorDataset(x, y), batch_size=4), [mfcc],
                                   [argmax], metrics).run(quiet=True)
        return compare(json.loads(json.dumps(want, default=float)), got)

    def exports():
        """to_onnx writes NeuroBench's file; to_nir without the `nir` package raises
        NeuroBench's ImportError; a model given as TorchScript is a TypeError saying why."""
        import copy
        import importlib.util
        from neurobench.benchmarks import Benchmark as NeuroBenchBenchmark
        from neurobench.models import TorchModel
        torch.manual_seed(4)
        net = nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 3))
        dummy = torch.randn(1, 8)
        ours = Benchmark(TorchModel(copy.deepcopy(net)), None, [], [], [[], []])
        theirs = NeuroBenchBenchmark(TorchModel(copy.deepcopy(net)), None, [], [], [[], []])
        bad = []
        with tempfile.TemporaryDirectory() as d, contextlib.redirect_stdout(io.StringIO()):
            ours.to_onnx(dummy, os.path.join(d, "ours.onnx"))
            theirs.to_onnx(dummy, os.path.join(d, "theirs.onnx"))
            with open(os.path.join(d, "ours.onnx"), "rb") as a, \
                    open(os.path.join(d, "theirs.onnx"), "rb") as b:
                if a.read() != b.read():
                    bad.append("to_onnx wrote another file than NeuroBench's")
            if importlib.util.find_spec("nir") is None:
                messages = []
                for bench in (ours, theirs):
                    try:
                        bench.to_nir(dummy, os.path.join(d, "net.nir"))
                        messages.append("no ImportError")
                    except ImportError as e:
                        messages.append(str(e))
                if messages[0] != messages[1]:
                    bad.append(f"to_nir without nir: {messages[0]!r}, NeuroBench {messages[1]!r}")
        for method in ("to_onnx", "to_nir"):
            try:
                getattr(Benchmark(script(), None, [], [], [[], []]), method)(dummy, "x")
                bad.append(f"{method} of a ScriptModule: no exception")
            except TypeError as e:
                if method not in str(e) or "TorchScript" not in str(e):
                    bad.append(f"{method} of a ScriptModule: {e}")
        return bad

    def user_exception():
        class Boom(Exception):
            pass

        def post(p):
            raise Boom("post-processor says no")

        try:
            Benchmark(script(), [(torch.randn(2, 8), torch.zeros(2))], [], [post],
                      [[], ["ClassificationAccuracy"]]).run(quiet=True)
        except Boom as e:
            notes = " ".join(getattr(e, "__notes__", []))
            return [] if "post" in notes else [f"no note saying where: {notes!r}"]
        return ["the post-processor's exception did not come back"]

    def bad_batches():
        bad = []
        cases = [([{"data": torch.randn(2, 8)}], "batch 0"),
                 ([(torch.randn(2, 8), torch.zeros(2)), (torch.randn(2, 8),)], "batch 1"),
                 ([(torch.randn(2, 8).numpy(), torch.zeros(2))], "torch.Tensor")]
        for data, needle in cases:
            try:
                Benchmark(script(), data, [], [], [[], ["MSE"]]).run(quiet=True)
                bad.append(f"{needle}: no exception")
            except ValueError as e:
                if needle not in str(e):
                    bad.append(f"{needle} not in {e}")

        class Liar:  # says 3 batches, gives 2
            dataset = list(range(6))

            def __len__(self):
                return 3

            def __iter__(self):
                return iter([(torch.randn(2, 8), torch.zeros(2, 3))] * 2)

        try:
            Benchmark(script(), Liar(), [], [], [[], ["MSE"]]).run(quiet=True)
            bad.append("a short iterable: no exception")
        except neurobench_cpp._core.InputError as e:
            if "ended after 2 batches" not in str(e):
                bad.append(f"short iterable: {e}")
        return bad

    def save_results():
        data = [(torch.randn(4, 8), torch.randint(0, 3, (4,)))]
        bench = Benchmark(script(), data, [], [lambda p: p.argmax(-1)],
                          [["Footprint"], ["ClassificationAccuracy", "SynapticOperations"]])
        bad = [] if bench.last_run is None else [f"last_run before a run: {bench.last_run!r}"]
        results = bench.run(quiet=True)
        last = bench.last_run or {}  # what docs/python.md says it holds
        if last.get("values") != results or last.get("names") != list(results) or \
                last.get("samples") != 4 or last.get("batches") != 1 or last.get("failures"):
            bad.append(f"last_run: {last}")
        with tempfile.TemporaryDirectory() as d:
            base = os.path.join(d, "sub", "results")
            for fmt in ("json", "csv", "txt"):
                bench.save_benchmark_results(base, fmt)
            if json.load(open(base + ".json")) != results:
                bad.append("json differs")
            lines = open(base + ".csv").read().splitlines()
            if lines[0] != "Footprint,ClassificationAccuracy,SynapticOperations":
                bad.append(f"csv header {lines[0]}")
            txt = open(base + ".txt").read().splitlines()
            if txt[0] != f"Footprint: {results['Footprint']}":
                bad.append(f"txt {txt[0]}")
            try:
                bench.save_benchmark_results(base, "xml")
                bad.append("xml accepted")
            except ValueError:
                pass
        return bad

    def timing_metrics():
        data = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(3)]
        r = Benchmark(script(), data, [], [lambda p: p.argmax(-1)],
                      [[], ["ClassificationAccuracy", "Latency"]]).run(quiet=True)
        latency = r.get("Latency") or {}
        if latency.get("batch_size") != 4 or not latency.get("runs"):
            return [f"Latency on a list of batches: {latency}"]
        return []

    def run_keys():
        # run() takes the harness's own run keys from the core's table; a bad value is the
        # core's error naming the key; an unknown name lists them.
        data = [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(3)]
        bench = Benchmark(script(), data, [], [lambda p: p.argmax(-1)],
                          [[], ["ClassificationAccuracy", "Latency"]])
        bad = []
        r = bench.run(quiet=True, warmup=0, runs=3)
        if (r.get("Latency") or {}).get("runs") != 3:
            bad.append(f"runs=3 gave Latency {r.get('Latency')}")
        if bench.last_run["run"]["timing"].get("warmup") != 0:
            bad.append(f"warmup=0 not recorded: {bench.last_run['run'].get('timing')}")
        try:
            bench.run(quiet=True, runs=-1)
            bad.append("runs=-1 was taken")
        except ValueError as e:
            if "runs" not in str(e):
                bad.append(f"runs=-1: {e}")
        try:
            bench.run(quiet=True, wramup=3)
            bad.append("an unknown keyword was taken")
        except TypeError as e:
            if "'wramup'" not in str(e) or "warmup" not in str(e):
                bad.append(f"unknown keyword: {e}")
        keys = {k["key"] for k in neurobench_cpp._core.run_keys()}
        if not {"warmup", "batch_size", "outputs"} <= keys:
            bad.append(f"_core.run_keys(): {sorted(keys)}")
        return bad

    def dataset_kind():
        import numpy as np
        sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "wisdm"))
        from make_file import write_file
        torch.manual_seed(0)
        eager = nn.Sequential(nn.Flatten(), nn.Linear(240, 16), nn.ReLU(), nn.Linear(16, 7)).eval()
        net = torch.jit.script(eager)
        metrics = [["Footprint"], ["ClassificationAccuracy", "ActivationSparsity",
                                   "SynapticOperations"]]
        with tempfile.TemporaryDirectory() as d:
            path = write_file(d, seed=3, sizes=(4, 4, 10))
            z = np.load(path)
            x = torch.from_numpy(z["arr_2"]).float()
            y = torch.from_numpy(z["arr_5"]).argmax(-1)
            kind = neurobench_cpp.DatasetKind(f"wisdm:{d}", batch_size=4, subset="test")
            a = Benchmark(net, kind, [], [lambda p: p.argmax(-1)], metrics).run(quiet=True)
            # an eager network is exported on the kind's first batch, read in C++
            c = Benchmark(neurobench_cpp.TorchModel(eager), kind, [], [lambda p: p.argmax(-1)],
                          metrics).run(quiet=True)
        batches = [(x[i:i + 4], y[i:i + 4]) for i in range(0, 10, 4)]
        b = Benchmark(net, batches, [], [lambda p: p.argmax(-1)], metrics).run(quiet=True)
        return compare(b, a) + compare(b, c)

    return [("Python processors and metric against NeuroBench run here", live_neurobench),
            ("batches cross without a copy", zero_copy), ("the GIL is released", gil_released),
            ("per-layer keys of a nested network, as NeuroBench's", nested_layer_names),
            ("a C++ pre-processor by name before an eager network",
             cpp_pre_with_eager_network),
            ("to_onnx and to_nir as NeuroBench's", exports),
            ("timing metrics on a Python iterable", timing_metrics),
            ("run() takes the core's run keys", run_keys),
            ("a data set kind by name equals its batches given in Python", dataset_kind),
            ("a Python exception comes back as itself", user_exception),
            ("Ctrl-C stops a run between batches", interrupted),
            ("bad batches are exceptions naming them", bad_batches),
            ("save_benchmark_results", save_results)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--core-dir", required=True)
    ap.add_argument("--group", choices=["cases", "snntorch", "api", "all"], default="all")
    ap.add_argument("--device", help="run(device=...) of the cases and snnTorch cases (cuda)")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    global DEVICE
    DEVICE = a.device
    setup(a.core_dir)
    import torch
    torch.set_num_threads(1)
    checks = []
    if a.group in ("cases", "all"):
        checks += group_cases(a.names)
    if a.group in ("snntorch", "all"):
        checks += group_snntorch(a.names)
    if a.group in ("api", "all"):
        checks += api_checks()
    failed = 0
    for label, check in checks:
        try:
            bad = check()
        except Exception as e:  # noqa: BLE001 (reported as the check's failure)
            bad = [f"raised {type(e).__name__}: {e}"]
        print(("PASS " if not bad else "FAIL ") + label + ("" if not bad else ": " +
                                                          "; ".join(bad[:6])))
        failed += bool(bad)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
