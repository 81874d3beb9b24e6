#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""neurobench_cpp installed with pip into a virtual environment made with --system-site-packages
(torch is Debian's python3-torch), from a copy of python/ (the source tree stays clean), its
compiled core built by the project's CMake build (python/setup.py: NEUROBENCH_SOURCE_DIR and
NEUROBENCH_BUILD_DIR name the tree and its configured build; nothing is rebuilt when it is up to
date), then imported and run outside the source tree without PYTHONPATH.

  /usr/bin/python3 tests/neurobench_cpp/test_install.py --build-dir build/release

Exits 77 (skipped) without torch, python3-venv, -setuptools or -wheel (scripts/setup --python).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

SCRIPT = """
import torch, neurobench_cpp
from torch import nn
from neurobench_cpp import Benchmark
assert neurobench_cpp.CORE_IMPORT_ERROR is None, neurobench_cpp.CORE_IMPORT_ERROR
net = torch.jit.script(nn.Sequential(nn.Linear(6, 4), nn.ReLU(), nn.Linear(4, 2)).eval())
data = [(torch.ones(3, 6), torch.zeros(3, dtype=torch.long))]
r = Benchmark(net, data, [], [lambda p: p.argmax(-1)],
              [["ParameterCount"], ["SynapticOperations"]]).run(quiet=True)
print(neurobench_cpp._core.__file__)
print(r["ParameterCount"], r["SynapticOperations"]["Dense"])
"""


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    a = ap.parse_args()
    for module, package in (("torch", "python3-torch"), ("venv", "python3-venv"),
                            ("ensurepip", "python3-venv"), ("setuptools", "python3-setuptools"),
                            ("wheel", "python3-wheel")):
        try:
            __import__(module)
        except ImportError:
            skip(f"no {module} for this python: {package} (scripts/setup --python)")
    failures = backend_messages()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",
                                                           "NEUROBENCH_CPP_CORE_DIR")}
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1",
               PIP_NO_CACHE_DIR="1", NEUROBENCH_SOURCE_DIR=ROOT, NEUROBENCH_CPP_REQUIRE_CORE="1")
    build = os.path.abspath(a.build_dir)
    # build/release is found by setup.py itself when it is configured for this torch (the
    # venv's python imports Debian's torch, as /usr/bin/python3 does); another folder is named.
    chosen = build == os.path.join(ROOT, "build", "release")
    if not chosen:
        env["NEUROBENCH_BUILD_DIR"] = build
    before = sorted(os.listdir(os.path.join(ROOT, "python")))
    with tempfile.TemporaryDirectory(prefix="neurobench_cpp_install_") as tmp:
        venv = os.path.join(tmp, "venv")
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        src = os.path.join(tmp, "src", "python")
        shutil.copytree(os.path.join(ROOT, "python"), src,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        pip = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-v",
                              "--no-build-isolation", src], env=env, capture_output=True,
                             text=True, timeout=1800)
        if pip.returncode != 0:
            print(pip.stdout[-3000:], pip.stderr[-3000:])
            print("FAIL: pip install")
            return 1
        if chosen and f"--build {build} " not in pip.stdout + pip.stderr:
            said = [line for line in (pip.stdout + pip.stderr).splitlines()
                    if "neurobench_cpp:" in line]
            failures.append(f"setup.py did not build in {build}, configured for this torch: "
                            f"{said}")
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        r = subprocess.run([os.path.join(venv, "bin", "python"), "-c", SCRIPT], cwd=work,
                           env=env, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(r.stdout, r.stderr)
            print("FAIL: the installed module does not run")
            return 1
        core, values = r.stdout.strip().splitlines()[-2:]
        if not core.startswith(venv + os.sep):
            failures.append(f"_core imported from {core}, not from the environment")
        if values != "38 32.0":  # (6*4 + 4) + (4*2 + 2) parameters; 6*4 + 4*2 dense MACs
            failures.append(f"results {values}, expected 38 32.0")
        after = sorted(os.listdir(os.path.join(ROOT, "python")))
        if after != before:
            failures.append(f"python/ changed: {sorted(set(after) ^ set(before))}")
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else "FAILED")
    return 1 if failures else 0


# The build backend imported with a module hidden, as in a Python without it.
BLOCKED = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name == {hidden!r} or name.startswith({hidden!r} + "."):
            raise ImportError("No module named " + repr(name))
sys.meta_path.insert(0, Hide())
sys.path.insert(0, {support!r})
import neurobench_build
neurobench_build.get_requires_for_build_wheel()
"""


def backend_messages():
    """pip install --no-build-isolation in a Python without setuptools or wheel says which
    package to add (python/build_support/neurobench_build.py)."""
    failures = []
    support = os.path.join(ROOT, "python", "build_support")
    for hidden, package in (("setuptools", "python3-setuptools"), ("wheel", "python3-wheel")):
        r = subprocess.run([sys.executable, "-c", BLOCKED.format(hidden=hidden, support=support)],
                           capture_output=True, text=True, timeout=120)
        import setuptools
        if hidden == "wheel" and int(setuptools.__version__.split(".")[0]) >= 70:
            continue  # setuptools 70 and later build wheels without it
        if r.returncode == 0 or f"'{hidden}'" not in r.stderr or package not in r.stderr:
            failures.append(f"without {hidden}: exit {r.returncode}, {r.stderr[-600:]!r}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
