#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One NeuroBench script, run with NeuroBench's Benchmark and with neurobench_cpp.Benchmark.

  /usr/bin/python3 benchmarks/python_api.py [--core-dir build/release/python/neurobench_cpp]
      [--repeats 3] [--scale 1.0] [--json out.json]

The workloads of benchmarks/hook_overhead (docs/performance.md) and NeuroBench's own test network,
on one CPU thread, with every hook metric:
- the ReLU CNN (benchmarks/models/make_models.py, cnn_relu.pt's weights) as NeuroBench's
  TorchModel, 1,024 28x28 images in batches of 64; ActivationSparsity,
  ActivationSparsityByLayer, SynapticOperations;
- the spiking MLP 784-256-128-10 (snn_mlp.pt's weights) with snnTorch's Leaky neurons (beta 0.9,
  threshold 1, reset by subtraction: the stand-in neurons of snn_mlp.pt are snnTorch's
  semantics) as NeuroBench's SNNTorchModel, 128 rate-coded samples of 100 timesteps in batches
  of 32; those metrics and MembraneUpdates, NeuronOperations;
- NeuroBench's test network `net` (its tests/models/model_list.py) as SNNTorchModel, 512
  samples of 30 timesteps of 20 features in batches of 64, with the same metrics.

`benchmark_script(Benchmark, ...)` below is the user's script; it is called once with
`neurobench.benchmarks.Benchmark` and once with `neurobench_cpp.Benchmark`, nothing else
changed. Timed, medians of --repeats:
  first run    Benchmark(...) and run(), as a script does it once: neurobench_cpp with an empty
               export cache (it exports the eager network to TorchScript, with the exporter's
               check, on the first batch), and again with the network in the cache (what every
               later process that benchmarks the same network pays)
  later run    run() again on the same Benchmark (neurobench_cpp: the loaded model kept)
and the Python side of neurobench_cpp's run, per batch: the time spent in Python fetching
batches from the DataLoader (the only Python the C++ loop calls back into here; measured by
timing each next() of the loader in a separate instrumented run), and the fixed cost of
translating and exporting the model (prepare_model). The results of the two are compared too
(integers exactly, floats 1e-6 relative); a difference is an error.

Needs Debian's python3-torch, -tqdm, snnTorch and NeuroBench in ../shared/third_party (or
NEUROBENCH_THIRD_PARTY), and neurobench_cpp's compiled core (--core-dir or
NEUROBENCH_CPP_CORE_DIR for a build tree).
"""
import argparse
import contextlib
import copy
import io
import json
import math
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THIRD_PARTY = os.environ.get("NEUROBENCH_THIRD_PARTY",
                             os.path.join(ROOT, "..", "shared", "third_party"))


def make_networks():
    """The perf CNN and the spiking MLP, eager, with the weights of benchmarks/models/."""
    import torch
    from torch import nn
    import snntorch as snn
    sys.path.insert(0, os.path.join(HERE, "models"))
    import make_models
    cnn = make_models.load_eager("cnn_relu.pt")
    stand_in = make_models.load_eager("snn_mlp.pt")
    mlp = nn.Sequential(
        nn.Linear(784, 256), snn.Leaky(beta=0.9, threshold=1.0, init_hidden=True),
        nn.Linear(256, 128), snn.Leaky(beta=0.9, threshold=1.0, init_hidden=True),
        nn.Linear(128, 10), snn.Leaky(beta=0.9, threshold=1.0, init_hidden=True, output=True))
    with torch.no_grad():
        for i, name in ((0, "fc1"), (2, "fc2"), (4, "fc3")):
            mlp[i].weight.copy_(getattr(stand_in, name).weight)
            mlp[i].bias.copy_(getattr(stand_in, name).bias)
    return cnn.eval(), mlp.eval()


def neurobench_test_net():
    """NeuroBench's own test network `net` (tests/models/model_list.py): Flatten, then four
    Linear + Leaky pairs, 20-256-256-256-35, as written there (seeded as there)."""
    import torch
    from torch import nn
    import snntorch as snn
    from snntorch import surrogate
    torch.manual_seed(0)
    grad = surrogate.fast_sigmoid()
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(20, 256), snn.Leaky(beta=0.9, spike_grad=grad, init_hidden=True),
        nn.Linear(256, 256), snn.Leaky(beta=0.9, spike_grad=grad, init_hidden=True),
        nn.Linear(256, 256), snn.Leaky(beta=0.9, spike_grad=grad, init_hidden=True),
        nn.Linear(256, 35), snn.Leaky(beta=0.9, spike_grad=grad, init_hidden=True, output=True),
    ).eval()


def workloads(scale):
    import torch
    torch.manual_seed(0)
    n_cnn, n_snn = max(1, int(1024 * scale)), max(1, int(128 * scale))
    n_net = max(1, int(512 * scale))
    return [
        {"name": "ReLU CNN, 28x28, batch 64", "net": 0, "snn": False,
         "data": torch.randn(n_cnn, 1, 28, 28), "targets": torch.randint(0, 10, (n_cnn,)),
         "batch": 64},
        {"name": "LIF MLP 784-256-128-10, 100 steps, batch 32", "net": 1, "snn": True,
         "data": (torch.rand(n_snn, 100, 784) < 0.2).float(),
         "targets": torch.randint(0, 10, (n_snn,)), "batch": 32},
        {"name": "NeuroBench's test net 20-256-256-256-35, 30 steps, batch 64", "net": 2,
         "snn": True, "data": (torch.rand(n_net, 30, 20) < 0.3).float(),
         "targets": torch.randint(0, 35, (n_net,)), "batch": 64},
    ]


def benchmark_script(Benchmark, TorchModel, SNNTorchModel, metrics, net, w, **extra):
    """The user's script: NeuroBench's API, whichever Benchmark it is given (`extra`:
    neurobench_cpp's cache_dir). Returns the Benchmark (for a later run) and the results."""
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    loader = DataLoader(TensorDataset(w["data"], w["targets"]), batch_size=w["batch"])
    workload = [metrics.ActivationSparsity, metrics.ActivationSparsityByLayer,
                metrics.SynapticOperations]
    if w["snn"]:
        model = SNNTorchModel(net)
        workload += [metrics.MembraneUpdates, metrics.NeuronOperations]
    else:
        model = TorchModel(net)
    benchmark = Benchmark(model, loader, [], [], [[], workload], **extra)
    with torch.no_grad():
        return benchmark, benchmark.run(quiet=True)


def plain(obj):
    import numpy as np
    import torch
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, torch.Tensor):
        return obj.item()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    return obj


