# SPDX-License-Identifier: Apache-2.0
"""A NumPy statement of what NeuroBench's Gen4DetectionDataLoader yields: metavision_ml's
SequentialDataLoader (its Scheduler, SequentialDataset._load_hdf5 and collate_fn) with
box_processing.load_boxes as NeuroBench configures it (class lookup of pedestrian, two wheeler,
car; min_box_diag_network 60), unshuffled and padded, on pre-computed HDF5 histograms.

metavision_ml is Prophesee's, under its own licence: this is not its code but our own statement
of its behaviour, written after reading metavision SDK 4.x's metavision_ml/data/scheduler.py,
sequential_dataset.py, sequential_dataset_common.py and box_processing.py, and checked once by
hand against them, function by function (see CHECKED below). The arithmetic uses NumPy's types
as metavision's does (float32 boxes; the float32 or float64 times of filter_empty_tensor; the
argsort of nms), so that the C++ data set can be compared with it bit for bit.

CHECKED (by hand, once, against metavision SDK 4.2.1's Python source, read in a public copy):
- schedule(): Scheduler.create_schedule (shuffle=False, max_consecutive_batch=None,
  padding=True): durations = data.shape[0] * attrs['delta_t'] (get_duration); _rounding with
  rounding_tolerance 1000 (round up when at most 1000 us short, by `d % -total`);
  cumulative_time_table_per_batch = cumsum(durations[i::batch_size]); __len__ = max of the
  tables' last values // total * batch_size; __getitem__: iteration_time = (index // B + 1) *
  total, padding when it is past the slot's last value, else searchsorted (side left), file
  index slot + B * rel, start = iteration_time - total - elapsed. batch_size reduced to the
  number of files (create_schedule's warning). keep_memory = start > start_ts (0).
- read_histograms(): _load_hdf5: rows start // delta_t to (start + duration) // delta_t of
  'data', `astype(float32) / 255` when attrs['store_as_uint8']; _downsample_clip with equal
  sizes copies; SequentialDataLoader.__next__ converts to float32.
- chunk_boxes(): load_boxes -> load_box_events (EventBbox cast, 'ts' -> 't', 'confidence' ->
  'class_confidence', np.sort(order=['t']), t in [start, start + duration)); split_boxes for
  frame_is_labeled (bins (t0, t0 + dt], nms by 't'); clip_boxes (w, h > 2 kept);
  filter_empty_tensor (area_box_filter 0.1, filter_beginning: last_time_to_filter = 5e5 -
  start, MAX_TIME_BEFORE 1e5, int16 coordinates >> shift); filter_boxes (ignore_filtered False:
  dropped); split_boxes again; rescale_boxes; the diagonal / side / width filter of load_boxes.
- batch(): collate_fn: inputs stacked on dim 1 (T, B, ...), which Gen4DetectionDataLoader.
  __next__ permutes to (B, T, ...); labels[t][i]; frame_is_labeled (T, B); mask_keep_memory;
  video_infos (metadata, start, duration); padding items: zeros, NaN labels, frame_is_labeled
  False, keep_memory 1.
- NeuroBench's create_class_lookup(['pedestrian', 'two wheeler', 'car']) = [1, 2, 3, -1, -1,
  -1, -1] and its skip_files (the four test recordings without labels).
"""
import os

import numpy as np

EVENT_BBOX = np.dtype({"names": ["t", "x", "y", "w", "h", "class_id", "track_id",
                                 "class_confidence"],
                       "formats": ["<i8", "<f4", "<f4", "<f4", "<f4", "<u4", "<u4", "<f4"]})
CLASS_LOOKUP = np.array([1, 2, 3, -1, -1, -1, -1])
# NumPy's default argsort (an introsort): the order of tied times decides which of two
# overlapping boxes nms keeps. The check sets "stable" once to show that its data depend on it.
ARGSORT_KIND = "quicksort"
SKIPPED = [
    "moorea_2019-06-17_test_01_000_1769500000_1829500000.h5",
    "moorea_2019-06-14_000_549500000_609500000.h5",
    "moorea_2019-06-14_000_1220500000_1280500000.h5",
    "moorea_2019-06-26_test_02_000_1708500000_1768500000.h5",
]


