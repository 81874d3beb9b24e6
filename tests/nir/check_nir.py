#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The ctest driver of the NIR import: every graph of make_graphs.py, under every time convention,
through `neurobench convert` and `neurobench run`, against the reference of nir_reference.py and,
for the graphs snnTorch's import takes, against snnTorch and Python NeuroBench.

  /usr/bin/python3 tests/nir/check_nir.py --neurobench build/release/neurobench [--work DIR]
                                          [--reference-only] [-v] [NAME ...]

For each graph and case (snntorch at dt 1e-4; euler and exact at dt 1e-3, on every graph; euler
with --nir-reset subtract on recurrent_cubalif):
 a) the graph is written as NAME.nir (and must read back unchanged), random 0/1 spikes (B=6,
    T=12, rate 0.3) and random targets (shaped as ChooseMaxCount's predictions: (B,) and, for a
    conv output (C, H, W), (B, H, W)) as NAME.npz;
 b) `neurobench convert NAME.nir NAME.C.pt --nir-time C --nir-dt DT [--nir-reset subtract]`,
    loaded with torch.jit.load (state zero) and called on x[:, t] for each t: its outputs must
    equal the reference's (spikes exactly, real values to 1e-6 relative);
 c) snntorch on a graph snnTorch imports: snnTorch's import_from_nir must give the reference's
    outputs (and ours), and `neurobench run --model NAME.nir` every metric of NeuroBench's
    Benchmark on SNNTorchModel(the import), keys and values (1e-6 relative);
 d) otherwise ActivationSparsity (over the LIF, IF and CubaLIF nodes) and ClassificationAccuracy
    of the reference must equal those of `neurobench run --model NAME.C.pt --stepwise`.
--reference-only leaves out everything that needs `neurobench convert` (b, the command-line
side of c and d) and checks the rest: the files, snnTorch's import and NeuroBench against the
reference, and the CubaLIF update against the NIR paper's. Without --reference-only, a program
without `convert` fails the check (after the reference side). Exits 77 (skipped) without h5py,
nir, snntorch or NeuroBench ($NEUROBENCH_THIRD_PARTY, default ../shared/third_party).
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
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
SKIP = 77
BATCH, STEPS, RATE = 6, 12, 0.3
TOLERANCE = 1e-6
STATIC = ["Footprint", "ParameterCount", "ConnectionSparsity"]
WORKLOAD = ["ClassificationAccuracy", "ActivationSparsity", "SynapticOperations",
            "MembraneUpdates", "NeuronOperations"]
OTHER_DT = 1e-3
SUBTRACT_GRAPHS = ("recurrent_cubalif",)  # also run with --nir-reset subtract
PAPER = os.path.join(os.path.dirname(HERE), "fixtures", "nir_paper")
# The NIR paper's graphs (tests/fixtures/nir_paper/README.md): file, input shape, whether
# snnTorch's import takes it (compared with NeuroBench then).
PAPER_GRAPHS = {"paper_lif_norse": ("lif_norse.nir", (1,), True),
                "paper_lif_rockpool": ("lif_rockpool.nir", (1,), True),
                "paper_cnn_sinabs": ("cnn_sinabs.nir", (2, 34, 34), False),
                "paper_braille_bias_zero": ("braille_noDelay_bias_zero.nir", (12,), False),
                "paper_braille_subtract": ("braille_noDelay_noBias_subtract.nir", (12,), False)}


def paper_graphs():
    """The NIR paper's graphs as make_graphs.graphs() gives its own."""
    import nir
    out = {}
    for name, (file, shape, importable) in PAPER_GRAPHS.items():
        out[name] = (nir.read(os.path.join(PAPER, file), type_check=False), shape, importable)
    return out


