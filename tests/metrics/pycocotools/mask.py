# SPDX-License-Identifier: Apache-2.0
"""A NumPy stand-in for pycocotools.mask, boxes only: the compiled _mask.pyx is not built here
(pycocotools is not packaged in Debian). COCOeval calls mask.iou(dt, gt, iscrowd) with lists of
[x, y, w, h] boxes; this computes what _mask.pyx's iou() does with them through maskApi.c's
bbIou(): the boxes as float64, the (D, G) matrix, and [] when either list is empty. Written for
neurobench-cpp's tests (tests/metrics/check_coco_map.py), not part of cocodataset/cocoapi.

bbIou, per ground truth g and detection d, in double precision:
    w = fmin(D[2]+D[0], G[2]+G[0]) - fmax(D[0], G[0]);  if (w <= 0) o = 0
    h = fmin(D[3]+D[1], G[3]+G[1]) - fmax(D[1], G[1]);  if (h <= 0) o = 0
    i = w*h;  u = crowd ? da : da+ga-i;  o = i/u       (da = D[2]*D[3], ga = G[2]*G[3])
NumPy's elementwise float64 operations round exactly as the C statements do.
"""
import numpy as np


def iou(dt, gt, pyiscrowd):
    if len(dt) == 0 or len(gt) == 0:
        return []
    d = np.array(dt, dtype=np.double).reshape(-1, 4)
    g = np.array(gt, dtype=np.double).reshape(-1, 4)
    crowd = np.array(pyiscrowd, dtype=np.uint8).astype(bool)
    w = (np.minimum((d[:, 2] + d[:, 0])[:, None], (g[:, 2] + g[:, 0])[None, :])
         - np.maximum(d[:, 0][:, None], g[:, 0][None, :]))
    h = (np.minimum((d[:, 3] + d[:, 1])[:, None], (g[:, 3] + g[:, 1])[None, :])
         - np.maximum(d[:, 1][:, None], g[:, 1][None, :]))
    da = (d[:, 2] * d[:, 3])[:, None]
    ga = (g[:, 2] * g[:, 3])[None, :]
    inter = w * h
    union = np.where(crowd[None, :], da, (da + ga) - inter)
    out = np.zeros((len(d), len(g)))
    overlap = (w > 0) & (h > 0)
    out[overlap] = inter[overlap] / union[overlap]
    return out
