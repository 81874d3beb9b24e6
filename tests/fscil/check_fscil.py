#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the whole FSCIL protocol twice, with `neurobench fscil` and with NeuroBench's own code,
and compares every session: the accuracy on all classes seen so far, the accuracy on the new
classes alone, ActivationSparsity, SynapticOperations (Dense, Effective_MACs, Effective_ACs),
Footprint and ConnectionSparsity. Integers must be equal, floats within 1e-6 relative.

  /usr/bin/python3 tests/fscil/check_fscil.py --neurobench build/release/neurobench

The data: a random synthetic MSWC release in NeuroBench's layout, written as
tests/datasets/check_mswc.py writes it (base classes, three session languages of 10 classes
of 200 clips). The networks: a tiny M5 prototype CNN (NeuroBench's examples/mswc_fscil/M5.py,
smaller) and a tiny spiking network of the sparchSNNs shape (a LIF layer whose spikes are the
features, and a readout summed over time), random from a random seed, saved as TorchScript
for our side and kept as eager modules for NeuroBench's (its hooks need eager modules). Both
sides: MFCC as NeuroBench's example; base prototypes from the base training set; sessions from
one draws file (ours, drawn by `neurobench fscil` from a seed and written with
`fscil.write_draws`; NeuroBench's IncrementalFewShot replays it, as check_mswc.py does).

NeuroBench's side follows examples/mswc_fscil/mswc_fscil.py with its Benchmark, metrics,
MSWC, IncrementalFewShot and MFCCPreProcessor, with the two corrections docs/fscil.md
describes: each session reports its own Effective_ACs (the example appends the base session's),
and the hooks are reset before each all-classes run (the example's hooks keep the activations
of the features pass and of the query-only run, which its next run counts in its first batch).

Needs Debian's python3-torch, python3-torchaudio, python3-numpy, python3-soundfile, NeuroBench
and snnTorch in ../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without
them.
"""
import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "datasets"))
import check_mswc  # noqa: E402  (the release writer and the draws replay)

SESSION_LANGUAGES = check_mswc.SESSION_LANGUAGES
BATCH = 16
K_SHOT = 5
QUERY_SHOTS = 20
MFCC = {"sample_rate": 48000, "n_mfcc": 20,
        "melkwargs": {"n_fft": 512, "n_mels": 20, "hop_length": 240, "mel_scale": "htk",
                      "f_min": 20, "f_max": 4000}}


def networks():
    """The two tiny networks' classes (defined here so that torch is imported after setup)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class TinyM5(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv1d(20, 8, kernel_size=4, stride=2)
            self.bn1 = nn.BatchNorm1d(8)
            self.act1 = nn.ReLU()
            self.pool1 = nn.MaxPool1d(2)
            self.conv2 = nn.Conv1d(8, 16, kernel_size=3)
            self.bn2 = nn.BatchNorm1d(16)
            self.act2 = nn.ReLU()
            self.pool2 = nn.MaxPool1d(2)
            self.output = nn.Linear(16, 200, bias=True)

        @torch.jit.export
        def features(self, x):
            x = x.squeeze()  # NeuroBench's SqueezeIn, a no-op after it
            x = self.pool1(self.act1(self.bn1(self.conv1(x))))
            x = self.pool2(self.act2(self.bn2(self.conv2(x))))
            x = F.avg_pool1d(x, x.shape[-1])
            return x.permute(0, 2, 1).squeeze()

        def forward(self, x):
            return self.output(self.features(x))

    class LIFLayer(nn.Module):
        def __init__(self, n_in: int, n_hidden: int):
            super().__init__()
            self.W = nn.Linear(n_in, n_hidden, bias=False)
            self.alpha = nn.Parameter(torch.rand(n_hidden) * 0.3 + 0.6)

        def forward(self, x):
            wx = self.W(x)
            u = torch.zeros(wx.shape[0], wx.shape[2], dtype=wx.dtype, device=wx.device)
            s = torch.zeros_like(u)
            spikes = []
            for t in range(wx.shape[1]):
                u = self.alpha * (u - s) + (1 - self.alpha) * wx[:, t, :]
                s = (u > 1.0).float()
                spikes.append(s)
            return torch.stack(spikes, dim=1)

    class SimpleReadout(nn.Module):
        def __init__(self, n_in: int, n_out: int):
            super().__init__()
            self.W = nn.Linear(n_in, n_out, bias=True)

        def forward(self, x):
            wx = self.W(x)
            out = torch.zeros(wx.shape[0], wx.shape[2], dtype=wx.dtype, device=wx.device)
            for t in range(wx.shape[1]):
                out = out + wx[:, t, :]
            return out

    class TinySNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.snn = nn.ModuleList([LIFLayer(20, 24), SimpleReadout(24, 200)])

        @torch.jit.export
        def features(self, x):
            x = x.squeeze().permute(0, 2, 1)  # MFCC (batch, 20, frames) -> (batch, frames, 20)
            return self.snn[0](x)

        def forward(self, x):
            return self.snn[1](self.features(x))

    return TinyM5, TinySNN


def make_network(kind, seed):
    import torch
    TinyM5, TinySNN = networks()
    torch.manual_seed(seed)
    net = TinyM5() if kind == "cnn" else TinySNN()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.uniform_(-20, 20)
                m.running_var.uniform_(50, 400)
            if isinstance(m, torch.nn.Linear) and kind == "snn" and m.out_features == 24:
                m.weight.mul_(0.05)  # MFCCs are large: a layer that spikes, but not always
    return net.eval()


def write_config(path, kind, model, root, seed, draws):
    config = {
        "model": model,
        "dataset": {"kind": "mswc", "path": root, "subset": "base", "procedure": "testing"},
        "batch_size": BATCH,
        "pre": [{"name": "MFCCPreProcessor", "options": MFCC}],
        "static": ["Footprint", "ConnectionSparsity"],
        "workload": ["ClassificationAccuracy", "ActivationSparsity", "SynapticOperations"],
        "quiet": True,
        "fscil": {
            "features": "features",
            "readout": "output" if kind == "cnn" else "snn.1.W",
            "base_classes": 100,
            "prototypes": {"kind": "mswc", "path": root, "subset": "base",
                           "procedure": "training"},
            "seed": seed, "k_shot": K_SHOT, "query_shots": QUERY_SHOTS,
            "support_pool": 100, "query_pool": 100, "languages": SESSION_LANGUAGES,
            "write_draws": draws,
        },
    }
    if kind == "snn":
        config["activation_modules"] = ["ReLU", "Sigmoid", "LIFLayer"]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)


def write_prototypes(net, kind, data, targets, rows_of):
    """NeuroBench's example's arithmetic: sum / count, 2 * mean, -mean . mean (/ timesteps)."""
    import torch
    readout = net.output if kind == "cnn" else net.snn[1].W
    features = net.features(data)
    for class_id, rows in rows_of:
        if kind == "cnn":
            mean = torch.sum(features[rows], dim=0) / len(rows)
            readout.weight.data[class_id] = 2 * mean
            readout.bias.data[class_id] = -torch.matmul(mean, mean.t())
        else:
            mean = torch.sum(features[rows], dim=[0, 1]) / len(rows)
            readout.weight.data[class_id] = 2 * mean
            readout.bias.data[class_id] = -torch.matmul(mean, mean.t()) / features.shape[1]


def neurobench_run(net, kind, root, draws):
    """The protocol with NeuroBench's own classes; returns a list of per-session dicts."""
    import torch
    import torch.nn.functional as F
    from torch.utils.data import ConcatDataset, DataLoader
    from neurobench.benchmarks import Benchmark
    from neurobench.datasets import MSWC_IncrementalLoader as loader
    from neurobench.datasets.MSWC_dataset import MSWC
    from neurobench.metrics.static import ConnectionSparsity, Footprint
    from neurobench.metrics.workload import (ActivationSparsity, ClassificationAccuracy,
                                             SynapticOperations)
    from neurobench.models import TorchModel
    from neurobench.processors.preprocessors import MFCCPreProcessor

    encode = MFCCPreProcessor(**MFCC)

    def squeeze_in(d):
        return (d[0].squeeze(), d[1])

    def post(mask):
        return [lambda s: s - mask, lambda s: F.softmax(s), lambda s: torch.argmax(s, dim=-1),
                lambda s: torch.squeeze(s)]

    model = TorchModel(net)
    if kind == "snn":
        model.add_activation_module(type(net.snn[0]))
    with torch.no_grad():
        # Base prototypes: each class's training clips as one batch (the example's batches of
        # 500 are one class each in NeuroBench's release).
        base_train = MSWC(root=root, subset="base", procedure="training")
        labels = [int(base_train[i][1]) for i in range(len(base_train))]
        for c in dict.fromkeys(labels):
            idx = [i for i, y in enumerate(labels) if y == c]
            x = torch.stack([base_train[i][0] for i in idx])
            y = torch.tensor([labels[i] for i in idx])
            x, y = encode((x, y))
            write_prototypes(net, kind, x.squeeze(), y, [(c, list(range(len(idx))))])
    base_test = MSWC(root=root, subset="base", procedure="testing")
    bench = Benchmark(model, metric_list=[[Footprint, ConnectionSparsity],
                                          [ClassificationAccuracy, ActivationSparsity,
                                           SynapticOperations]],
                      dataloader=DataLoader(base_test, batch_size=BATCH),
                      preprocessors=[encode, squeeze_in], postprocessors=[])
    mask = torch.full((200,), float("inf"))
    mask[torch.arange(0, 100, dtype=int)] = 0
    sessions = [{"all": bench.run(quiet=True, postprocessors=post(mask)), "new": None}]

    rows = {}
    for lang in draws["languages"]:
        walker = MSWC(root=root, subset="evaluation", language=lang)._walker
        rows[lang] = {p: i for i, (p, _, _) in enumerate(walker)}
    replay = check_mswc.Replay(draws, rows)
    few_shot = loader.IncrementalFewShot(
        k_shot=draws["k_shot"], root=root, inc_languages=draws["languages"],
        query_shots=draws["query_shots"], support_query_split=tuple(draws["support_query_split"]))
    saved = (loader.random, loader.np)
    try:
        loader.random = types.SimpleNamespace(sample=replay.sample)
        loader.np = types.SimpleNamespace(random=types.SimpleNamespace(choice=replay.choice))
        for support, query, query_classes in few_shot:
            bench_new = Benchmark(model, metric_list=[[], [ClassificationAccuracy]],
                                  dataloader=None, preprocessors=[encode, squeeze_in],
                                  postprocessors=[])
            data = torch.cat([x for x, _ in support])
            target = torch.cat([y for _, y in support])
            y_shot = support[-1][1]
            data, target = encode((data, target))
            ways = len(y_shot)
            with torch.no_grad():
                write_prototypes(net, kind, data.squeeze(), target,
                                 [(c, [i * ways + index for i in range(K_SHOT)])
                                  for index, c in enumerate(y_shot.tolist())])
            classes = torch.cat((torch.arange(0, 100, dtype=int), torch.IntTensor(query_classes)))
            mask = torch.full((200,), float("inf"))
            mask[classes] = 0
            model.reset_hooks()  # correction 2 (docs/fscil.md): no activations of other passes
            full = DataLoader(ConcatDataset([base_test, query]), batch_size=BATCH)
            r_all = bench.run(quiet=True, dataloader=full, postprocessors=post(mask))
            r_new = bench_new.run(quiet=True, dataloader=DataLoader(query, batch_size=BATCH),
                                  postprocessors=post(mask))
            sessions.append({"all": r_all, "new": r_new["ClassificationAccuracy"]})
    finally:
        loader.random, loader.np = saved
    if replay.problems or replay.calls:
        raise RuntimeError(f"the draws replay went wrong: {replay.problems}, "
                           f"{len(replay.calls)} draws left")
    return sessions


def close(a, b, integer):
    if a is None or b is None:
        return a is None and b is None
    if integer:
        return float(a) == float(b)
    return abs(float(a) - float(b)) <= 1e-6 * max(abs(float(a)), abs(float(b))) or a == b


def compare(ours, theirs, kind):
    problems = []
    sessions = ours["_fscil"]["sessions"]
    if len(sessions) != len(theirs):
        return [f"{len(sessions)} sessions, NeuroBench {len(theirs)}"]
    for s, t in zip(sessions, theirs):
        v, r = s["values"], t["all"]
        pairs = [("ClassificationAccuracy", v["ClassificationAccuracy"],
                  r["ClassificationAccuracy"], False),
                 ("ActivationSparsity", v["ActivationSparsity"], r["ActivationSparsity"], False),
                 ("Footprint", v["Footprint"], r["Footprint"], True),
                 ("ConnectionSparsity", v["ConnectionSparsity"], r["ConnectionSparsity"], False),
                 ("new classes accuracy", s["new_classes_accuracy"], t["new"], False)]
        for key in ("Dense", "Effective_MACs", "Effective_ACs"):
            pairs.append((f"SynapticOperations.{key}", v["SynapticOperations"][key],
                          r["SynapticOperations"][key], False))
        for name, a, b, integer in pairs:
            if not close(a, b, integer):
                problems.append(f"{kind} session {s['session']} ({s['name']}): {name} ours {a!r}, "
                                f"NeuroBench {b!r}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--neurobench", required=True, help="the neurobench command")
    parser.add_argument("--work", help="a folder for the release (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    check_mswc.setup()
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    sys.path[:0] = [os.path.join(tp, "snntorch")]
    try:
        import snntorch  # noqa: F401  (NeuroBench's Benchmark imports it)
    except ImportError as e:
        print(f"skipped: {e}")
        return check_mswc.SKIP
    import numpy as np
    import torch
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    work = args.work or tempfile.mkdtemp(prefix="nb_fscil_")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    root = os.path.join(work, "root")
    check_mswc.make_release(root, rng)
    torch.set_num_threads(1)
    problems = []
    for kind in ("cnn", "snn"):
        net = make_network(kind, seed + (kind == "snn"))
        model = os.path.join(work, f"{kind}.pt")
        torch.jit.script(copy.deepcopy(net)).save(model)
        config = os.path.join(work, f"{kind}.json")
        draws = os.path.join(work, f"{kind}_draws.json")
        out = os.path.join(work, f"{kind}_results.json")
        write_config(config, kind, model, root, int(rng.integers(0, 2**63)), draws)
        r = subprocess.run([args.neurobench, "fscil", config, "--json", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"{kind}: neurobench fscil failed ({r.returncode}): {r.stderr.strip()}")
            continue
        print(r.stdout.rstrip())
        with open(out, encoding="utf-8") as f:
            ours = json.load(f)
        with open(draws, encoding="utf-8") as f:
            drawn = json.load(f)
        theirs = neurobench_run(net, kind, root, drawn)
        found = compare(ours, theirs, kind)
        problems += found
        print(f"{'FAIL' if found else 'ok':4} {kind}: {len(theirs)} sessions, every accuracy and "
              "metric as NeuroBench's")
    for p in problems:
        print("     " + p)
    if not args.work:
        shutil.rmtree(work)
    print("all equal" if not problems else "DIFFERENCES FOUND")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