def require_packages():
    """Imports the packages the check needs, or exits 77 (skipped) naming the missing one."""
    import importlib
    # make_graphs puts the reference packages on sys.path and imports nir
    for module in ("h5py", "numpy", "torch", "make_graphs", "snntorch", "snntorch.import_nir",
                   "neurobench.benchmarks"):
        try:
            importlib.import_module(module)
        except ImportError as e:
            print(f"skipped: {e} (h5py, nir, snntorch and NeuroBench are needed; the last "
                  f"three from $NEUROBENCH_THIRD_PARTY or ../shared/third_party)")
            sys.exit(SKIP)


def has_convert(cli):
    """Whether the program has the `convert` command (before the NIR import: no)."""
    r = subprocess.run([cli, "convert", "--help"], capture_output=True, text=True, timeout=60)
    return r.returncode == 0, (r.stderr.strip() or r.stdout.strip())[-300:]


# ---- cases and data ------------------------------------------------------------------------

class Case:
    """One graph under one convention."""

    def __init__(self, name, graph, shape, importable, convention, dt, reset="v_reset"):
        self.name, self.graph, self.shape, self.importable = name, graph, shape, importable
        self.convention, self.dt, self.reset = convention, dt, reset

    @property
    def label(self):
        extra = "" if self.reset == "v_reset" else f" reset={self.reset}"
        return f"{self.name} {self.convention}{extra}"

    @property
    def stem(self):
        return f"{self.name}.{self.convention}" + ("" if self.reset == "v_reset" else ".subtract")

    @property
    def against_snntorch(self):
        return self.importable and self.convention == "snntorch"


def cases_of(name, graph, shape, importable):
    cases = [Case(name, graph, shape, importable, "snntorch", 1e-4),
             Case(name, graph, shape, importable, "euler", OTHER_DT),
             Case(name, graph, shape, importable, "exact", OTHER_DT)]
    if name in SUBTRACT_GRAPHS:
        cases.append(Case(name, graph, shape, importable, "euler", OTHER_DT, "subtract"))
    return cases


def make_data(name, shape, out_shape):
    """(spikes (B, T, *shape) float32, targets int64 shaped as ChooseMaxCount's predictions:
    (B, *out_shape[1:]), classes along the output's first dimension)."""
    import numpy as np
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = (rng.random((BATCH, STEPS) + tuple(shape)) < RATE).astype(np.float32)
    y = rng.integers(0, out_shape[0], size=(BATCH,) + tuple(out_shape[1:])).astype(np.int64)
    return x, y


def output_shape(graph):
    """The shape of the graph's (only) Output, without the batch, its dimensions of size 1
    left out when the graph gives fewer (the paper's Rockpool LIF declares (1, 1, 1))."""
    import nir_reference
    flat = nir_reference.Flat(graph)
    shape = tuple(int(d) for d in flat.nodes[flat.output].output_type["output"])
    squeezed = tuple(d for d in shape if d != 1)
    return shape if len(squeezed) == len(shape) else (squeezed or shape[-1:])


# ---- comparisons ---------------------------------------------------------------------------

def compare_steps(want, got, spikes, what):
    """Mismatches of `got` against `want` (B, T, ...): spikes exactly, reals to 1e-6 relative;
    names the timestep, the element and both values."""
    import torch
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        return [f"{what}: shape {shape}, expected {tuple(want.shape)}"]
    if spikes:
        bad = got != want
    else:
        bad = ~torch.isclose(got, want, rtol=TOLERANCE, atol=1e-12, equal_nan=False)
    count = int(bad.sum())
    if count == 0:
        return []
    lines = [f"{what}: {count} of {want.numel()} values differ"]
    for index in bad.nonzero()[:5].tolist():
        b, t, rest = index[0], index[1], tuple(index[2:])
        lines.append(f"  sample {b} timestep {t} element {rest}: got {got[tuple(index)].item()!r},"
                     f" expected {want[tuple(index)].item()!r}")
    return lines


