#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's EEG motor imagery benchmark end to end, against Python NeuroBench run beside it:
`neurobench run examples/eeg_mi/eeg_snn.json --dataset thor-eeg-mi:FOLDER --subset val` with the
example's network, and NeuroBench's Benchmark as its examples/eeg_mi/benchmark.py runs it
(ThorEEGMI, DataLoader of 64, SNNTorchModel(net, custom_forward=True), the postprocess
`spikes.sum(dim=0).argmax(dim=1)`, Footprint, ParameterCount, ConnectionSparsity,
ClassificationAccuracy, ActivationSparsity, SynapticOperations) on the same synthetic folder
(tests/fixtures/thor_eeg_mi/make_folder.py), compared metric by metric.

NeuroBench's EEG_SNN returns (batch, timesteps, 2); examples/eeg_mi/networks.py returns the
same spikes as (timesteps, batch, 2) (its docstring says why). The reference here is NeuroBench's
form: the example's network with its output transposed back, so that NeuroBench's model and
postprocess see exactly what they see in NeuroBench's example.

The network is checked with the committed model (examples/eeg_mi/models/eeg_snn.pt), with
livelier weights exported on the spot, and, with --weights, with NeuroBench's trained
best_model.pt.

  /usr/bin/python3 tests/examples/check_eeg_mi_example.py --cli build/release/neurobench

Needs Debian's python3-torch, python3-numpy, python3-tqdm and snnTorch and NeuroBench in
../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without.
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402
EXAMPLE = os.path.join(ROOT, "examples", "eeg_mi")
BATCH = 64  # NeuroBench's benchmark.py


def setup():
    reference_results.third_party(ROOT)
    sys.path[:0] = [os.path.join(ROOT, "python"), EXAMPLE,
                    os.path.join(ROOT, "tests", "fixtures", "thor_eeg_mi")]
    reference_results.require(["numpy", "torch", "tqdm"], "python3-torch, -numpy, -tqdm")


def batch_major(net):
    """`net` as NeuroBench's EEG_SNN: the same module, its spikes as (batch, timesteps, 2)."""
    import types

    def forward(self, x):
        return type(self).forward(self, x).transpose(0, 1)

    net.forward = types.MethodType(forward, net)
    return net


def neurobench_results(net, folder):
    """NeuroBench's Benchmark on the val subset, as its examples/eeg_mi/benchmark.py runs it."""
    import torch
    from neurobench.benchmarks import Benchmark
    from neurobench.datasets.EEG import ThorEEGMI
    from neurobench.metrics.static import ConnectionSparsity, Footprint, ParameterCount
    from neurobench.metrics.workload import (ActivationSparsity, ClassificationAccuracy,
                                             SynapticOperations)
    from neurobench.models import SNNTorchModel

    def postprocess(spikes):
        return spikes.sum(dim=0).argmax(dim=1)

    val_set = ThorEEGMI(root=folder, split="val", download=False)
    loader = torch.utils.data.DataLoader(val_set, batch_size=BATCH, shuffle=False)
    model = SNNTorchModel(batch_major(net), custom_forward=True)
    metrics = [[Footprint, ParameterCount, ConnectionSparsity],
               [ClassificationAccuracy, ActivationSparsity, SynapticOperations]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        res = Benchmark(model, loader, [], [postprocess], metrics).run(verbose=False)
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    return reference_results.plain(res), len(val_set)


def cli_results(cli, model, folder, work, name):
    out = os.path.join(work, f"{name}.json")
    cmd = [cli, "run", os.path.join(EXAMPLE, "eeg_snn.json"), "--model", model, "--dataset",
           f"thor-eeg-mi:{folder}", "--subset", "val", "--json", out, "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"neurobench run exited {r.returncode}: {r.stderr[-800:]}")
    with open(out) as f:
        return json.load(f)


def example_input():
    import torch
    import networks
    return 3 * torch.randn(8, 40, networks.CHANNELS, generator=torch.Generator().manual_seed(2))


def committed():
    import torch
    import networks
    path = os.path.join(EXAMPLE, "models", "eeg_snn.pt")
    net = networks.EEG_SNN()
    missing, _ = net.load_state_dict(dict(torch.jit.load(path).state_dict()), strict=False)
    if missing:
        raise RuntimeError(f"{path}: no weights for {missing}")
    return net, path


def lively(seed, work):
    """The network with weights whose spikes vary with the input: every layer spikes now and
    then, and the two outputs differ."""
    import torch
    import networks
    from neurobench_export import export
    torch.manual_seed(seed)
    net = networks.EEG_SNN()
    with torch.no_grad():
        net.fc1.weight.mul_(1.5)
        net.fc2.weight.mul_(3.0)
        net.fc3.weight.mul_(4.0)
        net.fc3.bias.uniform_(0.0, 0.1)
    path = os.path.join(work, "eeg_snn_lively.pt")
    export(net, path, example_input=example_input(), custom_forward=True)
    return net, path


def trained(weights, work):
    import networks
    from neurobench_export import export
    import make_models
    net = networks.EEG_SNN()
    make_models.load(net, weights)
    path = os.path.join(work, "eeg_snn_trained.pt")
    export(net, path, example_input=example_input(), custom_forward=True)
    return net, path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--weights", help="NeuroBench's best_model.pt, checked as well")
    a = ap.parse_args()
    setup()
    import make_folder
    work = a.work or tempfile.mkdtemp(prefix="nb_eeg_mi_example_")
    os.makedirs(work, exist_ok=True)
    # 70 val trials: a full batch of 64 and one of 6.
    folder = make_folder.write_folder(os.path.join(work, "thor"), seed=a.seed, sizes=(3, 70),
                                      timesteps=60)
    runs = [("committed", committed), ("lively", lambda: lively(a.seed, work))]
    if a.weights:
        runs.append(("NeuroBench's trained weights", lambda: trained(a.weights, work)))
    failed = 0
    for which, make in runs:
        net, model = make()
        expected, n = neurobench_results(net, folder)
        got = cli_results(a.cli, model, folder, work, which.split()[0])
        bad, worst = reference_results.compare(expected, got)
        name = f"EEG_SNN ({which}, {n} trials)"
        if bad:
            failed += 1
            print(f"FAIL {name}:\n  " + "\n  ".join(bad))
        else:
            print(f"ok   {name}: largest relative difference {worst:.2e}; accuracy "
                  f"{got['ClassificationAccuracy']:.4f}, activation sparsity "
                  f"{got['ActivationSparsity']:.4f}, effective ACs "
                  f"{got['SynapticOperations']['Effective_ACs']:.1f}")
    if failed:
        print(f"{failed} of {len(runs)} comparisons failed")
        return 1
    print(f"all {len(runs)} comparisons agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
