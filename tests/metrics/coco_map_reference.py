# SPDX-License-Identifier: Apache-2.0
"""NumPy statement of NeuroBench's CocoMap and of what Prophesee's CocoEvaluator does around
pycocotools' COCOeval, for tests/metrics/check_coco_map.py.

metavision_ml is under Prophesee's licence and does not install here, so this is written
independently from reading neurobench/metrics/workload/coco_map.py (NeuroBench 2.x, in
../shared/third_party/neurobench) and metavision_ml/metrics/coco_eval.py and
metavision_ml/data/box_processing.py (metavision SDK 4.2.1's public copy). It was checked once by
hand against those two files run for real: tests/metrics/compare_with_metavision.py says how.

What it states, with the batches in neurobench-cpp's layout (targets (K, 7), predictions (M, 8),
extras per slot):
- coco_map.py __call__: for t, for slot: padding slots are left out; `frame_is_labeled[t, i] is
  False` never holds for a tensor element, so unlabeled frames stay (skip_unlabeled=True states
  NeuroBench 1.0.2's `== False`, which left them out); the recording is registered (with an
  empty array) before the 0.5 s skip; frames with ts < 500000 are skipped; each frame's boxes
  become EventBbox arrays (box_vectors_to_bboxes: w = x2 - x1 in the array's dtype, stored as
  float32) with t = ts, appended to the recording's lists.
- compute(): CocoEvaluator(classes=[background, pedestrian, two wheeler, car]).partial_eval of
  each recording's concatenated lists in registration order, then accumulate().
- partial_eval: _flatten_boxes_list (time stamps non-decreasing, asserted; all_ts = the sorted
  distinct t of both; per ts, ground truth at t == ts and detections within +/- time_tol =
  40000 us, as match_times walks them), _to_coco_format (image ids numbered on across calls,
  category class_id + 1, bbox [x, y, w, h] and area w * h of float32 values, iscrowd False),
  COCOeval(..., 'bbox') on the call's image ids, evaluate(); its evalImgs kept.
- accumulate: evalImgs of all calls concatenated per (category, area range) block (as
  _merge_eval_list does), params.imgIds = 1..images, COCOeval.accumulate(), summarize(); all -1
  when partial_eval was never called.
"""
import numpy as np

# metavision_sdk_core.EventBbox
EVENT_BBOX = np.dtype({
    "names": ["t", "x", "y", "w", "h", "class_id", "track_id", "class_confidence"],
    "formats": ["<i8", "<f4", "<f4", "<f4", "<f4", "<u4", "<u4", "<f4"],
    "offsets": [0, 8, 12, 16, 20, 24, 28, 32], "itemsize": 40})
SKIP_US = 500000
TIME_TOL = 40000
CLASSES = ["background", "pedestrian", "two wheeler", "car"]
STAT_KEYS = ["mean_ap", "mean_ap50", "mean_ap75", "mean_ap_small", "mean_ap_medium",
             "mean_ap_big", "mean_ar1", "mean_ar10", "mean_ar", "mean_ar_small",
             "mean_ar_medium", "mean_ar_big"]


def event_bboxes(boxes, labels, scores, ts):
    """box_vectors_to_bboxes(boxes (n, 4) x1 y1 x2 y2, labels, scores, ts)."""
    out = np.zeros((len(boxes),), dtype=EVENT_BBOX)
    out["t"] = ts
    out["x"] = boxes[:, 0]
    out["y"] = boxes[:, 1]
    out["w"] = boxes[:, 2] - boxes[:, 0]
    out["h"] = boxes[:, 3] - boxes[:, 1]
    out["class_confidence"] = np.zeros(len(boxes), np.float32) if scores is None else scores
    out["class_id"] = labels
    out["track_id"] = np.arange(len(boxes), dtype=np.uint32)
    return out