def recordings(folder, subset):
    """The .h5 files of a subset, sorted by name (NeuroBench: glob order), skipped removed."""
    d = os.path.join(folder, subset)
    names = sorted(n for n in os.listdir(d) if n.endswith(".h5"))
    if subset == "test":
        names = [n for n in names if n not in SKIPPED]
    return [os.path.join(d, n) for n in names]


def header(path, h5py):
    with h5py.File(path, "r") as f:
        d = f["data"]
        attrs = dict(d.attrs)
        if "event_input_width" in attrs:
            sensor = (int(attrs["event_input_height"]), int(attrs["event_input_width"]))
        else:
            shift = int(attrs.get("downsampling_factor", attrs.get("shift", 0)))
            sensor = (d.shape[-2] << shift, d.shape[-1] << shift)
        return {"bins": d.shape[0], "delta_t": int(attrs["delta_t"]), "sensor": sensor,
                "uint8": bool(attrs.get("store_as_uint8", False))}


def schedule(durations, total, batch_size):
    """[(batch, slot) -> (file or -1, start)] as metavision's Scheduler, padded."""
    d = np.array(durations, dtype=np.int64)
    excess = d % total
    up = total - excess <= 1000
    excess[up] = d[up] % -total
    d = d - excess
    b = min(batch_size, len(d))
    tables = [np.cumsum(d[i::b]) for i in range(b)]
    n = int(max(t[-1] for t in tables) // total)
    out = []
    for batch in range(n):
        row = []
        it = (batch + 1) * total
        for slot in range(b):
            table = tables[slot]
            if it > table[-1]:
                row.append((-1, 0))
                continue
            rel = int(np.searchsorted(table, it))
            elapsed = int(table[rel - 1]) if rel else 0
            row.append((slot + b * rel, int(it - total - elapsed)))
        out.append(row)
    return out


def load_boxes_file(path):
    raw = np.load(path)
    out = np.zeros((len(raw),), dtype=EVENT_BBOX)
    for k in raw.dtype.names:
        target = {"ts": "t", "confidence": "class_confidence"}.get(k, k)
        if target in EVENT_BBOX.names:
            out[target] = raw[k]
    return np.sort(out, order=["t"])


def nms_by_time(b):
    """Positions kept by a greedy suppression at IoU 0.5 (+1 pixel areas), scores 't'."""
    x1, y1 = b["x"], b["y"]
    x2, y2 = b["x"] + b["w"], b["y"] + b["h"]
    area = (x2 - x1 + 1) * (y2 - y1 + 1)
    order = b["t"].argsort(kind=ARGSORT_KIND)[::-1]
    keep = []
    while order.size:
        i = order[0]
        keep.append(i)
        rest = order[1:]
        w = np.maximum(0.0, np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]) + 1)
        h = np.maximum(0.0, np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]) + 1)
        inter = w * h
        order = rest[inter / (area[i] + area[rest] - inter) <= 0.5]
    return sorted(keep)


def by_bin(b, start, dt, tbins):
    out = []
    for k in range(tbins):
        low = start + k * dt
        sel = np.nonzero((b["t"] > low) & (b["t"] <= low + dt))[0]
        out.append(b[sel[nms_by_time(b[sel])]])
    return out