def close(want, got):
    if isinstance(want, bool) or isinstance(got, bool):
        return want == got
    if isinstance(want, int) and isinstance(got, int):
        return want == got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if math.isnan(want):
            return math.isnan(got)
        return got == want or abs(got - want) <= TOLERANCE * abs(want)
    return want == got


def compare_metrics(want, got, prefix=""):
    """Every value of `want` (NeuroBench's or the reference's) in `got` (a `run --json` file),
    the same keys at every level (got's own '_...' keys aside)."""
    bad = []
    keys = [k for k in got if not k.startswith("_")] if not prefix else list(got)
    if sorted(keys) != sorted(want):
        bad.append(f"{prefix or 'metrics'}: keys {sorted(keys)}, expected {sorted(want)}")
    for key, value in want.items():
        if key not in got:
            continue
        if isinstance(value, dict):
            if isinstance(got[key], dict):
                bad += compare_metrics(value, got[key], f"{prefix}{key}.")
            else:
                bad.append(f"{prefix}{key}: {got[key]!r}, expected a dict")
        elif not close(value, got[key]):
            bad.append(f"{prefix}{key}: got {got[key]!r}, expected {value!r}")
    return bad


# ---- the reference's and snnTorch's sides ---------------------------------------------------

def reference_metrics(case, ref, node_outputs, targets):
    """ActivationSparsity over the spiking nodes and ClassificationAccuracy, as NeuroBench
    computes them (one batch)."""
    import nir_reference
    import torch
    nonzero = total = 0
    for name in nir_reference.spiking_nodes(case.graph):
        nonzero += int(torch.count_nonzero(node_outputs[name]))
        total += node_outputs[name].numel()
    sparsity = (total - nonzero) / total if total else 0.0
    preds = ref.sum(1).argmax(1)  # ChooseMaxCount
    accuracy = torch.mean(torch.eq(preds, torch.from_numpy(targets)).float()).item()
    return {"ClassificationAccuracy": accuracy, "ActivationSparsity": sparsity}


def import_snntorch(nir_path):
    """snnTorch's import_from_nir of the file (its messages swallowed)."""
    import make_graphs
    from snntorch import import_nir
    with contextlib.redirect_stdout(io.StringIO()):
        return import_nir.import_from_nir(make_graphs.read(nir_path))


def step_snntorch(net, x):
    """The imported GraphModule stepped over x, as SNNTorchModel steps it."""
    import torch
    from snntorch import utils
    utils.reset(net)
    outs = []
    with torch.no_grad():
        for t in range(x.shape[1]):
            out, _ = net(x[:, t])
            outs.append(out)
    return torch.stack(outs, dim=1)


def neurobench_metrics(nir_path, x, y):
    """NeuroBench's Benchmark on SNNTorchModel(snnTorch's import of the file)."""
    import torch
    from neurobench.benchmarks import Benchmark
    from neurobench.metrics import static as S
    from neurobench.metrics import workload as W
    from neurobench.models import SNNTorchModel
    from neurobench.processors.postprocessors import ChooseMaxCount
    model = SNNTorchModel(import_snntorch(nir_path))
    metrics = [[getattr(S, m) for m in STATIC], [getattr(W, m) for m in workload_metrics()]]
    data = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
    loader = torch.utils.data.DataLoader(data, batch_size=BATCH, shuffle=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        results = Benchmark(model, loader, [], [ChooseMaxCount()], metrics).run(quiet=False)
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    return plain(results)


def workload_metrics():
    from neurobench.metrics import workload as W
    return [m for m in WORKLOAD if hasattr(W, m)]  # NeuronOperations: NeuroBench 2.3 on


def plain(obj):
    """NeuroBench's results as plain Python numbers."""
    import numpy as np
    import torch
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, torch.Tensor):
        return obj.item()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    return obj


# ---- our side -------------------------------------------------------------------------------

def run_cli(cmd):
    """Runs the command line; (ok, its stderr's tail)."""
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return r.returncode == 0, (r.stderr.strip() or r.stdout.strip())[-600:]


