#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ DVS Gesture data set (the `dvs-gesture` kind, through
neurobench_dump_dataset) with tonic_reference.py, the NumPy statement of tonic's Denoise,
Downsample, ToFrame and PadTensors (checked against tonic itself by
tests/fixtures/dvs_gesture/compare_with_tonic.py), on random releases it writes in the real
formats, exactly, for random option sets:

  /usr/bin/python3 tests/datasets/check_dvs_gesture.py \
      --tool build/release/tests/neurobench_dump_dataset --work /tmp/dvs_check

Each round writes a release of random trials (AEDAT 3.1 with overflowing timestamps, invalid
events and skipped packets, labels csv; gestures from 60 us to 0.4 s, so that some are shorter
than 150 bins and all frames are empty) and compares both subsets for one option set: Denoise
on or off, spatial factors 0.25, 0.5, 0.3 and 1, n_time_bins with and without overlap,
time_window and event_count with overlap and include_incomplete. Needs NumPy only.
"""
import argparse
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
except ImportError as e:
    print(f"skipped: {e} (Debian's python3-numpy)")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "dvs_gesture")
sys.path.insert(0, FIXTURES)
import make_fixtures as mf  # noqa: E402
import tonic_reference as ref  # noqa: E402


def random_options(rng):
    o = {"filter_time": int(rng.choice([0, 10000, 3000])),
         "spatial_factor": float(rng.choice([0.25, 0.5, 0.3, 1.0]))}
    kind = int(rng.integers(0, 4))
    if kind == 0:
        pass  # NeuroBench's 150 bins
    elif kind == 1:
        o.update(n_time_bins=int(rng.choice([1, 20, 150])),
                 overlap=float(rng.choice([0.0, 0.25, 0.5])))
    elif kind == 2:
        o.update(time_window=int(rng.choice([5000, 20000])),
                 overlap=int(rng.choice([0, 1000])),
                 include_incomplete=bool(rng.integers(0, 2)))
    else:
        o.update(event_count=int(rng.choice([50, 400])), overlap=int(rng.choice([0, 10])),
                 include_incomplete=bool(rng.integers(0, 2)))
    return o


def write_release(folder, rng):
    mf.RNG = rng
    os.makedirs(folder)
    samples = {"train": [], "test": []}
    lists = {"train": [], "test": []}
    for k in range(4):
        subset = "train" if k < 2 else "test"
        name = f"user{k + 1:02d}_lab"
        t0 = int(rng.choice([0, 1_000_000, 2**31 - 100_000, 2**32 + 5]))
        gestures = [(int(rng.integers(1, 12)), int(rng.choice([60, 149, 5000, 151_000, 400_000])))
                    for _ in range(int(rng.integers(1, 4)))]
        ev, rows = mf.recording(t0, gestures)
        mf.write_aedat(os.path.join(folder, name + ".aedat"), ev)
        with open(os.path.join(folder, name + "_labels.csv"), "w") as f:
            f.write("class,startTime_usec,endTime_usec\n")
            for cls, start, end in rows:
                f.write(f"{cls},{start},{end}\n")
        lists[subset].append(name + ".aedat")
        samples[subset] += [(cls - 1, mf.cut(ev, start, end)) for cls, start, end in rows]
    for subset, names in lists.items():
        with open(os.path.join(folder, f"trials_to_{subset}.txt"), "w") as f:
            f.write("\n".join(names) + "\n")
    return samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", required=True, help="neurobench_dump_dataset")
    parser.add_argument("--work", required=True, help="scratch folder")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    rng = np.random.default_rng(args.seed)
    compared = 0
    for r in range(args.rounds):
        folder = os.path.join(args.work, f"release{r}")
        samples = write_release(folder, rng)
        options = random_options(rng)
        frame = {k: v for k, v in options.items() if k not in ("filter_time", "spatial_factor")}
        if not any(k in frame for k in ("n_time_bins", "time_window", "event_count")):
            frame["n_time_bins"] = 150
        for subset in ("train", "test"):
            out = os.path.join(args.work, f"r{r}_{subset}.npz")
            text = ",".join([f"subset={subset}"] +
                            [f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                             for k, v in options.items()])
            run = subprocess.run([args.tool, f"dvs-gesture:{folder}", out, text],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"round {r} {subset} {text}: the tool failed:\n{run.stderr}")
            got = np.load(out)
            frames = [ref.pipeline(*e, filter_time=options["filter_time"],
                                   spatial_factor=options["spatial_factor"], **frame)
                      for _, e in samples[subset]]
            want = ref.pad(frames)
            targets = np.asarray([label for label, _ in samples[subset]])
            if not np.array_equal(got["targets"], targets):
                sys.exit(f"round {r} {subset}: targets {got['targets']}, expected {targets}")
            if got["data"].shape != want.shape:
                sys.exit(f"round {r} {subset} {text}: frames of shape {got['data'].shape}, "
                         f"expected {want.shape}")
            if not np.array_equal(got["data"], want):
                apart = np.abs(got["data"] - want).sum()
                sys.exit(f"round {r} {subset} {text}: frames differ by {apart} counts")
            compared += len(frames)
    print(f"{compared} samples in {args.rounds} random releases equal tonic's semantics")


if __name__ == "__main__":
    main()
