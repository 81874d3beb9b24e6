#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench-style scripts written as NeuroBench's users write them (tests/python/user_scripts/),
each run in processes of its own: as it is, with `from neurobench_cpp import Benchmark` (twice,
its export cache empty and then filled by the first), and with that one line replaced by
NeuroBench's `from neurobench.benchmarks import Benchmark`.

Every value each `Benchmark.run()` of the script returned is compared, run by run, and then the
script's own variable `results`: the same keys and nesting, integers equal, floats equal to 1e-6
relative. When NeuroBench's side raises,
neurobench_cpp's must raise the same exception class. Lines NeuroBench prints for a failed
metric (`Error running metric 'X'`, `Error running workload metric 'X'`) must be printed by
neurobench_cpp too, with its own words for the cause. A script may list the
differences docs/python.md documents in a comment `# differs: KEY (reason)`: those keys are
then not compared (the line says why) and must still be present; `# differs: raises (reason)`
marks a script NeuroBench cannot run, which neurobench_cpp must run.

  /usr/bin/python3 tests/python/check_user_scripts.py [--core-dir DIR] [--jobs N] [SCRIPT...]

--core-dir (or NEUROBENCH_CPP_CORE_DIR) names the folder of the compiled neurobench_cpp._core.
Exits 77 (skipped) without the compiled core, python3-torch, -tqdm or the reference packages in
../shared/third_party.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402

OURS = "from neurobench_cpp import Benchmark"
THEIRS = "from neurobench.benchmarks import Benchmark"
TOLERANCE = 1e-6
SCRIPTS_DIR = os.path.join(HERE, "user_scripts")

# Runs the script given on the command line in this process, as `python3 script.py` would,
# with every Benchmark.run() of the side chosen recorded; writes what happened as JSON.
DRIVER = r'''
import io, json, sys, traceback
side, script, out_path, tools = sys.argv[1:5]
sys.argv = [script]
sys.path.insert(0, tools)
import reference_results
reference_results.torch_var_shim()
if side == "ours":
    import neurobench_cpp
    cls = neurobench_cpp.Benchmark
else:
    from neurobench.benchmarks import Benchmark as cls
runs = []
original = cls.run
def run(self, *args, **kwargs):
    value = original(self, *args, **kwargs)
    runs.append(reference_results.plain(value))
    return value
cls.run = run
text = open(script, encoding="utf-8").read()
if side == "theirs":
    text = text.replace("from neurobench_cpp import Benchmark",
                        "from neurobench.benchmarks import Benchmark")
error = None
scope = {"__name__": "__main__", "__file__": script}
try:
    exec(compile(text, script, "exec"), scope)
except BaseException as e:
    error = {"type": type(e).__name__, "message": str(e)[:2000],
             "trace": traceback.format_exc()[-3000:]}
final = reference_results.plain(scope["results"]) if "results" in scope else None
with open(out_path, "w") as f:
    json.dump({"runs": runs, "results": final, "error": error}, f, default=repr)
'''


def environment(core_dir, third_party):
    env = dict(os.environ)
    paths = [os.path.join(third_party, "snntorch"), os.path.join(third_party, "neurobench"),
             os.path.join(ROOT, "python")]
    env["PYTHONPATH"] = os.pathsep.join(paths + [env.get("PYTHONPATH", "")])
    env["NEUROBENCH_CPP_CORE_DIR"] = core_dir
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def run_side(side, script, env):
    """(what the driver recorded, the script's stdout) for one side."""
    with tempfile.TemporaryDirectory(prefix="nb_user_script_") as work:
        out = os.path.join(work, "out.json")
        proc = subprocess.run(
            [sys.executable, "-c", DRIVER, side, script, out, os.path.join(ROOT, "tests", "tools")],
            cwd=work, env=env, capture_output=True, text=True, timeout=900)
        if not os.path.exists(out):
            return {"runs": [], "error": {"type": "crash", "message": proc.stderr[-3000:],
                                          "trace": ""}}, proc.stdout
        with open(out) as f:
            return json.load(f), proc.stdout


def close(want, got):
    if isinstance(want, bool) or isinstance(got, bool):
        return want == got and type(want) is type(got)
    if isinstance(want, int) and isinstance(got, int):
        return want == got
    if isinstance(want, float) and isinstance(got, (int, float)):
        if math.isnan(want):
            return isinstance(got, float) and math.isnan(got)
        return got == want or abs(got - want) <= TOLERANCE * abs(want)
    return want == got


def compare(want, got, prefix, skip):
    bad = []
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{prefix or 'results'}: {got!r}, NeuroBench a dict"]
        if list(want) != list(got):
            bad.append(f"{prefix or 'results'}: keys {list(got)}, NeuroBench {list(want)}")
        for key, value in want.items():
            if key in got and f"{prefix}{key}" not in skip:
                bad += compare(value, got[key], f"{prefix}{key}.", skip)
        return bad
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [f"{prefix.rstrip('.')}: {got!r}, NeuroBench {want!r}"]
        for i, (w, g) in enumerate(zip(want, got)):
            bad += compare(w, g, f"{prefix}{i}.", skip)
        return bad
    if not close(want, got):
        bad.append(f"{prefix.rstrip('.')}: {got!r}, NeuroBench {want!r}")
    return bad


