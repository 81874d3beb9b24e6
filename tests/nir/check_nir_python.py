#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""neurobench_cpp.Benchmark given a NIR graph, as a path and as a nir.NIRGraph, against what a
NeuroBench user runs today: NeuroBench's Benchmark on SNNTorchModel(import_from_nir(graph)).
Every metric equal (1e-6 relative), and the run recorded as step-wise with its NIR build; then
the time convention chosen per run (`run(nir_time="euler", nir_dt=0.001)`) must change the
numbers and give those of `neurobench run --nir-time euler --nir-dt 0.001`.

  /usr/bin/python3 tests/nir/check_nir_python.py --core-dir build/release/python/neurobench_cpp \
      --neurobench build/release/neurobench

Exits 77 (skipped) without the compiled core, h5py, nir, snntorch or NeuroBench.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from check_nir import compare_metrics  # noqa: E402  (every key, 1e-6 relative)

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--core-dir", default=os.environ.get("NEUROBENCH_CPP_CORE_DIR", ""))
    ap.add_argument("--neurobench", required=True)
    args = ap.parse_args()
    try:
        import make_graphs  # puts the reference packages on sys.path
        import nir
        import numpy as np
        import torch
        from neurobench.benchmarks import Benchmark as NeuroBenchBenchmark
        from neurobench.models import SNNTorchModel
        from neurobench.processors.postprocessors import ChooseMaxCount
        from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
        from neurobench.metrics.workload import (ActivationSparsity, ClassificationAccuracy,
                                                 MembraneUpdates, SynapticOperations)
        from snntorch.import_nir import import_from_nir
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    if not args.core_dir or not os.path.isdir(args.core_dir):
        print("skipped: no compiled neurobench_cpp core (--core-dir)")
        return 77
    os.environ["NEUROBENCH_CPP_CORE_DIR"] = args.core_dir
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from neurobench_cpp import Benchmark

    graph, shape, _ = make_graphs.graphs(0)["affine_lif_scaled"]
    failures = []
    with tempfile.TemporaryDirectory(prefix="nir_python_") as work:
        path = os.path.join(work, "g.nir")
        make_graphs.round_trip(graph, path)
        rng = np.random.default_rng(3)
        x = (rng.random((10, 12) + tuple(shape)) < 0.3).astype(np.float32)
        y = rng.integers(0, 4, 10)
        npz = os.path.join(work, "g.npz")
        np.savez(npz, data=x, targets=y)
        loader = torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(y)), batch_size=4)
        metrics = [[Footprint, ParameterCount, ConnectionSparsity],
                   [ClassificationAccuracy, ActivationSparsity, SynapticOperations,
                    MembraneUpdates]]
        theirs = NeuroBenchBenchmark(SNNTorchModel(import_from_nir(nir.read(path))), loader, [],
                                     [ChooseMaxCount()], metrics).run(verbose=False)
        for label, model in (("path", path), ("NIRGraph", nir.read(path))):
            bench = Benchmark(model, loader, [], [ChooseMaxCount()], metrics)
            ours = bench.run(quiet=True)
            failures += [f"{label}: {m}" for m in compare_metrics(theirs, ours)]
            run = (bench.last_run or {}).get("run", {})
            if run.get("stepwise") is not True or run.get("nir", {}).get("time") != "snntorch":
                failures.append(f"{label}: _run records stepwise {run.get('stepwise')} and "
                                f"nir {run.get('nir')}")
            euler = bench.run(quiet=True, nir_time="euler", nir_dt=0.001)
            cli = subprocess.run(
                [args.neurobench, "run", "--model", path, "--data", npz, "--batch-size", "4",
                 "--metrics", ",".join(m.__name__ for group in metrics for m in group),
                 "--post", "ChooseMaxCount", "--nir-time", "euler", "--nir-dt", "0.001", "-q",
                 "--json", os.path.join(work, "cli.json")], capture_output=True, text=True)
            if cli.returncode != 0:
                failures.append(f"neurobench run failed: {cli.stderr}")
                continue
            with open(os.path.join(work, "cli.json"), encoding="utf-8") as f:
                cli_results = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
            failures += [f"{label}, euler, CLI against run(): {m}"
                         for m in compare_metrics(cli_results, euler)]
            if not compare_metrics(euler, ours):
                failures.append(f"{label}: nir_time='euler' changed nothing")
            print(("FAIL " if failures else "ok ") + label)
    if failures:
        print("\n".join(failures))
        return 1
    print("neurobench_cpp runs NIR graphs as NeuroBench runs snnTorch's import of them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
