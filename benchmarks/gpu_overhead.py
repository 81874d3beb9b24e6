#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""neurobench-cpp on a device next to Python NeuroBench on the same device, and the bare forward.

  python3 benchmarks/gpu_overhead.py --cpp BUILD/benchmarks/hook_overhead --device cuda

The workloads of benchmarks/hook_overhead (docs/performance.md): the ReLU CNN on 1,024 28x28
images in batches of 64, and the 3-layer LIF MLP run step by step over 100 timesteps on 128
rate-coded samples in batches of 32 (benchmarks/models/), each with every hook metric (CNN:
ActivationSparsity, ActivationSparsityByLayer, SynapticOperations; SNN: those and
MembraneUpdates, NeuronOperations). Times, medians of --repeats runs each:

  python bare    the TorchScript module called from Python on the device, batch by batch (each
                 batch moved there first), waiting for the device at the end
  neurobench     Python NeuroBench 2.3's Benchmark.run(device=...) on the same networks in eager
                 PyTorch, with the same metrics (needs ../shared/third_party, or
                 NEUROBENCH_THIRD_PARTY, and tqdm)
  cpp bare / cpp metrics
                 what hook_overhead --device measures: the bare TorchScript loop in C++, and
                 neurobench::Benchmark with every hook metric

and prints the ratios: NeuroBench / neurobench-cpp (the aim: 10x or more on a GPU), and
neurobench-cpp's metrics over the bare forward (the aim: at most 2x). With --device cpu it
runs the same on one CPU thread (the check of this script itself; the CPU figures are
docs/performance.md's). Writes the figures as JSON with --json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
THIRD_PARTY = os.environ.get("NEUROBENCH_THIRD_PARTY",
                             os.path.join(HERE, "..", "..", "shared", "third_party"))
sys.path.insert(0, os.path.join(HERE, "models"))
import make_models  # noqa: E402  (the networks of the model files, eager)


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def workloads(scale):
    """The data of hook_overhead's two workloads (the same sizes; its own random draws)."""
    torch.manual_seed(0)
    n_cnn = max(1, int(1024 * scale))
    n_snn = max(1, int(128 * scale))
    return [
        {"name": "ReLU CNN, 28x28, batch 64", "file": "cnn_relu.pt", "stepwise": False,
         "data": torch.randn(n_cnn, 1, 28, 28), "batch": 64,
         "metrics": ["ActivationSparsity", "ActivationSparsityByLayer", "SynapticOperations"]},
        {"name": "LIF MLP 784-256-128-10, 100 steps, batch 32", "file": "snn_mlp.pt",
         "stepwise": True, "data": (torch.rand(n_snn, 100, 784) < 0.2).float(), "batch": 32,
         "metrics": ["ActivationSparsity", "ActivationSparsityByLayer", "SynapticOperations",
                     "MembraneUpdates", "NeuronOperations"]},
    ]


def reset_neurons(net, device):
    for m in net.modules() if isinstance(net, torch.nn.Module) else []:
        if isinstance(m, make_models.Leaky):
            m.mem = torch.zeros(0, device=device)


def time_bare(module, w, device):
    """The TorchScript module alone: each batch moved to the device and run (step by step for
    the SNN, neurons reset first), then one wait for the device."""
    start = time.perf_counter()
    with torch.inference_mode():
        for b in range(0, w["data"].shape[0], w["batch"]):
            batch = w["data"][b:b + w["batch"]].to(device)
            if not w["stepwise"]:
                module(batch)
                continue
            for _, sub in module.named_modules():
                if hasattr(sub, "mem"):
                    sub.mem = torch.zeros(0, device=device)
            torch.stack([module(batch[:, t])[0] for t in range(batch.shape[1])], 1)
    synchronize(device)
    return time.perf_counter() - start


def neurobench_runner(w, device):
    """Python NeuroBench's Benchmark over the eager network, or None when it cannot be
    imported (then the comparison is left out, and said so)."""
    try:
        sys.path.insert(0, os.path.join(THIRD_PARTY, "snntorch"))
        sys.path.insert(0, os.path.join(THIRD_PARTY, "neurobench"))
        from neurobench.benchmarks import Benchmark
        from neurobench.models import TorchModel
        from neurobench.models.neurobench_model import NeuroBenchModel
        from neurobench.metrics import workload as wm
    except ImportError as e:
        print(f"  (Python NeuroBench not importable: {e}; left out)")
        return None
    net = make_models.load_eager(w["file"]).to(device)

    class Stepped(NeuroBenchModel):
        """NeuroBench's SNNTorchModel loop for the stand-in Leaky neurons: state reset, one
        call per timestep, spikes stacked."""

        def __init__(self, net):
            super().__init__()
            self.net = net
            self.add_activation_module(make_models.Leaky)

        def __call__(self, data):
            reset_neurons(self.net, data.device)
            return torch.stack([self.net(data[:, t])[0] for t in range(data.shape[1])], 1)

        def __net__(self):
            return self.net

    model = Stepped(net) if w["stepwise"] else TorchModel(net)
    if not w["stepwise"]:
        model.add_activation_module(torch.nn.ReLU)
    metrics = [getattr(wm, name) for name in w["metrics"]]
    targets = torch.zeros(w["data"].shape[0], dtype=torch.long)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(w["data"], targets), batch_size=w["batch"])
    bench = Benchmark(model, loader, [], [], [[], metrics])

    def run():
        start = time.perf_counter()
        results = bench.run(quiet=True, device=str(device))
        synchronize(device)
        return time.perf_counter() - start, results

    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp", required=True, help="the hook_overhead program")
    parser.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the data (for a quick look)")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        sys.exit(f"gpu_overhead: --device {args.device}, but this torch ({torch.__version__}) "
                 "sees no CUDA device")
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        cpp_json = os.path.join(tmp, "cpp.json")
        cmd = [args.cpp, "--device", args.device, "--threads", "1", "--repeats",
               str(args.repeats), "--scale", str(args.scale), "--json", cpp_json]
        print("$", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
        with open(cpp_json) as f:
            cpp = json.load(f)
    print(f"\ndevice {args.device}; Python torch {torch.__version__}"
          + (f", {torch.cuda.get_device_name(device)}" if device.type == "cuda" else ""))
    rows = []
    for w, measured in zip(workloads(args.scale), cpp["workloads"]):
        print(w["name"])
        module = torch.jit.load(os.path.join(HERE, "models", w["file"]), map_location=device)
        module.eval()
        time_bare(module, w, device)  # warm-up: profiling runs, kernels loaded
        bare = statistics.median(time_bare(module, w, device) for _ in range(args.repeats))
        row = {"workload": w["name"], "python_bare_s": bare, "cpp_bare_s": measured["bare_s"],
               "cpp_metrics_s": measured["metrics_s"], "cpp_latency_s": measured["latency_s"]}
        runner = neurobench_runner(w, device)
        if runner is not None:
            runner()  # warm-up
            times = [runner()[0] for _ in range(args.repeats)]
            row["neurobench_s"] = statistics.median(times)
        rows.append(row)
        cpp_metrics = row["cpp_metrics_s"]
        line = (f"  python bare {bare:.4f} s, cpp bare {row['cpp_bare_s']:.4f} s, "
                f"cpp metrics {cpp_metrics:.4f} s ({cpp_metrics / row['cpp_bare_s']:.2f}x cpp "
                f"bare, {cpp_metrics / bare:.2f}x python bare)")
        if "neurobench_s" in row:
            line += (f"; NeuroBench {row['neurobench_s']:.4f} s: neurobench-cpp is "
                     f"{row['neurobench_s'] / cpp_metrics:.1f}x faster")
        print(line, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": args.device, "torch": torch.__version__, "rows": rows,
                       "cpp": cpp}, f, indent=2)


if __name__ == "__main__":
    main()