def documented_differences(text):
    """Keys listed as `# differs: run.KEY (why)` lines: not compared."""
    return {m.group(1) for m in re.finditer(r"^# differs: (\S+)", text, re.M)}


def error_lines(stdout):
    """NeuroBench's messages for failed metrics, up to the metric's name: `Error running metric
    'X'` or `Error running workload metric 'X'` (the cause after it is each side's own)."""
    return [line.split("': ", 1)[0] + "'" for line in stdout.splitlines()
            if line.startswith("Error running")]


def check(script, env):
    with open(script, encoding="utf-8") as f:
        text = f.read()
    if text.splitlines().count(OURS) != 1:
        return [f"must hold the line '{OURS}' exactly once"], ""
    skip = documented_differences(text)
    # neurobench_cpp twice, in an export cache of the script's own: first with the cache empty,
    # then with what that run left in it (a later process's case); both must be NeuroBench's.
    with tempfile.TemporaryDirectory(prefix="nb_user_cache_") as cache:
        cached = dict(env, NEUROBENCH_CPP_CACHE_DIR=cache)
        cold, cold_out = run_side("ours", script, cached)
        ours, ours_out = run_side("ours", script, cached)
    theirs, theirs_out = run_side("theirs", script, env)
    bad = []
    if json.dumps(cold, sort_keys=True, default=repr) != json.dumps(ours, sort_keys=True,
                                                                    default=repr):
        bad.append("neurobench_cpp's results with its export cache empty and filled differ: "
                   f"{str(cold)[:300]} / {str(ours)[:300]}")
    if theirs["error"] is not None and "raises" in skip:
        # NeuroBench cannot compute this (documented): neurobench_cpp must, without an error.
        if ours["error"] is not None or not ours["runs"]:
            bad.append(f"NeuroBench raises here (documented); neurobench_cpp must run, but "
                       f"raised {ours['error'] and ours['error']['type']}")
        return bad, f"NeuroBench raises {theirs['error']['type']} (documented), " \
                    f"neurobench_cpp gives {ours['runs']}"
    if theirs["error"] is not None:
        if ours["error"] is None or ours["error"]["type"] != theirs["error"]["type"]:
            what = "nothing" if ours["error"] is None else \
                f"{ours['error']['type']}: {ours['error']['message']}"
            bad.append(f"NeuroBench raised {theirs['error']['type']}: "
                       f"{theirs['error']['message'][:300]}; neurobench_cpp raised {what}")
    elif ours["error"] is not None:
        bad.append(f"neurobench_cpp raised {ours['error']['type']}: {ours['error']['message']}"
                   f"\n{ours['error']['trace']}")
    # Compare the runs both sides completed: run i of the script against run i.
    if len(ours["runs"]) != len(theirs["runs"]) and not bad:
        bad.append(f"{len(ours['runs'])} runs, NeuroBench {len(theirs['runs'])}")
    for i, (want, got) in enumerate(zip(theirs["runs"], ours["runs"])):
        bad += compare(want, got, f"run {i}: " if len(theirs["runs"]) > 1 else "",
                       {f"run {i}: {k}" if len(theirs["runs"]) > 1 else k for k in skip})
    if not bad and theirs.get("results") is not None:  # what the script kept, as it kept it
        bad += compare(theirs["results"], ours.get("results"), "results: ", set())
    missing = [line for line in error_lines(theirs_out) if line not in error_lines(ours_out)]
    bad += [f"NeuroBench printed '{line}', neurobench_cpp did not" for line in missing]
    summary = (f"{len(theirs['runs'])} run(s)" +
               (f", both raised {theirs['error']['type']}" if theirs["error"] else ""))
    return bad, summary


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--core-dir", default=os.environ.get("NEUROBENCH_CPP_CORE_DIR", ""))
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("NEUROBENCH_JOBS", "2")))
    parser.add_argument("scripts", nargs="*")
    args = parser.parse_args()
    third_party = reference_results.third_party(ROOT)
    reference_results.require(["numpy", "torch", "tqdm"], "python3-torch, -numpy, -tqdm")
    core_dir = os.path.abspath(args.core_dir) if args.core_dir else ""
    if not core_dir or not any(n.startswith("_core") for n in os.listdir(core_dir)):
        print(f"skipped: no compiled neurobench_cpp._core in '{core_dir}'")
        return reference_results.SKIP
    env = environment(core_dir, third_party)
    names = args.scripts or sorted(n for n in os.listdir(SCRIPTS_DIR) if n.endswith(".py"))
    paths = [n if os.path.isabs(n) else os.path.join(SCRIPTS_DIR, os.path.basename(n))
             for n in names]
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for path, (bad, summary) in zip(paths, pool.map(lambda p: check(p, env), paths)):
            name = os.path.basename(path)
            print(f"{'FAIL' if bad else 'ok  '} {name}: {summary}", flush=True)
            for line in bad:
                print(f"     {line}")
            failures += bool(bad)
    print(f"{len(paths) - failures} of {len(paths)} scripts give NeuroBench's results")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
