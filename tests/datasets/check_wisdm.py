#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ WISDM data set with NeuroBench's own WISDM loader, live, subset by subset
and exactly: the same windows in the same order, bit-equal float32 inputs, equal int64 class
indices, for the train, val and test subsets of every file.

  /usr/bin/python3 tests/datasets/check_wisdm.py --tool build/release/tests/neurobench_dump_dataset

Each run writes random WISDM files (seeded) with np.savez and np.savez_compressed:
- the release's shape: float64 inputs (windows, 40, 6), float64 one-hot targets of 7 classes,
  read by file and by folder (watch_subset2_40.npz inside);
- awkward ones: inputs float32, float16, int16, int64, uint8, bool, Fortran order,
  values float32 must round, overflow to infinity, subnormals and NaN; targets with ties,
  all-zero rows, negative values, NaN, infinities, integer, bool and float16 dtypes; other
  timestep, channel and class counts; a subset without windows.

A big-endian file (np.savez of '>f8' and '>i8' arrays): torch.tensor refuses non-native byte
order, so NeuroBench fails on it; we read it, and must give what NeuroBench gives for the same
values in native order.

Then files NeuroBench cannot use either: without arr_3, with a string array, with 1-D targets,
and with input and target counts that differ (NeuroBench builds mismatched tensors there; we
refuse, docs/datasets.md).

NeuroBench's WISDM module imports pytorch_lightning and gdown, which Debian does not package and
which this machine cannot install. Neither is used to read the file: WISDM only subclasses
LightningDataModule (whose constructor it calls) and calls gdown when the file is missing. So
this script puts minimal stand-ins for both in sys.modules before importing it: a
LightningDataModule whose constructor does nothing, and a gdown whose download_folder raises
(a test that reaches it has a missing file, which is a failure, not a download).

Needs Debian's python3-torch, python3-numpy and NeuroBench in ../shared/third_party (or
NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
FILE_NAME = "watch_subset2_40.npz"
SUBSETS = ("train", "val", "test")


def stub_modules():
    """Stand-ins for the two modules NeuroBench's WISDM imports but does not need here."""
    lightning = types.ModuleType("pytorch_lightning")

    class LightningDataModule:
        def __init__(self, *args, **kwargs):
            pass

    lightning.LightningDataModule = LightningDataModule
    gdown = types.ModuleType("gdown")

    def download_folder(*args, **kwargs):
        raise RuntimeError(f"gdown.download_folder called ({args}, {kwargs}): the file is missing")

    gdown.download_folder = download_folder
    sys.modules.setdefault("pytorch_lightning", lightning)
    sys.modules.setdefault("gdown", gdown)


