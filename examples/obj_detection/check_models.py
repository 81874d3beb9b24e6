#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the committed TorchScript detectors (models/ann_small.pt, models/hybrid_small.pt)
against the eager networks of networks.py that make_models.py builds from its seeds (ctest
example_obj_detection_models, label reference):

- every parameter and buffer of each file equals the eager network's, bit for bit (the files
  are what make_models.py writes);
- on 4 consecutive batches, on two frame sizes, with reset_slots(starts_recording) before each
  forward as neurobench-cpp calls it (all slots at the first batch, then one slot at a time),
  the file's outputs (B, T, N, 7) equal the eager network's to 1e-6 (relative to the largest
  value: in practice they are equal);
- a slot reset mid-run gives that slot what a fresh network gives on its batch alone, to 1e-6
  of the largest value (its state is zeroed), and the other slot does not (its state is kept), and the same model with
  reset_at_recording_start False (NeuroBench's no-reset behaviour) does not;
- NeuroBench's full-size networks (cin 6, base 16, cout 256) have NeuroBench's published
  footprints (benchmark.py: 91314912 bytes for the ANN, 12133872 for the hybrid), which are
  their backbones' (NeuroBench's __net__() leaves the box head out), and script; the whole
  detectors add the head's 5163200 bytes and the anchor sizes' 240;
- with --cli, `neurobench run --metrics-scope net --static Footprint` on the full-size
  TorchScript files gives those published footprints exactly, and without the scope the whole
  detector's.

    /usr/bin/python3 examples/obj_detection/check_models.py [--cli NEUROBENCH]
                     [--neurobench-dense]

