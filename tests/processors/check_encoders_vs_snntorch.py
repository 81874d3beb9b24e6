#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The spike encoders (RateEncoder, LatencyEncoder, DeltaEncoder) against snnTorch's spikegen,
live, on inputs made up at run time: random data of several shapes, types and options, run
through neurobench_apply_pre and through snnTorch 0.9.4 (rate under torch.manual_seed(seed),
latency), and for delta modulation through a NumPy implementation of its definition
(docs/encoders.md). Spikes must be equal exactly; where snnTorch refuses an input (a spike time
after num_steps - 1), neurobench must refuse it too.

  /usr/bin/python3 tests/processors/check_encoders_vs_snntorch.py \
      --apply-pre build/release/tests/neurobench_apply_pre [--work DIR] [--seed N]

Needs Debian's python3-torch and python3-numpy and snnTorch in ../shared/third_party (or
NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
"""
import argparse
import itertools
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77


def setup_paths():
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    if not os.path.isdir(os.path.join(tp, "snntorch")):
        print(f"skipped: snnTorch is not at {tp}/snntorch")
        sys.exit(SKIP)
    sys.path.insert(0, os.path.join(tp, "snntorch"))
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (Debian's python3-torch and python3-numpy are needed)")
        sys.exit(SKIP)


class Runner:
    def __init__(self, apply_pre, work):
        self.apply_pre = apply_pre
        self.work = work
        self.runs = 0

    def run(self, data, spec):
        """neurobench's output for `data` under `spec`, or the error text (a str)."""
        import numpy as np
        self.runs += 1
        src = os.path.join(self.work, "in.npz")
        dst = os.path.join(self.work, "out.npz")
        np.savez(src, data=data)
        if os.path.exists(dst):
            os.remove(dst)
        p = subprocess.run([self.apply_pre, src, dst, spec], capture_output=True, text=True)
        if p.returncode != 0:
            return p.stderr.strip() or f"exit status {p.returncode}"
        with np.load(dst) as z:
            return z["data"]


def spec_of(name, options):
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        return repr(v)
    return name + (":" + ",".join(f"{k}={value(v)}" for k, v in options.items())
                   if options else "")


def batch_first(t):
    import numpy as np
    return np.ascontiguousarray(np.moveaxis(t.numpy(), 0, 1)).astype(np.float32)


def check_rate(runner, rng, failures):
    import numpy as np
    import torch
    from snntorch import spikegen
    shapes = [(1, 1), (4, 10), (3, 2, 5), (5,), (6, 1, 12, 12)]
    seeds = [0, 1, 3, 12345, 2**33 + 7, -2]
    n = 0
    for i, (shape, seed) in enumerate(itertools.product(shapes, seeds)):
        dtype = np.float64 if i % 4 == 3 else np.float32
        data = rng.uniform(-0.3, 1.3, shape).astype(dtype)
        options = {"num_steps": [1, 5, 25][i % 3], "seed": seed}
        if i % 5 == 1:
            options.update(gain=0.6, offset=0.15)
        if i % 7 == 2 and options["num_steps"] > 2:
            options["first_spike_time"] = 2
        torch.manual_seed(seed)
        ref = batch_first(spikegen.rate(torch.from_numpy(data), **options_for_rate(options)))
        out = runner.run(data, spec_of("RateEncoder", options))
        n += 1
        if isinstance(out, str) or out.shape != ref.shape or not np.array_equal(out, ref):
            failures.append(f"RateEncoder {options} on {dtype.__name__}{shape}: "
                            f"{out if isinstance(out, str) else 'spikes differ'}")
    # Integers are taken as float32.
    data = rng.integers(0, 2, (3, 7)).astype(np.int64)
    torch.manual_seed(9)
    ref = batch_first(spikegen.rate(torch.from_numpy(data).float(), num_steps=6))
    out = runner.run(data, "RateEncoder:num_steps=6,seed=9")
    n += 1
    if isinstance(out, str) or not np.array_equal(out, ref):
        failures.append(f"RateEncoder on int64 data: {out if isinstance(out, str) else 'differ'}")
    print(f"rate: {n} cases compared with spikegen.rate under torch.manual_seed(seed)")


def options_for_rate(options):
    return {k: v for k, v in options.items() if k != "seed"}


def latency_data(rng, shape, dtype):
    import numpy as np
    x = rng.random(shape).astype(dtype)
    flat = x.reshape(-1)
    specials = [0.0, 1.0, 0.005, 0.5, 0.01, 0.2]
    flat[:min(len(specials), flat.size)] = specials[:flat.size]
    rng.shuffle(flat)
    return x


