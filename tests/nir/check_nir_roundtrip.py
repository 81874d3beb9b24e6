#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The round trip: an snnTorch network exported to NIR by snnTorch's own `export_to_nir`, then
run from the `.nir` by `neurobench run`, equals the same network exported to TorchScript by
python/neurobench_export and run with `--stepwise`: the outputs timestep by timestep, and every
workload metric (accuracy, ActivationSparsity, SynapticOperations, MembraneUpdates,
NeuronOperations), and ParameterCount.

The networks are the shapes of the snnTorch conformance cases (seq_leaky's Linear/Leaky stack,
synaptic_state's Synaptic layers) with what a round trip through NIR keeps:
- reset to zero and no reset delay, the only reset snnTorch's import makes;
- per-neuron beta, alpha and threshold tensors: snnTorch 0.9.4 exports a scalar beta as a 0-d
  tau, which NIR 1.0's type check refuses;
- no Flatten, whose dimensions snnTorch's import misreads (docs/nir.md).
Footprint is not compared: the import keeps one threshold per layer where the network had one
per neuron.

  /usr/bin/python3 tests/nir/check_nir_roundtrip.py --neurobench build/release/neurobench

Exits 77 (skipped) without h5py, nir, snntorch or NeuroBench.
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
METRICS = ["ParameterCount", "ClassificationAccuracy", "ActivationSparsity",
           "SynapticOperations", "MembraneUpdates", "NeuronOperations"]


def networks(torch, snn):
    """name -> (network, input features, output classes)."""
    torch.manual_seed(0)
    zero = dict(init_hidden=True, reset_mechanism="zero", reset_delay=False)

    def leaky(n, beta, out=False):
        return snn.Leaky(beta=torch.full((n,), beta), threshold=torch.ones(n), output=out, **zero)

    def synaptic(n, alpha, beta, out=False):
        return snn.Synaptic(alpha=torch.full((n,), alpha), beta=torch.full((n,), beta),
                            threshold=torch.full((n,), 0.5), output=out, **zero)

    seq_leaky = torch.nn.Sequential(torch.nn.Linear(40, 64), leaky(64, 0.85),
                                    torch.nn.Linear(64, 10), leaky(10, 0.9, out=True))
    synaptic_net = torch.nn.Sequential(torch.nn.Linear(40, 32), synaptic(32, 0.8, 0.9),
                                       torch.nn.Linear(32, 10, bias=False),
                                       synaptic(10, 0.7, 0.85, out=True))
    return {"seq_leaky": (seq_leaky.eval(), 40, 10), "synaptic": (synaptic_net.eval(), 40, 10)}


def run_cli(cli, args):
    p = subprocess.run([cli, "run", *args, "-q"], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"neurobench run {' '.join(args)}: exit {p.returncode}: {p.stderr}")


def metrics_of(path):
    with open(path, encoding="utf-8") as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("_")}


def stepped(torch, path, x):
    """A saved module (state fresh) called on x[:, t] for every t, stacked on dimension 1."""
    m = torch.jit.load(path)
    if hasattr(m, "reset"):
        m.reset()
    outs = []
    for t in range(x.shape[1]):
        out = m(x[:, t])
        outs.append(out[0] if isinstance(out, tuple) else out)
    return torch.stack(outs, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--neurobench", required=True)
    args = ap.parse_args()
    try:
        import make_graphs  # noqa: F401  (puts the reference packages on sys.path)
        import nir
        import numpy as np
        import snntorch as snn
        import torch
        from snntorch.export_nir import export_to_nir
    except ImportError as e:
        print(f"skipped: {e}")
        return 77
    nir.version = getattr(nir, "version", "1.0.0")
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from neurobench_export import export
    torch.set_num_threads(1)
    failures = []
    with tempfile.TemporaryDirectory(prefix="nir_roundtrip_") as work:
        for name, (net, features, classes) in networks(torch, snn).items():
            rng = np.random.default_rng(11)
            x = (rng.random((8, 20, features)) < 0.3).astype(np.float32)
            npz = os.path.join(work, name + ".npz")
            np.savez(npz, data=x, targets=rng.integers(0, classes, 8))
            graph_file = os.path.join(work, name + ".nir")
            nir.write(graph_file, export_to_nir(net, torch.rand(features)))
            script = os.path.join(work, name + ".pt")
            export(net, script, example_input=torch.tensor(x[:, 0]), stepwise=True)
            built = os.path.join(work, name + ".built.pt")
            convert = subprocess.run([args.neurobench, "convert", graph_file, built],
                                     capture_output=True, text=True)
            if convert.returncode != 0:
                failures.append(f"{name}: convert: {convert.stderr}")
                continue
            ours = stepped(torch, built, torch.tensor(x))
            theirs = stepped(torch, script, torch.tensor(x))
            if not torch.equal(ours, theirs):
                failures.append(f"{name}: {int((ours != theirs).sum())} of {ours.numel()} "
                                "outputs differ between the NIR import and the TorchScript export")
            common = ["--data", npz, "--batch-size", "4", "--metrics", ",".join(METRICS),
                      "--post", "ChooseMaxCount"]
            run_cli(args.neurobench, ["--model", graph_file, *common,
                                      "--json", os.path.join(work, name + ".nir.json")])
            run_cli(args.neurobench, ["--model", script, "--stepwise", *common,
                                      "--json", os.path.join(work, name + ".pt.json")])
            a = metrics_of(os.path.join(work, name + ".nir.json"))
            b = metrics_of(os.path.join(work, name + ".pt.json"))
            if a != b:
                failures.append(f"{name}: metrics from the NIR graph {a}\n"
                                f"  from the TorchScript export {b}")
            print(("FAIL " if failures else "ok ") + name)
    if failures:
        print("\n".join(failures))
        return 1
    print("snnTorch -> NIR -> neurobench equals snnTorch -> TorchScript -> neurobench")
    return 0


if __name__ == "__main__":
    sys.exit(main())
