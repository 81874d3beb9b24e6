#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ Gen4 detection data set (the `gen4-detection` kind, through
neurobench_dump_dataset) with gen4_reference.py, our NumPy statement of metavision_ml's
SequentialDataLoader and load_boxes as NeuroBench's Gen4DetectionDataLoader configures them
(checked once by hand against metavision's code: see that file's CHECKED), batch by batch, bit
for bit, on synthetic releases it writes in the real formats:

  /usr/bin/python3 tests/datasets/check_gen4_detection.py \
      --tool build/release/tests/neurobench_dump_dataset --work /tmp/gen4_check

Each round writes a release (HDF5 histograms through h5py, `_bbox.npy` boxes with NumPy) of
recordings of different lengths (some shorter than a batch, so never read; slots that restart
at different batches; padding at the end), histograms stored as float32, as uint8 and as uint8
with store_as_uint8, sensor sizes given by event_input_* or by shift; boxes many per time stamp
(nms ties), overlapping, partly outside the frame, tiny, of every class, over empty histograms
in the first 0.5 s; and the four recordings NeuroBench skips. Small frames (the options'
height and width) keep it fast. Needs NumPy and h5py (Debian's python3-numpy, python3-h5py).
"""
import argparse
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import h5py
except ImportError as e:
    print(f"skipped: {e} (Debian's python3-numpy, python3-h5py)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen4_reference as ref  # noqa: E402

BBOX_DTYPE = np.dtype([("t", "<u8"), ("x", "<f4"), ("y", "<f4"), ("w", "<f4"), ("h", "<f4"),
                       ("class_id", "u1"), ("class_confidence", "<f4"), ("track_id", "<u4")])


def write_recording(path, rng, bins, o, kind):
    """An .h5 of `bins` histograms and its boxes; `kind` picks the storage."""
    c, h, w = o["channels"], o["height"], o["width"]
    sparse = rng.random((bins, c, h, w)) < rng.choice([0.02, 0.3])
    counts = rng.integers(1, 6, size=(bins, c, h, w)) * sparse
    # whole early bins empty, so that boxes over them are dropped
    counts[: rng.integers(0, 4)] = 0
    attrs = {"delta_t": np.uint32(o["delta_t"]), "mode": "delta_t"}
    scale = int(rng.choice([1, 2, 4]))
    if rng.random() < 0.5:
        attrs.update(event_input_height=h * scale, event_input_width=w * scale)
    else:
        attrs["shift"] = int(np.log2(scale))
    if kind == "float32":
        values = (counts / 5.0).astype(np.float32)
    elif kind == "uint8":
        values = counts.astype(np.uint8)
    else:  # bytes standing for 0-1 values
        values = (counts * 51).astype(np.uint8)
        attrs["store_as_uint8"] = True
    with h5py.File(path, "w") as f:
        d = f.create_dataset("data", data=values)
        for k, v in attrs.items():
            d.attrs[k] = v
    sh, sw = h * scale, w * scale
    duration = bins * o["delta_t"]
    stamps = np.sort(rng.choice(np.arange(0, duration + 1), size=rng.integers(3, 12)))
    stamps = np.concatenate([stamps, [0, 25000, 50000, duration - 1]])  # bin edges
    stamps = stamps[(stamps >= 0) & (stamps < duration)]
    boxes = []
    for t in stamps:
        n = int(rng.choice([1, 3, 20, 40]))  # over 16 ties: NumPy's introsort partitions
        x = rng.uniform(-0.2 * sw, sw * 0.95, n)
        y = rng.uniform(-0.2 * sh, sh * 0.95, n)
        bw = rng.choice([2.5, 10, 40, 0.3 * sw, 0.9 * sw], n) * rng.uniform(0.5, 1.5, n)
        bh = rng.choice([2.5, 10, 40, 0.3 * sh, 0.9 * sh], n) * rng.uniform(0.5, 1.5, n)
        dup = rng.random(n) < 0.3  # near-copies: suppressed by nms
        x[1:][dup[1:]] = x[0] + 1
        y[1:][dup[1:]] = y[0]
        # keep each box touching the frame (boxes wholly outside are refused)
        x = np.minimum(x, sw - 1.0)
        y = np.minimum(y, sh - 1.0)
        bw = np.maximum(bw, -x + 1.0)
        bh = np.maximum(bh, -y + 1.0)
        for i in range(n):
            boxes.append((t, x[i], y[i], bw[i], bh[i], rng.integers(0, 7), rng.random(),
                          rng.integers(0, 100)))
    arr = np.array(boxes, dtype=BBOX_DTYPE)
    rng.shuffle(arr)  # the loader sorts them
    np.save(path[:-3] + "_bbox.npy", arr)


def write_release(folder, rng, o):
    for subset in ("train", "val", "test"):
        os.makedirs(os.path.join(folder, subset))
    n = int(rng.integers(3, 9))
    tb = o["num_tbins"]
    kind = str(rng.choice(["float32", "uint8", "bytes"]))
    for i in range(n):
        bins = int(rng.choice([tb - 1, tb, 2 * tb + 3, 3 * tb, 5 * tb - 1, 7 * tb]))
        write_recording(os.path.join(folder, "test", f"rec_{i:02d}.h5"), rng, bins, o, kind)
    # NeuroBench's skipped recordings: no boxes files; the loader must not read them
    for name in ref.SKIPPED[: int(rng.integers(0, 5))]:
        with h5py.File(os.path.join(folder, "test", name), "w") as f:
            f.create_dataset("data", data=np.zeros((1, 1, 1, 1), np.uint8))
    write_recording(os.path.join(folder, "val", "only.h5"), rng, 2 * tb, o, kind)


def compare(folder, tool, out, o, subset):
    opts = ",".join(f"{k}={v}" for k, v in
                    dict(subset=subset, batch_size=o["batch_size"], num_tbins=o["num_tbins"],
                         delta_t=o["delta_t"], channels=o["channels"], height=o["height"],
                         width=o["width"], min_box_diag=o["min_box_diag"]).items())
    r = subprocess.run([tool, f"gen4-detection:{folder}", out, opts], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL: {tool} exited {r.returncode}: {r.stderr}")
    got = np.load(out)
    expected = list(ref.batches(folder, subset, h5py, o["batch_size"], o["num_tbins"],
                                o["delta_t"], o["channels"], (o["height"], o["width"]),
                                o["min_box_diag"]))
    n = sum(1 for k in got.files if k.startswith("data_"))
    if n != len(expected):
        raise SystemExit(f"FAIL: {n} batches, expected {len(expected)}")
    boxes = 0
    for b, e in enumerate(expected):
        for key, value in e.items():
            mine = got[f"{key}_{b}"]
            if mine.dtype != value.dtype or mine.shape != value.shape or \
                    not np.array_equal(mine, value):
                raise SystemExit(f"FAIL: batch {b} '{key}': {mine.dtype} {mine.shape} vs "
                                 f"{value.dtype} {value.shape}\n{mine}\n{value}")
        boxes += len(e["targets"])
    restarts = sum(int(e["starts_recording"].sum()) for e in expected)
    # How many batches' boxes would differ if nms ordered tied times stably: the data must
    # exercise NumPy's introsort, which the C++ reproduces.
    ref.ARGSORT_KIND = "stable"
    stable = list(ref.batches(folder, subset, h5py, o["batch_size"], o["num_tbins"], o["delta_t"],
                              o["channels"], (o["height"], o["width"]), o["min_box_diag"]))
    ref.ARGSORT_KIND = "quicksort"
    tie_sensitive = sum(1 for e, s in zip(expected, stable)
                        if not np.array_equal(e["targets"], s["targets"]))
    return len(expected), boxes, restarts, tie_sensitive


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tool", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--rounds", type=int, default=8)
    args = p.parse_args()
    rng = np.random.default_rng(2701)
    tie_sensitive = 0
    for round_ in range(args.rounds):
        o = {"batch_size": int(rng.choice([1, 2, 3, 3, 4, 4])), "num_tbins": int(rng.choice([3, 12])),
             "delta_t": int(rng.choice([50000, 20000, 70000])), "channels": 2,
             "height": int(rng.choice([9, 18])), "width": 32, "min_box_diag": 4}
        if round_ == 0:  # NeuroBench's batches (small frames)
            o.update(batch_size=4, num_tbins=12, delta_t=50000)
        folder = os.path.join(args.work, f"release_{round_}")
        shutil.rmtree(folder, ignore_errors=True)
        write_release(folder, rng, o)
        for subset in ("test", "val"):
            n, boxes, restarts, ties = compare(folder, args.tool, folder + f"_{subset}.npz", o,
                                               subset)
            tie_sensitive += ties
            print(f"round {round_} {subset}: {n} batches, {boxes} boxes, {restarts} recording "
                  f"starts ({ties} batches whose boxes depend on the order of ties), options "
                  f"{o}: identical")
    if tie_sensitive == 0:
        raise SystemExit("FAIL: no batch's boxes depend on nms's order of tied times; the data "
                         "do not test it")
    print("OK")


if __name__ == "__main__":
    main()