With --neurobench-dense (minutes on a CPU, needs NeuroBench and snnTorch in
../shared/third_party): NeuroBench's own SynapticOperations on the full-size backbones gives
NeuroBench's published Dense counts (284070730752 and 98513107968 per sample), and with --cli
too, so does `neurobench run --metrics-scope net --workload SynapticOperations` on the
full-size TorchScript files, for one sample of 12 bins of 6 x 360 x 640.
"""
import copy
import os
import sys

try:
    import torch
except ImportError as e:
    print(f"skipped: {e} (Debian's python3-torch)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import make_models  # noqa: E402
import networks  # noqa: E402

FOOTPRINTS = {"ann": 91314912, "hybrid": 12133872}  # NeuroBench's benchmark.py, batch 4
HEAD_BYTES = 5163200 + 240  # BoxHead(256, 6, 4): 1290800 float32 parameters; 60 anchor sizes


def fail(message):
    raise SystemExit(f"FAIL: {message}")


def close(a, b, tolerance):
    """max |a - b| within tolerance x the largest |b| (at least 1): box corners near 0 come out
    of differences of values of hundreds of pixels, whose rounding they inherit."""
    return float((a - b).abs().max()) <= tolerance * max(1.0, float(b.abs().max()))


def batches(cin, h, w, seed):
    g = torch.Generator().manual_seed(seed)
    data = [(torch.rand(2, 3, cin, h, w, generator=g) < 0.3).float() *
            torch.randint(1, 6, (2, 3, cin, h, w), generator=g).float() for _ in range(4)]
    masks = [torch.tensor([True, True]), torch.tensor([False, False]),
             torch.tensor([False, True]), torch.tensor([True, False])]
    return data, masks


def check_small(kind):
    path = os.path.join(HERE, "models", f"{kind}_small.pt")
    scripted = torch.jit.load(path)
    eager = make_models.untrained(kind, "small")
    mine = dict(scripted.named_parameters())
    mine.update(dict(scripted.named_buffers()))
    theirs = dict(eager.named_parameters())
    theirs.update(dict(eager.named_buffers()))
    if sorted(mine) != sorted(theirs):
        fail(f"{path}: tensors {sorted(set(mine) ^ set(theirs))} differ between file and network")
    for name, value in theirs.items():
        if not torch.equal(mine[name], value):
            fail(f"{path}: {name} differs from make_models.py's network")
    if not scripted.reset_at_recording_start:
        fail(f"{path}: reset_at_recording_start is False")
    cin = make_models.SIZES["small"]["cin"]
    for (h, w), seed in (((64, 64), 11), ((96, 128), 12)):
        data, masks = batches(cin, h, w, seed)
        a = make_models.run(copy.deepcopy(eager), data, masks)
        b = make_models.run(copy.deepcopy(scripted), data, masks)
        for i, (x, y) in enumerate(zip(a, b)):
            if x.shape != (2, 3, y.shape[2], 7) or x.shape != y.shape:
                fail(f"{path}: batch {i} shapes {tuple(x.shape)} vs {tuple(y.shape)}")
            if not close(y, x, 1e-6):
                fail(f"{path}: {h}x{w} batch {i}: script vs eager differ by "
                     f"{float((x - y).abs().max())}")
        # Batch 2 resets slot 1: it sees what a fresh network sees on its data alone.
        with torch.no_grad():
            fresh = copy.deepcopy(eager)(data[2][1:2])
        # (batch 1 or 2 changes the convolutions' rounding: 1e-6 relative)
        if not close(b[2][1:2], fresh, 1e-6):
            fail(f"{path}: slot 1 after its reset differs from a fresh network")
        with torch.no_grad():
            alone = copy.deepcopy(eager)(data[2][0:1])
        if close(b[2][0:1], alone, 1e-4):
            fail(f"{path}: slot 0 kept no state across batches")
        no_reset = copy.deepcopy(scripted)
        no_reset.reset_at_recording_start = False
        c = make_models.run(no_reset, data, masks)
        if close(c[2][1:2], fresh, 1e-4):
            fail(f"{path}: with reset_at_recording_start False the state was still reset")
        print(f"{kind}_small.pt {h}x{w}: 4 batches equal the eager network; resets per slot")


def footprint_of(module):
    tensors = list(module.parameters()) + list(module.buffers())
    return sum(t.numel() * t.element_size() for t in tensors)


def check_full(kind, cli):
    model = make_models.untrained(kind, "full")
    footprint = footprint_of(model.net)
    if footprint != FOOTPRINTS[kind]:
        fail(f"full {kind}: footprint {footprint}, NeuroBench's is {FOOTPRINTS[kind]}")
    whole = footprint_of(model)
    if whole != FOOTPRINTS[kind] + HEAD_BYTES:
        fail(f"full {kind}: the whole detector's footprint {whole}, expected "
             f"{FOOTPRINTS[kind] + HEAD_BYTES}")
    scripted = torch.jit.script(model)
    print(f"full {kind}: backbone footprint {footprint} bytes, as NeuroBench's; whole detector "
          f"{whole}; scripts")
    if cli:
        check_full_cli(kind, scripted, cli)


def check_full_cli(kind, scripted, cli, dense=False):
    """neurobench run's Footprint of the full-size file, with the metrics scope `net` (the
    backbone, NeuroBench's __net__()) and without (the whole detector), on one 128 x 128 bin.
    With `dense`, on one sample of 12 bins of 6 x 360 x 640 instead, and SynapticOperations'
    Dense count with the scope is NeuroBench's published one (half a minute on a CPU)."""
    import json
    import subprocess
    import tempfile
    import numpy as np
    with tempfile.TemporaryDirectory(prefix="nb_obj_detection_full_") as work:
        model = os.path.join(work, f"{kind}.pt")
        scripted.save(model)
        data = os.path.join(work, "one.npz")
        shape = (1, 12, 6, 360, 640) if dense else (1, 1, 6, 128, 128)
        np.savez(data, data=np.zeros(shape, np.float32), targets=np.zeros((1,), np.float32))
        runs = [("net", FOOTPRINTS[kind])]
        if not dense:
            runs.append(("", FOOTPRINTS[kind] + HEAD_BYTES))
        for scope, expected in runs:
            out = os.path.join(work, "r.json")
            metrics = ["--workload", "SynapticOperations", "--threads", "2"] if dense else []
            r = subprocess.run([cli, "run", "--model", model, "--data", data, "--static",
                                "Footprint", "--metrics-scope", scope, "--batch-size", "1",
                                "--json", out, "--quiet"] + metrics, capture_output=True,
                               text=True)
            if r.returncode != 0:
                fail(f"full {kind}: neurobench run exited {r.returncode}: {r.stderr[-800:]}")
            with open(out) as f:
                got = json.load(f)
            if got["Footprint"] != expected or got["_run"].get("metrics_scope", "") != scope:
                fail(f"full {kind}: neurobench run --metrics-scope '{scope}': Footprint "
                     f"{got['Footprint']}, _run.metrics_scope "
                     f"{got['_run'].get('metrics_scope')!r}; expected {expected}")
            print(f"full {kind}: neurobench run --metrics-scope '{scope}': Footprint {expected}")
            if dense:
                got_dense = got["SynapticOperations"]["Dense"]
                if got_dense != DENSE[kind]:
                    fail(f"full {kind}: neurobench run --metrics-scope net: Dense {got_dense}, "
                         f"published {DENSE[kind]}")
                print(f"full {kind}: neurobench run --metrics-scope net: Dense per sample "
                      f"{int(got_dense)}, as published")


