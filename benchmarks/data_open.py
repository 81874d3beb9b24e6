#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""What a large `.npz` costs a run that does not read it: whole `neurobench run` processes that
compute static metrics only (Footprint, ParameterCount, ConnectionSparsity) on the perf CNN
(benchmarks/models/cnn_relu.pt), with a large data file (default 143 MB: 45,600 28x28 float32
images) and with a one-batch file of the same images (64), side by side, one thread each,
alternating. Prints the median wall time of each, their ratio (the aim: within 1.2x), and the
median of each `_run.phases` entry, so that what the large file still costs shows by phase.

  benchmarks/data_open.py [--cli build/release/neurobench] [--samples 45600] [--runs 7]
                          [--metrics Footprint,...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STATIC = "Footprint,ParameterCount,ConnectionSparsity"


def run(cli, model, data, metrics, out):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    start = time.perf_counter()
    r = subprocess.run([cli, "run", "--model", model, "--data", data, "--metrics", metrics,
                        "--threads", "1", "--json", out, "-q"],
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"neurobench run failed ({r.returncode}): {r.stderr}")
    with open(out, encoding="utf-8") as f:
        return wall, json.load(f)["_run"].get("phases", {})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.path.join(HERE, "..", "build", "release", "neurobench"))
    parser.add_argument("--samples", type=int, default=45600)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--metrics", default=STATIC)
    args = parser.parse_args()
    model = os.path.join(HERE, "models", "cnn_relu.pt")
    with tempfile.TemporaryDirectory(prefix="nb_data_open_") as work:
        rng = np.random.default_rng(0)
        images = rng.random((args.samples, 1, 28, 28), dtype=np.float32)
        labels = rng.integers(0, 10, args.samples)
        large = os.path.join(work, "large.npz")
        small = os.path.join(work, "one_batch.npz")
        np.savez(large, data=images, targets=labels)
        np.savez(small, data=images[:64], targets=labels[:64])
        out = os.path.join(work, "results.json")
        times = {"large": [], "one batch": []}
        phases = {"large": {}, "one batch": {}}
        run(args.cli, model, large, args.metrics, out)  # warm: the page cache, the loader
        run(args.cli, model, small, args.metrics, out)
        for _ in range(args.runs):
            for name, path in (("large", large), ("one batch", small)):
                wall, ph = run(args.cli, model, path, args.metrics, out)
                times[name].append(wall)
                for key, seconds in ph.items():
                    phases[name].setdefault(key, []).append(seconds)
        size = os.path.getsize(large) / 1e6
        print(f"static metrics only ({args.metrics}); the large file {size:.0f} MB, "
              f"{args.samples} images; medians of {args.runs} runs, one thread")
        print(f"{'':24} {'large':>10} {'one batch':>10}")
        large_s = statistics.median(times["large"])
        small_s = statistics.median(times["one batch"])
        print(f"{'whole process (s)':24} {large_s:>10.3f} {small_s:>10.3f}")
        for key in phases["large"]:
            a = statistics.median(phases["large"][key])
            b = statistics.median(phases["one batch"].get(key, [0.0]))
            print(f"{key:24} {a:>10.4f} {b:>10.4f}")
        print(f"ratio large / one batch: {large_s / small_s:.2f}x (aim: at most 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