def by_attribute_name(per_layer):
    """ActivationSparsityByLayer's keys as NeuroBench names layers, by attribute name alone
    (docs/python.md, what differs): neurobench-cpp's dotted paths cut to their last part, when
    that leaves them distinct."""
    cut = {key.rsplit(".", 1)[-1]: value for key, value in per_layer.items()}
    return cut if len(cut) == len(per_layer) else per_layer


def differences(theirs, ours, prefix=""):
    if prefix == "" and isinstance(ours.get("ActivationSparsityByLayer"), dict):
        ours = dict(ours, ActivationSparsityByLayer=by_attribute_name(
            ours["ActivationSparsityByLayer"]))
    bad = []
    for key, want in theirs.items():
        got = ours.get(key) if isinstance(ours, dict) else None
        if isinstance(want, dict):
            bad += differences(want, got if isinstance(got, dict) else {}, f"{prefix}{key}.")
        elif got is None or not (got == want or (
                isinstance(want, float) and math.isfinite(got)
                and abs(got - want) <= 1e-6 * abs(want))):
            bad.append(f"{prefix}{key}: neurobench_cpp {got!r}, NeuroBench {want!r}")
    return bad


class TimedLoader:
    """An iterable of the loader's batches that times each next(): the Python work the C++
    loop calls back for. Any iterable of batches is a valid dataloader for neurobench_cpp."""

    def __init__(self, loader):
        self.loader, self.seconds, self.batches = loader, 0.0, 0

    def __iter__(self):
        it = iter(self.loader)
        while True:
            start = time.perf_counter()
            try:
                batch = next(it)
            except StopIteration:
                return
            finally:
                self.seconds += time.perf_counter() - start
            self.batches += 1
            yield batch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--core-dir")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    if args.core_dir:
        os.environ["NEUROBENCH_CPP_CORE_DIR"] = os.path.abspath(args.core_dir)
    sys.path[:0] = [os.path.join(THIRD_PARTY, "neurobench"), os.path.join(THIRD_PARTY, "snntorch"),
                    os.path.join(ROOT, "python")]
    import torch
    torch.set_num_threads(1)
    import neurobench.benchmarks
    import neurobench.models
    from neurobench.metrics import workload as metrics
    import neurobench_cpp
    from neurobench_cpp import _models
    if getattr(neurobench_cpp, "_core", None) is None:
        sys.exit(f"python_api: neurobench_cpp's compiled core is not importable: "
                 f"{getattr(neurobench_cpp, 'CORE_IMPORT_ERROR', '')} (build the target "
                 f"neurobench_cpp_core and give --core-dir)")
    nets = make_networks() + (neurobench_test_net(),)
    impls = {"NeuroBench": neurobench.benchmarks.Benchmark,
             "neurobench_cpp": neurobench_cpp.Benchmark}
    rows, failed = [], False
    print(f"torch {torch.__version__}, 1 thread, medians of {args.repeats}")
    for w in workloads(args.scale):
        net = nets[w["net"]]
        batches = math.ceil(w["data"].shape[0] / w["batch"])
        row = {"workload": w["name"], "batches": batches}
        results = {}
        times = {label: {"first": [], "warm": [], "later": []} for label in impls}

        def script(label, **extra):
            # A fresh copy of the network each time: NeuroBench's hooks stay on a network its
            # Benchmark has used, and would slow every later Benchmark on it.
            start = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                bench, results[label] = benchmark_script(
                    impls[label], neurobench.models.TorchModel, neurobench.models.SNNTorchModel,
                    metrics, copy.deepcopy(net), w, **extra)
            return bench, time.perf_counter() - start

        for _ in range(args.repeats):  # interleaved: both share the machine's noise
            # NeuroBench; neurobench_cpp with an empty export cache (the export and its check
            # paid), then in a new Benchmark with the entry the first one left (an earlier
            # process's export reused), then run() again on that Benchmark.
            with tempfile.TemporaryDirectory(prefix="nb_cache_") as cache:
                for label in impls:
                    extra = {"cache_dir": cache} if label == "neurobench_cpp" else {}
                    bench, first = script(label, **extra)
                    times[label]["first"].append(first)
                    if label == "neurobench_cpp":
                        del bench
                        bench, warm = script(label, **extra)
                        times[label]["warm"].append(warm)
                    start = time.perf_counter()
                    with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
                        bench.run(quiet=True)
                    times[label]["later"].append(time.perf_counter() - start)
                    del bench
        for label in impls:
            row[label] = {key + "_s": statistics.median(values)
                          for key, values in times[label].items() if values}
        bad = differences(plain(results["NeuroBench"]), plain(results["neurobench_cpp"]))
        failed |= bool(bad)
        # The Python side of neurobench_cpp's run: batches fetched, and the model prepared.
        from torch.utils.data import DataLoader, TensorDataset
        wrapper = (neurobench.models.SNNTorchModel if w["snn"] else
                   neurobench.models.TorchModel)(copy.deepcopy(net))
        start = time.perf_counter()
        prepared = _models.prepare_model(wrapper, w["data"][:w["batch"]])
        row["prepare_s"] = time.perf_counter() - start
        del prepared
        timed = TimedLoader(DataLoader(TensorDataset(w["data"], w["targets"]),
                                       batch_size=w["batch"]))
        bench = neurobench_cpp.Benchmark(wrapper, timed, [], [], [[], [metrics.SynapticOperations]])
        with contextlib.redirect_stdout(io.StringIO()), torch.no_grad():
            bench.run(quiet=True)
        row["python_fetch_per_batch_ms"] = 1e3 * timed.seconds / max(1, timed.batches)
        rows.append(row)
        nb, cpp = row["NeuroBench"], row["neurobench_cpp"]
        print(f"{w['name']} ({batches} batches)")
        print(f"  first run:  NeuroBench {nb['first_s']:.3f} s, "
              f"neurobench_cpp {cpp['first_s']:.3f} s"
              f"  -> {nb['first_s'] / cpp['first_s']:.1f}x  (export cache empty)")
        print(f"  first run:  NeuroBench {nb['first_s']:.3f} s, "
              f"neurobench_cpp {cpp['warm_s']:.3f} s"
              f"  -> {nb['first_s'] / cpp['warm_s']:.1f}x  (network in the export cache)")
        print(f"  later run:  NeuroBench {nb['later_s']:.3f} s, "
              f"neurobench_cpp {cpp['later_s']:.3f} s"
              f"  -> {nb['later_s'] / cpp['later_s']:.1f}x")
        print(f"  neurobench_cpp's Python side: prepare_model (export, checked) "
              f"{row['prepare_s']:.3f} s"
              f" once; fetching a batch {row['python_fetch_per_batch_ms']:.3f} ms")
        for line in bad:
            print(f"  DIFFERENT {line}")
        print(f"  results {'differ' if bad else 'equal'}: {plain(results['neurobench_cpp'])}",
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch": torch.__version__, "threads": 1, "rows": rows}, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