DENSE = {"ann": 284070730752, "hybrid": 98513107968}  # NeuroBench's benchmark.py, per sample


def check_dense(kind):
    """NeuroBench's SynapticOperations on the full-size backbone (NeuroBench's __net__) for one
    sample of 12 bins of 6 x 360 x 640: its Dense count is NeuroBench's published one (it does
    not depend on the weights or the data). Minutes on a CPU: only with --neurobench-dense."""
    import contextlib
    import io
    root = os.path.dirname(os.path.dirname(HERE))
    third_party = os.environ.get("NEUROBENCH_THIRD_PARTY") or os.path.join(root, "..", "shared",
                                                                          "third_party")
    sys.path[:0] = [os.path.join(third_party, p) for p in ("snntorch", "neurobench")]
    from neurobench.benchmarks import Benchmark
    from neurobench.metrics.workload import SynapticOperations
    from neurobench.models import NeuroBenchModel
    net = make_models.untrained(kind, "full").net

    class Backbone(NeuroBenchModel):
        def __call__(self, x):
            return net(x.permute(1, 0, 2, 3, 4))[0]

        def __net__(self):
            return net

    x = torch.rand(1, 12, 6, 360, 640, generator=torch.Generator().manual_seed(1))

    class Loader:
        dataset = range(1)

        def __len__(self):
            return 1

        def __iter__(self):
            return iter([(x, torch.zeros(1))])

    with torch.no_grad(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        res = Benchmark(Backbone(), Loader(), [], [], [[], [SynapticOperations]]).run()
    dense = res["SynapticOperations"]["Dense"]
    if dense != DENSE[kind]:
        fail(f"full {kind}: NeuroBench's SynapticOperations Dense {dense}, published {DENSE[kind]}")
    print(f"full {kind}: NeuroBench's Dense count per sample {int(dense)}, as published")


def main():
    torch.set_num_threads(1)
    args = sys.argv[1:]
    cli = args[args.index("--cli") + 1] if "--cli" in args else None
    for kind in ("ann", "hybrid"):
        check_small(kind)
        check_full(kind, cli)
    if "--neurobench-dense" in args:
        torch.set_num_threads(2)
        for kind in ("ann", "hybrid"):
            check_dense(kind)
            if cli:
                scripted = torch.jit.script(make_models.untrained(kind, "full"))
                check_full_cli(kind, scripted, cli, dense=True)
    print("OK")


if __name__ == "__main__":
    main()
