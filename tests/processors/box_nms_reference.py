# SPDX-License-Identifier: Apache-2.0
"""Our statement of what metavision_ml's `Anchors.decode` does once the box deltas are decoded
(`batched_decode`, `_score_filtering_per_image` and `_expand_decoded_boxes` in
metavision_ml/detection/anchors.py, with `max_decode=False` as NeuroBench's example builds its
`Anchors`), written from reading that code (Prophesee's licence: none of it is copied), on
torchvision's own `batched_nms`. It was checked against the real code by
compare_box_nms_with_metavision.py (see its docstring for the result).

Input: preds (slots, tbins, anchors, 4 + classes) float32, as BoxNms takes it. What metavision
does:

1. The images are (tbin, slot) pairs in the order of the network's (tbins, slots) batch: batch
   index tbin * slots + slot.
2. Every (anchor, class) pair of an image is a candidate with the anchor's box; per image the
   `max_boxes_per_input` best by score are taken (`torch.topk` on anchors * classes scores), and
   of those the ones with a score >= `score_thresh` (a float32 comparison).
3. `batched_nms` over all candidates of the batch at once, grouped by batch index * classes +
   class: torchvision shifts the boxes per group when there are at most 1000 candidates and runs
   `nms` per group above that.
4. Each kept candidate becomes a detection of its image: box, label class + 1, score.

The rows returned are [tbin, slot, x1, y1, x2, y2, label, score] ordered by tbin, slot, then score
from high to low. metavision's own order within an image is that of an unstable sort of the batch
indices; it differs only where scores tie, which the inputs of check_box_nms.py never do.
"""
import torch
from torchvision.ops import boxes as tv_boxes


def decode(preds, score_threshold=0.05, nms_threshold=0.5, max_boxes=500, offsets=True):
    """Detections of preds as an (M, 8) float32 tensor; offsets=False runs torchvision's
    per-group NMS whatever the number of candidates (BoxNms's torchvision_offsets=false)."""
    slots, tbins, anchors, columns = preds.shape
    classes = columns - 4
    images = tbins * slots
    x = preds.permute(1, 0, 2, 3).reshape(images, anchors, columns)
    boxes = x[..., :4]
    scores = x[..., 4:].reshape(images, anchors * classes)
    k = min(max_boxes, anchors * classes)
    top, flat = torch.topk(scores, k, dim=1)
    image = torch.arange(images)[:, None].expand(images, k)
    passing = top >= score_threshold
    cand_scores = top[passing]
    cand_image = image[passing]
    cand_anchor = flat[passing] // classes
    cand_class = flat[passing] % classes
    cand_boxes = boxes[cand_image, cand_anchor].contiguous()
    groups = cand_image * classes + cand_class
    if offsets:
        keep = tv_boxes.batched_nms(cand_boxes, cand_scores, groups, nms_threshold)
    else:
        keep = tv_boxes._batched_nms_vanilla(cand_boxes, cand_scores, groups, nms_threshold)
    # keep is sorted by score, high first; a stable sort by image keeps that within an image.
    keep = keep[torch.sort(cand_image[keep], stable=True)[1]]
    kept_image = cand_image[keep]
    rows = torch.cat([
        (kept_image // slots)[:, None].float(),
        (kept_image % slots)[:, None].float(),
        cand_boxes[keep],
        (cand_class[keep] + 1)[:, None].float(),
        cand_scores[keep][:, None],
    ], dim=1)
    return rows.reshape(-1, 8).to(torch.float32)