def convert(cli, case, nir_path, work):
    """`neurobench convert`: the path of the TorchScript module, or raises RuntimeError."""
    pt = os.path.join(work, case.stem + ".pt")
    cmd = [cli, "convert", nir_path, pt, "--nir-time", case.convention, "--nir-dt", repr(case.dt)]
    if case.reset != "v_reset":
        cmd += ["--nir-reset", case.reset]
    ok, err = run_cli(cmd)
    if not ok or not os.path.exists(pt):
        raise RuntimeError(f"neurobench convert failed: {err}")
    return pt


def step_ours(pt, x):
    """The converted module, freshly loaded (state zero), stepped over x: (B, T, ...)."""
    import torch
    module = torch.jit.load(pt)
    outs = []
    with torch.no_grad():
        for t in range(x.shape[1]):
            out = module(x[:, t])
            if not isinstance(out, torch.Tensor):
                raise RuntimeError(f"the module returned a {type(out).__name__}, not a Tensor")
            outs.append(out)
    return torch.stack(outs, dim=1)


def cli_metrics(cli, model, npz, metrics, work, stem, stepwise, spiking):
    """`neurobench run` with ChooseMaxCount: its --json results. A warning fails the run, but
    that of no activation layers on a graph without spiking nodes (`spiking`: False)."""
    out = os.path.join(work, stem + ".json")
    cmd = [cli, "run", "--model", model, "--data", npz, "--batch-size", str(BATCH),
           "--metrics", ",".join(metrics), "--post", "ChooseMaxCount", "--json", out, "-q"]
    if stepwise:
        cmd.append("--stepwise")
    ok, err = run_cli(cmd)
    if not ok or not os.path.exists(out):
        raise RuntimeError(f"neurobench run failed: {err}")
    with open(out) as f:
        got = json.load(f)
    warnings = [w for w in got.get("_run", {}).get("warnings", [])
                if spiking or not w.startswith("no activation layers found")]
    if warnings:
        raise RuntimeError(f"neurobench run warned: {warnings}")
    return got


# ---- one case --------------------------------------------------------------------------------

def stage(bad, what, fn, *fn_args):
    """fn(*fn_args), or None with `what` and the exception added to `bad`."""
    try:
        return fn(*fn_args)
    except Exception as e:  # noqa: BLE001
        bad.append(f"{what}: {type(e).__name__}: {e}")
        return None


def check_outputs(case, files, args, ref, bad):
    """b) and c)'s outputs: ours and snnTorch's import against the reference, step by step."""
    import nir_reference
    import torch
    nir_path, xt = files[0], torch.from_numpy(files[2])
    spikes = nir_reference.output_is_spikes(case.graph)
    ours = None
    if not args.reference_only:
        pt = stage(bad, "neurobench convert", convert, args.neurobench, case, nir_path,
                   args.work)
        ours = pt and stage(bad, "running the converted module", step_ours, pt, xt)
        if ours is not None:
            bad += compare_steps(ref, ours, spikes, "outputs against the reference")
    if case.against_snntorch:
        net = stage(bad, "snnTorch's import_from_nir", import_snntorch, nir_path)
        snn_out = net and stage(bad, "running snnTorch's import", step_snntorch, net, xt)
        if snn_out is not None:
            bad += compare_steps(ref, snn_out, spikes, "snnTorch's import against the reference")
            if ours is not None:
                bad += compare_steps(snn_out, ours, spikes, "outputs against snnTorch's import")


def expected_metrics(case, files, ref, node_out, bad):
    """c) NeuroBench's results on snnTorch's import (checked against the reference's own
    ActivationSparsity and ClassificationAccuracy), d) the reference's."""
    nir_path, _, x, y = files
    own = reference_metrics(case, ref, node_out, y)
    if not case.against_snntorch:
        return own
    want = stage(bad, "NeuroBench on snnTorch's import", neurobench_metrics, nir_path, x, y)
    if want is not None:
        bad += [f"reference: {m}" for m in compare_metrics(own, {k: want[k] for k in own})]
    return want


