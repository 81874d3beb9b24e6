#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A one-off check, run by hand (not by CI): box_nms_reference.py against the real code it
states, metavision_ml's `Anchors.batched_decode` and `_expand_decoded_boxes`
(metavision_ml/detection/anchors.py, with box.py beside it), imported from a public copy of the
metavision SDK's Python sources:

  /usr/bin/python3 tests/processors/compare_box_nms_with_metavision.py METAVISION_CHECKOUT

(METAVISION_CHECKOUT: a folder holding metavision_ml/detection/anchors.py and box.py, e.g. from
github.com/tkyen1110/metavision_sdk_4.2.1 (`git archive HEAD metavision_ml/detection | tar -x -C
DIR`).) The two files need only torch, NumPy and torchvision; the script gives them stand-in
`metavision_ml` and `metavision_ml.detection` packages instead of the real ones, whose
`__init__` imports more. `Anchors()` is built with its defaults (`max_decode=False`, as in
NeuroBench's example); `batched_decode(boxes, scores, score_thresh, nms_thresh, topk)` gets the
detector output as `decode` passes it after `deltas_to_bbox` (images tbin-major, (tbins x
slots, anchors, 4) boxes and (tbins x slots, anchors, classes) scores), and its result goes
through `_expand_decoded_boxes(result, slots, tbins)` as `decode` does. Each image's
detections are then listed by score, high first (the cases have no tied scores), as rows
[tbin, slot, x1, y1, x2, y2, label, score].

It checks that box_nms_reference.decode gives the same rows, every number equal, on the cases of
check_box_nms.py with torchvision_offsets true (metavision has no other mode). Result when run
on 2026-11-27 against tkyen1110/metavision_sdk_4.2.1@43d1db5 with torch 1.13 and
torchvision 0.14.1 (Debian): every case equal.
"""
import importlib.util
import os
import sys
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import box_nms_reference as ref  # noqa: E402
import check_box_nms as cases_module  # noqa: E402


def load_metavision(checkout):
    folder = os.path.join(checkout, "metavision_ml", "detection")
    for name in ("metavision_ml", "metavision_ml.detection"):
        package = types.ModuleType(name)
        package.__path__ = []
        sys.modules[name] = package
    modules = {}
    for short in ("box", "anchors"):
        name = "metavision_ml.detection." + short
        spec = importlib.util.spec_from_file_location(name, os.path.join(folder, short + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        setattr(sys.modules["metavision_ml.detection"], short, module)
        spec.loader.exec_module(module)
        modules[short] = module
    return modules["anchors"]


def metavision_rows(anchors_module, preds, score_threshold, nms_threshold, max_boxes):
    slots, tbins, anchors, columns = preds.shape
    x = preds.permute(1, 0, 2, 3).reshape(tbins * slots, anchors, columns)
    coder = anchors_module.Anchors()
    decoded = coder.batched_decode(x[..., :4], x[..., 4:].contiguous(), score_threshold,
                                   nms_threshold, topk=max_boxes)
    targets = coder._expand_decoded_boxes(decoded, slots, tbins)
    rows = []
    for t in range(tbins):
        for i in range(slots):
            d = targets[t][i]
            if d["boxes"] is None:
                continue
            order = torch.argsort(d["scores"], descending=True)
            for k in order.tolist():
                rows.append([float(t), float(i)] + d["boxes"][k].tolist()
                            + [float(d["labels"][k]), float(d["scores"][k])])
    return torch.tensor(rows, dtype=torch.float32).reshape(-1, 8)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    anchors_module = load_metavision(sys.argv[1])
    failures = 0
    for name, preds, options in cases_module.cases():
        if options.get("torchvision_offsets", True) is False:
            continue
        thr = options.get("score_threshold", 0.05)
        nms = options.get("nms_threshold", 0.5)
        top = options.get("max_boxes", 500)
        want = metavision_rows(anchors_module, preds, thr, nms, top)
        got = ref.decode(preds, thr, nms, top, True)
        same = got.shape == want.shape and torch.equal(got, want)
        failures += not same
        print(f"{'ok  ' if same else 'FAIL'} {name}: {tuple(want.shape)} from metavision, "
              f"{tuple(got.shape)} from the reference")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
