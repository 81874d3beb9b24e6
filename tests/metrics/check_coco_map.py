#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""CocoMap and its COCO evaluation against pycocotools' COCOeval, live (ctest label reference).

  check_coco_map.py --tool build/release/tests/neurobench_coco_map --work DIR

1. raw: metrics/coco_eval.cpp (through the tool's `raw` mode) against COCOeval run on the same
   boxes (tests/metrics/pycocotools: cocoapi's cocoeval.py and coco.py, a NumPy stand-in for the
   compiled IoU): stats, the whole precision (T, R, K, A, M) and recall (T, K, A, M) arrays, on
   random sets and adversarial ones: no detections, no ground truth for a category, crowds
   (iscrowd) and clusters of overlapping boxes, ties in score within and across images, areas on
   the 32^2 and 96^2 range bounds, over 100 detections in an image, empty images.
2. metric: the CocoMap metric (the tool's `metric` mode, batches as the gen4-detection data set
   makes them) against coco_map_reference.py, the NumPy statement of NeuroBench's CocoMap and
   metavision's CocoEvaluator run on the same COCOeval: recordings streaming through slots with
   padding, frames before 0.5 s, unlabeled frames (both settings), boxes with a diagonal of
   exactly 60 pixels, 32^2 and 96^2 areas, ties in score, delta_t under the 40 ms time
   tolerance (a detection in several images), float64 predictions, no detections, no batches,
   all frames skipped; and sharded: the batches split over 2 and 3 instances and merged.
Every number must equal the reference's to 1e-9 (they are equal in practice: same operations
in the same order). Exit 0 when all agree, 1 otherwise; 77 (skipped) without NumPy.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import types
from contextlib import redirect_stdout

try:
    import numpy as np
except ImportError:
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Shims for the copied pycocotools (pycocotools/README.md): coco.py imports matplotlib for
# drawing, which COCOeval never calls; NumPy 1.24 removed np.float, which cocoeval.py uses.
for _name in ("matplotlib", "matplotlib.pyplot", "matplotlib.collections", "matplotlib.patches"):
    _module = types.ModuleType(_name)
    _module.PatchCollection = _module.Polygon = None
    sys.modules.setdefault(_name, _module)
if not hasattr(np, "float"):
    np.float = float
from pycocotools import coco as coco_module  # noqa: E402
from pycocotools import cocoeval as cocoeval_module  # noqa: E402
import coco_map_reference as ref  # noqa: E402

TOL = 1e-9
failures = []


def run_tool(tool, mode, arrays, work, name, shards=1):
    npz = os.path.join(work, name + ".npz")
    out = os.path.join(work, name + ".json")
    np.savez(npz, **arrays)
    cmd = [tool, mode, npz, out] + ([str(shards)] if mode == "metric" else [])
    subprocess.run(cmd, check=True)
    with open(out) as f:
        return json.load(f)


