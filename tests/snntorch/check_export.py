#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Exports each network of nets.py with python/neurobench_export.py, runs `neurobench run` on it
and compares with Python NeuroBench on the same eager network: integers exactly, floats to
relative 1e-5, per-layer results under the very names of the eager net.

  /usr/bin/python3 tests/snntorch/check_export.py --cli build/release/neurobench [NAME ...]

Needs Debian's python3-torch, python3-numpy, python3-tqdm (scripts/setup --python) and the real
snnTorch and NeuroBench in ../shared/third_party (or NEUROBENCH_THIRD_PARTY). Exits 77 (skipped)
when either is missing. Exporting first and benchmarking in Python afterwards, on the same net
object, also checks that the export leaves the network as it was given.
"""
import argparse
import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402


def third_party_dir():
    d = os.environ.get("NEUROBENCH_THIRD_PARTY") or os.path.join(ROOT, "..", "shared",
                                                                   "third_party")
    return os.path.abspath(d)


def setup_paths():
    tp = third_party_dir()
    if not (os.path.isdir(os.path.join(tp, "snntorch")) and
            os.path.isdir(os.path.join(tp, "neurobench"))):
        print(f"skipped: the reference packages are not at {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, "snntorch"), os.path.join(tp, "neurobench"),
                    os.path.join(ROOT, "python"), HERE]
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (scripts/setup --python installs python3-torch, -numpy, -tqdm)")
        sys.exit(SKIP)


plain = reference_results.plain  # NeuroBench's results as plain numbers


def neurobench_results(net, spec, x, y):
    import snntorch
    import torch
    from neurobench.benchmarks import Benchmark
    from neurobench.metrics import static as S
    from neurobench.metrics import workload as W
    from neurobench.models import SNNTorchModel, TorchModel
    from neurobench.processors import postprocessors as P

    if spec["wrapper"] == "SNNTorchModel":
        model = SNNTorchModel(net, custom_forward=spec.get("custom_forward", False))
    else:
        model = TorchModel(net)
        model.add_activation_module(snntorch.SpikingNeuron)
    post = [getattr(P, p)() for p in spec["post"]]
    metrics = [[getattr(S, m) for m in spec["static"]], [getattr(W, m) for m in spec["workload"]]]
    ds = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
    loader = torch.utils.data.DataLoader(ds, batch_size=spec["batch_size"], shuffle=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        res = Benchmark(model, loader, [], post, metrics).run(quiet=False)
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    return plain(res)


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if math.isnan(a):
            return math.isnan(b)
        return abs(a - b) <= max(1e-5 * abs(a), 1e-7)
    return a == b


def compare(expected, got, prefix=""):
    bad = []
    for k, v in expected.items():
        if k not in got:
            bad.append(f"{prefix}{k} missing")
        elif isinstance(v, dict):
            if not isinstance(got[k], dict):
                bad.append(f"{prefix}{k}: not an object")
            else:
                g = got[k]
                if k == "ActivationSparsityByLayer":
                    # NeuroBench names a layer by its attribute name alone; ours are the full
                    # dotted paths of the eager net, which must end with those names.
                    g = {n.split(".")[-1]: x for n, x in g.items()}
                    if len(g) != len(got[k]):
                        bad.append(f"{prefix}{k}: layer names collide: {sorted(got[k])}")
                extra = sorted(set(g) - set(v))
                if extra:
                    bad.append(f"{prefix}{k}: unexpected keys {extra}")
                bad += compare(v, g, prefix + k + ".")
        elif not close(v, got[k]):
            bad.append(f"{prefix}{k}: expected {v}, got {got[k]}")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    setup_paths()
    import numpy as np
    import torch
    import nets
    import neurobench_export

    reference_results.torch_var_shim()
    names = a.names or list(nets.CASES)
    work = a.work or tempfile.mkdtemp(prefix="nb_export_check_")
    os.makedirs(work, exist_ok=True)
    passed = failed = 0
    for name in names:
        spec = {"wrapper": "SNNTorchModel", "static": nets.STATIC, **nets.CASES[name]}
        spec.setdefault("workload", nets.REGRESS if "regression" in spec else nets.CLASSIFY)
        rng = np.random.default_rng(sum(map(ord, name)))
        x = spec["data"](rng)
        if "classes" in spec:
            y = rng.integers(0, spec["classes"], size=x.shape[0]).astype(np.int64)
        else:
            y = rng.standard_normal((x.shape[0], spec["regression"])).astype(np.float32)
        stepwise = spec["wrapper"] == "SNNTorchModel" and not spec.get("custom_forward")
        example = torch.from_numpy(x[: spec["batch_size"]])
        if stepwise:
            example = example[:, 0]
        net = nets.build_net(name)
        pt = os.path.join(work, name + ".pt")
        try:
            neurobench_export.export(net, pt, example_input=example,
                                     custom_forward=bool(spec.get("custom_forward")),
                                     stepwise=stepwise if spec["wrapper"] == "SNNTorchModel"
                                     else False)
        except Exception as e:  # noqa: BLE001
            print(f"FAIL {name}: export raised {type(e).__name__}: {e}")
            failed += 1
            continue
        try:
            expected = neurobench_results(net, spec, x, y)
        except Exception as e:  # noqa: BLE001
            print(f"FAIL {name}: Python NeuroBench failed: {type(e).__name__}: {e}")
            failed += 1
            continue
        data = os.path.join(work, name + ".npz")
        np.savez(data, data=x, targets=y)
        out = os.path.join(work, name + ".json")
        cmd = [a.cli, "run", "--model", pt, "--data", data, "--batch-size",
               str(spec["batch_size"]), "--static", ",".join(spec["static"]),
               "--workload", ",".join(spec["workload"]), "--json", out, "--quiet"]
        if spec["post"]:
            cmd += ["--post", ",".join(spec["post"])]
        if stepwise:
            cmd.append("--stepwise")
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if r.returncode != 0 or not os.path.exists(out):
            print(f"FAIL {name}: neurobench exited {r.returncode}: {r.stderr.strip()[-400:]}")
            failed += 1
            continue
        with open(out) as f:
            got = json.load(f)
        warnings = got.get("_run", {}).get("warnings", [])
        bad = compare(expected, got)
        if warnings:
            bad.append(f"unexpected warnings: {warnings}")
        if bad:
            print(f"FAIL {name}: " + "; ".join(bad[:6]))
            failed += 1
        else:
            print(f"PASS {name}")
            passed += 1
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
