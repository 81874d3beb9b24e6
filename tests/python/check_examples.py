#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's example benchmarks as a user runs them, through neurobench_cpp.Benchmark and
through NeuroBench's own Benchmark, compared result by result.

Each script in tests/python/examples/ is NeuroBench's example written as a user writes it, with
`from neurobench_cpp import Benchmark` and synthetic data of the real shapes. It is run as it
is, then again with that one line replaced by NeuroBench's `from neurobench.benchmarks import
Benchmark`; the two `results` must have the same keys and nesting, integers equal, floats equal
to 1e-6 relative. custom_python_parts.py, not one of NeuroBench's examples, puts the user's own
Python pre- and post-processor and metrics of each kind in the chain; scoped_net.py, not one
either, has a __net__() that returns a submodule (the metrics scope).

Each line it prints gives both sides' times, and of them the seconds spent in Benchmark.run and
in to_onnx / to_nir (torch's and snnTorch's exports, the same calls on both sides): where a
script's time goes (docs/performance.md, "NeuroBench's Python API").

  /usr/bin/python3 tests/python/check_examples.py [--core-dir build/release/python/neurobench_cpp]
      [SCRIPT...]

--core-dir (or NEUROBENCH_CPP_CORE_DIR) names the folder of the compiled neurobench_cpp._core
of a build tree. Exits 77 (skipped) when the compiled core, python3-torch, -torchaudio, -tqdm or
the reference packages in ../shared/third_party are missing.

NeuroBench 2.3's S2SPreProcessor is under a non-commercial licence and is not in
../shared/third_party: for the keyword-spotting SNN, NeuroBench's side uses a stand-in of that
class written from the paper (tests/audio/s2s_reference.py, as check_speech_commands_example.py
does), with NeuroBench's attributes, which neurobench_cpp translates to its C++ S2S. And
NeuroBench's R2 needs a shim on torch 1.13 (reference_results.torch_var_shim).
"""
import argparse
import contextlib
import io
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402
SKIP = reference_results.SKIP
OURS = "from neurobench_cpp import Benchmark"
THEIRS = "from neurobench.benchmarks import Benchmark"
SCRIPTS = ["gsc_ann.py", "gsc_snn.py", "dvs_gesture_snn.py", "primate_reaching.py",
           "primate_reaching_3d_ann.py", "primate_reaching_snn3.py",
           "nehar_snn.py", "eeg_mi_snn.py", "custom_python_parts.py",
           "scoped_net.py", "mswc_fscil_m5.py", "mackey_glass_lstm.py", "mackey_glass_esn.py"]
# Scripts neurobench_cpp refuses (docs/python.md, "What differs"): they must raise this error
# class with a message holding this text (NeuroBench's side is not run).
# Scripts whose NeuroBench run resets NeuroBench's hooks when each run starts: its hooks also
# record the script's own calls to the network between runs (FSCIL's prototypes computed on
# the support set with the benchmark's network), which NeuroBench adds to the next run's first
# batch; neurobench_cpp counts the benchmark's batches only (docs/python.md, "What differs").
RESET_HOOKS_AT_RUN = {"mswc_fscil_m5.py"}
REFUSED = {"mackey_glass_lstm.py": ("ModelError", "cannot be exported to TorchScript"),
           "mackey_glass_esn.py": ("ModelError", "cannot be exported to TorchScript")}
TOLERANCE = 1e-6


def setup(core_dir):
    reference_results.third_party(ROOT)
    sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "tests", "audio")]
    reference_results.require(["numpy", "torch", "torchaudio", "tqdm"],
                              "python3-torch, -torchaudio, -numpy, -tqdm")
    if core_dir:
        os.environ["NEUROBENCH_CPP_CORE_DIR"] = os.path.abspath(core_dir)
    import neurobench_cpp
    if getattr(neurobench_cpp, "_core", None) is None:
        print(f"skipped: neurobench_cpp's compiled core is not built: "
              f"{getattr(neurobench_cpp, 'CORE_IMPORT_ERROR', '')}")
        sys.exit(SKIP)
    install_s2s_stand_in()
    reference_results.torch_var_shim()


def install_s2s_stand_in():
    """NeuroBench's S2SPreProcessor, importable as NeuroBench 2.3 exports it, computed by the
    project's paper-based Speech2Spikes (tests/audio/s2s_reference.py)."""
    import torch
    import torchaudio
    import neurobench.processors.preprocessors as preprocessors
    from neurobench.processors.abstract import NeuroBenchPreProcessor
    import s2s_reference

    class S2SPreProcessor(NeuroBenchPreProcessor):
        def __init__(self, device=None, transpose=True, log_offset=1e-6):
            self.device, self.transpose, self.log_offset = device, transpose, log_offset
            self.spec_kwargs = {"sample_rate": 16000, "n_mels": 20, "n_fft": 512, "f_min": 20,
                                "f_max": 4000, "hop_length": 80}
            self.threshold = 1
            self.transform = torchaudio.transforms.MelSpectrogram(**self.spec_kwargs)

        def __call__(self, batch):
            events, _, _ = s2s_reference.s2s(batch[0][..., 0].numpy(), threshold=self.threshold)
            return (torch.from_numpy(events).float(),) + tuple(batch[1:])

    S2SPreProcessor.__module__ = "neurobench.processors.preprocessors.speech2spikes"
    preprocessors.S2SPreProcessor = S2SPreProcessor


@contextlib.contextmanager
def hooks_reset_at_run(wanted):
    """NeuroBench's Benchmark.run, its hooks' records reset first (RESET_HOOKS_AT_RUN)."""
    if not wanted:
        yield
        return
    from neurobench.benchmarks import Benchmark
    original = Benchmark.run

    def run(self, *args, **kwargs):
        self.workload_metric_manager.reset_hooks(self.model)
        return original(self, *args, **kwargs)

    Benchmark.run = run
    try:
        yield
    finally:
        Benchmark.run = original


@contextlib.contextmanager
def time_spent():
    """Seconds spent in each Benchmark class's run, to_onnx and to_nir while the block runs, by
    method name (neurobench_cpp's and NeuroBench's classes, both wrapped)."""
    import neurobench_cpp
    from neurobench.benchmarks import Benchmark
    spent = {}
    originals = [(cls, name, vars(cls)[name]) for cls in (neurobench_cpp.Benchmark, Benchmark)
                 for name in ("run", "to_onnx", "to_nir") if name in vars(cls)]
    for cls, name, method in originals:
        setattr(cls, name, timed_method(method, name, spent))
    try:
        yield spent
    finally:
        for cls, name, method in originals:
            setattr(cls, name, method)


def timed_method(method, name, spent):
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
    return timed


def phases(spent):
    """' (run 1.08 s, to_onnx 17.52 s)' from time_spent's dict; '' when empty."""
    if not spent:
        return ""
    return " (" + ", ".join(f"{name} {s:.2f} s" for name, s in spent.items()) + ")"


scopes = {}  # each run's globals, by script path (NeuroBench's run: path + "#theirs")


def run_script(path, text, key=None):
    """Runs a script's text as its own __main__ would; returns its `results`."""
    sys.modules.pop("networks", None)  # each example folder has its own networks.py
    scope = {"__name__": "__main__", "__file__": path}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(text, path, "exec"), scope)
    scopes[key or path] = scope
    return scope["results"]


def compare(theirs, ours, prefix=""):
    """Mismatches of `ours` against NeuroBench's `theirs`, as lines."""
    bad = []
    if sorted(theirs) != sorted(ours):
        bad.append(f"{prefix or 'results'}: keys {sorted(ours)}, NeuroBench {sorted(theirs)}")
    for key, want in theirs.items():
        if key not in ours:
            continue
        got = ours[key]
        if isinstance(want, dict):
            if not isinstance(got, dict):
                bad.append(f"{prefix}{key}: {got!r}, NeuroBench a dict")
            else:
                bad += compare(want, got, f"{prefix}{key}.")
        elif isinstance(want, bool) or isinstance(want, int):
            if got != want or type(got) is not type(want):
                bad.append(f"{prefix}{key}: {got!r}, NeuroBench {want!r} (integers exactly)")
        elif isinstance(want, float):
            ok = isinstance(got, (int, float)) and math.isfinite(got) and (
                abs(got - want) <= TOLERANCE * abs(want) or got == want)
            if not ok:
                bad.append(f"{prefix}{key}: {got!r}, NeuroBench {want!r}")
        elif got != want:
            bad.append(f"{prefix}{key}: {got!r}, NeuroBench {want!r}")
    return bad


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--core-dir")
    parser.add_argument("scripts", nargs="*")
    args = parser.parse_args()
    setup(args.core_dir)
    failures = []
    for name in args.scripts or SCRIPTS:
        path = os.path.join(HERE, "examples", name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines()
        if lines.count(OURS) != 1:
            raise SystemExit(f"{path}: must hold the line '{OURS}' exactly once")
        theirs_text = text.replace(OURS, THEIRS)
        start = time.perf_counter()
        try:
            with time_spent() as ours_spent:
                ours = reference_results.plain(run_script(path, text))
        except Exception as e:  # reported with the script's name, then the next script
            if name in REFUSED and type(e).__name__ == REFUSED[name][0] and \
                    REFUSED[name][1] in str(e):
                print(f"ok   {name}: refused as expected ({type(e).__name__}: {e})")
                continue
            failures.append(f"{name}: neurobench_cpp raised {type(e).__name__}: {e}")
            continue
        if name in REFUSED:
            failures.append(f"{name}: ran, expected {REFUSED[name][0]} ({REFUSED[name][1]})")
            continue
        middle = time.perf_counter()
        with time_spent() as theirs_spent, hooks_reset_at_run(name in RESET_HOOKS_AT_RUN):
            theirs = reference_results.plain(run_script(path, theirs_text, path + "#theirs"))
        end = time.perf_counter()
        bad = compare(theirs, ours)
        if "saved" in scopes[path]:  # save_benchmark_results: the same JSON file
            bad += compare(json.loads(scopes[path + "#theirs"]["saved"]),
                           json.loads(scopes[path]["saved"]), "saved file: ")
        if "onnx_bytes" in scopes[path]:  # to_onnx: the same ONNX file
            if scopes[path]["onnx_bytes"] != scopes[path + "#theirs"]["onnx_bytes"]:
                bad.append("to_onnx wrote another file than NeuroBench's")
        failures += [f"{name}: {line}" for line in bad]
        print(f"{'FAIL' if bad else 'ok  '} {name}: neurobench_cpp {middle - start:.2f} s"
              f"{phases(ours_spent)}, NeuroBench {end - middle:.2f} s{phases(theirs_spent)}; "
              f"{ours}")
    for line in failures:
        print(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