def chunk_boxes(all_boxes, start, dt, tbins, hist, sensor, size, min_diag=60):
    """(rows [tbin, x1, y1, x2, y2, label] float32, frame_is_labeled (tbins,))."""
    sh, sw = sensor
    h, w = size
    b = all_boxes[(all_boxes["t"] >= start) & (all_boxes["t"] < start + dt * tbins)].copy()
    labeled = np.array([len(x) > 0 for x in by_bin(b, start, dt, tbins)], dtype=bool)
    # clipped to the sensor
    xmax, ymax = b["x"] + b["w"], b["y"] + b["h"]
    b["x"] = np.clip(b["x"], 0, sw)
    b["y"] = np.clip(b["y"], 0, sh)
    b["w"] = np.clip(xmax, 0, sw) - b["x"]
    b["h"] = np.clip(ymax, 0, sh) - b["y"]
    b = b[(b["w"] > 2) & (b["h"] > 2)]
    # boxes over (nearly) empty histograms in the first 0.5 s
    shift = int(np.log2(sw / w))
    ts = b["t"].astype(np.float32) - start  # float32, or float64 past 65535 (NumPy 1.x)
    x0 = b["x"].astype(np.int16) >> shift
    x1 = (b["x"] + b["w"]).astype(np.int16) >> shift
    y0 = b["y"].astype(np.int16) >> shift
    y1 = (b["y"] + b["h"]).astype(np.int16) >> shift
    drop = np.zeros(len(b), dtype=bool)
    for i in range(len(b)):
        if ts[i] > 500000 - start:
            continue
        tmax = min(int(ts[i] / dt) + 1, tbins)
        tmin = max(0, tmax - int(100000 / dt))
        ya, xa = max(0, y0[i]), max(0, x0[i])
        if y1[i] <= ya or x1[i] <= xa:
            drop[i] = True
            continue
        patch = np.abs(hist[tmin:tmax, :, ya:y1[i], xa:x1[i]])
        active = (patch > 0).any(axis=(0, 1)).sum()
        drop[i] = active < 0.1 * patch.shape[-1] * patch.shape[-2]
    labels = CLASS_LOOKUP[b["class_id"]]
    b = b[(labels > 0) & ~drop]
    b["class_id"] = labels[(labels > 0) & ~drop]
    rows = []
    for k, bb in enumerate(by_bin(b, start, dt, tbins)):
        bb = bb.copy()
        bb["w"] *= w / sw
        bb["h"] *= h / sh
        bb["x"] *= w / sw
        bb["y"] *= h / sh
        ok = (bb["w"] ** 2 + bb["h"] ** 2) >= min_diag ** 2
        ok &= bb["w"] >= min_diag / 3
        ok &= bb["h"] >= min_diag / 3
        ok &= bb["w"] <= 0.8 * w
        for r in bb[ok]:
            rows.append(np.array([k, r["x"], r["y"], r["x"] + r["w"], r["y"] + r["h"],
                                  r["class_id"]], dtype=np.float32))
    return (np.stack(rows) if rows else np.zeros((0, 6), np.float32)), labeled


def batches(folder, subset, h5py, batch_size=4, tbins=12, dt=50000, channels=2, size=(360, 640),
            min_diag=60):
    """Each batch as the C++ data set lays it out: dict of data, targets, extras."""
    files = recordings(folder, subset)
    heads = [header(f, h5py) for f in files]
    plan = schedule([hd["bins"] * hd["delta_t"] for hd in heads], dt * tbins, batch_size)
    boxes = [load_boxes_file(f[:-3] + "_bbox.npy") for f in files]
    for row in plan:
        b = len(row)
        data = np.zeros((b, tbins, channels) + size, np.float32)
        fil = np.zeros((tbins, b), bool)
        rec = np.full(b, -1, np.int64)
        starts = np.zeros(b, np.int64)
        deltas = np.zeros(b, np.int64)
        begins = np.zeros(b, bool)
        per_slot = []
        for s, (r, start) in enumerate(row):
            if r < 0:
                per_slot.append(np.zeros((0, 6), np.float32))
                continue
            with h5py.File(files[r], "r") as f:
                hist = f["data"][start // dt:(start + dt * tbins) // dt]
            if heads[r]["uint8"]:
                hist = hist.astype(np.float32) / 255
            hist = np.asarray(hist).astype(np.float32)
            data[s] = hist
            rows, labeled = chunk_boxes(boxes[r], start, dt, tbins, hist, heads[r]["sensor"],
                                        size, min_diag)
            per_slot.append(rows)
            fil[:, s] = labeled
            rec[s], starts[s], deltas[s], begins[s] = r, start, dt, start == 0
        targets = [np.concatenate([[rw[0], s], rw[1:]]).astype(np.float32)
                   for k in range(tbins) for s in range(b) for rw in per_slot[s] if rw[0] == k]
        yield {"data": data,
               "targets": np.stack(targets) if targets else np.zeros((0, 7), np.float32),
               "recording": rec, "padding": rec < 0, "tbin_start_us": starts,
               "delta_t_us": deltas, "frame_is_labeled": fil, "starts_recording": begins}
