#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ THOR EEG motor imagery data set with NeuroBench's own ThorEEGMI loader, live
and exactly: the same trials in the same order, bit-equal float32 inputs, equal int64 labels,
for the train and val subsets of every folder.

  /usr/bin/python3 tests/datasets/check_thor_eeg_mi.py \
      --tool build/release/tests/neurobench_dump_dataset

Each run writes random folders (seeded) of train_X.npy, train_y.npy, val_X.npy, val_y.npy with
np.save:
- the release's format: float32 trials (trials, 250, 62) of band-passed EEG, int64 labels 0/1;
- other dtypes NeuroBench accepts: float64 trials with values float32 must round, overflow to
  infinity, subnormals, NaN and infinities, in Fortran order; float16, int64 (beyond 2^24 and
  2^53), int32, int16, int8, uint8 and bool trials; labels int32, int16, int8, uint8, bool, and
  float64, float32 and float16 holding whole numbers, class indices above 1; other timestep and
  channel counts; a subset without trials.

A big-endian folder ('>f8' trials, '>i8' labels): torch.tensor refuses non-native byte order, so
NeuroBench fails on it; we read it, and must give what NeuroBench gives for the same values in
native order.

Then folders we refuse, each with NeuroBench's behaviour on it printed beside our message:
missing files (NeuroBench: FileNotFoundError), labels that are fractions, NaN or negative
(NeuroBench: truncated, an arbitrary integer, kept), complex trials (NeuroBench drops the
imaginary part), uint16 trials and string labels (NeuroBench fails), pickled object arrays
(np.load refuses), trials not 3-D and labels not 1-D (NeuroBench builds tensors no benchmark can
use), and different trial and label counts (NeuroBench's assert). docs/datasets.md says why.

Needs Debian's python3-torch, python3-numpy and NeuroBench in ../shared/third_party (or
NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
SUBSETS = ("train", "val")


def setup():
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    if not os.path.isfile(os.path.join(tp, "neurobench", "neurobench", "datasets", "EEG.py")):
        print(f"skipped: NeuroBench's ThorEEGMI (datasets/EEG.py) is not in {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, "neurobench")]
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (Debian's python3-torch, python3-numpy)")
        sys.exit(SKIP)


def write(folder, arrays):
    """`arrays`: {"train_X": array, ...}; each saved as NAME.npy with np.save."""
    import numpy as np
    os.makedirs(folder, exist_ok=True)
    for name, array in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), array, allow_pickle=array.dtype == object)


def release(rng, sizes=(37, 11), timesteps=250, channels=62):
    """Trials as the release stores them: float32 EEG in volts-scale values, int64 labels."""
    import numpy as np
    out = {}
    for subset, n in zip(SUBSETS, sizes):
        out[f"{subset}_X"] = (rng.normal(0, 1e-5, (n, timesteps, channels))).astype(np.float32)
        out[f"{subset}_y"] = rng.integers(0, 2, n).astype(np.int64)
    return out


def awkward(rng):
    """float64 trials float32 must round (Fortran order), int32 labels; float16 trials, bool
    labels."""
    import numpy as np
    x = rng.normal(0, 1, (9, 7, 3)) * 10.0 ** rng.integers(-45, 40, (9, 7, 3))
    x[0, 0, :] = [np.nan, -np.inf, 3e38 * 1.5]
    x[1, 1, :] = [1e-46, -1e-40, 16777217.0]
    x[2, 2, :] = [np.inf, -0.0, 1 + 2.0 ** -24]
    y = rng.integers(0, 2, 9).astype(np.int32)
    vx = rng.normal(0, 100, (6, 7, 3)).astype(np.float16)
    vy = rng.integers(0, 2, 6).astype(bool)
    return {"train_X": np.asfortranarray(x), "train_y": y, "val_X": vx, "val_y": vy}


def integer_trials(rng):
    """int64 trials (beyond 2^24 and 2^53, int64's extremes), uint8 labels; int16 trials,
    float64 whole labels with class indices above 1."""
    import numpy as np
    x = rng.integers(-2**62, 2**62, (4, 5, 6), dtype=np.int64)
    x[0, 0, :] = [2**24 + 1, 2**24 + 3, -(2**25 + 2), 2**53 + 1, 2**63 - 1, -2**63]
    y = rng.integers(0, 2, 4).astype(np.uint8)
    vx = rng.integers(-32768, 32767, (5, 5, 6)).astype(np.int16)
    vy = np.array([0.0, 1.0, 3.0, -0.0, 1.0])
    return {"train_X": x, "train_y": y, "val_X": vx, "val_y": vy}


def small_dtypes(rng):
    """int8, uint8, int32 and bool trials; int16, int8, float32 and float16 whole labels."""
    import numpy as np
    return {
        "train_X": rng.integers(-128, 127, (3, 4, 2)).astype(np.int8),
        "train_y": rng.integers(0, 2, 3).astype(np.int16),
        "val_X": rng.integers(0, 2, (4, 4, 2)).astype(bool),
        "val_y": np.array([1, 0, 1, 1], dtype=np.float32),
    }, {
        "train_X": rng.integers(0, 256, (2, 3, 5)).astype(np.uint8),
        "train_y": np.array([5, 0], dtype=np.int8),
        "val_X": rng.integers(-2**31, 2**31 - 1, (3, 3, 5)).astype(np.int32),
        "val_y": np.array([0, 1, 1], dtype=np.float16),
    }


def empty(rng):
    """A train subset of two trials, a val subset of none."""
    import numpy as np
    return {"train_X": rng.normal(0, 1, (2, 8, 62)).astype(np.float32),
            "train_y": np.array([1, 0]),
            "val_X": np.zeros((0, 8, 62), dtype=np.float32),
            "val_y": np.zeros((0,), dtype=np.int64)}


def neurobench_subset(folder, subset):
    from neurobench.datasets.EEG import ThorEEGMI
    ds = ThorEEGMI(root=folder, split=subset, download=False)
    return ds.data.numpy(), ds.targets.numpy()


def cpp_subset(tool, folder, subset, work):
    import numpy as np
    out = os.path.join(work, f"cpp_{subset}.npz")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([tool, f"thor-eeg-mi:{folder}", out, f"subset={subset}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        if os.path.exists(out):
            return None, f"exit {r.returncode} but {out} was written: {r.stderr.strip()}"
        return None, r.stderr.strip()
    with np.load(out) as z:
        return (z["data"], z["targets"]), ""


def compare(name, nb, cpp):
    import numpy as np
    (nb_x, nb_y), (x, y) = nb, cpp
    problems = []
    if x.dtype != np.float32 or y.dtype != np.int64:
        problems.append(f"dtypes {x.dtype}, {y.dtype}; expected float32, int64")
    if nb_x.dtype != np.float32 or nb_y.dtype != np.int64:
        problems.append(f"NeuroBench's dtypes {nb_x.dtype}, {nb_y.dtype}")
    if nb_x.shape != x.shape:
        problems.append(f"data shape {x.shape}, NeuroBench {nb_x.shape}")
    else:
        a = np.ascontiguousarray(nb_x).view(np.uint32)
        b = np.ascontiguousarray(x).view(np.uint32)
        if not np.array_equal(a, b):
            bad = np.nonzero(a != b)
            problems.append(f"inputs differ at {[tuple(int(i) for i in t) for t in zip(*bad)][:5]}")
    if nb_y.shape != y.shape or not np.array_equal(nb_y, y):
        problems.append(f"targets {y.tolist()[:20]}, NeuroBench {nb_y.tolist()[:20]}")
    status = "FAIL" if problems else "ok"
    print(f"{status:4} {name}: {len(y)} trials of {tuple(x.shape[1:])}" +
          "".join(f"\n     {p}" for p in problems))
    return not problems


def check_folder(tool, work, label, folder):
    ok = True
    for subset in SUBSETS:
        nb = neurobench_subset(folder, subset)
        cpp, err = cpp_subset(tool, folder, subset, work)
        if cpp is None:
            print(f"FAIL {label} {subset}: {err}")
            ok = False
            continue
        ok &= compare(f"{label} {subset}", nb, cpp)
    return ok


def neurobench_verdict(folder, subset):
    """What NeuroBench makes of a folder we refuse."""
    import numpy as np
    try:
        x, y = neurobench_subset(folder, subset)
    except Exception as e:  # noqa: BLE001 (whatever NeuroBench raises)
        return True, f"fails ({type(e).__name__}: {str(e).splitlines()[0][:90]})"
    usable = x.ndim == 3 and y.ndim == 1 and bool((y >= 0).all())
    return False, (f"reads it into {x.dtype} {x.shape} and {y.dtype} {y.shape} "
                   f"(labels {np.unique(y).tolist()[:6]}){'' if usable else ', unusable'}")


def check_refused(tool, work, label, arrays, file, expected, neurobench_fails, subset="val",
                  remove=()):
    """A folder we refuse: the C++ error names `file` and contains `expected`; NeuroBench fails
    on it (neurobench_fails True) or reads it into something else."""
    folder = os.path.join(work, "bad", label.replace(" ", "_"))
    write(folder, arrays)
    for name in remove:
        os.remove(os.path.join(folder, name))
    fails, verdict = neurobench_verdict(folder, subset)
    cpp, err = cpp_subset(tool, folder, subset, work)
    ok = cpp is None and expected in err and os.path.join(folder, file) in err
    if neurobench_fails is not None and fails != neurobench_fails:
        ok = False
    print(f"{'ok' if ok else 'FAIL':4} {label}: NeuroBench {verdict}; we refuse: {err}")
    return ok


def refused_cases(tool, work, rng):
    import numpy as np
    base = release(rng, (4, 5), 10, 62)
    ok = True
    ok &= check_refused(tool, work, "no trials file", base, "val_X.npy",
                        "val_X.npy: no such THOR EEG MI file", True, remove=("val_X.npy",))
    ok &= check_refused(tool, work, "no labels file", base, "val_y.npy",
                        "val_y.npy: no such THOR EEG MI file", True, remove=("val_y.npy",))
    label_cases = [
        ("fractional labels", np.array([0.0, 1.0, 0.5, 1.0, 0.0]), "trial 2 is 0.5"),
        ("NaN labels", np.array([0.0, np.nan, 1.0, 1.0, 0.0]), "trial 1 is nan"),
        ("infinite labels", np.array([np.inf, 0, 1, 1, 0], dtype=np.float32), "trial 0 is inf"),
        ("negative labels", np.array([0, 1, -1, 1, 0], dtype=np.int8), "trial 2 is -1"),
        ("labels beyond int64", np.array([0.0, 1.0, 1.0, 2.0 ** 64, 0.0]),
         "trial 3 is 1.8446744073709552e+19"),
    ]
    for label, y, expected in label_cases:
        ok &= check_refused(tool, work, label, {**base, "val_y": y}, "val_y.npy", expected, False)
    complex_x = (base["val_X"] + 1j * base["val_X"]).astype(np.complex64)
    ok &= check_refused(tool, work, "complex trials", {**base, "val_X": complex_x}, "val_X.npy",
                        "unsupported dtype '<c8'", False)
    ok &= check_refused(tool, work, "uint16 trials",
                        {**base, "val_X": base["val_X"].astype(np.uint16)}, "val_X.npy",
                        "unsupported dtype '<u2'", True)
    ok &= check_refused(tool, work, "string labels",
                        {**base, "val_y": np.array(["l", "r", "l", "r", "l"])}, "val_y.npy",
                        "unsupported dtype '<U1'", True)
    ok &= check_refused(tool, work, "object labels",
                        {**base, "val_y": np.array([0, 1, None, 1, 0], dtype=object)},
                        "val_y.npy", "'|O'", True)
    ok &= check_refused(tool, work, "2-D trials", {**base, "val_X": base["val_X"][:, :, 0]},
                        "val_X.npy", "have shape (5, 10); expected 3-D", False)
    ok &= check_refused(tool, work, "2-D labels", {**base, "val_y": base["val_y"][:, None]},
                        "val_y.npy", "have shape (5, 1); expected 1-D", False)
    ok &= check_refused(tool, work, "counts differ", {**base, "val_y": base["val_y"][:4]},
                        "val_y.npy", "holds 5 trials (shape (5, 10, 62)) but", True)
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="neurobench_dump_dataset")
    parser.add_argument("--work", help="a scratch folder (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args()
    setup()
    import numpy as np

    work = args.work or tempfile.mkdtemp(prefix="thor_eeg_mi_check_")
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    rng = np.random.default_rng(args.seed)
    ok = True

    more, fewer = small_dtypes(rng)
    for label, arrays in (("release format", release(rng)), ("awkward floats", awkward(rng)),
                          ("integer trials", integer_trials(rng)), ("small dtypes", more),
                          ("more small dtypes", fewer), ("a subset without trials", empty(rng))):
        folder = os.path.join(work, label.replace(" ", "_"))
        write(folder, arrays)
        ok &= check_folder(args.tool, work, label, folder)

    arrays = release(rng, (6, 3), 20, 62)
    arrays = {k: v.astype(np.float64 if k.endswith("X") else np.int64) for k, v in arrays.items()}
    native = os.path.join(work, "native")
    swapped = os.path.join(work, "big_endian")
    write(native, arrays)
    write(swapped, {k: v.astype(v.dtype.newbyteorder(">")) for k, v in arrays.items()})
    for subset in SUBSETS:
        try:
            neurobench_subset(swapped, subset)
            print(f"FAIL NeuroBench read a big-endian {subset} subset (torch.tensor used to "
                  "refuse them)")
            ok = False
        except (ValueError, TypeError) as e:
            print(f"ok   NeuroBench fails on a big-endian {subset} subset: "
                  f"{str(e).splitlines()[0]}")
        cpp, err = cpp_subset(args.tool, swapped, subset, work)
        if cpp is None:
            print(f"FAIL big-endian {subset}: {err}")
            ok = False
            continue
        ok &= compare(f"big-endian {subset} (NeuroBench on the same values, native order)",
                      neurobench_subset(native, subset), cpp)

    ok &= refused_cases(args.tool, work, rng)

    if not args.work:
        shutil.rmtree(work)
    print("all equal" if ok else "DIFFERENCES FOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