def check_latency(runner, rng, failures):
    import numpy as np
    import torch
    from snntorch import spikegen
    combos = []
    for linear, normalize, clip in itertools.product([False, True], repeat=3):
        for tau, threshold, fst, bypass, num_steps in [(1.0, 0.01, 0, False, 16),
                                                       (5.0, 0.05, 0, False, 25),
                                                       (0.5, 0.2, 3, False, 12),
                                                       (2.0, 0.01, 0, True, 6),
                                                       (1.0, 0.01, 0, False, 5)]:
            combos.append(dict(num_steps=num_steps, tau=tau, threshold=threshold, linear=linear,
                               normalize=normalize, clip=clip, first_spike_time=fst,
                               bypass=bypass))
    shapes = [(4, 8), (2, 3, 5), (7,), (3, 1, 6, 6)]
    agreed_errors = 0
    for i, options in enumerate(combos):
        shape = shapes[i % len(shapes)]
        dtype = np.float64 if i % 3 == 2 else np.float32
        data = latency_data(rng, shape, dtype)
        try:
            ref = batch_first(spikegen.latency(torch.from_numpy(data), **options))
        except Exception as e:  # snnTorch refuses: neurobench must refuse too
            ref = e
        out = runner.run(data, spec_of("LatencyEncoder", options))
        where = f"LatencyEncoder {options} on {dtype.__name__}{shape}"
        if isinstance(ref, Exception):
            if isinstance(out, str):
                agreed_errors += 1
            else:
                failures.append(f"{where}: snnTorch refused ({ref}) but neurobench did not")
        elif isinstance(out, str):
            failures.append(f"{where}: neurobench refused: {out}")
        elif out.shape != ref.shape or not np.array_equal(out, ref):
            diff = int((out != ref).sum()) if out.shape == ref.shape else "shape"
            failures.append(f"{where}: {diff} entries differ")
    # Data outside [0, 1] are refused by both.
    bad = np.array([[0.5, 1.5]], np.float32)
    out = runner.run(bad, "LatencyEncoder:num_steps=16")
    if not (isinstance(out, str) and "[0, 1]" in out and "1.5" in out):
        failures.append(f"LatencyEncoder on data above 1: {out!r}")
    print(f"latency: {len(combos)} option sets compared with spikegen.latency "
          f"({agreed_errors} refused by both: a spike time after num_steps - 1)")


def delta_numpy(x, threshold):
    """Events along axis 1: level = round(x0); +1 if x - level > thr, -1 if < -thr;
    also the smallest | |x - level| - thr | met at each entry (how close it came to a tie)."""
    import numpy as np
    thr = x.dtype.type(threshold)
    level = np.round(x[:, 0])
    out = np.zeros(x.shape, np.float32)
    closeness = np.zeros(x.shape, x.dtype)
    for t in range(x.shape[1]):
        d = x[:, t] - level
        up, down = d > thr, d < -thr
        out[:, t] = up.astype(np.float32) - down.astype(np.float32)
        closeness[:, t] = np.abs(np.abs(d) - thr)
        level = np.where(up, level + thr, np.where(down, level - thr, level))
    return out, closeness


def check_delta(runner, rng, failures):
    import numpy as np
    n = 0
    near_ties = 0
    differing = 0
    entries = 0
    for i, threshold in enumerate([1.0, 0.5, 0.1, 0.03, 2.5, 1.0]):
        for j, shape in enumerate([(3, 200, 20), (2, 50, 2, 3), (4, 17, 1)]):
            dtype = np.float64 if (i + j) % 4 == 3 else np.float32
            steps = rng.normal(0, threshold * rng.uniform(0.3, 2.0), shape)
            data = (np.cumsum(steps, axis=1) + rng.normal(0, 5, shape[:1] + (1,) *
                                                          (len(shape) - 1))).astype(dtype)
            if i == 5:  # log-mel-like: log(power + 1e-6), as Speech2Spikes encodes
                data = np.log(np.abs(data) ** 2 + 1e-6).astype(dtype)
            ref, closeness = delta_numpy(data, threshold)
            options = {"threshold": threshold} if threshold != 1.0 else {}
            if j == 1 and i % 2 == 0:
                options["off_spikes"] = False
                ref = np.maximum(ref, 0)
            out = runner.run(data, spec_of("DeltaEncoder", options))
            n += 1
            entries += ref.size
            eps = np.finfo(dtype).eps * 4 * max(threshold, float(np.abs(data).max()))
            near_ties += int((closeness <= eps).sum())
            if isinstance(out, str):
                failures.append(f"DeltaEncoder {options} on {dtype.__name__}{shape}: {out}")
                continue
            diff = out != ref
            if diff.any():
                differing += int(diff.sum())
                # A difference may start only where value - level is within rounding of the
                # threshold; the series may differ after it (its level moved differently).
                series = np.moveaxis(diff, 1, -1).reshape(-1, shape[1])
                close = np.moveaxis(closeness <= eps, 1, -1).reshape(-1, shape[1])
                for s in range(series.shape[0]):
                    if series[s].any():
                        first = int(np.argmax(series[s]))
                        if not close[s, first]:
                            failures.append(f"DeltaEncoder {options} on {dtype.__name__}{shape}: "
                                            f"series {s} differs at step {first}, not at a tie")
    print(f"delta: {n} cases, {entries} events compared with the NumPy definition: "
          f"{differing} differ; {near_ties} entries had value - level within rounding of "
          f"the threshold")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apply-pre", required=True, help="the neurobench_apply_pre program")
    parser.add_argument("--work", help="a folder for the .npz files (a temporary one if absent)")
    parser.add_argument("--seed", type=int, default=20240601, help="seeds the random inputs")
    args = parser.parse_args()
    setup_paths()
    import numpy as np
    rng = np.random.default_rng(args.seed)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or tmp
        os.makedirs(work, exist_ok=True)
        runner = Runner(os.path.abspath(args.apply_pre), work)
        check_rate(runner, rng, failures)
        check_latency(runner, rng, failures)
        check_delta(runner, rng, failures)
    for f in failures:
        print("FAIL:", f)
    print(f"{runner.runs} runs of neurobench_apply_pre, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
