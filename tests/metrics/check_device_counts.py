#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Hook metrics counted on a device equal the CPU's, on convolutions and Linear layers of every
form the device's joint count weighs (docs/performance.md, "Counting on a device").

  check_device_counts.py --neurobench build/release/neurobench [--work DIR]

On the lazy device, every hook metric of a batch is counted in one joint count: each layer's
output and each connection's input compared with 0, 1 and -1 and summed, a connection's
elements weighted by the non-zero weights that read them (a convolution's by the gradient of
its counting convolution). This runs `neurobench run` on the CPU and on `--device lazy` for
networks that exercise that weighting: convolutions with stride, padding (numbers, 'same' with
an even kernel, 'valid'), dilation and groups, in 1, 2 and 3 dimensions, pruned weights,
unbatched inputs, Linear layers on 3-d inputs, one tensor read by two layers, an activation's
output that is the next layer's input; with real-valued inputs, spikes of 0 and 1, spikes of
-1, 0 and 1, and a last batch smaller than the others. Every metric must be equal, exactly.

Needs Debian's python3-torch and python3-numpy; exits 77 (skipped) without them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
    import torch.nn as nn
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

METRICS = "ActivationSparsity,ActivationSparsityByLayer,SynapticOperations,DenseMACs"


class Conv2dForms(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2)
        self.relu1 = nn.ReLU()
        self.b = nn.Conv2d(4, 6, 4, padding="same")  # even kernel: padded unevenly
        self.relu2 = nn.ReLU()
        self.c = nn.Conv2d(6, 6, (2, 3), stride=(1, 2), padding="valid", groups=6, bias=False)
        self.fc = nn.Linear(6 * 3 * 1, 5)

    def forward(self, x):
        x = self.relu1(self.a(x))
        x = self.relu2(self.b(x))
        return self.fc(torch.flatten(self.c(x), 1))


class Conv1dLinear3d(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 5, padding=2, dilation=1)
        self.relu = nn.ReLU()
        self.fc1 = nn.Linear(12, 7)  # on (batch, 4, 12): rows of 12 in every sample
        self.fc2 = nn.Linear(12, 3)  # reads the same tensor as fc1
        self.out = nn.Linear(4 * 10, 2)

    def forward(self, x):
        h = self.relu(self.conv(x))
        return self.out(torch.cat([self.fc1(h), self.fc2(h)], -1).flatten(1))


class Conv3dUnbatched(nn.Module):
    """Its forward takes (batch, C, D, H, W) but calls the convolution on each sample alone
    (an unbatched call: the input is one sample of shape (C, D, H, W))."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 3, 2, stride=1, padding=1)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(3 * 4 * 4 * 4, 4)

    def forward(self, x):
        outs = [self.relu(self.conv(x[i])) for i in range(x.shape[0])]
        return self.fc(torch.stack(outs).flatten(1))


def pruned(net, fraction, seed):
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear)):
                m.weight.mul_((torch.rand(m.weight.shape, generator=g) >= fraction).float())
    return net


def inputs(kind, shape, rng):
    if kind == "real":
        x = rng.standard_normal(shape)
        x[rng.random(shape) < 0.3] = 0  # zeros in a real-valued input
    elif kind == "spikes":
        x = (rng.random(shape) < 0.3).astype(np.float64)
    else:  # spikes of -1, 0 and 1
        x = rng.integers(-1, 2, size=shape).astype(np.float64)
    return x.astype(np.float32)


CASES = [
    ("conv2d forms", Conv2dForms, (11, 2, 9, 9), 4),
    ("conv1d and Linear on 3-d inputs", Conv1dLinear3d, (10, 3, 12), 3),
    ("conv3d called on each sample", Conv3dUnbatched, (5, 2, 3, 3, 3), 2),
]


def run(neurobench, model, data, batch, device, out):
    r = subprocess.run([neurobench, "run", "--model", model, "--data", data, "--metrics", METRICS,
                        "--batch-size", str(batch), "--device", device, "--json", out, "-q"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"neurobench run --device {device} failed ({r.returncode}): {r.stderr}")
    with open(out, encoding="utf-8") as f:
        results = json.load(f)
    return {k: v for k, v in results.items() if not k.startswith("_")}



def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--neurobench", required=True)
    parser.add_argument("--work", help="a folder for the models and data (default: temporary)")
    args = parser.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="nb_device_counts_")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(2026)
    torch.manual_seed(2026)
    problems = []
    checked = 0
    for name, cls, shape, batch in CASES:
        for prune in (0.0, 0.4):
            net = pruned(cls().eval(), prune, seed=len(name))
            model = os.path.join(work, f"{cls.__name__}_{int(prune * 10)}.pt")
            torch.jit.script(net).save(model)
            for kind in ("real", "spikes", "signed spikes"):
                data = os.path.join(work, "data.npz")
                np.savez(data, data=inputs(kind, shape, rng),
                         targets=np.zeros(shape[0], dtype=np.int64))
                cpu = run(args.neurobench, model, data, batch, "cpu", os.path.join(work, "cpu.json"))
                lazy = run(args.neurobench, model, data, batch, "lazy", os.path.join(work, "lazy.json"))
                checked += 1
                label = f"{name}, {int(prune * 100)}% of weights zero, {kind}"
                if cpu != lazy:
                    problems.append(f"{label}: cpu {json.dumps(cpu)}\n       lazy {json.dumps(lazy)}")
                acs = cpu["SynapticOperations"]["Effective_ACs"]
                macs = cpu["SynapticOperations"]["Effective_MACs"]
                if kind == "real" and macs <= 0 or kind != "real" and acs <= 0:
                    problems.append(f"{label}: the case counts nothing where it should "
                                    f"(MACs {macs}, ACs {acs})")
                print(f"{'ok' if cpu == lazy else 'FAIL':4} {label}: "
                      f"MACs {macs:g}, ACs {acs:g}")
    if not args.work:
        shutil.rmtree(work)
    for p in problems:
        print("     " + p)
    print(f"{checked} cases, " + ("all equal" if not problems else "DIFFERENCES FOUND"))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
