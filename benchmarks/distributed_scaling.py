#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Sharded runs (docs/distributed.md) against one process: wall time of `neurobench run` on the
perf spiking MLP (benchmarks/models/snn_mlp.pt: LIF MLP 784-256-128-10, step-wise over 100
timesteps) with every hook metric, by 1 process and by N processes of one thread each on this
machine, started as torchrun starts them (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) over
127.0.0.1. Best of RUNS wall times each; the ratio is one process's time over N's. Also the
cost of the merge as rank 0 recorded it (`_run.distributed`: exchange_s includes the wait for
the slower rank, merge_s is the merge alone) and the bytes of rank 0's state.

  benchmarks/distributed_scaling.py [--cli build/release/neurobench] [--samples 1024]
                                    [--processes 2] [--runs 3]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("Footprint,ParameterCount,ConnectionSparsity,ClassificationAccuracy,ActivationSparsity,"
           "ActivationSparsityByLayer,SynapticOperations,MembraneUpdates,NeuronOperations,"
           "DenseMACs")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env():
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                        "MASTER_PORT") and not k.startswith(("OMPI_", "SLURM_"))}
    env["OMP_NUM_THREADS"] = "1"
    return env


def run(cli, args, processes, out):
    port = free_port()
    start = time.perf_counter()
    procs = []
    for rank in range(processes):
        env = clean_env()
        if processes > 1:
            env.update(RANK=str(rank), WORLD_SIZE=str(processes), LOCAL_RANK=str(rank),
                       LOCAL_WORLD_SIZE=str(processes), MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=str(port))
        procs.append(subprocess.Popen([cli, "run", *args, "--json", out], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
    errors = [p.communicate()[1] for p in procs]
    wall = time.perf_counter() - start
    for p, e in zip(procs, errors):
        if p.returncode != 0:
            sys.exit(f"neurobench run failed ({p.returncode}): {e.decode()[-2000:]}")
    return wall, json.load(open(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default=os.path.join(HERE, "..", "build", "release", "neurobench"))
    ap.add_argument("--samples", type=int, default=1024)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="neurobench_distributed_scaling_")
    rng = np.random.default_rng(0)
    data = os.path.join(work, "data.npz")
    np.savez(data, data=(rng.random((a.samples, 100, 784)) < 0.1).astype(np.float32),
             targets=rng.integers(0, 10, a.samples))
    args = ["--model", os.path.join(HERE, "models", "snn_mlp.pt"), "--data", data,
            "--batch-size", str(a.batch_size), "--stepwise", "--post", "ChooseMaxCount",
            "--metrics", METRICS, "--threads", "1", "--quiet"]
    print(f"LIF MLP 784-256-128-10, 100 steps, {a.samples} samples in batches of "
          f"{a.batch_size}, every hook metric; one thread per process; best of {a.runs}")
    best = {}
    for n in (1, a.processes):
        walls = []
        for _ in range(a.runs):
            wall, results = run(a.cli, args, n, os.path.join(work, f"r{n}.json"))
            walls.append(wall)
            if n == 1:
                one = results
            else:
                sharded = results
        best[n] = min(walls)
        print(f"{n} process{'es' if n > 1 else ''}: {best[n]:.2f} s  (runs: "
              + ", ".join(f"{w:.2f}" for w in walls) + ")")
    same = all(one[k] == sharded[k] for k in one if not k.startswith("_"))
    d = sharded["_run"]["distributed"]
    print(f"speed-up with {a.processes} processes: {best[1] / best[a.processes]:.2f}x; "
          f"results equal to one process's: {'yes' if same else 'NO'}")
    # What shards and what does not: the ranks' workload passes, and the rest of a process's
    # wall time (start-up, reading and hashing the whole data set, the scan for NaN and Inf,
    # the rendezvous), which every rank pays.
    passes = [r["workload_s"] for r in d["ranks"]]
    rest = best[a.processes] - max(passes)
    one_pass = best[1] - rest
    print("workload pass per rank: " + ", ".join(f"rank {r['rank']} {r['workload_s']:.2f} s"
                                                  for r in d["ranks"])
          + f"; the rest of the wall time, paid by every rank: about {rest:.2f} s")
    print(f"the sharded part alone (one process's wall time less that rest, over the slowest "
          f"rank's pass): {one_pass / max(passes):.2f}x")
    print(f"merge: rank 0 sent {d['state_bytes']} bytes of metric state; exchange "
          f"{d['exchange_s'] * 1e3:.1f} ms (waiting for the slower rank included), "
          f"merge {d['merge_s'] * 1e3:.2f} ms")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
