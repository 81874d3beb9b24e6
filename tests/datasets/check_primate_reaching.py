#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ Primate Reaching data set with NeuroBench's own PrimateReaching, live,
sample by sample and exactly: the same steps in each subset, in the same order, bit-equal
spike counts and velocities, the same shapes and dtypes.

  /usr/bin/python3 tests/datasets/check_primate_reaching.py \
      --tool build/release/tests/neurobench_dump_dataset --work /tmp/pr

Each run writes two sessions with tests/fixtures/primate_reaching/make_mat.py (an indy-like one,
12 channels and 3 units, and a loco-like one, 24 channels and 2 units; NeuroBench insists on
`indy` or `loco` in the name) and loads them with several option combinations, every subset.

NeuroBench serves a sample as `dataset[step]` for each step of `ind_train`, `ind_val`,
`ind_test`; some raise IndexError there (with biological_delay, the last steps of the
recording). The C++ data set leaves those steps out (docs/datasets.md); this script checks
that it leaves out exactly those and nothing else.

Needs Debian's python3-torch, python3-numpy, python3-h5py, python3-scipy and NeuroBench in
../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
NeuroBench's PrimateReaching is used as it is: nothing is stubbed (download=False, so it
fetches nothing).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "primate_reaching")

# (file, options): NeuroBench's keyword arguments, which are also the kind's option names.
CASES = [
    ("indy_fixture", {}),
    # NeuroBench's published benchmarks (examples/primate_reaching/benchmark_*.py).
    ("indy_fixture", {"train_ratio": 0.5, "bin_width": 0.004}),
    ("indy_fixture", {"num_steps": 5, "label_series": True}),
    ("indy_fixture", {"num_steps": 3, "biological_delay": 10}),
    ("indy_fixture", {"num_steps": 4, "label_series": True, "biological_delay": 3}),
    ("indy_fixture", {"remove_segments_inactive": True, "max_segment_length": 300}),
    ("indy_fixture", {"split_num": 3, "remove_segments_inactive": True,
                      "max_segment_length": 100, "train_ratio": 0.6}),
    ("indy_fixture", {"split_num": 2, "num_steps": 2, "stride": 0.012, "bin_width": 0.05}),
    ("indy_fixture", {"split_num": 1000}),
    ("loco_fixture", {}),
    ("loco_fixture", {"num_steps": 7, "label_series": True, "train_ratio": 0.3,
                      "biological_delay": 1, "stride": 0.008}),
]
SUBSETS = {"train": "ind_train", "val": "ind_val", "test": "ind_test"}


def setup():
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    if not os.path.isdir(os.path.join(tp, "neurobench")):
        print(f"skipped: NeuroBench is not at {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, "neurobench"), FIXTURES]
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
        import scipy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (Debian's python3-torch, python3-numpy, python3-h5py, "
              "python3-scipy)")
        sys.exit(SKIP)


def neurobench_subset(work, name, options, subset):
    import numpy as np
    from neurobench.datasets import PrimateReaching
    ds = PrimateReaching(work, name, download=False, **{"num_steps": 1, **options})
    data, targets, refused = [], [], 0
    for step in getattr(ds, SUBSETS[subset]):
        try:
            x, y = ds[step]
        except IndexError:
            refused += 1
            continue
        data.append(x.numpy())
        targets.append(y.numpy())
    steps = options.get("num_steps", 1)
    if not data:
        tshape = (0, steps, 2) if options.get("label_series") else (0, 2)
        return (np.zeros((0, steps, ds.samples.shape[0]), np.float32),
                np.zeros(tshape, np.float32)), refused
    return (np.stack(data), np.stack(targets)), refused


def cpp_subset(tool, path, options, subset, out):
    import numpy as np
    text = ",".join([f"subset={subset}"] + [f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                                            for k, v in options.items()])
    r = subprocess.run([tool, f"primate-reaching:{path}", out, text], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with np.load(out) as z:
        return (z["data"], z["targets"]), ""


def compare(nb, cpp):
    import numpy as np
    problems = []
    for what, a, b in (("data", nb[0], cpp[0]), ("targets", nb[1], cpp[1])):
        if a.shape != b.shape:
            problems.append(f"{what} shape {b.shape}, NeuroBench {a.shape}")
        elif b.dtype != np.float32:
            problems.append(f"{what} dtype {b.dtype}, NeuroBench float32")
        elif not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
            rows = np.nonzero((a.view(np.uint32) != b.view(np.uint32)).reshape(len(a), -1)
                              .any(axis=1))[0]
            problems.append(f"{what} differ in samples {rows[:10].tolist()}")
    return problems


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tool", required=True, help="neurobench_dump_dataset")
    p.add_argument("--work", required=True)
    a = p.parse_args()
    setup()
    import contextlib
    import io
    import make_mat
    os.makedirs(a.work, exist_ok=True)
    make_mat.write_session(os.path.join(a.work, "indy_fixture.mat"), seed=1, channels=12,
                           units=3, steps=3000)
    make_mat.write_session(os.path.join(a.work, "loco_fixture.mat"), seed=2, channels=24,
                           units=2, steps=2000)
    failures, refused_total, samples = 0, 0, 0
    for name, options in CASES:
        for subset in SUBSETS:
            with contextlib.redirect_stdout(io.StringIO()):  # NeuroBench prints "Loading ..."
                nb, refused = neurobench_subset(a.work, name, options, subset)
            cpp, error = cpp_subset(a.tool, os.path.join(a.work, name + ".mat"), options, subset,
                                    os.path.join(a.work, "cpp.npz"))
            label = f"{name} {subset} {options}"
            problems = [f"C++ failed: {error}"] if cpp is None else compare(nb, cpp)
            refused_total += refused
            samples += len(nb[0])
            print(f"{'FAIL' if problems else 'ok'}  {label}: {len(nb[0])} samples"
                  + (f", {refused} refused by NeuroBench (IndexError)" if refused else ""))
            for problem in problems:
                print(f"      {problem}")
            failures += bool(problems)
    print(f"{samples} samples compared, {refused_total} steps NeuroBench refuses left out")
    if failures:
        print(f"{failures} comparisons FAILED")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
