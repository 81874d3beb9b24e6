#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's Primate Reaching benchmark end to end against the C++ example: the example
(examples/primate_reaching) on synthetic sessions, and Python NeuroBench's PrimateReaching,
TorchModel and Benchmark with the same networks (examples/primate_reaching/networks.py built
from the same seed as make_models.py) on the same files, with NeuroBench's benchmark options
and metric set. Every result must be equal: footprint, connection sparsity, R2 (accumulated
over batches), activation sparsity and the three synaptic operation counts.

  /usr/bin/python3 tests/examples/check_primate_reaching_example.py \
      --example build/release/examples/primate_reaching/primate_reaching --work /tmp/pre

One shim: NeuroBench's R2 calls Tensor.var(correction=0), which torch 1.13 (Debian) only takes
with a dim; the script maps it to var(unbiased=False), the same computation.

Needs Debian's python3-torch, -numpy, -h5py, -scipy, -tqdm and snnTorch and NeuroBench in
../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402
EXAMPLE = os.path.join(ROOT, "examples", "primate_reaching")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "primate_reaching")
# NeuroBench's benchmark scripts (benchmark_SNN2.py, benchmark_2d_ann.py).
OPTIONS = dict(num_steps=1, train_ratio=0.5, bin_width=0.004, biological_delay=0,
               remove_segments_inactive=False)
SESSIONS = [("indy_fixture", dict(seed=11, channels=96, units=3, steps=2500)),
            ("loco_fixture", dict(seed=12, channels=192, units=2, steps=1500))]


def setup():
    reference_results.third_party(ROOT, packages=("neurobench",))
    sys.path[:0] = [EXAMPLE, FIXTURES]
    reference_results.require(["h5py", "scipy", "torch", "tqdm"],
                              "python3-torch, -h5py, -scipy, -tqdm")
    reference_results.torch_var_shim()


def neurobench_results(work, name, key, channels):
    import snntorch
    import torch
    from torch.utils.data import DataLoader, Subset
    from neurobench.benchmarks import Benchmark
    from neurobench.datasets import PrimateReaching
    from neurobench.metrics.static import ConnectionSparsity, Footprint
    from neurobench.metrics.workload import ActivationSparsity, R2, SynapticOperations
    from neurobench.models import TorchModel
    import networks
    with contextlib.redirect_stdout(io.StringIO()):
        ds = PrimateReaching(work, name, download=False, **OPTIONS)
    torch.manual_seed(0)  # as make_models.py
    if key == "snn":
        net = networks.SNN2(input_size=channels)
        net.reset()
    else:
        net = networks.ANN2D(input_dim=channels)
    model = TorchModel(net)
    if key == "snn":
        model.add_activation_module(snntorch.SpikingNeuron)
    loader = DataLoader(Subset(ds, ds.ind_test), batch_size=100, shuffle=False)
    bench = Benchmark(model, loader, [], [], [[Footprint, ConnectionSparsity],
                                               [R2, ActivationSparsity, SynapticOperations]])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return bench.run(verbose=False)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--example", required=True)
    p.add_argument("--work", required=True)
    a = p.parse_args()
    setup()
    import make_mat
    os.makedirs(a.work, exist_ok=True)
    failures = 0
    for name, session in SESSIONS:
        path = os.path.join(a.work, name + ".mat")
        make_mat.write_session(path, **session)
        out = os.path.join(a.work, name + ".json")
        r = subprocess.run([a.example, "--data", path, "--batch-size", "100", "--quiet",
                            "--json", out], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"FAIL  {name}: the example exited with {r.returncode}:\n{r.stderr}")
            failures += 1
            continue
        with open(out) as f:
            cpp = json.load(f)["models"]
        for key in ("snn", "ann"):
            nb = neurobench_results(a.work, name, key, session["channels"])
            ours = cpp[key]["results"]
            problems = [f"{m}: C++ {ours.get(m)}, NeuroBench {v}" for m, v in nb.items()
                        if ours.get(m) != v]
            print(f"{'FAIL' if problems else 'ok'}  {name} {key}: {nb}")
            for problem in problems:
                print(f"      {problem}")
            failures += bool(problems)
    if failures:
        print(f"{failures} comparisons FAILED")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
