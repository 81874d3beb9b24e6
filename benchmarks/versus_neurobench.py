#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Whole processes against Python NeuroBench: `neurobench run` on the perf networks
(benchmarks/models/: the ReLU CNN on 1,024 28x28 images in batches of 64; the spiking MLP
784-256-128-10 step-wise over 100 timesteps, 128 samples in batches of 32) against a Python
process that runs NeuroBench 2.3's Benchmark on the same networks, eager (as
benchmarks/python_api.py builds them: the CNN with the same weights, the MLP with snnTorch's
Leaky neurons), both with every hook metric and one thread, the data read from the same `.npz`.

Each side also runs a one-batch file; its time is the process's fixed cost (starting, loading
the libraries and the network), subtracted from the full run's, so that the ratio is that of
the work a benchmark adds (the aims: 8x on the spiking MLP, 3.5x on the CNN). Runs alternate,
medians of RUNS.

  benchmarks/versus_neurobench.py [--cli build/release/neurobench] [--runs 5]

Needs Debian's python3-torch and python3-numpy, and NeuroBench and snnTorch in
../shared/third_party (or $NEUROBENCH_THIRD_PARTY).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THIRD_PARTY = os.environ.get("NEUROBENCH_THIRD_PARTY",
                             os.path.join(ROOT, "..", "shared", "third_party"))
HOOKS = ["ActivationSparsity", "ActivationSparsityByLayer", "SynapticOperations"]
SNN_HOOKS = HOOKS + ["MembraneUpdates", "NeuronOperations"]

# The NeuroBench side: one process, as a user's script runs it.
SCRIPT = """
import sys
sys.path[:0] = {paths!r}
import numpy as np
import torch
torch.set_num_threads(1)
from torch.utils.data import DataLoader, TensorDataset
from neurobench.benchmarks import Benchmark
from neurobench.models import SNNTorchModel, TorchModel
from neurobench.metrics import workload as metrics
import python_api
cnn, mlp = python_api.make_networks()
with np.load({data!r}) as f:
    data, targets = torch.from_numpy(f["data"]), torch.from_numpy(f["targets"])
snn = {snn!r}
model = SNNTorchModel(mlp) if snn else TorchModel(cnn)
names = {metrics!r}
loader = DataLoader(TensorDataset(data, targets), batch_size={batch})
with torch.no_grad():
    Benchmark(model, loader, [], [], [[], [getattr(metrics, n) for n in names]]).run(quiet=True)
"""


def timed(command, env):
    start = time.perf_counter()
    r = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    wall = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"{command[0]} failed ({r.returncode}): {r.stderr[-2000:]}")
    return wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "neurobench"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1")
    rng = np.random.default_rng(0)
    cases = [
        ("ReLU CNN, 1,024 28x28 images, batch 64", "cnn_relu.pt", False, 64,
         rng.standard_normal((1024, 1, 28, 28)).astype(np.float32), 10),
        ("LIF MLP 784-256-128-10, 100 steps, 128 samples, batch 32", "snn_mlp.pt", True, 32,
         (rng.random((128, 100, 784)) < 0.2).astype(np.float32), 10),
    ]
    with tempfile.TemporaryDirectory(prefix="nb_versus_") as work:
        print(f"whole processes, one thread each, medians of {args.runs}; 'work' is a run's time "
              "less the same process's on one batch")
        print(f"{'workload':58} {'NeuroBench':>21} {'neurobench-cpp':>21} {'ratio':>7} "
              f"{'work ratio':>10}")
        for name, model, snn, batch, data, classes in cases:
            targets = rng.integers(0, classes, len(data))
            files = {}
            for size, n in (("full", len(data)), ("one", batch)):
                files[size] = os.path.join(work, f"{model}.{size}.npz")
                np.savez(files[size], data=data[:n], targets=targets[:n])
            metrics = SNN_HOOKS if snn else HOOKS
            commands = {}
            for size, path in files.items():
                script = os.path.join(work, f"nb_{model}_{size}.py")
                with open(script, "w", encoding="utf-8") as f:
                    f.write(SCRIPT.format(
                        paths=[os.path.join(THIRD_PARTY, "neurobench"),
                               os.path.join(THIRD_PARTY, "snntorch"), HERE],
                        data=path, snn=snn, metrics=metrics, batch=batch))
                commands[("nb", size)] = [sys.executable, script]
                commands[("cpp", size)] = [
                    args.cli, "run", "--model", os.path.join(HERE, "models", model), "--data",
                    path, "--metrics", ",".join(metrics), "--batch-size", str(batch),
                    "--threads", "1", "-q"] + (["--stepwise"] if snn else [])
            times = {key: [] for key in commands}
            for key, command in commands.items():
                timed(command, env)  # warm: the page cache, the libraries
            for _ in range(args.runs):
                for key, command in commands.items():
                    times[key].append(timed(command, env))
            med = {key: statistics.median(v) for key, v in times.items()}
            nb_work = med[("nb", "full")] - med[("nb", "one")]
            cpp_work = med[("cpp", "full")] - med[("cpp", "one")]
            print(f"{name:58} {med[('nb', 'full')]:>8.3f} s ({nb_work:>6.3f} s) "
                  f"{med[('cpp', 'full')]:>8.3f} s ({cpp_work:>6.3f} s) "
                  f"{med[('nb', 'full')] / med[('cpp', 'full')]:>6.2f}x "
                  f"{nb_work / cpp_work:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
