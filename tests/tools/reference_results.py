# SPDX-License-Identifier: Apache-2.0
"""What the scripts comparing `neurobench run` with Python NeuroBench share (tests/examples/
check_*_example.py, and neurobench_cpp's tests/neurobench_cpp/check_reference.py and
tests/python/check_examples.py): finding the reference packages or skipping, torch 1.13's shim
for NeuroBench's R2, NeuroBench's results as plain numbers, and the comparison of two results,
metric by metric.

Test tool only: the scripts put tests/tools on sys.path and import it.
"""
import math
import os
import sys

SKIP = 77  # ctest's SKIP_RETURN_CODE for these scripts


def third_party(root, packages=("snntorch", "neurobench")):
    """The reference packages' folder ($NEUROBENCH_THIRD_PARTY, else ../shared/third_party
    beside the checkout `root`), its packages put first on sys.path; exits 77 (skipped) when
    one of `packages` is not there."""
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(root, "..", "shared", "third_party"))
    missing = [p for p in packages if not os.path.isdir(os.path.join(tp, p))]
    if missing:
        print(f"skipped: {', '.join(missing)} not at {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, p) for p in ("snntorch", "neurobench")]
    return tp


def require(modules, packages):
    """Imports `modules`, or exits 77 (skipped) naming the Debian `packages` that provide them."""
    import importlib
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as e:
            print(f"skipped: {e} (Debian's {packages})")
            sys.exit(SKIP)


def torch_var_shim():
    """NeuroBench's R2 calls Tensor.var(correction=0), which torch 1.13 (Debian) only takes with
    a dim: on torch 1.x, maps that call to var(unbiased=False), the same computation. For
    NeuroBench's side only (neurobench computes R2 in C++)."""
    import torch
    if int(torch.__version__.split(".")[0]) >= 2:
        return
    original = torch.Tensor.var

    def var(self, *args, **kwargs):
        if "correction" in kwargs and not args and "dim" not in kwargs:
            return original(self, unbiased=bool(kwargs.pop("correction")), **kwargs)
        return original(self, *args, **kwargs)

    torch.Tensor.var = var


def plain(obj):
    """NeuroBench's results (dicts of tensors and NumPy scalars) as plain Python numbers."""
    import numpy as np
    import torch
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, torch.Tensor):
        return obj.item() if obj.numel() == 1 else obj.tolist()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    return obj


# The metrics are computed in the same order of operations as NeuroBench's; they agree to the
# last bit or within a few units of rounding (a sum over batches in another order).
TOLERANCE = 1e-12


def compare(expected, got, prefix="", tolerance=TOLERANCE):
    """Every number of `expected` (NeuroBench's results, nested dicts) against `got` (a
    results file's values): returns (the mismatches as lines, the largest relative
    difference). A number missing from `got`, not finite there, or further than `tolerance`
    (relative) is a mismatch."""
    bad, worst = [], 0.0
    for k, v in expected.items():
        if k not in got:
            bad.append(f"{prefix}{k} missing")
        elif isinstance(v, dict):
            b, w = compare(v, got[k], prefix + k + ".", tolerance)
            bad += b
            worst = max(worst, w)
        else:
            g = got[k]
            err = abs(v - g) / max(abs(v), 1e-12) if (v or g) else 0.0
            worst = max(worst, err)
            if not (math.isfinite(g) and err <= tolerance):
                bad.append(f"{prefix}{k}: NeuroBench {v}, neurobench run {g} (relative {err:.2e})")
    return bad, worst
