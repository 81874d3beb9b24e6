# SPDX-License-Identifier: Apache-2.0
"""Build glue for `pip install --no-build-isolation ./python` (pyproject.toml holds the metadata).

Installs the packages neurobench_export and neurobench_cpp, and neurobench_cpp's compiled core
`_core` (cmake/NeurobenchPython.cmake), found in this order:
  1. NEUROBENCH_CPP_CORE: the path of a built `_core*.so`, copied as it is;
  2. the project's CMake build: the source tree is NEUROBENCH_SOURCE_DIR, else the folder above
     this one when it holds the project; the build folder is NEUROBENCH_BUILD_DIR, else
     build/release when it is configured with the LibTorch of the torch this Python imports
     (torch.utils.cmake_prefix_path) and for this Python, else build/python-torchVERSION-HASH
     (configured here against that LibTorch: Release, unity batches, Ninja and ccache when
     there, no tests, examples or benchmarks): the core always links the LibTorch of the torch
     it is imported with, whatever else is on the machine. Only the target
     neurobench_cpp_core is built (nothing when it is up to date), then its module is copied
     into the wheel. A relative NEUROBENCH_CPP_CORE is taken from python/, where pip builds.
     NEUROBENCH_BUILD_LOCK names a file to hold flock(2) on while CMake runs (a shared tree).
Without either (python/ copied on its own), only the pure-Python packages are installed, with a
warning; neurobench_cpp.Benchmark then raises ImportError saying so. NEUROBENCH_CPP_REQUIRE_CORE=1
makes that an error instead.
"""
import glob
import hashlib
import importlib.machinery
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def _core_plan():
    """("file", path), ("cmake", source, build) or None."""
    given = os.environ.get("NEUROBENCH_CPP_CORE")
    if given:
        return ("file", os.path.abspath(given))
    source = os.environ.get("NEUROBENCH_SOURCE_DIR")
    if not source:
        parent = os.path.dirname(HERE)
        if os.path.isfile(os.path.join(parent, "cmake", "NeurobenchPython.cmake")):
            source = parent
    if not source:
        return None
    source = os.path.abspath(source)
    build = os.environ.get("NEUROBENCH_BUILD_DIR")
    if not build:
        torch = _target_torch()
        release = os.path.join(source, "build", "release")
        if _built_for(release, torch):
            build = release
        else:
            # A build folder of its own for each torch: the core links the LibTorch of the
            # torch it is imported with.
            tag = hashlib.sha256(torch["file"].encode()).hexdigest()[:8]
            build = os.path.join(source, "build", f"python-torch{torch['version']}-{tag}")
    return ("cmake", source, os.path.abspath(build))


def _target_torch():
    """The torch of the Python this installs for, whose LibTorch the core must link:
    {"version", "file" (its torch/__init__.py), "prefix" (torch.utils.cmake_prefix_path when
    the package ships LibTorch's CMake files, as pip's torch does; None for Debian's
    python3-torch, whose LibTorch is libtorch-dev's, found by CMake itself)}."""
    try:
        import torch
        import torch.utils
    except ImportError as e:
        raise SystemExit(f"neurobench_cpp: {sys.executable} cannot import torch ({e}): its "
                         f"compiled core is built against the LibTorch of the torch it is "
                         f"imported with. Install torch for this Python first (Debian's "
                         f"python3-torch, or pip's torch in this environment).")
    prefix = os.path.realpath(torch.utils.cmake_prefix_path)
    ships_cmake = os.path.isfile(os.path.join(prefix, "Torch", "TorchConfig.cmake"))
    return {"version": torch.__version__.split("+")[0], "file": os.path.realpath(torch.__file__),
            "prefix": prefix if ships_cmake else None}