def close(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and (a.size == 0 or float(np.max(np.abs(a - b))) <= TOL)


# ---------------------------------------------------------------- raw COCO evaluation

def cocoeval_raw(images, categories, gt, dt):
    """COCOeval on rows [image, category, x, y, w, h, area, iscrowd|score], image ids 1..n."""
    cats = [{"id": int(c)} for c in categories]
    imgs = [{"id": i + 1} for i in range(images)]
    anns = [{"id": k + 1, "image_id": int(r[0]) + 1, "category_id": int(r[1]),
             "bbox": [float(v) for v in r[2:6]], "area": float(r[6]), "iscrowd": int(r[7])}
            for k, r in enumerate(gt)]
    dets = [{"id": k + 1, "image_id": int(r[0]) + 1, "category_id": int(r[1]),
             "bbox": [float(v) for v in r[2:6]], "area": float(r[6]), "score": float(r[7]),
             "iscrowd": 0} for k, r in enumerate(dt)]
    cg = coco_module.COCO()
    cg.dataset = {"images": imgs, "annotations": anns, "categories": cats}
    cd = coco_module.COCO()
    cd.dataset = {"images": imgs, "annotations": dets, "categories": cats}
    with redirect_stdout(io.StringIO()):
        cg.createIndex()
        if dets:
            cd.createIndex()
        ev = cocoeval_module.COCOeval(cg, cd, "bbox")
        ev.params.imgIds = np.arange(1, images + 1, dtype=int)
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return ev


def random_boxes(rng, n, images, categories, crowd_rate=0.0, score=False, quantum=None):
    rows = np.zeros((n, 8))
    rows[:, 0] = rng.integers(0, images, n)
    rows[:, 1] = rng.choice(categories, n)
    rows[:, 2] = rng.uniform(0, 600, n)
    rows[:, 3] = rng.uniform(0, 330, n)
    rows[:, 4] = rng.choice([rng.uniform(1, 200), 32.0, 96.0, 16.0], n)
    rows[:, 5] = rng.choice([rng.uniform(1, 150), 32.0, 96.0, 64.0], n)
    rows[:, 4] += rng.uniform(0, 40, n) * (rng.random(n) < 0.5)
    rows[:, 6] = rows[:, 4] * rows[:, 5]
    if score:
        s = rng.random(n)
        rows[:, 7] = np.round(s / quantum) * quantum if quantum else s
    else:
        rows[:, 7] = rng.random(n) < crowd_rate
    return rows


def jitter(rng, gt, n, categories):
    """Detections near ground-truth boxes (plus some anywhere), so that IoUs spread 0..1."""
    if len(gt) == 0:
        return random_boxes(rng, n, 1, categories, score=True)
    rows = gt[rng.integers(0, len(gt), n)].copy()
    rows[:, 2:4] += rng.normal(0, 6, (n, 2))
    rows[:, 4:6] *= rng.uniform(0.7, 1.3, (n, 2))
    rows[:, 6] = rows[:, 4] * rows[:, 5]
    rows[:, 7] = np.round(rng.random(n) * 8) / 8  # ties in score
    return rows


def raw_cases(rng):
    cats = [1, 2, 3, 4]
    cases = []
    for k in range(12):
        images = int(rng.integers(1, 30))
        gt = random_boxes(rng, int(rng.integers(0, 80)), images, cats[:3], crowd_rate=0.1)
        dt = np.concatenate([jitter(rng, gt, int(rng.integers(0, 150)), cats),
                             random_boxes(rng, int(rng.integers(0, 40)), images, cats,
                                          score=True, quantum=0.25)])
        dt[:, 0] = np.minimum(dt[:, 0], images - 1)
        cases.append((f"random{k}", images, cats, gt, dt))
    gt = random_boxes(rng, 30, 5, cats)
    cases.append(("no_detections", 5, cats, gt, np.zeros((0, 8))))
    cases.append(("no_ground_truth", 5, cats, np.zeros((0, 8)), jitter(rng, gt, 40, cats)))
    cases.append(("nothing", 3, cats, np.zeros((0, 8)), np.zeros((0, 8))))
    # A crowd: 60 overlapping boxes on one spot, crowd annotations among them, equal scores.
    base = np.array([0, 2, 100, 100, 80, 60, 4800, 0], dtype=np.float64)
    crowd_gt = np.repeat(base[None], 25, 0)
    crowd_gt[:, 2:4] += rng.normal(0, 8, (25, 2))
    crowd_gt[::4, 7] = 1
    crowd_dt = np.repeat(base[None], 60, 0)
    crowd_dt[:, 2:4] += rng.normal(0, 10, (60, 2))
    crowd_dt[:, 7] = 0.5
    cases.append(("crowd", 1, cats, crowd_gt, crowd_dt))
    # Over 100 detections in one image (maxDets), ties across images.
    many = jitter(rng, crowd_gt, 250, cats)
    many[:, 0] = rng.integers(0, 2, 250)
    many[:, 7] = 0.75
    cases.append(("max_dets", 2, cats, crowd_gt, many))
    # Areas exactly on the range bounds, ground truth and detections.
    bounds = np.array([[0, 1, 10, 10, 32, 32, 1024, 0], [0, 1, 200, 100, 96, 96, 9216, 0],
                       [1, 3, 50, 50, 32, 32, 1024, 0], [1, 3, 300, 200, 96, 96, 9216, 0]])
    bdt = bounds.copy()
    bdt[:, 2] += 2
    bdt[:, 7] = [0.9, 0.8, 0.8, 0.9]
    cases.append(("area_bounds", 2, cats, bounds, bdt))
    return cases


def check_raw(tool, work, rng):
    for name, images, cats, gt, dt in raw_cases(rng):
        arrays = {"images": np.int64(images), "categories": np.array(cats, np.int64),
                  "gt": gt.reshape(-1, 8), "dt": dt.reshape(-1, 8)}
        ours = run_tool(tool, "raw", arrays, work, "raw_" + name)
        ev = cocoeval_raw(images, cats, gt.reshape(-1, 8), dt.reshape(-1, 8))
        ok = (close(ours["stats"], ev.stats) and
              close(np.array(ours["precision"]).reshape(ev.eval["precision"].shape),
                    ev.eval["precision"]) and
              close(np.array(ours["recall"]).reshape(ev.eval["recall"].shape),
                    ev.eval["recall"]) and
              close(ours["iou_thresholds"], ev.params.iouThrs) and
              close(ours["recall_thresholds"], ev.params.recThrs))
        print(f"raw {name}: {'ok' if ok else 'DIFFERENT'} mAP {ev.stats[0]:.6f}")
        if not ok:
            failures.append(f"raw {name}: ours {ours['stats']} COCOeval {list(ev.stats)}")


# ---------------------------------------------------------------- the metric

def make_batches(rng, recordings, slots, tbins, delta_t, dtype=np.float32, labeled_rate=0.7,
                 dets=True, start_offset=0):
    """Batches as a sequential loader streams recordings (lengths in batches) through slots."""
    queue = list(range(len(recordings)))
    current = [None] * slots  # [recording, batches left, position]
    batches = []
    while True:
        for i in range(slots):
            if current[i] is None or current[i][1] == 0:
                r = queue.pop(0) if queue else None
                current[i] = None if r is None else [r, recordings[r], 0]
        if all(c is None for c in current):
            break
        b = {"recording": np.zeros(slots, np.int64), "padding": np.zeros(slots, bool),
             "tbin_start_us": np.zeros(slots, np.int64),
             "delta_t_us": np.full(slots, delta_t, np.int64),
             "frame_is_labeled": rng.random((tbins, slots)) < labeled_rate}
        targets, preds = [], []
        for i, c in enumerate(current):
            if c is None:
                b["padding"][i] = True
                continue
            b["recording"][i] = 1000 + 7 * c[0]
            b["tbin_start_us"][i] = start_offset + c[2] * tbins * delta_t
            for t in range(tbins):
                for _ in range(int(rng.integers(0, 5))):
                    x, y = rng.uniform(0, 560), rng.uniform(0, 300)
                    w, h = rng.choice([(36.0, 48.0), (32.0, 32.0), (96.0, 96.0),
                                       (rng.uniform(20, 200), rng.uniform(20, 120))])
                    cls = int(rng.integers(1, 4))
                    targets.append([t, i, x, y, x + w, y + h, cls])
                    if dets:
                        for _ in range(int(rng.integers(0, 3))):
                            dx, dy = rng.normal(0, 5, 2)
                            s = rng.uniform(0.8, 1.2)
                            preds.append([t, i, x + dx, y + dy, x + dx + w * s, y + dy + h, cls,
                                          np.round(rng.random() * 10) / 10])
                if dets:
                    for _ in range(int(rng.integers(0, 3))):  # false positives, any class
                        x, y = rng.uniform(0, 560), rng.uniform(0, 300)
                        preds.append([t, i, x, y, x + rng.uniform(5, 150), y + rng.uniform(5, 90),
                                      int(rng.integers(0, 4)), np.round(rng.random() * 4) / 4])
            c[1] -= 1
            c[2] += 1
        b["targets"] = np.array(targets, np.float32).reshape(-1, 7)
        b["preds"] = np.array(preds, dtype).reshape(-1, 8)
        batches.append(b)
    return batches


def metric_arrays(batches, skip_unlabeled):
    arrays = {"batches": np.int64(len(batches)), "skip_unlabeled_frames": np.bool_(skip_unlabeled)}
    for k, b in enumerate(batches):
        for key, value in b.items():
            arrays[f"b{k}_{key}"] = value
    return arrays


def reference_value(batches, skip_unlabeled):
    m = ref.NeuroBenchCocoMap(skip_unlabeled)
    for b in batches:
        m.update(b)
    with redirect_stdout(io.StringIO()):
        return m.compute(coco_module, cocoeval_module)


def metric_cases(rng):
    cases = []
    for k in range(6):
        recs = [int(rng.integers(2, 9)) for _ in range(int(rng.integers(2, 7)))]
        cases.append((f"stream{k}", make_batches(rng, recs, int(rng.integers(1, 4)), 4, 50000),
                      bool(k % 2)))
    cases.append(("delta_t_under_tolerance", make_batches(rng, [6, 8, 10], 2, 6, 20000), False))
    cases.append(("float64_predictions",
                  make_batches(rng, [4, 5], 2, 4, 50000, dtype=np.float64), False))
    cases.append(("no_detections", make_batches(rng, [4, 4, 3], 2, 4, 50000, dets=False), False))
    cases.append(("all_skipped", make_batches(rng, [1, 1], 2, 4, 50000), False))
    cases.append(("no_batches", [], False))
    # Frames in skipped time only for some slots (start late), then time order broken: a
    # recording restarting at 0 after later frames, which both refuse.
    late = make_batches(rng, [3, 3], 2, 4, 50000, start_offset=300000)
    cases.append(("late_start", late, False))
    back = make_batches(rng, [5], 1, 4, 50000)
    back[4]["tbin_start_us"][:] = 500000  # after frames up to 750000 us
    cases.append(("back_in_time", back, False))
    return cases


def check_metric(tool, work, rng):
    for name, batches, skip in metric_cases(rng):
        try:
            expected = reference_value(batches, skip)
        except AssertionError:
            expected = None  # CocoEvaluator's time-order assertion
        for shards in (1, 2, 3):
            if shards > max(1, len(batches)):
                continue
            ours = run_tool(tool, "metric", metric_arrays(batches, skip), work,
                            f"metric_{name}_{shards}", shards)
            if expected is None:
                # Refused by the batch that goes back, or by the merge that would.
                ok = "error" in ours and ("back in time" in ours["error"] or
                                          "data order" in ours["error"])
            else:
                ok = "value" in ours and list(ours["value"]) == ref.STAT_KEYS and close(
                    [ours["value"][k] for k in ref.STAT_KEYS],
                    [expected[k] for k in ref.STAT_KEYS])
            print(f"metric {name} ({shards} shard{'s' if shards > 1 else ''}): "
                  f"{'ok' if ok else 'DIFFERENT'} "
                  f"{'error' if expected is None else 'mAP %.6f' % expected['mean_ap']}")
            if not ok:
                failures.append(f"metric {name} shards {shards}: ours {ours} expected {expected}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    check_raw(args.tool, args.work, rng)
    check_metric(args.tool, args.work, rng)
    if failures:
        print("\n".join(failures))
        return 1
    print("CocoMap: every number equals COCOeval's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
