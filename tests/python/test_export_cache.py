#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""neurobench_cpp's export cache (python/neurobench_cpp/_cache.py, docs/python.md "The export
cache"): what its key sees and what it ignores, reuse without the exporter, a damaged entry
exported again, the size limit, the switch, and processes storing one entry at once.

  /usr/bin/python3 tests/python/test_export_cache.py

Needs Debian's python3-torch; the compiled core is not needed. Exits 77 (skipped) without torch.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
try:
    import torch
    from torch import nn
except ImportError as e:
    print(f"skipped: {e} (Debian's python3-torch)")
    sys.exit(77)

from neurobench_cpp import _cache, _models  # noqa: E402


class Scaled(nn.Module):
    def __init__(self, factor=2.0):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.factor = factor
        self.register_buffer("seen", torch.zeros(1))

    def forward(self, x):
        return self.fc(x) * self.factor


def net(seed=0, factor=2.0):
    torch.manual_seed(seed)
    return Scaled(factor).eval()


X = torch.randn(5, 4)


def key(n, example=X):
    return _cache.key(n, "torch", False, False, example)


class Key(unittest.TestCase):
    def test_equal_networks_share_a_key(self):
        self.assertEqual(key(net()), key(net()))
        self.assertRegex(key(net()), "^[0-9a-f]{64}$")

    def test_parameters_attributes_and_inputs_change_it(self):
        base = key(net())
        changed = net()
        with torch.no_grad():
            changed.fc.weight[0, 0] += 1e-6
        self.assertNotEqual(key(changed), base)
        self.assertNotEqual(key(net(factor=3.0)), base)
        self.assertNotEqual(key(net(), torch.randn(5, 6)), base)
        self.assertNotEqual(key(net(), [X, X]), base)
        self.assertNotEqual(_cache.key(net(), "snntorch", False, True, X), base)

    def test_buffer_values_do_not(self):
        # A buffer's values are the network's state, which each run is given as it is then.
        moved = net()
        moved.seen.fill_(7)
        self.assertEqual(key(moved), key(net()))
        resized = net()
        resized.seen = torch.zeros(3)
        self.assertNotEqual(key(resized), key(net()))

    def test_which_neurons_snntorch_resets_changes_it(self):
        # snntorch.utils.reset resets only neurons snnTorch registered when they were made (a
        # deep copy's are not); the export mirrors that, so it is part of the key.
        third = os.environ.get("NEUROBENCH_THIRD_PARTY",
                               os.path.join(os.path.dirname(ROOT), "shared", "third_party"))
        if not os.path.isdir(os.path.join(third, "snntorch")):
            self.skipTest("no snnTorch in ../shared/third_party")
        sys.path.insert(0, os.path.join(third, "snntorch"))
        import copy
        import snntorch as snn
        torch.manual_seed(0)
        made = nn.Sequential(nn.Linear(4, 3), snn.Leaky(beta=0.9, init_hidden=True, output=True))
        copied = copy.deepcopy(made)
        step = torch.rand(2, 4)
        self.assertNotEqual(_cache.key(made, "snntorch", False, True, step),
                            _cache.key(copied, "snntorch", False, True, step))

    def test_code_that_cannot_be_read_is_not_cached(self):
        scope = {"nn": nn}
        exec("class AtThePrompt(nn.Module):\n    def forward(self, x):\n        return x\n",
             scope)
        scope["AtThePrompt"].__module__ = "not_a_loaded_module"
        self.assertIsNone(key(scope["AtThePrompt"]()))


class Reuse(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="nb_cache_test_")

    def prepare(self, n):
        return _models.prepare_model(_models.TorchModel(n), X, self.folder)

    def test_an_entry_is_reused_without_the_exporter(self):
        first = self.prepare(net())
        self.assertFalse(first.path.startswith(self.folder))  # exported this time
        entries = sorted(os.listdir(self.folder))
        self.assertEqual([e.rsplit(".", 1)[1] for e in entries], ["json", "pt"])
        import neurobench_export
        saved = neurobench_export.export
        neurobench_export.export = None  # calling it now would fail
        try:
            again = self.prepare(net())
        finally:
            neurobench_export.export = saved
        self.assertTrue(again.path.startswith(self.folder))
        self.assertTrue(torch.equal(again.script(X), net()(X)))

    def test_a_damaged_entry_is_exported_again(self):
        self.prepare(net())
        entry = [e for e in os.listdir(self.folder) if e.endswith(".pt")][0]
        with open(os.path.join(self.folder, entry), "r+b") as f:
            f.seek(100)
            f.write(b"\0damaged\0")
        again = self.prepare(net())
        self.assertFalse(again.path.startswith(self.folder))
        self.assertIsNotNone(_cache.lookup(self.folder, entry[:-3]))  # stored whole again

    def test_the_size_limit_removes_the_least_recently_used(self):
        os.environ["NEUROBENCH_CPP_CACHE_MAX_MB"] = "0.005"  # about one small entry
        try:
            self.prepare(net(seed=1))
            self.prepare(net(seed=2))
        finally:
            del os.environ["NEUROBENCH_CPP_CACHE_MAX_MB"]
        self.assertEqual(len([e for e in os.listdir(self.folder) if e.endswith(".pt")]), 1)
        self.assertIsNotNone(_cache.lookup(self.folder, key(net(seed=2))))

    def test_the_switch_and_the_folder(self):
        os.environ["NEUROBENCH_CPP_CACHE"] = "0"
        try:
            self.assertIsNone(_cache.folder())
            self.assertIsNone(_cache.folder(self.folder))
        finally:
            del os.environ["NEUROBENCH_CPP_CACHE"]
        self.assertEqual(_cache.folder(self.folder), self.folder)
        self.assertIsNone(_cache.folder(False))
        os.environ["XDG_CACHE_HOME"] = "/somewhere"
        saved = os.environ.pop("NEUROBENCH_CPP_CACHE_DIR", None)
        try:
            self.assertEqual(_cache.folder(), "/somewhere/neurobench_cpp")
        finally:
            del os.environ["XDG_CACHE_HOME"]
            if saved is not None:
                os.environ["NEUROBENCH_CPP_CACHE_DIR"] = saved

    def test_processes_storing_one_entry_at_once(self):
        # Four processes export the same network into one folder at the same time: every
        # lookup afterwards finds one intact entry, and nothing half-written is left.
        code = textwrap.dedent(f"""
            import sys
            sys.path[:0] = [{os.path.join(ROOT, 'python')!r}, {HERE!r}]
            import test_export_cache as t
            from neurobench_cpp import _models
            _models.prepare_model(_models.TorchModel(t.net()), t.X, {self.folder!r})
        """)
        procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(4)]
        self.assertEqual([p.wait(timeout=300) for p in procs], [0, 0, 0, 0])
        sys.path.insert(0, HERE)
        import test_export_cache as imported  # the class as the processes named it
        self.assertIsNotNone(_cache.lookup(self.folder, key(imported.net())))
        self.assertEqual(sorted(e.rsplit(".", 1)[1] for e in os.listdir(self.folder)),
                         ["json", "pt"])


if __name__ == "__main__":
    unittest.main()