def _cached(build, variable):
    """A variable's value in a configured build's CMakeCache.txt, or None."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(variable + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        return None
    return None


def _built_for(build, torch):
    """Whether `build` is configured for the same torch: the Python it was configured with
    imports the same torch package, and its LibTorch is that package's when it ships one."""
    torch_dir = _cached(build, "Torch_DIR")
    python = _cached(build, "Python3_EXECUTABLE") or _cached(build, "_Python3_EXECUTABLE")
    if not torch_dir or not python:
        return False
    if torch["prefix"] and not os.path.realpath(torch_dir).startswith(torch["prefix"] + os.sep):
        return False
    found = subprocess.run([python, "-c", "import torch; print(torch.__file__)"],
                           capture_output=True, text=True)
    return found.returncode == 0 and os.path.realpath(found.stdout.strip()) == torch["file"]


PLAN = _core_plan()


def _run(cmd):
    print("neurobench_cpp:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def _cmake_core(source, build):
    lock = os.environ.get("NEUROBENCH_BUILD_LOCK")
    held = None
    if lock:
        import fcntl
        held = open(lock, "a")
        fcntl.flock(held, fcntl.LOCK_EX)
    try:
        if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
            torch = _target_torch()
            cmd = ["cmake", "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                   "-DNEUROBENCH_BUILD_TESTS=OFF", "-DNEUROBENCH_BUILD_EXAMPLES=OFF",
                   "-DNEUROBENCH_BUILD_BENCHMARKS=OFF", "-DNEUROBENCH_INSTALL=OFF",
                   "-DNEUROBENCH_PYTHON=ON", "-DNEUROBENCH_UNITY_BUILD=ON",
                   f"-DPython3_EXECUTABLE={sys.executable}"]
            if torch["prefix"]:  # pip's torch: its own LibTorch, whatever else is installed
                cmd += [f"-DCMAKE_PREFIX_PATH={torch['prefix']}",
                        f"-DTorch_DIR={os.path.join(torch['prefix'], 'Torch')}"]
            if shutil.which("ninja"):
                cmd += ["-G", "Ninja"]
            if shutil.which("ccache"):
                cmd += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
            _run(cmd)
        _run(["cmake", "--build", build, "--target", "neurobench_cpp_core", "-j",
              str(max(1, min(os.cpu_count() or 1, 4)))])
    finally:
        if held is not None:
            held.close()
    return _built_module(os.path.join(build, "python", "neurobench_cpp"))


def _built_module(folder):
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found = glob.glob(os.path.join(folder, "_core" + suffix))
        if found:
            return found[0]
    raise RuntimeError(f"neurobench_cpp: no _core module for this Python "
                       f"({importlib.machinery.EXTENSION_SUFFIXES[0]}) in {folder}: was the "
                       f"build configured for another Python?")


class BuildWithCore(build_py):
    """build_py, then neurobench_cpp/_core*.so from the plan."""

    def run(self):
        super().run()
        if PLAN is None:
            message = ("neurobench_cpp: no compiled core: python/ is not inside the project's "
                       "source tree and neither NEUROBENCH_CPP_CORE nor NEUROBENCH_SOURCE_DIR is "
                       "set; installing the pure-Python packages only")
            if os.environ.get("NEUROBENCH_CPP_REQUIRE_CORE") == "1":
                raise RuntimeError(message)
            print(f"WARNING: {message}", file=sys.stderr)
            return
        module = PLAN[1] if PLAN[0] == "file" else _cmake_core(PLAN[1], PLAN[2])
        if not os.path.isfile(module):
            raise RuntimeError(f"neurobench_cpp: NEUROBENCH_CPP_CORE: no file {module}")
        target = os.path.join(self.build_lib, "neurobench_cpp")
        os.makedirs(target, exist_ok=True)
        shutil.copy2(module, os.path.join(target, os.path.basename(module)))


class CoreDistribution(Distribution):
    """A platform wheel when the compiled core goes in."""

    def has_ext_modules(self):
        return PLAN is not None


setup(cmdclass={"build_py": BuildWithCore}, distclass=CoreDistribution)
