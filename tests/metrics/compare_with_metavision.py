#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A one-off check, run by hand (not by CI): coco_map_reference.py against the real code it states,
NeuroBench's CocoMap (neurobench/metrics/workload/coco_map.py) driving Prophesee's CocoEvaluator
(metavision_ml/metrics/coco_eval.py) and box_vectors_to_bboxes (metavision_ml/data/
box_processing.py), imported from a public copy of the metavision SDK's Python sources:

  /usr/bin/python3 tests/metrics/compare_with_metavision.py METAVISION_CHECKOUT [NEUROBENCH]

(METAVISION_CHECKOUT: a folder holding metavision_ml/data/box_processing.py and
metavision_ml/metrics/coco_eval.py, e.g. from github.com/tkyen1110/metavision_sdk_4.2.1 at
43d1db5 (`git archive HEAD metavision_ml | tar -x -C DIR`); NEUROBENCH: default
../shared/third_party/neurobench, whose coco_map.py is loaded by path with a stand-in for its
AccumulatedMetric base, as NeuroBench's package imports snnTorch.)

metavision_ml does not install here (Prophesee's packages, numba), so the script imports its two
files as they are, with stand-ins for what they import and do not use on this path: numba's jit
(an identity decorator: match_times runs as plain Python), metavision_sdk_core's EventBbox (its
dtype: t int64, x y w h float32, class_id track_id uint32, class_confidence float32),
metavision_core's EventNpyReader and scheduler's FileMetadata (unused names), and pycocotools
from tests/metrics/pycocotools. NeuroBench's CocoMap is fed batches in its real format: targets
[t][i] EventBbox arrays, preds[t][i] dicts of tensors (boxes None when empty), video_infos tuples
and frame_is_labeled as a torch bool tensor, as metavision's SequentialDataLoader gives them.

It checks that coco_map_reference.NeuroBenchCocoMap gives every figure CocoEvaluator.accumulate()
returns, and CocoMap.compute()'s mean_ap, exactly, on the metric cases of check_coco_map.py
(recordings streaming through slots, padding, skipped and unlabeled frames, ties, time
tolerance, float64 predictions, no detections, no batches). Result when run on 2026-11-26 against
tkyen1110/metavision_sdk_4.2.1@43d1db5 and the NeuroBench in ../shared/third_party: every case
equal, unlabeled frames kept by the real code (its `frame_is_labeled[t, i] is False` is never
true for a tensor element).
"""
import importlib.util
import io
import os
import sys
import types
from contextlib import redirect_stdout

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_coco_map as check  # noqa: E402  (sets up pycocotools and its shims)
import coco_map_reference as ref  # noqa: E402


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def import_real(checkout, neurobench):
    module("numba", jit=lambda f=None, **k: f if f is not None else (lambda g: g))
    module("metavision_sdk_core", EventBbox=ref.EVENT_BBOX)
    module("metavision_core")
    module("metavision_core.event_io", EventNpyReader=None)
    for pkg in ("metavision_ml", "metavision_ml.data", "metavision_ml.metrics"):
        m = module(pkg)
        m.__path__ = [os.path.join(checkout, *pkg.split("."))]
    module("metavision_ml.data.scheduler", FileMetadata=None)
    import metavision_ml.data.box_processing as box_api
    import metavision_ml.metrics.coco_eval as coco_eval
    sys.modules["metavision_ml.data"].box_processing = box_api
    sys.modules["metavision_ml.data"].SequentialDataLoader = None
    # coco_map.py itself, by path: NeuroBench's package imports snnTorch, which is not here;
    # of it coco_map.py needs only AccumulatedMetric's constructor.
    class AccumulatedMetric:
        def __init__(self, requires_hooks=False):
            self.requires_hooks = requires_hooks

    for pkg in ("neurobench", "neurobench.metrics", "neurobench.metrics.abstract"):
        module(pkg).__path__ = []
    module("neurobench.metrics.abstract.workload_metric", AccumulatedMetric=AccumulatedMetric)
    path = os.path.join(neurobench, "neurobench", "metrics", "workload", "coco_map.py")
    spec = importlib.util.spec_from_file_location("neurobench_coco_map", path)
    coco_map = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(coco_map)
    assert coco_map.METAVISION_AVAILABLE
    return coco_map, coco_eval


class VideoInfo:
    def __init__(self, path, padding, delta_t):
        self.path, self.padding, self.start_ts, self.delta_t = path, padding, 0, delta_t


def neurobench_batch(b):
    """Our batch (check_coco_map's layout) as metavision's SequentialDataLoader gives it, and
    the predictions as NeuroBench's detection models return them."""
    tbins, slots = b["frame_is_labeled"].shape
    targets, preds = [], []
    for t in range(tbins):
        targets.append([])
        preds.append([])
        for i in range(slots):
            g = b["targets"][(b["targets"][:, 0] == t) & (b["targets"][:, 1] == i)]
            p = b["preds"][(b["preds"][:, 0] == t) & (b["preds"][:, 1] == i)]
            targets[t].append(ref.event_bboxes(g[:, 2:6], g[:, 6].astype(np.int64), None, 0))
            preds[t].append({"boxes": torch.from_numpy(p[:, 2:6].copy()) if len(p) else None,
                             "labels": torch.from_numpy(p[:, 6].astype(np.int64)),
                             "scores": torch.from_numpy(p[:, 7].copy())})
    infos = [(VideoInfo(f"rec{int(b['recording'][i])}.h5", bool(b["padding"][i]),
                        int(b["delta_t_us"][i])), int(b["tbin_start_us"][i]), 0)
             for i in range(slots)]
    kwargs = {"video_infos": infos,
              "frame_is_labeled": torch.from_numpy(b["frame_is_labeled"].copy())}
    return preds, (None, targets, kwargs)


def run_real(coco_map, batches):
    """The real CocoMap fed the batches: CocoEvaluator.accumulate()'s dict (CocoMap.compute()
    up to the dict it takes mean_ap from) and compute()'s own value, from two instances."""
    for_dict, for_value = coco_map.CocoMap(), coco_map.CocoMap()
    for b in batches:
        for m in (for_dict, for_value):
            preds, data = neurobench_batch(b)
            m(None, preds, data)
    for key in for_dict.gt_detections:
        for_dict.evaluator.partial_eval([np.concatenate(for_dict.gt_detections[key])],
                                        [np.concatenate(for_dict.dt_detections[key])])
    return for_dict.evaluator.accumulate(), for_value.compute()


def main():
    checkout = sys.argv[1]
    neurobench = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        HERE, "..", "..", "..", "shared", "third_party", "neurobench")
    coco_map, _ = import_real(checkout, neurobench)
    rng = np.random.default_rng(2027)
    bad = 0
    for name, batches, skip in check.metric_cases(rng):
        if skip:
            continue  # the real code keeps unlabeled frames; the option states NeuroBench 1.0.2
        with redirect_stdout(io.StringIO()):
            try:
                kpi, value = run_real(coco_map, batches)
            except AssertionError:
                kpi = value = None  # CocoEvaluator's time-order assertion
            try:
                ours = check.reference_value(batches, False)
            except AssertionError:
                ours = None
        if kpi is None or ours is None:
            same = kpi is None and ours is None
        else:
            same = value == ours["mean_ap"] and all(kpi[k] == ours[k] for k in kpi)
        print(f"{name}: {'equal' if same else 'DIFFERENT'} "
              f"{'error' if kpi is None else 'mean_ap %r' % value}")
        bad += not same
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