class NeuroBenchCocoMap:
    """coco_map.py's CocoMap on batches of dicts: preds, targets, recording, padding,
    tbin_start_us, delta_t_us, frame_is_labeled."""

    def __init__(self, skip_unlabeled=False):
        self.skip_unlabeled = skip_unlabeled
        self.dt = {}
        self.gt = {}

    def update(self, b):
        labeled = b["frame_is_labeled"]
        tbins, slots = labeled.shape
        preds, targets = b["preds"], b["targets"]
        for t in range(tbins):
            for i in range(slots):
                if b["padding"][i] or (self.skip_unlabeled and not labeled[t, i]):
                    continue
                name = int(b["recording"][i])
                self.dt.setdefault(name, [np.zeros((0,), dtype=EVENT_BBOX)])
                self.gt.setdefault(name, [np.zeros((0,), dtype=EVENT_BBOX)])
                ts = int(b["tbin_start_us"][i]) + t * int(b["delta_t_us"][i])
                if ts < SKIP_US:
                    continue
                g = targets[(targets[:, 0] == t) & (targets[:, 1] == i)]
                p = preds[(preds[:, 0] == t) & (preds[:, 1] == i)]
                gt = event_bboxes(g[:, 2:6], g[:, 6].astype(np.int64), None, ts)
                self.dt[name].append(
                    event_bboxes(p[:, 2:6], p[:, 6].astype(np.int64), p[:, 7], ts) if len(p)
                    else np.zeros((0,), dtype=EVENT_BBOX))
                self.gt[name].append(gt if len(gt) else np.zeros((0,), dtype=EVENT_BBOX))

    def compute(self, coco_module, cocoeval_module):
        ev = CocoEvaluatorStatement(coco_module, cocoeval_module)
        for key in self.gt:
            ev.partial_eval(np.concatenate(self.gt[key]), np.concatenate(self.dt[key]))
        return ev.accumulate()


class CocoEvaluatorStatement:
    def __init__(self, coco_module, cocoeval_module):
        self.COCO = coco_module.COCO
        self.COCOeval = cocoeval_module.COCOeval
        self.num_images = 0
        self.num_annotations = 0
        self.num_dets = 0
        self.parts = []  # evalImgs of each call; the last call's COCOeval object

    def partial_eval(self, gt, dt):
        assert np.all(gt["t"][1:] >= gt["t"][:-1])
        assert np.all(dt["t"][1:] >= dt["t"][:-1])
        all_ts = np.unique(np.concatenate((gt["t"], dt["t"])))
        images = [(gt[gt["t"] == ts], dt[(dt["t"] >= ts - TIME_TOL) & (dt["t"] <= ts + TIME_TOL)])
                  for ts in all_ts]
        categories = [{"id": k + 1, "name": n, "supercategory": "none"}
                      for k, n in enumerate(CLASSES)]
        image_dicts, anns, dets = [], [], []
        for k, (g_img, d_img) in enumerate(images):
            im_id = self.num_images + k + 1
            image_dicts.append({"id": im_id, "height": 360, "width": 640})
            for box in g_img:
                anns.append({"area": float(box["w"] * box["h"]), "iscrowd": False,
                             "image_id": im_id, "bbox": [box["x"], box["y"], box["w"], box["h"]],
                             "category_id": int(box["class_id"]) + 1,
                             "id": self.num_annotations + len(anns) + 1})
            for box in d_img:
                dets.append({"image_id": im_id, "category_id": int(box["class_id"]) + 1,
                             "score": float(box["class_confidence"]),
                             "bbox": [box["x"], box["y"], box["w"], box["h"]],
                             "area": float(box["w"] * box["h"]),
                             "id": 1 + len(dets) + self.num_dets, "iscrowd": 0})
        coco_gt = self.COCO()
        coco_gt.dataset = {"images": image_dicts, "annotations": anns, "categories": categories}
        coco_gt.createIndex()
        coco_dt = self.COCO()
        coco_dt.dataset = {"images": image_dicts, "annotations": dets, "categories": categories}
        if dets:
            coco_dt.createIndex()
        ev = self.COCOeval(coco_gt, coco_dt, "bbox")
        ev.params.imgIds = np.arange(self.num_images + 1, self.num_images + len(images) + 1,
                                     dtype=int)
        ev.evaluate()
        self.num_images += len(images)
        if anns:
            self.num_annotations = anns[-1]["id"]
        if dets:
            self.num_dets = dets[-1]["id"]
        if self.parts:
            self.parts[-1] = self.parts[-1].evalImgs
        self.parts.append(ev)

    def accumulate(self):
        if not self.parts:
            return {k: -1.0 for k in STAT_KEYS}
        ev = self.parts[-1]
        blocks = len(ev.params.catIds) * len(ev.params.areaRng)
        lists = [p for p in self.parts[:-1]] + [ev.evalImgs]
        merged = []
        for block in range(blocks):
            for lst in lists:
                n = len(lst) // blocks
                merged.extend(lst[block * n:(block + 1) * n])
        ev.evalImgs = merged
        ev.params.imgIds = np.arange(1, self.num_images + 1, dtype=int)
        ev._paramsEval.imgIds = np.arange(1, self.num_images + 1, dtype=int)
        ev.accumulate()
        ev.summarize()
        return dict(zip(STAT_KEYS, [float(s) for s in ev.stats]))