def setup():
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    if not os.path.isfile(os.path.join(tp, "neurobench", "neurobench", "datasets", "WISDM.py")):
        print(f"skipped: NeuroBench's WISDM is not in {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, "neurobench")]
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (Debian's python3-torch, python3-numpy)")
        sys.exit(SKIP)
    stub_modules()


def one_hot(rng, n, classes, dtype="float64"):
    import numpy as np
    y = np.zeros((n, classes), dtype=dtype)
    if n:
        y[np.arange(n), rng.integers(0, classes, n)] = 1
    return y


def release_arrays(rng, sizes=(37, 11, 13)):
    """Six arrays shaped as the release: float64 windows (n, 40, 6), one-hot targets of 7."""
    xs = [rng.normal(0, 3, (n, 40, 6)) for n in sizes]
    ys = [one_hot(rng, n, 7) for n in sizes]
    return xs + ys


def awkward_arrays(rng):
    import numpy as np
    # train: float64 values float32 must round, overflow, underflow, subnormals, NaN; Fortran
    # order; 7 timesteps of 3 channels.
    x0 = rng.normal(0, 1, (9, 7, 3)) * 10.0 ** rng.integers(-45, 40, (9, 7, 3))
    x0[0, 0, :] = [np.nan, -np.inf, 3e38 * 1.5]
    x0[1, 1, :] = [1e-46, -1e-40, 16777217.0]
    x0 = np.asfortranarray(x0)
    y0 = rng.normal(0, 1, (9, 5))
    y0[0] = [0, 0, 0, 0, 0]                          # all zero: class 0
    y0[1] = [0, 1, 1, 0, 0]                          # a tie: the first
    y0[2] = [-3, -1, -2, -1, -5]                     # negative values
    y0[3] = [1, np.nan, 2, np.nan, 0]                # NaN beats any number: the first NaN
    y0[4] = [np.inf, np.inf, 0, 0, 0]
    y0[5] = [-0.0, 0.0, -np.inf, -1, -2]
    # val: float32 inputs; uint8 targets with ties and an all-zero row.
    x1 = rng.normal(0, 1, (6, 7, 3)).astype(np.float32)
    y1 = rng.integers(0, 3, (6, 5)).astype(np.uint8)
    y1[0] = 0
    # test: int16 inputs, bool targets (all-False rows, several True).
    x2 = rng.integers(-32768, 32767, (8, 7, 3)).astype(np.int16)
    y2 = rng.integers(0, 2, (8, 5)).astype(bool)
    y2[0] = False
    y2[1] = [False, False, False, True, True]
    return [x0, x1, x2, y0, y1, y2]


def more_dtypes(rng):
    """Inputs float16, uint8, bool and float32; targets float16, int64 and float32; a subset
    without windows."""
    import numpy as np
    x0 = rng.normal(0, 100, (5, 4, 2)).astype(np.float16)
    y0 = rng.normal(0, 1, (5, 3)).astype(np.float16)
    y0[0] = [1, 1, 1]
    x1 = rng.integers(0, 256, (4, 4, 2)).astype(np.uint8)
    y1 = rng.integers(-5, 5, (4, 3)).astype(np.int64)
    x2 = np.zeros((0, 4, 2), dtype=bool)
    y2 = np.zeros((0, 3), dtype=np.float32)
    return [x0, x1, x2, y0, y1, y2]


def bool_inputs(rng):
    """Inputs bool, float32 and int64; float32 one-hot targets."""
    import numpy as np
    x = [rng.integers(0, 2, (n, 40, 6)).astype(bool) for n in (3, 2, 4)]
    x[1] = x[1].astype(np.float32)
    # int64 inputs float32 must round: beyond 2^24, beyond 2^53, and halfway cases.
    x[2] = rng.integers(-2**62, 2**62, (4, 40, 6), dtype=np.int64)
    x[2][0, 0, :] = [2**24 + 1, 2**24 + 3, -(2**25 + 2), 2**53 + 1, 2**63 - 1, -2**63]
    return x + [one_hot(rng, n, 7, "float32") for n in (3, 2, 4)]


def save(path, arrays, compressed):
    import numpy as np
    os.makedirs(os.path.dirname(path), exist_ok=True)
    (np.savez_compressed if compressed else np.savez)(path, *arrays)


def neurobench_subsets(path):
    from neurobench.datasets.WISDM import WISDM
    ds = WISDM(path=path)
    out = {}
    for name, (x, y) in zip(SUBSETS, (ds.train_dataset, ds.val_dataset, ds.test_dataset)):
        out[name] = (x.numpy(), y.numpy())
    return out


def cpp_subset(tool, path, subset, work):
    import numpy as np
    out = os.path.join(work, f"cpp_{subset}.npz")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([tool, f"wisdm:{path}", out, f"subset={subset}"], capture_output=True,
                       text=True)
    if r.returncode != 0:
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
    elif not np.array_equal(np.ascontiguousarray(nb_x).view(np.uint32),
                            np.ascontiguousarray(x).view(np.uint32)):
        bad = np.nonzero(nb_x.view(np.uint32) != x.view(np.uint32))
        problems.append(f"inputs differ at {[tuple(int(i) for i in t) for t in zip(*bad)][:5]}")
    if nb_y.shape != y.shape or not np.array_equal(nb_y, y):
        problems.append(f"targets {y.tolist()}, NeuroBench {nb_y.tolist()}")
    status = "FAIL" if problems else "ok"
    print(f"{status:4} {name}: {len(y)} windows" + "".join(f"\n     {p}" for p in problems))
    return not problems


def check_file(tool, work, label, path, paths=None):
    """Every subset of the file at `path`, as NeuroBench reads it, against the C++ reading of
    each of `paths` (the file, or its folder)."""
    ok = True
    nb = neurobench_subsets(path)
    for given in paths or [path]:
        for subset in SUBSETS:
            cpp, err = cpp_subset(tool, given, subset, work)
            where = f"{label} {subset} ({os.path.relpath(given, work)})"
            if cpp is None:
                print(f"FAIL {where}: {err}")
                ok = False
                continue
            ok &= compare(where, nb[subset], cpp)
    return ok


def check_refused(tool, work, label, arrays, expected, neurobench_fails, subset="test"):
    """A file both refuse (or NeuroBench reads into something unusable): the C++ error must
    contain `expected`."""
    path = os.path.join(work, "bad", label.replace(" ", "_") + ".npz")
    save(path, arrays, compressed=False)
    nb = "read it"
    try:
        got = neurobench_subsets(path)
        x, y = got[subset]
        if x.shape[:1] != y.shape[:1] or y.ndim != 1:
            nb = f"read it into unusable tensors {x.shape} and {y.shape}"
    except Exception as e:  # noqa: BLE001 (whatever NeuroBench raises)
        nb = f"fails ({type(e).__name__}: {str(e).splitlines()[0][:80]})"
    cpp, err = cpp_subset(tool, path, subset, work)
    ok = cpp is None and expected in err and path in err
    if neurobench_fails and nb == "read it":
        ok = False
    print(f"{'ok' if ok else 'FAIL':4} {label}: NeuroBench {nb}; we refuse: {err}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="neurobench_dump_dataset")
    parser.add_argument("--work", help="a scratch folder (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    setup()
    import numpy as np

    work = args.work or tempfile.mkdtemp(prefix="wisdm_check_")
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    rng = np.random.default_rng(args.seed)
    ok = True

    for compressed in (False, True):
        kind = "savez_compressed" if compressed else "savez"
        folder = os.path.join(work, kind)
        release = os.path.join(folder, FILE_NAME)
        save(release, release_arrays(rng), compressed)
        ok &= check_file(args.tool, work, f"release shape, {kind}", release, [release, folder])
        for label, arrays in (("awkward", awkward_arrays(rng)), ("more dtypes", more_dtypes(rng)),
                              ("bool and int64 inputs", bool_inputs(rng))):
            path = os.path.join(work, f"{label.replace(' ', '_')}_{kind}.npz")
            save(path, arrays, compressed)
            ok &= check_file(args.tool, work, f"{label}, {kind}", path)

    arrays = release_arrays(rng, (6, 2, 3))
    arrays[3:] = [y.astype(np.int64) for y in arrays[3:]]
    native = os.path.join(work, "native.npz")
    swapped = os.path.join(work, "big_endian.npz")
    save(native, arrays, compressed=False)
    save(swapped, [a.astype(a.dtype.newbyteorder(">")) for a in arrays], compressed=False)
    try:
        neurobench_subsets(swapped)
        print("FAIL NeuroBench read a big-endian file (torch.tensor used to refuse them)")
        ok = False
    except (ValueError, TypeError) as e:
        print(f"ok   NeuroBench fails on a big-endian file: {str(e).splitlines()[0]}")
    nb = neurobench_subsets(native)
    for subset in SUBSETS:
        cpp, err = cpp_subset(args.tool, swapped, subset, work)
        if cpp is None:
            print(f"FAIL big-endian {subset}: {err}")
            ok = False
            continue
        ok &= compare(f"big-endian {subset} (NeuroBench on the same values, native order)",
                      nb[subset], cpp)

    base = release_arrays(rng, (4, 3, 5))
    without_arr3 = {f"arr_{i}": a for i, a in enumerate(base) if i != 3}
    path = os.path.join(work, "bad", "no_arr_3.npz")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez(path, **without_arr3)
    try:
        neurobench_subsets(path)
        print("FAIL NeuroBench read a file without arr_3")
        ok = False
    except KeyError:
        pass
    cpp, err = cpp_subset(args.tool, path, "test", work)
    listed = "no array named 'arr_3' (found: arr_0, arr_1, arr_2, arr_4, arr_5)"
    good = cpp is None and listed in err
    print(f"{'ok' if good else 'FAIL':4} without arr_3: NeuroBench fails (KeyError); we refuse: "
          f"{err}")
    ok &= good
    strings = list(base)
    strings[2] = np.array([["ab"] * 6] * 40 * 5).reshape(5, 40, 6)
    ok &= check_refused(args.tool, work, "string inputs", strings, "unsupported dtype '<U2'",
                        neurobench_fails=True)
    labels = list(base)
    labels[5] = np.array([0, 3, 1, 2, 6])
    ok &= check_refused(args.tool, work, "1-D targets", labels,
                        "has shape (5,); expected 2-D one-hot", neurobench_fails=False)
    counts = list(base)
    counts[5] = one_hot(rng, 4, 7)
    ok &= check_refused(args.tool, work, "counts differ", counts,
                        "has 5 windows (shape (5, 40, 6)) but its targets 'arr_5' have 4",
                        neurobench_fails=False)
    missing = os.path.join(work, "nothing_here")
    cpp, err = cpp_subset(args.tool, missing, "test", work)
    good = cpp is None and "no such WISDM file" in err and "drive.google.com" in err
    print(f"{'ok' if good else 'FAIL':4} a folder without the file: {err}")
    ok &= good

    if not args.work:
        shutil.rmtree(work)
    print("all equal" if ok else "DIFFERENCES FOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