def check_case(case, files, args):
    """Mismatches of one case (empty: it passed) and what it computed, for -v."""
    import nir_reference
    x = files[2]
    ref, node_out, _ = nir_reference.run_reference(case.graph, x, case.convention, case.dt,
                                                   case.reset)
    spiking = nir_reference.spiking_nodes(case.graph)
    bad, info = [], {"spike rates": spike_rates(case.graph, node_out)}
    check_outputs(case, files, args, ref, bad)
    want = expected_metrics(case, files, ref, node_out, bad)
    info["expected metrics"] = want
    if args.reference_only or want is None:
        return bad, info
    if case.against_snntorch:  # the .nir itself, as `neurobench run` takes it
        model, metrics = files[0], STATIC + workload_metrics()
    else:  # the module `neurobench convert` wrote for this convention
        model, metrics = os.path.join(args.work, case.stem + ".pt"), list(want)
    got = stage(bad, "neurobench run", cli_metrics, args.neurobench, model, files[1], metrics,
                args.work, case.stem, not case.against_snntorch, bool(spiking))
    if got is not None:
        bad += compare_metrics(want, got)
    return bad, info


def spike_rates(graph, node_out):
    import nir_reference
    return {n: round(float(node_out[n].float().mean()), 3)
            for n in nir_reference.spiking_nodes(graph)}


def write_files(name, graph, shape, work):
    """a): NAME.nir (checked to read back unchanged) and NAME.npz; (paths, data, targets)."""
    import make_graphs
    import numpy as np
    nir_path = os.path.join(work, name + ".nir")
    back = make_graphs.round_trip(graph, nir_path)
    x, y = make_data(name, shape, output_shape(back))
    npz = os.path.join(work, name + ".npz")
    np.savez(npz, data=x, targets=y)
    return back, (nir_path, npz, x, y)


def run_graph(name, graph, shape, importable, args):
    """Checks every case of one graph; returns (passed, failed)."""
    passed = failed = 0
    try:
        back, files = write_files(name, graph, shape, args.work)
    except Exception as e:  # noqa: BLE001
        print(f"FAIL {name}: writing or reading back the graph: {type(e).__name__}: {e}")
        return 0, 1
    for case in cases_of(name, back, shape, importable):
        try:
            bad, info = check_case(case, files, args)
        except Exception as e:  # noqa: BLE001
            bad, info = [f"{type(e).__name__}: {e}"], {}
        if bad:
            failed += 1
            print(f"FAIL {case.label} (dt {case.dt}):")
            for line in bad[:12]:
                print(f"     {line}")
        else:
            passed += 1
            print(f"ok {case.label}")
        if args.verbose and info:
            for key, value in info.items():
                print(f"     {key}: {json.dumps(value)}")
        sys.stdout.flush()
    return passed, failed


