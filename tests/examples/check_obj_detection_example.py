#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's event-camera object detection end to end, against Python NeuroBench run beside
it: `neurobench run examples/obj_detection/red_{ann,hybrid}.json --model
examples/obj_detection/models/{ann,hybrid}_small.pt --dataset gen4-detection:FOLDER --subset
test` (the configs' metrics CocoMap, ActivationSparsity, SynapticOperations, post-processor
BoxNms, activation modules) on a small synthetic release, and on the same folder:

- the batches of tests/datasets/gen4_reference.py (our NumPy statement of metavision's
  SequentialDataLoader as NeuroBench's Gen4DetectionDataLoader configures it);
- NeuroBench's Benchmark with its Footprint, ConnectionSparsity, ActivationSparsity and
  SynapticOperations on the eager network of examples/obj_detection/networks.py (make_models.py's
  seeds: the committed files' weights, which check_models.py checks), whose __call__ resets the
  slots where a recording starts (all at the first batch) before the forward, as
  neurobench-cpp's passes do, and whose __net__() is the backbone alone, as NeuroBench's
  ObjDetectionModel's is, against `neurobench run --metrics-scope net`; once, with the whole
  detector as __net__(), against `--metrics-scope ''` (the head measured too);
- the detections of tests/processors/box_nms_reference.py (our statement of metavision's
  Anchors.decode after the box deltas, on torchvision's batched_nms) and the mAP of
  tests/metrics/coco_map_reference.py (NeuroBench's CocoMap and metavision's CocoEvaluator
  around the carried pycocotools' COCOeval: NeuroBench's CocoMap itself needs metavision).

Integers equal, every other number to 1e-6 relative (the twelve COCO figures, footprint,
connection sparsity, activation sparsity, the three synaptic operation counts). Then the no-reset models (make_models.py
--no-reset: NeuroBench's example, which never resets the state) against the same Python run
without resets, and a sharded run of 2 ranks (started as torchrun starts them), whose second
rank resets every slot at its first batch, against the Python run resetting there too.

  /usr/bin/python3 tests/examples/check_obj_detection_example.py --cli build/release/neurobench

Needs Debian's python3-torch, -torchvision, -numpy, -h5py, -tqdm and snnTorch and NeuroBench in
../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without.
"""
import argparse
import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(ROOT, "examples", "obj_detection")
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402

TOLERANCE = 1e-6
# The synthetic release: 5 recordings of different lengths (in bins of 50 ms; a batch is 12:
# the partial last batch is never read) in 2 slots: slot 0 reads recordings 0, 2, 4 from batches
# 0, 2, 5; slot 1 recordings 1, 3 from batches 0, 3, then padding from batch 4.
BINS = [30, 40, 41, 12, 26]
OPTIONS = dict(batch_size=2, num_tbins=12, delta_t=50000, channels=2, height=96, width=128)


def setup():
    reference_results.third_party(ROOT)
    sys.path[:0] = [EXAMPLE, os.path.join(ROOT, "tests", "datasets"),
                    os.path.join(ROOT, "tests", "metrics"), os.path.join(ROOT, "tests",
                                                                          "processors")]
    reference_results.require(["numpy", "torch", "tqdm", "h5py", "torchvision"],
                              "python3-torch, -torchvision, -numpy, -h5py, -tqdm")


def write_release(folder, seed):
    """Dense histograms (every bin busy, so that no two anchors of a frame tie in score) and
    boxes large enough to pass metavision's filters, of every class, several per time stamp, at
    2x the histograms' scale (the sensor, given by `shift`)."""
    import h5py
    import numpy as np
    from check_gen4_detection import BBOX_DTYPE
    rng = np.random.default_rng(seed)
    test = os.path.join(folder, "test")
    os.makedirs(test, exist_ok=True)
    c, h, w, dt = OPTIONS["channels"], OPTIONS["height"], OPTIONS["width"], OPTIONS["delta_t"]
    for i, bins in enumerate(BINS):
        counts = rng.integers(0, 6, size=(bins, c, h, w)).astype(np.uint8)
        path = os.path.join(test, f"rec_{i:02d}.h5")
        with h5py.File(path, "w") as f:
            d = f.create_dataset("data", data=counts)
            d.attrs["delta_t"] = np.uint32(dt)
            d.attrs["mode"] = "delta_t"
            d.attrs["shift"] = 1
        boxes = []
        for k in range(bins):
            t = k * dt + int(rng.integers(1, dt))
            for _ in range(int(rng.integers(0, 4))):
                bw, bh = rng.uniform(45, 100), rng.uniform(38, 94)  # COCO medium and large
                x, y = rng.uniform(-10, w - bw + 10), rng.uniform(-10, h - bh + 10)
                boxes.append((t, 2 * x, 2 * y, 2 * bw, 2 * bh, rng.integers(0, 7), rng.random(),
                              rng.integers(0, 100)))
        np.save(path[:-3] + "_bbox.npy", np.array(boxes, dtype=BBOX_DTYPE))
    return folder


def reference_batches(folder):
    import h5py
    import gen4_reference
    o = OPTIONS
    return list(gen4_reference.batches(folder, "test", h5py, o["batch_size"], o["num_tbins"],
                                       o["delta_t"], o["channels"], (o["height"], o["width"])))


def neurobench_results(kind, batches, reset, firsts=(0,), backbone=True):
    """NeuroBench's Benchmark (Footprint, ConnectionSparsity, ActivationSparsity,
    SynapticOperations), the detections of box_nms_reference.decode and their mAP by
    coco_map_reference. With `reset`, the model resets the slots where a recording starts
    before each forward, and every slot at the batches `firsts` (the first of each rank's
    shard). With `backbone`, __net__() is the network without the box head and the anchor
    decoding (NeuroBench's ObjDetectionModel); else the whole detector."""
    import numpy as np
    import torch
    import box_nms_reference
    import coco_map_reference
    import make_models
    import networks
    from neurobench.benchmarks import Benchmark
    from neurobench.metrics.static import ConnectionSparsity, Footprint
    from neurobench.metrics.workload import ActivationSparsity, SynapticOperations
    from neurobench.models import NeuroBenchModel
    from check_coco_map import coco_module, cocoeval_module

    net = make_models.untrained(kind, "small")
    masks = iter([torch.ones(len(b["padding"]), dtype=torch.bool) if i in firsts
                  else torch.from_numpy(b["starts_recording"]) for i, b in enumerate(batches)])

    class Detector(NeuroBenchModel):
        def __init__(self):
            super().__init__()
            self.net = net

        def __call__(self, data):
            mask = next(masks)
            if reset:
                self.net.reset_slots(mask)
            return self.net(data)

        def __net__(self):
            # NeuroBench's ObjDetectionModel: "returns only network, not box_coder and head"
            return self.net.net if backbone else self.net

    detections = []

    def post(preds):
        out = box_nms_reference.decode(preds)
        detections.append(out)
        return out

    class Loader:
        dataset = range(sum(len(b["padding"]) for b in batches))

        def __len__(self):
            return len(batches)

        def __iter__(self):
            return iter((torch.from_numpy(b["data"]), torch.from_numpy(b["targets"]))
                        for b in batches)

    model = Detector()
    model.add_activation_module(networks.LIFNode)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        res = Benchmark(model, Loader(), [], [post],
                        [[Footprint, ConnectionSparsity],
                         [ActivationSparsity, SynapticOperations]]).run(verbose=False)
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    coco = coco_map_reference.NeuroBenchCocoMap()
    for b, d in zip(batches, detections):
        coco.update(dict(b, preds=d.numpy().astype(np.float32)))
    with contextlib.redirect_stdout(io.StringIO()):
        res["CocoMap"] = coco.compute(coco_module, cocoeval_module)
    res = reference_results.plain(res)
    res["detections"] = sum(len(d) for d in detections)
    return res


def cli_results(cli, model, folder, work, name, scope, ranks=1):
    """`neurobench run` with the example's config and `--metrics-scope scope`; with ranks > 1
    a sharded run, its processes started here as torchrun would (WORLD_SIZE, RANK,
    MASTER_ADDR, MASTER_PORT)."""
    out = os.path.join(work, f"{name}.json")
    options = ",".join(f"{k}={v}" for k, v in OPTIONS.items())
    config = os.path.join(EXAMPLE, f"red_{name.split('_')[0]}.json")
    cmd = [cli, "run", config, "--model", model, "--dataset", f"gen4-detection:{folder}",
           "--subset", "test", "--dataset-options", options, "--metrics-scope", scope,
           "--json", out, "--quiet"]
    if ranks == 1:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        if r.returncode != 0:
            raise RuntimeError(f"neurobench run exited {r.returncode}: {r.stderr[-1500:]}")
    else:
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        procs = []
        for rank in range(ranks):
            env = dict(os.environ, WORLD_SIZE=str(ranks), RANK=str(rank), LOCAL_RANK=str(rank),
                       LOCAL_WORLD_SIZE=str(ranks), MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=str(port))
            procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
        for rank, p in enumerate(procs):
            _, err = p.communicate(timeout=1200)
            if p.returncode != 0:
                raise RuntimeError(f"neurobench run (rank {rank} of {ranks}) exited "
                                   f"{p.returncode}: {err[-1500:]}")
    with open(out) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    setup()
    import torch
    torch.set_num_threads(1)
    work = a.work or tempfile.mkdtemp(prefix="nb_obj_detection_example_")
    os.makedirs(work, exist_ok=True)
    folder = os.path.join(work, "release")
    if os.path.isdir(folder):
        import shutil
        shutil.rmtree(folder)
    write_release(folder, a.seed)
    batches = reference_batches(folder)
    restarts = sum(int(b["starts_recording"].sum()) for b in batches)
    boxes = sum(len(b["targets"]) for b in batches)
    print(f"release: {len(BINS)} recordings, {len(batches)} batches of "
          f"{OPTIONS['batch_size']} slots, {restarts} recording starts, {boxes} boxes")
    # (kind, reset, ranks, metrics scope): a sharded run of 2 ranks resets every slot at rank
    # 1's first batch too, batch 7 * 1 // 2 = 3, where slot 0 is in the middle of recording 2.
    # The scope `net` is NeuroBench's __net__(), the backbone; '' the whole detector.
    runs = [("ann", True, 1, "net"), ("hybrid", True, 1, "net"), ("ann", False, 1, ""),
            ("hybrid", False, 1, "net"), ("hybrid", True, 2, "net")]
    failed = 0
    for kind, reset, ranks, scope in runs:
        if reset:
            model = os.path.join(EXAMPLE, "models", f"{kind}_small.pt")
        else:
            model = os.path.join(work, f"{kind}_small_no_reset.pt")
            if not os.path.exists(model):
                subprocess.run([sys.executable, os.path.join(EXAMPLE, "make_models.py"),
                                "--no-reset", "--out", work], check=True,
                               capture_output=True)
        firsts = [len(batches) * r // ranks for r in range(ranks)]
        expected = neurobench_results(kind, batches, reset, firsts, backbone=scope == "net")
        detections = expected.pop("detections")
        got = cli_results(a.cli, model, folder, work,
                          f"{kind}_{'reset' if reset else 'kept'}_{ranks}", scope, ranks)
        bad, worst = reference_results.compare(expected, got, tolerance=TOLERANCE)
        recorded = got["_run"].get("metrics_scope", "")
        if recorded != scope:
            bad.append(f"_run.metrics_scope {recorded!r}, asked for {scope!r}")
        name = f"{kind} ({'backbone' if scope else 'whole detector'}, " + \
            f"{'reset per slot' if reset else 'never reset'}" + \
            (f", {ranks} ranks: all slots reset at batches {firsts})" if ranks > 1 else ")")
        if bad:
            failed += 1
            print(f"FAIL {name}:\n  " + "\n  ".join(bad))
        else:
            print(f"ok   {name}: {detections} detections, mAP {got['CocoMap']['mean_ap']:.6f}, "
                  f"footprint {got['Footprint']} bytes, "
                  f"activation sparsity {got['ActivationSparsity']:.6f}, effective MACs "
                  f"{got['SynapticOperations']['Effective_MACs']:.1f}, ACs "
                  f"{got['SynapticOperations']['Effective_ACs']:.1f}; largest relative "
                  f"difference {worst:.2e}")
    if failed:
        print(f"{failed} of {len(runs)} comparisons failed")
        return 1
    print(f"all {len(runs)} comparisons agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
