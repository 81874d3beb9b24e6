#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The exporter installed as a package: a virtual environment made with --system-site-packages
(torch is Debian's python3-torch), `pip install --no-build-isolation --no-index ./python` from a
copy of python/ (pip builds in the folder it is given; the source tree stays clean), then the
console script neurobench-export and `import neurobench_export` outside the source tree.
No package index is needed. Run: /usr/bin/python3 tests/snntorch/test_package_install.py
Exits 77 (skipped) without python3-torch, python3-venv or the reference snnTorch in
../shared/third_party (scripts/setup --python installs the Debian packages)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
THIRD = os.environ.get("NEUROBENCH_THIRD_PARTY") or os.path.join(ROOT, "..", "shared",
                                                                   "third_party")


def skip(why):
    print(f"skipped: {why}")
    sys.exit(77)


if not os.path.isdir(os.path.join(THIRD, "snntorch")):
    skip(f"snnTorch is not at {THIRD}")
try:
    import torch  # noqa: F401
except ImportError:
    skip("no torch for this python (scripts/setup --python)")
for module, package in (("venv", "python3-venv"), ("ensurepip", "python3-venv"),
                        ("setuptools", "python3-setuptools"), ("wheel", "python3-wheel")):
    try:
        __import__(module)
    except ImportError:
        skip(f"no {module} for this python: {package} (scripts/setup --python)")

PLAIN_NET = """from torch import nn


def net():
    return nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 4))
"""


def run(cmd, cwd, env=None, timeout=300):
    env = dict(env if env is not None else os.environ)
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1",
               PIP_NO_CACHE_DIR="1")
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def without_pythonpath():
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


class PackageInstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="neurobench_export_install_")
        cls.dir = cls.tmp.name
        cls.source_before = sorted(os.listdir(os.path.join(ROOT, "python")))
        cls.venv = os.path.join(cls.dir, "venv")
        r = run([sys.executable, "-m", "venv", "--system-site-packages", cls.venv], cls.dir)
        if r.returncode != 0:
            raise AssertionError(f"python3 -m venv failed: {r.stderr}")
        src = os.path.join(cls.dir, "src")
        os.mkdir(src)
        shutil.copytree(os.path.join(ROOT, "python"), os.path.join(src, "python"),
                        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        cls.pip = run([os.path.join(cls.venv, "bin", "pip"), "install", "--no-build-isolation",
                       "--no-index", "./python"], src)
        cls.bin = os.path.join(cls.venv, "bin")
        cls.work = os.path.join(cls.dir, "work")  # outside the source tree
        os.mkdir(cls.work)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.pip.returncode, 0, f"pip install failed:\n{self.pip.stdout}\n"
                                                 f"{self.pip.stderr}")

    def test_pip_installs_the_package_and_the_console_script(self):
        self.assertIn("Successfully installed neurobench-export", self.pip.stdout)
        self.assertTrue(os.access(os.path.join(self.bin, "neurobench-export"), os.X_OK))

    def test_the_source_tree_stays_clean(self):
        self.assertEqual(sorted(os.listdir(os.path.join(ROOT, "python"))), self.source_before)
        for name in ("build", "neurobench_export.egg-info"):
            self.assertFalse(os.path.exists(os.path.join(ROOT, "python", name)), name)

    def test_the_installed_package_is_imported_outside_the_source_tree(self):
        r = run([os.path.join(self.bin, "python"), "-c",
                 "import neurobench_export as n, sys; print(n.__file__); "
                 "print(n.export.__module__, n.ExportError.__name__)"],
                self.work, without_pythonpath())
        self.assertEqual(r.returncode, 0, r.stderr)
        file, names = r.stdout.strip().splitlines()
        self.assertTrue(file.startswith(self.venv + os.sep), file)
        self.assertTrue(file.endswith(os.path.join("neurobench_export", "__init__.py")), file)
        self.assertEqual(names, "neurobench_export.exporter ExportError")

    def test_only_the_package_is_installed_not_the_wrapper(self):
        r = run([os.path.join(self.bin, "python"), "-c",
                 "import sysconfig; print(sysconfig.get_paths()['purelib'])"], self.work)
        site = r.stdout.strip()
        self.assertTrue(os.path.isdir(os.path.join(site, "neurobench_export")), site)
        self.assertFalse(os.path.exists(os.path.join(site, "neurobench_export.py")))

    def test_the_console_script_shows_its_help(self):
        r = run([os.path.join(self.bin, "neurobench-export"), "--help"], self.work)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("usage: neurobench-export"), r.stdout)
        self.assertIn("--example-shape", r.stdout)

    def test_the_console_script_exports_a_plain_network_without_snntorch(self):
        with open(os.path.join(self.work, "plain_net.py"), "w") as f:
            f.write(PLAIN_NET)
        r = run([os.path.join(self.bin, "neurobench-export"), "plain_net.py:net", "plain.pt",
                 "--example-shape", "4,20"], self.work, without_pythonpath())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("exported Sequential to plain.pt (torch.jit.script; no snnTorch neurons)",
                      r.stdout)
        self.assertTrue(os.path.isfile(os.path.join(self.work, "plain.pt")))

    def test_the_console_script_exports_an_snntorch_network(self):
        r = run([os.path.join(self.bin, "neurobench-export"),
                 os.path.join(HERE, "nets.py") + ":kws_sequential", "snn.pt",
                 "--example-shape", "4,20", "--stepwise"], self.work,
                dict(os.environ, PYTHONPATH=os.path.join(THIRD, "snntorch")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("exported Sequential to snn.pt (script); checked against the eager net",
                      r.stdout)
        loaded = torch.jit.load(os.path.join(self.work, "snn.pt"))
        self.assertIn("Leaky", {m.original_name for _, m in loaded.named_modules()})

    def test_the_console_script_reports_a_bad_argument_and_exits_2(self):
        r = run([os.path.join(self.bin, "neurobench-export"), "no_colon", "x.pt",
                 "--example-shape", "4,20"], self.work, without_pythonpath())
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("error: 'no_colon' is not MODULE:NAME", r.stderr)


if __name__ == "__main__":
    unittest.main()
