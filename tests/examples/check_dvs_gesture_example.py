#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's DVS Gesture benchmark end to end, against Python NeuroBench run beside it:
`neurobench run --dataset dvs-gesture:RELEASE --subset test --stepwise --post ChooseMaxCount`
with the example's network, and NeuroBench's Benchmark (SNNTorchModel, ChooseMaxCount, the
example's metric set) on the frames tonic_reference.py makes of the same recordings (the
fixture release, tests/fixtures/dvs_gesture; NeuroBench itself takes them from tonic, whose
semantics tonic_reference.py states), compared metric by metric (relative 1e-3 at most).

The network is checked twice: the committed model (examples/dvs_gesture/models/snn.pt) and one
with livelier weights (more spikes) exported on the spot.

  /usr/bin/python3 tests/examples/check_dvs_gesture_example.py --cli build/release/neurobench

Needs Debian's python3-torch, python3-numpy, python3-tqdm and snnTorch and NeuroBench in
../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
"""
import argparse
import contextlib
import io
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402
EXAMPLE = os.path.join(ROOT, "examples", "dvs_gesture")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "dvs_gesture")
RELEASE = os.path.join(FIXTURES, "release")
STATIC = ["Footprint", "ConnectionSparsity"]
WORKLOAD = ["ClassificationAccuracy", "ActivationSparsity", "SynapticOperations"]


def setup():
    reference_results.third_party(ROOT)
    sys.path[:0] = [os.path.join(ROOT, "python"), EXAMPLE, FIXTURES]
    reference_results.require(["numpy", "torch", "tqdm"], "python3-torch, -numpy, -tqdm")


def decode_aedat(path):
    """Valid polarity events of an AEDAT 3.1 file as (x, y, p, t) columns."""
    import numpy as np
    data = open(path, "rb").read()
    at = data.index(b"#!END-HEADER\r\n") + 14
    rows = []
    while at < len(data):
        etype, _, size, _, overflow, capacity, number, _ = struct.unpack_from("<hhiiiiii", data, at)
        if etype == 1:
            body = np.frombuffer(data, dtype="<u4", count=2 * number, offset=at + 28)
            word, ts = body[0::2].astype(np.int64), body[1::2].astype(np.int64)
            keep = (word & 1) == 1
            rows.append(np.stack([(word >> 17) & 0x7FFF, (word >> 2) & 0x7FFF, (word >> 1) & 1,
                                  (overflow << 31) | ts], axis=1)[keep])
        at += 28 + size * capacity
    return np.concatenate(rows)


def reference_frames():
    """The test subset's samples as NeuroBench's transform makes them, and their labels."""
    import numpy as np
    import tonic_reference as ref
    frames, labels = [], []
    for line in open(os.path.join(RELEASE, "trials_to_test.txt")):
        name = line.strip()
        ev = decode_aedat(os.path.join(RELEASE, name))
        rows = np.loadtxt(os.path.join(RELEASE, name[:-6] + "_labels.csv"), delimiter=",",
                          skiprows=1, dtype=np.int64, ndmin=2)
        for cls, start, end in rows:
            m = (ev[:, 3] >= start) & (ev[:, 3] < end)
            frames.append(ref.pipeline(*ev[m].T, n_time_bins=150))
            labels.append(cls - 1)
    return frames, labels


def neurobench_results(net, frames, labels, batch_size):
    import torch
    from neurobench.benchmarks import Benchmark
    from neurobench.metrics import static as S
    from neurobench.metrics import workload as W
    from neurobench.models import SNNTorchModel
    from neurobench.processors.postprocessors import ChooseMaxCount

    data = [(torch.from_numpy(f), torch.tensor(l)) for f, l in zip(frames, labels)]
    loader = torch.utils.data.DataLoader(data, batch_size=batch_size, shuffle=False)
    metrics = [[getattr(S, m) for m in STATIC], [getattr(W, m) for m in WORKLOAD]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        res = Benchmark(SNNTorchModel(net), loader, [], [ChooseMaxCount()], metrics).run()
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    return reference_results.plain(res)


def cli_results(cli, model, batch_size, work):
    out = os.path.join(work, os.path.basename(model) + ".json")
    cmd = [cli, "run", "--model", model, "--dataset", f"dvs-gesture:{RELEASE}", "--subset", "test",
           "--stepwise", "--post", "ChooseMaxCount", "--batch-size", str(batch_size),
           "--static", ",".join(STATIC), "--workload", ",".join(WORKLOAD), "--json", out,
           "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"neurobench run exited {r.returncode}: {r.stderr[-800:]}")
    with open(out) as f:
        return json.load(f)


def committed():
    import torch
    import networks
    path = os.path.join(EXAMPLE, "models", "snn.pt")
    net = networks.Net().eval()
    missing, _ = net.load_state_dict(torch.jit.load(path).state_dict(), strict=False)
    if missing:
        raise RuntimeError(f"{path}: no weights for {missing}")
    return net, path


def lively(work, seed):
    """The example's network with weights that make every layer spike."""
    import torch
    import networks
    from neurobench_export import export
    torch.manual_seed(seed)
    net = networks.Net().eval()
    with torch.no_grad():
        for name in ("conv1", "conv2", "conv3", "linear1"):
            getattr(net, name).weight.mul_(8.0)
            getattr(net, name).bias.add_(0.2)
    path = os.path.join(work, "snn_lively.pt")
    example = torch.poisson(torch.full((4, 2, 32, 32), 0.5),
                            generator=torch.Generator().manual_seed(3))
    export(net, path, example_input=example, stepwise=True)
    return net, path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--seed", type=int, default=5)
    a = ap.parse_args()
    setup()
    work = a.work or tempfile.mkdtemp(prefix="nb_dvs_example_")
    os.makedirs(work, exist_ok=True)
    frames, labels = reference_frames()
    failed = 0
    for which in ("committed", "lively"):
        net, model = committed() if which == "committed" else lively(work, a.seed)
        batch_size = 2
        expected = neurobench_results(net, frames, labels, batch_size)
        got = cli_results(a.cli, model, batch_size, work)
        bad, worst = reference_results.compare(expected, got)
        name = f"{which} ({len(frames)} samples)"
        if bad:
            failed += 1
            print(f"FAIL {name}:\n  " + "\n  ".join(bad))
        else:
            ops = got["SynapticOperations"]
            print(f"ok   {name}: largest relative difference {worst:.2e}; accuracy "
                  f"{got['ClassificationAccuracy']:.4f}, activation sparsity "
                  f"{got['ActivationSparsity']:.4f}, effective MACs {ops['Effective_MACs']:.1f}, "
                  f"ACs {ops['Effective_ACs']:.1f}")
    if failed:
        print(f"{failed} of 2 comparisons failed")
        return 1
    print("both comparisons agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
