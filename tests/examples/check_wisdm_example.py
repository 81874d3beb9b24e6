#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's WISDM benchmark end to end, against Python NeuroBench run beside it:
`neurobench run examples/wisdm/scnn.json --dataset wisdm:FILE --subset test` with the WISDM
example's network, and NeuroBench's Benchmark with its own WISDM loader on the same file (a
synthetic one, tests/fixtures/wisdm/make_file.py), SNNTorchModel(net, custom_forward=True) and
ChooseMaxCount as NeuroBench's examples/nehar/benchmark.py, compared metric by metric
(relative 1e-3 at most; most agree exactly).

The network is checked twice: the committed model (examples/wisdm/models/scnn.pt), and one made
here with livelier weights (spikes that vary with the input) exported on the spot; with
--weights, NeuroBench's trained checkpoint (WISDM_snnTorch.ckpt) a third time.

NeuroBench's WISDM module imports pytorch_lightning and gdown, which Debian does not package:
as in tests/datasets/check_wisdm.py, minimal stand-ins for both are put in sys.modules (a
LightningDataModule whose constructor does nothing, a gdown that raises if called). NeuroBench's
test_dataloader() starts 8 worker processes; the same batches come here from a DataLoader over
its test tensors without workers (in order, batch_size as given).

  /usr/bin/python3 tests/examples/check_wisdm_example.py --cli build/release/neurobench

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
EXAMPLE = os.path.join(ROOT, "examples", "wisdm")
STATIC = ["ParameterCount", "Footprint", "ConnectionSparsity"]
WORKLOAD = ["ClassificationAccuracy", "ActivationSparsity", "MembraneUpdates",
            "SynapticOperations"]


def setup():
    reference_results.third_party(ROOT)
    sys.path[:0] = [os.path.join(ROOT, "python"), EXAMPLE, os.path.join(ROOT, "tests", "datasets"),
                    os.path.join(ROOT, "tests", "fixtures", "wisdm")]
    reference_results.require(["numpy", "torch", "tqdm"], "python3-torch, -numpy, -tqdm")
    import check_wisdm
    check_wisdm.stub_modules()


def neurobench_results(net, file, batch_size):
    """NeuroBench's Benchmark on the test subset, as its examples/nehar/benchmark.py runs it."""
    import torch
    from neurobench.benchmarks import Benchmark
    from neurobench.datasets.WISDM import WISDM  # the lazy wrapper works only once
    from neurobench.metrics import static as S
    from neurobench.metrics import workload as W
    from neurobench.models import SNNTorchModel
    from neurobench.processors.postprocessors import ChooseMaxCount

    data_module = WISDM(path=file, batch_size=batch_size)
    data_module.setup("test")
    loader = torch.utils.data.DataLoader(data_module.ds_test, batch_size=batch_size,
                                         shuffle=False, drop_last=False)
    model = SNNTorchModel(net, custom_forward=True)
    metrics = [[getattr(S, m) for m in STATIC], [getattr(W, m) for m in WORKLOAD]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        res = Benchmark(model, loader, [], [ChooseMaxCount()], metrics).run(verbose=False)
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    return reference_results.plain(res), len(data_module.ds_test)


def cli_results(cli, model, file, batch_size, work, name):
    out = os.path.join(work, f"{name}.json")
    cmd = [cli, "run", os.path.join(EXAMPLE, "scnn.json"), "--model", model, "--dataset",
           f"wisdm:{file}", "--subset", "test", "--batch-size", str(batch_size), "--json", out,
           "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"neurobench run exited {r.returncode}: {r.stderr[-800:]}")
    with open(out) as f:
        return json.load(f)


def committed():
    import torch
    import networks
    path = os.path.join(EXAMPLE, "models", "scnn.pt")
    net = networks.SCNN()
    missing, _ = net.load_state_dict(dict(torch.jit.load(path).state_dict()), strict=False)
    if missing:
        raise RuntimeError(f"{path}: no weights for {missing}")
    return net, path


def lively(seed, work):
    """The network with weights whose spikes vary with the input and between classes."""
    import torch
    import networks
    from neurobench_export import export
    torch.manual_seed(seed)
    net = networks.SCNN()
    with torch.no_grad():
        net.conv1.weight.mul_(0.02)
        net.conv1.bias.sub_(0.01)
        net.conv2.weight.mul_(0.2)
        net.conv2.bias.sub_(0.01)
        net.linear.bias.uniform_(-0.05, 0.05)
    path = os.path.join(work, "scnn_lively.pt")
    example = torch.randn(8, 40, 6, generator=torch.Generator().manual_seed(2))
    export(net, path, example_input=example, custom_forward=True)
    return net, path


def trained(weights, work):
    import torch
    import networks
    from neurobench_export import export
    import make_models
    net = networks.SCNN()
    make_models.load(net, weights)
    path = os.path.join(work, "scnn_trained.pt")
    example = torch.randn(8, 40, 6, generator=torch.Generator().manual_seed(2))
    export(net, path, example_input=example, custom_forward=True)
    return net, path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--weights", help="NeuroBench's WISDM_snnTorch.ckpt, checked as well")
    a = ap.parse_args()
    setup()
    import make_file
    work = a.work or tempfile.mkdtemp(prefix="nb_wisdm_example_")
    os.makedirs(work, exist_ok=True)
    file = make_file.write_file(os.path.join(work, "nehar"), seed=a.seed, sizes=(20, 10, 37))
    runs = [("committed", committed), ("lively", lambda: lively(a.seed, work))]
    if a.weights:
        runs.append(("NeuroBench's trained weights", lambda: trained(a.weights, work)))
    failed = 0
    for which, make in runs:
        net, model = make()
        batch_size = 12  # the last batch holds one window
        expected, n = neurobench_results(net, file, batch_size)
        got = cli_results(a.cli, model, file, batch_size, work, which.split()[0])
        bad, worst = reference_results.compare(expected, got)
        name = f"SCNN ({which}, {n} windows)"
        if bad:
            failed += 1
            print(f"FAIL {name}:\n  " + "\n  ".join(bad))
        else:
            print(f"ok   {name}: largest relative difference {worst:.2e}; accuracy "
                  f"{got['ClassificationAccuracy']:.4f}, activation sparsity "
                  f"{got['ActivationSparsity']:.4f}, membrane updates "
                  f"{got['MembraneUpdates']:.1f}, effective ACs "
                  f"{got['SynapticOperations']['Effective_ACs']:.1f}")
    if failed:
        print(f"{failed} of {len(runs)} comparisons failed")
        return 1
    print(f"all {len(runs)} comparisons agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
