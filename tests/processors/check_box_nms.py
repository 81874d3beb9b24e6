#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""BoxNms against torchvision's batched_nms and our statement of metavision's decode, live
(ctest label reference).

  check_box_nms.py --tool build/release/tests/neurobench_apply_post --work DIR

Each case makes a detector output (slots, tbins, anchors, 4 + classes) at random, runs BoxNms on
it through the tool and box_nms_reference.decode (metavision_ml's decode after the box deltas,
on torchvision 0.14's real `batched_nms`) on the same tensor, and requires every number of the
(M, 8) detections to be equal, in the same order. The boxes come in clusters, so that many pairs
overlap with an IoU near the threshold; scores are distinct within a case (torch's top-k and
sorts order ties arbitrarily), one of them exactly the score threshold in float32. Cases: several
slots, bins and classes; more than 1000 candidates (torchvision's NMS per group) and at most
1000 (its shifted boxes; with negative coordinates, boxes of different groups then overlap and
suppress each other; a pair whose IoU the shift's float32 rounding moves under the threshold),
and exactly 1000 and 1001; the per-group path asked for with torchvision_offsets=false; max_boxes cutting each
image's candidates; other thresholds; one class; duplicate boxes; nothing above the threshold.
Exit 0 when all agree, 1 otherwise; 77 (skipped) without NumPy, torch or torchvision.
"""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import torch
    import torchvision  # noqa: F401
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import box_nms_reference as ref  # noqa: E402


def make_scores(gen, count, threshold, passing):
    """count distinct float32 scores in random order, `passing` of them >= threshold (one of
    those exactly float32(threshold))."""
    t = float(np.float32(threshold))
    above = t + (1.0 - t) * (torch.randperm(passing * 4, generator=gen)[:passing].double() + 1) \
        / (passing * 4 + 1)
    if passing > 0:
        above[0] = t
    below = t * (torch.randperm(count * 4, generator=gen)[:count - passing].double() + 1) \
        / (count * 4 + 1)
    values = torch.cat([above, below]).float()
    assert len(torch.unique(values)) == count, "scores must be distinct"
    return values[torch.randperm(count, generator=gen)]


def make_preds(seed, slots, tbins, anchors, classes, threshold=0.05, passing=None,
               lo=-20.0, hi=660.0, clusters=6, duplicates=False):
    gen = torch.Generator().manual_seed(seed)
    images = slots * tbins
    centre = lo + (hi - lo) * torch.rand(images, clusters, 2, generator=gen)
    size = 10 + 80 * torch.rand(images, clusters, 2, generator=gen)
    pick = torch.randint(0, clusters, (images, anchors), generator=gen)
    idx = torch.arange(images)[:, None]
    c = centre[idx, pick] + 4 * torch.randn(images, anchors, 2, generator=gen)
    wh = size[idx, pick] * (1 + 0.25 * torch.randn(images, anchors, 2, generator=gen)).abs()
    if duplicates:  # every other anchor repeats the box before it
        c[:, 1::2] = c[:, 0:-1:2]
        wh[:, 1::2] = wh[:, 0:-1:2]
    boxes = torch.cat([c - wh / 2, c + wh / 2], dim=-1)
    count = images * anchors * classes
    if passing is None:
        passing = count // 2
    scores = make_scores(gen, count, threshold, passing).reshape(images, anchors, classes)
    preds = torch.cat([boxes, scores], dim=-1).float()
    return preds.reshape(slots, tbins, anchors, 4 + classes).contiguous()


def candidates(preds, threshold, max_boxes):
    slots, tbins, anchors, columns = preds.shape
    s = preds[..., 4:].reshape(slots * tbins, -1)
    k = min(max_boxes, s.shape[1])
    return int((torch.topk(s, k, dim=1)[0] >= threshold).sum())


# Two boxes whose IoU is just above 0.5, and just under it once torchvision has shifted them by
# group 299's offset (299 x 604.68, rounded in float32): found by a search with torchvision.
ROUNDING_PAIR = [[557.0856323242188, 307.01507568359375, 592.0350341796875, 326.16656494140625],
                 [568.7308959960938, 307.01507568359375, 603.6802978515625, 326.16656494140625]]


def rounding_preds():
    """4 slots x 25 bins x 2 anchors x 3 classes, all below the threshold but the pair above as
    class 3 of the last image (bin 24, slot 3: group 99 x 3 + 2 = 299)."""
    preds = torch.zeros(4, 25, 2, 7)
    preds[..., :4] = torch.tensor(ROUNDING_PAIR)
    preds[..., 4:] = 0.01
    preds[3, 24, :, 6] = torch.tensor([0.9, 0.8])
    return preds


def cases():
    """(name, preds, options as BoxNms names them) of each case."""
    return [
        ("slots4_bins3_classes3_many", make_preds(1, 4, 3, 300, 3), {}),
        ("slots2_bins2_few_shifted", make_preds(2, 2, 2, 60, 3, passing=400, lo=-150, hi=100), {}),
        ("slots2_bins2_few_per_group", make_preds(2, 2, 2, 60, 3, passing=400, lo=-150, hi=100),
         {"torchvision_offsets": False}),
        # Boxes left of and above the origin: shifted by group, they land on other groups' boxes.
        ("negative_boxes_shifted", make_preds(15, 2, 2, 60, 3, passing=400, lo=-300, hi=0), {}),
        ("negative_boxes_per_group", make_preds(15, 2, 2, 60, 3, passing=400, lo=-300, hi=0),
         {"torchvision_offsets": False}),
        ("shift_rounding", rounding_preds(), {}),
        ("shift_rounding_per_group", rounding_preds(), {"torchvision_offsets": False}),
        ("exactly_1000_candidates", make_preds(3, 2, 3, 100, 3, passing=1000, lo=-100, hi=200),
         {}),
        ("exactly_1001_candidates", make_preds(3, 2, 3, 100, 3, passing=1001, lo=-100, hi=200),
         {}),
        ("max_boxes_20", make_preds(4, 3, 2, 100, 2), {"max_boxes": 20}),
        ("max_boxes_7_shifted", make_preds(5, 2, 2, 40, 3, passing=200), {"max_boxes": 7}),
        ("thresholds_0.7_0.3", make_preds(6, 2, 2, 150, 3, threshold=0.7),
         {"score_threshold": 0.7, "nms_threshold": 0.3}),
        ("nms_threshold_0.8", make_preds(7, 1, 4, 200, 3), {"nms_threshold": 0.8}),
        ("one_class", make_preds(8, 1, 1, 500, 1), {}),
        ("one_class_max_boxes_1000", make_preds(9, 1, 2, 1500, 1), {"max_boxes": 1000}),
        ("duplicate_boxes", make_preds(10, 2, 2, 120, 2, duplicates=True), {}),
        ("nothing_passes", make_preds(11, 2, 2, 50, 3, passing=0), {}),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)

    failures = []
    for name, preds, options in cases():
        opts = {"score_threshold": 0.05, "nms_threshold": 0.5, "max_boxes": 500,
                "torchvision_offsets": True}
        opts.update(options)
        inp = os.path.join(args.work, name + "_in.npz")
        out = os.path.join(args.work, name + "_out.npz")
        np.savez(inp, preds=preds.numpy())
        spec = "BoxNms:" + ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                                    for k, v in opts.items())
        run = subprocess.run([args.tool, inp, out, spec], capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{name}: the tool failed: {run.stderr.strip()}")
            continue
        got = torch.from_numpy(np.load(out)["preds"])
        want = ref.decode(preds, opts["score_threshold"], opts["nms_threshold"],
                          opts["max_boxes"], opts["torchvision_offsets"])
        n = candidates(preds, opts["score_threshold"], opts["max_boxes"])
        path = "shifted" if opts["torchvision_offsets"] and n <= 1000 else "per group"
        if got.dtype != torch.float32 or got.shape != want.shape or not torch.equal(got, want):
            detail = f"shape {tuple(got.shape)} vs {tuple(want.shape)}"
            if got.shape == want.shape:
                rows = (got != want).any(dim=1).nonzero().flatten()
                detail += f", {len(rows)} rows differ, first {rows[:1].tolist()}"
            failures.append(f"{name}: {detail}")
            print(f"FAIL {name}: {detail}")
        else:
            print(f"ok   {name}: {n} candidates ({path}), {got.shape[0]} detections equal")
    if failures:
        print("\n".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