def check_devices_and_shards(cli, work):
    """The NIR paper's CNN on the lazy device and sharded over two ranks (a torchrun
    environment) gives the numbers of one process on the CPU; returns the mismatches."""
    import numpy as np
    rng = np.random.default_rng(7)
    npz = os.path.join(work, "devices.npz")
    np.savez(npz, data=(rng.random((4, 6, 2, 34, 34)) < 0.3).astype(np.float32),
             targets=rng.integers(0, 10, 4))
    model = os.path.join(PAPER, "cnn_sinabs.nir")
    base = [cli, "run", "--model", model, "--data", npz, "--batch-size", "2", "-q", "--metrics",
            "ActivationSparsity,SynapticOperations,MembraneUpdates,ClassificationAccuracy",
            "--post", "ChooseMaxCount"]

    def results(extra, env=None, name="r"):
        out = os.path.join(work, name + ".json")
        p = subprocess.run(base + extra + ["--json", out], capture_output=True, text=True,
                           env=env, timeout=300)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(extra) or 'cpu'}: exit {p.returncode}: {p.stderr}")
        with open(out, encoding="utf-8") as f:
            return {k: v for k, v in json.load(f).items() if not k.startswith("_")}

    cpu = results([], name="cpu")
    bad = [f"lazy: {m}" for m in compare_metrics(cpu, results(["--device", "lazy"], name="lazy"))]
    procs = []
    for rank in (0, 1):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank),
                   LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(20000 + os.getpid() % 20000))
        out = os.path.join(work, f"rank{rank}.json")
        procs.append((subprocess.Popen(base + ["--json", out], env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True), out))
    for proc, out in procs:
        _, err = proc.communicate(timeout=300)
        if proc.returncode != 0:
            bad.append(f"sharded rank: exit {proc.returncode}: {err}")
    if not bad:
        with open(procs[0][1], encoding="utf-8") as f:
            sharded = {k: v for k, v in json.load(f).items() if not k.startswith("_")}
        bad += [f"2 ranks: {m}" for m in compare_metrics(cpu, sharded)]
    return bad


def parse_args():
    ap = argparse.ArgumentParser(description="Checks the NIR import of neurobench against "
                                 "a reference, snnTorch and NeuroBench.")
    ap.add_argument("--neurobench", help="the neurobench command-line program")
    ap.add_argument("--work", help="folder for the files (default: a temporary one)")
    ap.add_argument("--reference-only", action="store_true",
                    help="leave out everything that needs `neurobench convert`")
    ap.add_argument("--seed", type=int, default=0, help="make_graphs.graphs(seed)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print each case's spike rates and expected metrics")
    ap.add_argument("names", nargs="*", help="graphs to check (default: all)")
    args = ap.parse_args()
    if not args.reference_only and not args.neurobench:
        ap.error("--neurobench is needed unless --reference-only")
    if args.neurobench:
        args.neurobench = os.path.abspath(args.neurobench)
    return args


def main():
    args = parse_args()
    require_packages()
    import make_graphs
    import nir_reference
    import torch
    torch.set_num_threads(1)  # as `neurobench run` (--threads 1)
    all_graphs = make_graphs.graphs(args.seed)
    all_graphs.update(paper_graphs())
    unknown = [n for n in args.names if n not in all_graphs]
    if unknown:
        print(f"unknown graphs {unknown}; there are {list(all_graphs)}")
        return 2
    bad = nir_reference.check_cubalif_against_paper()
    print(("FAIL" if bad else "ok") + " CubaLIF euler/subtract against the NIR paper's reference")
    for line in bad:
        print(f"     {line}")
    passed, failed = int(not bad), int(bool(bad))
    if not args.reference_only:
        ok, message = has_convert(args.neurobench)
        if not ok:
            print(f"FAIL {args.neurobench} has no `convert` command ({message}): "
                  "checking the reference side only")
            args.reference_only, failed = True, failed + 1
    with contextlib.ExitStack() as stack:
        if not args.work:
            args.work = stack.enter_context(tempfile.TemporaryDirectory(prefix="nb_nir_"))
        os.makedirs(args.work, exist_ok=True)
        for name in args.names or list(all_graphs):
            graph, shape, importable = all_graphs[name]
            p, f = run_graph(name, graph, shape, importable, args)
            passed, failed = passed + p, failed + f
        if not args.reference_only and not args.names:
            bad = check_devices_and_shards(args.neurobench, args.work)
            print(("FAIL" if bad else "ok") + " paper_cnn_sinabs: lazy device and 2 ranks equal "
                  "the CPU's one process")
            for line in bad:
                print(f"     {line}")
            passed, failed = passed + int(not bad), failed + int(bool(bad))
    what = "reference-only checks" if args.reference_only else "cases"
    print(f"{passed} of {passed + failed} {what} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
