#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of the exporter, the package python/neurobench_export/: what it refuses and how it
says so, what it leaves behind, networks without snnTorch neurons, the command line, and the
package's layout (the wrapper python/neurobench_export.py loaded by path, python3 -m).
Run: /usr/bin/python3 tests/snntorch/test_exporter.py
Exits 77 (skipped) without python3-torch or the reference snnTorch in ../shared/third_party."""
import contextlib
import io
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
THIRD = os.environ.get("NEUROBENCH_THIRD_PARTY") or os.path.join(ROOT, "..", "shared",
                                                                   "third_party")
if not os.path.isdir(os.path.join(THIRD, "snntorch")):
    print(f"skipped: snnTorch is not at {THIRD}")
    sys.exit(77)
sys.path[:0] = [os.path.join(THIRD, "snntorch"), os.path.join(ROOT, "python"), HERE]
try:
    import torch
except ImportError:
    print("skipped: no torch for this python (scripts/setup --python)")
    sys.exit(77)

import snntorch as snn  # noqa: E402
from torch import nn  # noqa: E402

import neurobench_export as ne  # noqa: E402
import nets  # noqa: E402


class Scaled(nn.Module):
    """Passes its neuron a scaled copy of the membrane: only honouring the state argument
    reproduces that; `**kwargs` keeps TorchScript from compiling it, so it can only be traced."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 5)
        self.lif1 = snn.Leaky(beta=0.9, threshold=0.3)
        self.mem1 = self.lif1.init_leaky()

    def reset(self):
        self.mem1 = self.lif1.init_leaky()

    def forward(self, x, **kwargs):
        spk, self.mem1 = self.lif1(self.fc(x), self.mem1 * 0.5)
        return spk, self.mem1


class Unscriptable(nn.Module):
    """init_hidden neurons and code TorchScript cannot compile (**kwargs): traced instead."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.lif1 = snn.Leaky(beta=0.8, init_hidden=True)
        self.fc2 = nn.Linear(8, 3)
        self.lif2 = snn.Leaky(beta=0.8, init_hidden=True, output=True)

    def forward(self, x, **kwargs):
        return self.lif2(self.fc2(self.lif1(self.fc1(x))))


class LoopWithNumpy(nn.Module):
    """Loops over time itself, with a numpy call TorchScript cannot compile."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.lif = snn.Leaky(beta=0.9, init_hidden=True)

    def forward(self, x):
        out = []
        for t in range(x.shape[1]):
            out.append(self.lif(self.fc(x[:, t])) * float(__import__("numpy").float32(1.0)))
        return torch.stack(out)


class MyLeaky(snn.Leaky):
    pass


class KeywordMLP(nn.Module):
    """No snnTorch neurons, and `**kwargs` keeps TorchScript from compiling it: traced."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x, **kwargs):
        return self.fc2(torch.relu(self.fc1(x)))


class Branching(nn.Module):
    """Control flow on the input's values, and code TorchScript cannot compile (`**kwargs`): a
    trace keeps the branch the example took, which the check must catch."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x, **kwargs):
        if bool(x[0, 0] > 0):
            return self.fc(x)
        return -self.fc(x)


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(6, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.fc(out[:, -1])


class LoopOverTime(nn.Module):
    """No neurons; loops over time itself and returns (time, batch, ...): custom_forward."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        out = []
        for t in range(x.shape[1]):
            out.append(torch.tanh(self.fc(x[:, t])))
        return torch.stack(out)


def speech_commands_m5():
    """NeuroBench's M5 (keyword spotting ANN) as examples/speech_commands/networks.py has it, with
    NeuroBench's layer names; None where that file is missing."""
    folder = os.path.join(ROOT, "examples", "speech_commands")
    if not os.path.isfile(os.path.join(folder, "networks.py")):
        return None
    sys.path.insert(0, folder)
    try:
        import networks
    finally:
        sys.path.remove(folder)
    torch.manual_seed(0)
    return networks.M5().eval()


def spikes(*shape, p=0.4, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g) < p).float()


class ExporterTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "net.pt")

    def tearDown(self):
        self.tmp.cleanup()

    def assertRefused(self, net, *needles, **kwargs):
        kwargs.setdefault("example_input", spikes(4, 6))
        with self.assertRaises(ne.ExportError) as ctx:
            ne.export(net, self.out, **kwargs)
        for needle in needles:
            self.assertIn(needle, str(ctx.exception))
        self.assertFalse(os.path.exists(self.out), "a refused export must write nothing")
        self.assertEqual([f for f in os.listdir(self.tmp.name)], [], "no temporary file left")
        return str(ctx.exception)

    def test_a_custom_spike_function_is_refused_naming_the_module(self):
        net = nn.Sequential(nn.Linear(6, 5), snn.Leaky(beta=0.9, init_hidden=True, output=True,
                                                       spike_grad=lambda x: torch.sigmoid(x)))
        self.assertRefused(net, "module '1' (Leaky)", "Heaviside")

    def test_a_subclass_of_a_neuron_is_refused(self):
        net = nn.Sequential(nn.Linear(6, 5), MyLeaky(beta=0.9, init_hidden=True, output=True))
        self.assertRefused(net, "module '1' (MyLeaky)", "derives from")

    def test_state_quantisation_is_refused(self):
        net = nn.Sequential(nn.Linear(6, 5), snn.Leaky(beta=0.9, init_hidden=True, output=True,
                                                       state_quant=lambda m: m))
        self.assertRefused(net, "module '1' (Leaky)", "state_quant")

    def test_example_input_is_required(self):
        self.assertRefused(nets.kws_sequential(), "example_input is required", example_input=None)

    def test_an_eager_failure_on_the_example_names_its_shape(self):
        self.assertRefused(nets.kws_sequential(), "fails on example_input of shape [4, 6]")

    def test_code_torchscript_cannot_compile_is_named_by_file_and_line(self):
        msg = self.assertRefused(LoopWithNumpy(), "TorchScript cannot compile", "test_exporter.py",
                                 "line", custom_forward=True, example_input=spikes(2, 5, 4))
        self.assertIn("LoopWithNumpy", msg)

    def test_a_difference_names_the_first_neuron_that_differs(self):
        # TorchScript cannot compile **kwargs, and a trace loses the scaling of the state
        self.assertRefused(Scaled(), "module 'lif1' (Leaky) differs first", "state 'mem'",
                           stepwise=True)

    def test_a_refused_export_leaves_an_existing_file_alone(self):
        with open(self.out, "wb") as f:
            f.write(b"previous")
        with self.assertRaises(ne.ExportError):
            ne.export(Scaled(), self.out, example_input=spikes(4, 6), stepwise=True)
        with open(self.out, "rb") as f:
            self.assertEqual(f.read(), b"previous")

    def test_a_net_torchscript_cannot_compile_is_traced_with_its_state(self):
        report = ne.export(Unscriptable(), self.out, example_input=spikes(4, 6), stepwise=True)
        self.assertIn("(trace)", report)
        loaded = torch.jit.load(self.out)
        x = spikes(4, 6, seed=3)
        loaded(x)
        self.assertEqual(list(loaded.lif1.mem.shape), [4, 8], "the traced neuron keeps mem")

    def test_the_saved_file_keeps_module_paths_class_names_and_initial_state(self):
        net = nets.build_net("recurrent_forms")
        ne.export(net, self.out, example_input=torch.rand(2, 1, 6, 6), stepwise=True)
        loaded = torch.jit.load(self.out)
        eager = {p: type(m).__name__ for p, m in net.named_modules()}
        saved = {p: m.original_name for p, m in loaded.named_modules()}
        self.assertEqual(saved, eager)
        for p, m in loaded.named_modules():
            if m.original_name == "RLeaky":
                self.assertEqual(m.mem.numel(), 0, f"{p}: saved before any timestep ran")
        n_eager = sum(t.numel() for t in net.parameters())
        n_saved = sum(t.numel() for t in loaded.parameters())
        self.assertEqual(n_saved, n_eager)

    def test_the_eager_net_is_left_as_it_was_given(self):
        net = nets.build_net("reaching_dim0")
        self.assertIsNone(net.mem1)
        before = {k: v.clone() for k, v in net.state_dict().items()}
        mem = net.lif1.mem
        ne.export(net, self.out, example_input=torch.rand(6, 1, 24), stepwise=False)
        self.assertIsNone(net.mem1)
        self.assertIs(net.lif1.mem, mem)
        self.assertEqual(net.lif1.mem.numel(), 0)
        self.assertFalse(hasattr(net.lif1, "reset"), "no attribute left from the check's runs")
        self.assertFalse(net.training)
        for k, v in net.state_dict().items():
            self.assertTrue(torch.equal(v, before[k]), k)

    def test_the_exported_reset_mirrors_snntorch_utils_reset(self):
        net = nets.build_net("nested_blocks")
        ne.export(net, self.out, example_input=spikes(3, 14), stepwise=True)
        loaded = torch.jit.load(self.out)
        loaded(spikes(3, 14))
        loaded.reset()
        for p, m in loaded.named_modules():
            if m.original_name == "Leaky":
                self.assertEqual(int(m.mem.count_nonzero()), 0, f"{p} was reset")

    def test_a_net_without_reset_gets_one_that_does_what_snntorch_utils_reset_does(self):
        net = nets.build_net("nested_no_reset")
        report = ne.export(net, self.out, example_input=spikes(3, 10), stepwise=True)
        self.assertIn("does not reset 'block.1' (Leaky)", report)
        loaded = torch.jit.load(self.out)
        for _ in range(3):
            loaded(spikes(3, 10, p=0.9))
        leaky, synaptic = getattr(loaded.block, "1"), loaded.out
        self.assertGreater(int(leaky.mem.count_nonzero()), 0)
        self.assertGreater(int(synaptic.mem.count_nonzero()), 0)
        loaded.reset()
        self.assertGreater(int(leaky.mem.count_nonzero()), 0, "utils.reset(net) leaves it")
        self.assertEqual(int(synaptic.mem.count_nonzero()), 0)
        self.assertEqual(int(synaptic.syn.count_nonzero()), 0)

    def export_cli(self, *args, net="kws_sequential"):
        return subprocess.run([sys.executable, os.path.join(ROOT, "python", "neurobench_export.py"),
                               os.path.join(HERE, "nets.py") + ":" + net, self.out, *args],
                              capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=os.path.join(THIRD, "snntorch")))

    def test_the_command_line_exports_a_network_from_a_file(self):
        r = self.export_cli("--example-shape", "4,20", "--stepwise")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("exported Sequential", r.stdout)
        self.assertTrue(os.path.isfile(self.out))

    def test_the_command_line_reports_a_refusal_and_exits_1(self):
        r = self.export_cli("--example-shape", "4,7", "--stepwise")
        self.assertEqual(r.returncode, 1)
        self.assertIn("fails on example_input of shape [4, 7]", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_the_command_line_names_a_missing_network_and_exits_2(self):
        r = self.export_cli("--example-shape", "4,20", net="no_such_net")
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no attribute 'no_such_net'", r.stderr)


class PlainNetworkTest(unittest.TestCase):
    """Networks without snnTorch neurons: scripted, or traced where scripting fails, and checked
    against the eager network as snnTorch networks are."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "net.pt")

    def tearDown(self):
        self.tmp.cleanup()

    def assertSameOutputs(self, net, x):
        loaded = torch.jit.load(self.out)
        with torch.no_grad():
            self.assertTrue(torch.equal(loaded(x), net(x)))
        return loaded

    def test_a_plain_network_is_scripted_and_the_report_says_so(self):
        net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
        report = ne.export(net, self.out, example_input=spikes(4, 6))
        self.assertIn("exported Sequential", report)
        self.assertIn("(torch.jit.script; no snnTorch neurons); checked against the eager net",
                      report)
        loaded = self.assertSameOutputs(net.eval(), spikes(5, 6, seed=2))
        self.assertEqual([m.original_name for _, m in loaded.named_modules()],
                         [type(m).__name__ for _, m in net.named_modules()])

    def test_a_gru_and_a_cnn_are_scripted(self):
        for net, x in [(GRUClassifier(), torch.randn(3, 5, 6)),
                       (nn.Sequential(nn.Conv2d(1, 4, 3, padding="same"), nn.BatchNorm2d(4),
                                      nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                                      nn.Linear(4 * 4 * 4, 5)), torch.rand(2, 1, 8, 8))]:
            report = ne.export(net, self.out, example_input=x)
            self.assertIn("(torch.jit.script; no snnTorch neurons)", report)
            self.assertSameOutputs(net.eval(), x)

    def test_a_plain_network_torchscript_cannot_compile_is_traced_and_the_report_says_so(self):
        net = KeywordMLP()
        report = ne.export(net, self.out, example_input=spikes(4, 6))
        self.assertIn("(torch.jit.trace; no snnTorch neurons); checked against the eager net",
                      report)
        self.assertIn("note: torch.jit.script cannot compile the network, so it was traced",
                      report)
        self.assertSameOutputs(net, spikes(4, 6, seed=5))

    def test_a_trace_that_fixes_data_dependent_control_flow_is_refused_and_says_so(self):
        with self.assertRaises(ne.ExportError) as ctx, warnings.catch_warnings():
            warnings.simplefilter("ignore", torch.jit.TracerWarning)  # what the check confirms
            ne.export(Branching(), self.out, example_input=spikes(4, 6))
        msg = str(ctx.exception)
        self.assertIn("cannot export Branching with its exact behaviour; nothing was written",
                      msg)
        self.assertIn("- torch.jit.script: TorchScript cannot compile the network (Branching)",
                      msg)
        self.assertIn("- torch.jit.trace: the saved model does not behave as the eager net: the "
                      "network's output differs", msg)
        self.assertIn("control flow that depends on the input's values", msg)
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(os.listdir(self.tmp.name), [], "no temporary folder left")

    def test_a_plain_network_looping_over_time_is_exported_with_custom_forward(self):
        net = LoopOverTime()
        x = torch.randn(2, 5, 4)
        report = ne.export(net, self.out, example_input=x, custom_forward=True)
        self.assertIn("(torch.jit.script; no snnTorch neurons)", report)
        loaded = torch.jit.load(self.out)
        with torch.no_grad():
            self.assertTrue(torch.equal(loaded(x), net(x).transpose(0, 1)))

    def test_neurobench_m5_for_keyword_spotting_is_exported(self):
        net = speech_commands_m5()
        if net is None:
            self.skipTest("examples/speech_commands/networks.py is missing")
        x = torch.randn(4, 1, 8000, generator=torch.Generator().manual_seed(1)) * 0.1
        report = ne.export(net, self.out, example_input=x, stepwise=False)
        self.assertIn("exported M5", report)
        self.assertIn("(torch.jit.script; no snnTorch neurons)", report)
        self.assertSameOutputs(net, x)

    def test_outputs_by_name_are_compared_name_by_name(self):
        t = torch.ones(2)
        self.assertIsNone(ne.verify._compare_outputs({"b": t, "a": t + 1}, {"a": t + 1, "b": t},
                                                     "here"))
        self.assertIn("output tensor 0 has different values",
                      ne.verify._compare_outputs({"a": t}, {"a": t + 1}, "here"))
        self.assertIn("the eager net returns {'a': tensor[2]}, the export {'b': tensor[2]}",
                      ne.verify._compare_outputs({"a": t}, {"b": t}, "here"))

    def test_the_command_line_exports_a_plain_network_without_snntorch(self):
        module = os.path.join(self.tmp.name, "plain.py")
        with open(module, "w") as f:
            f.write("from torch import nn\n\ndef net():\n"
                    "    return nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 4))\n")
        out = os.path.join(self.tmp.name, "plain.pt")
        # the wrapper run as a script, where `import snntorch` fails
        code = ("import sys, runpy; sys.modules['snntorch'] = None; sys.argv = sys.argv[1:]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')")
        r = subprocess.run([sys.executable, "-c", code,
                            os.path.join(ROOT, "python", "neurobench_export.py"),
                            module + ":net", out, "--example-shape", "4,20"],
                           capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("exported Sequential", r.stdout)
        self.assertIn("(torch.jit.script; no snnTorch neurons)", r.stdout)
        self.assertTrue(os.path.isfile(out))


class RandomStates(nn.Module):
    """A layer that starts each call from torch.rand states, as sparch's neurons do."""

    def __init__(self):
        super().__init__()
        self.W = nn.Linear(6, 5)

    def forward(self, x):
        u = torch.rand(x.shape[0], 5)
        return (self.W(x) + u).gt(0.5).float()


class GlobalGeneratorTest(unittest.TestCase):
    """A net that draws from torch's global generator on purpose (sparch's RadLIF initial
    states): refused by default, exported with same_draws=True, where the check gives the eager
    and the saved call the same draws."""

    def test_a_net_drawing_from_torch_rand_needs_same_draws_and_then_runs_as_the_eager_net(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "net.pt")
            torch.manual_seed(0)
            net = RandomStates().eval()
            with self.assertRaises(ne.ExportError):
                ne.export(net, out, example_input=spikes(4, 6), stepwise=False)
            self.assertFalse(os.path.exists(out))
            report = ne.export(net, out, example_input=spikes(4, 6), stepwise=False,
                               same_draws=True)
            self.assertIn("checked against the eager net", report)
            loaded = torch.jit.load(out)
            with torch.no_grad():
                torch.manual_seed(7)
                eager = net(spikes(9, 6, seed=2))
                torch.manual_seed(7)
                self.assertTrue(torch.equal(loaded(spikes(9, 6, seed=2)), eager))


class PackageLayoutTest(unittest.TestCase):
    """python/neurobench_export/ is a package; python/neurobench_export.py a thin wrapper that
    runs its command line and, loaded by path under the package's name (as the shared
    conformance check loads it), hands on its API."""

    WRAPPER = os.path.join(ROOT, "python", "neurobench_export.py")
    PACKAGE = os.path.join(ROOT, "python", "neurobench_export")

    def python(self, code, *args):
        # `python -c` puts its working folder first on sys.path: an empty folder of its own,
        # not the shared temporary folder, where any scratch file (inspect.py, random.py, ...)
        # would shadow the module of that name.
        with tempfile.TemporaryDirectory() as empty:
            return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                                  text=True, cwd=empty, timeout=120,
                                  env=dict(os.environ,
                                           PYTHONPATH=os.path.join(THIRD, "snntorch")))

    def test_import_finds_the_package_and_its_public_names(self):
        self.assertEqual(os.path.dirname(ne.__file__), self.PACKAGE)
        self.assertEqual(ne.__all__, ["export", "ExportError", "ExportArgumentError",
                                      "EagerNetworkError", "MAX_STEPS"])
        for name in ("export", "ExportError", "ExportArgumentError", "EagerNetworkError",
                     "MAX_STEPS",
                     "STATE_ATTRIBUTES", "MAX_EXAMPLE_VALUES", "MAX_EXAMPLE_DIMS",
                     "MAX_BATCH_SIZE", "main"):
            self.assertTrue(hasattr(ne, name), name)
        self.assertTrue(issubclass(ne.ExportArgumentError, ne.ExportError))
        self.assertTrue(issubclass(ne.EagerNetworkError, ne.ExportError))

    def test_no_module_of_the_package_is_much_over_400_lines(self):
        for name in sorted(os.listdir(self.PACKAGE)):
            if name.endswith(".py"):
                with open(os.path.join(self.PACKAGE, name)) as f:
                    self.assertLessEqual(len(f.readlines()), 450, name)

    def test_the_wrapper_loaded_by_path_as_neurobench_export_hands_on_the_api(self):
        # What ../shared/conformance/snntorch/check.py does, in a fresh interpreter.
        code = """
import importlib.util, os, sys
from torch import nn
import torch
def load():
    spec = importlib.util.spec_from_file_location("neurobench_export", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["neurobench_export"] = mod
    spec.loader.exec_module(mod)
    return mod
if sys.argv[3] == "after-import":
    sys.path.insert(0, os.path.dirname(sys.argv[1]))
    import neurobench_export as first
mod = load()
package = sys.modules["neurobench_export"]
assert package is not mod and package.__path__ == [sys.argv[2]], package
assert os.path.dirname(package.__file__) == sys.argv[2]
if sys.argv[3] == "after-import":  # the package's modules are not loaded twice
    assert package.export is first.export and package.ExportError is first.ExportError
for name in package.__all__ + ["main", "STATE_ATTRIBUTES", "MAX_BATCH_SIZE"]:
    assert getattr(mod, name) is getattr(package, name), name
assert mod.exporter._check is package.exporter._check and mod.cli is package.cli
assert mod.__all__ == package.__all__
net = nn.Sequential(nn.Linear(6, 3))
print(mod.export(net, os.path.join(sys.argv[4], "net.pt"), example_input=torch.ones(2, 6)))
try:
    mod.export(net, sys.argv[4], example_input=torch.ones(2, 6))
except package.ExportArgumentError as e:
    print("refused:", e)
"""
        for how in ("fresh", "after-import"):
            with tempfile.TemporaryDirectory() as tmp:
                r = self.python(code, self.WRAPPER, self.PACKAGE, how, tmp)
                self.assertEqual(r.returncode, 0, f"{how}: {r.stderr}")
                self.assertIn("(torch.jit.script; no snnTorch neurons)", r.stdout)
                self.assertIn("refused:", r.stdout)
                self.assertEqual(os.listdir(tmp), ["net.pt"])

    def test_the_wrapper_and_python_m_run_the_command_line(self):
        # `python -m` puts its working folder first on sys.path: an empty folder of its own, as
        # in python() above, so that no scratch file in the shared temporary folder shadows a
        # module the command line imports.
        with tempfile.TemporaryDirectory() as empty:
            r = subprocess.run([sys.executable, self.WRAPPER, "--help"], capture_output=True,
                               text=True, cwd=empty)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith("usage: neurobench_export.py"), r.stdout)
            r = subprocess.run([sys.executable, "-m", "neurobench_export", "--help"],
                               capture_output=True, text=True, cwd=empty,
                               env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("usage: python3 -m neurobench_export"), r.stdout)
        self.assertIn("with snnTorch neurons or without", r.stdout)

    def test_the_scripted_neurons_keep_their_torchscript_names(self):
        # __torch__.neurobench_export.Leaky, from export() as from the command line
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "net.pt")
            ne.export(nets.kws_sequential(), out, example_input=spikes(4, 20), stepwise=True)
            names = [m._c._type().qualified_name() for _, m in torch.jit.load(out).named_modules()
                     if m.original_name == "Leaky"]
            self.assertEqual(len(names), 3)
            for name in names:  # TorchScript mangles the second class of a name
                self.assertRegex(name, r"^__torch__\.neurobench_export\.(___torch_mangle_\d+\.)?"
                                       r"Leaky$")


def small_net():
    return nets.kws_sequential()


class OutputPathTest(unittest.TestCase):
    """The output rules of neurobench's own outputs (docs/cli.md, "Output files"): a regular file
    is replaced whole, a symbolic link followed, anything else refused by name and left as it
    was. Nothing here touches a real device: FIFOs and sockets are made in a temporary folder,
    and a character device is seen through the exporter's stat seam."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def export_to(self, path, **kwargs):
        kwargs.setdefault("example_input", spikes(4, 20))
        kwargs.setdefault("stepwise", True)
        return ne.export(small_net(), path, **kwargs)

    def assertRefusedPath(self, path, *needles):
        before = sorted(os.listdir(self.dir))
        with self.assertRaises(ne.ExportArgumentError) as ctx:
            self.export_to(path)
        for needle in needles:
            self.assertIn(needle, str(ctx.exception))
        self.assertEqual(sorted(os.listdir(self.dir)), before, "nothing written, nothing left")
        return str(ctx.exception)

    def test_a_fifo_given_as_the_output_is_refused_by_name_and_stays_a_fifo(self):
        fifo = os.path.join(self.dir, "pipe")
        os.mkfifo(fifo)
        self.assertRefusedPath(fifo, fifo, "it is a FIFO (named pipe)")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_a_symbolic_link_to_a_fifo_is_refused_and_both_stay(self):
        fifo = os.path.join(self.dir, "pipe")
        os.mkfifo(fifo)
        link = os.path.join(self.dir, "out.pt")
        os.symlink("pipe", link)
        self.assertRefusedPath(link, "it is a FIFO (named pipe)")
        self.assertTrue(os.path.islink(link))
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_a_socket_given_as_the_output_is_refused_by_name(self):
        path = os.path.join(self.dir, "sock")
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(path)
            self.assertRefusedPath(path, "it is a socket")
            self.assertTrue(stat.S_ISSOCK(os.lstat(path).st_mode))

    def test_a_character_device_given_as_the_output_is_refused_and_not_replaced(self):
        # The seam reports a character device for a file of ours; /dev/null is never touched.
        dev = os.path.join(self.dir, "null")
        with open(dev, "wb") as f:
            f.write(b"stands for a device")
        real = ne.files._stat_output

        def fake(path):
            st = real(path)
            if st is not None and os.path.samefile(path, dev):
                return os.stat_result((stat.S_IFCHR | 0o666,) + tuple(st)[1:])
            return st

        ne.files._stat_output = fake
        try:
            self.assertRefusedPath(dev, dev, "it is a character device")
        finally:
            ne.files._stat_output = real
        with open(dev, "rb") as f:
            self.assertEqual(f.read(), b"stands for a device")

    def test_a_directory_given_as_the_output_is_refused_naming_it(self):
        sub = os.path.join(self.dir, "models")
        os.mkdir(sub)
        self.assertRefusedPath(sub, sub, "it is a directory (give a file name)")
        self.assertEqual(os.listdir(sub), [])

    def test_an_empty_output_path_is_refused(self):
        self.assertRefusedPath("", "cannot write to an empty path")

    def test_an_output_in_a_missing_folder_names_the_folder(self):
        self.assertRefusedPath(os.path.join(self.dir, "nope", "net.pt"), "nope does not exist")

    def test_a_dangling_symbolic_link_is_refused_naming_its_target(self):
        link = os.path.join(self.dir, "out.pt")
        os.symlink("gone.pt", link)
        self.assertRefusedPath(link, "a symbolic link to gone.pt, which does not exist")

    def test_a_symbolic_link_is_followed_and_the_file_it_leads_to_replaced(self):
        real = os.path.join(self.dir, "real.pt")
        with open(real, "wb") as f:
            f.write(b"old")
        os.chmod(real, 0o600)
        link = os.path.join(self.dir, "out.pt")
        os.symlink("real.pt", link)
        self.export_to(link)
        self.assertTrue(os.path.islink(link), "the link stays")
        self.assertEqual(stat.S_IMODE(os.stat(real).st_mode), 0o600, "permissions kept")
        torch.jit.load(real)
        self.assertEqual(sorted(os.listdir(self.dir)), ["out.pt", "real.pt"])

    def test_an_output_that_becomes_a_fifo_during_the_check_is_not_replaced(self):
        out = os.path.join(self.dir, "net.pt")
        with open(out, "wb") as f:
            f.write(b"old")
        check = ne.exporter._check

        def swap_then_check(*args, **kwargs):
            os.remove(out)
            os.mkfifo(out)
            return check(*args, **kwargs)

        ne.exporter._check = swap_then_check
        try:
            with self.assertRaises(ne.ExportArgumentError) as ctx:
                self.export_to(out)
        finally:
            ne.exporter._check = check
        self.assertIn("it is a FIFO (named pipe)", str(ctx.exception))
        self.assertTrue(stat.S_ISFIFO(os.lstat(out).st_mode))
        self.assertEqual(os.listdir(self.dir), ["net.pt"], "no temporary folder left")

    def test_steps_below_one_are_refused_rather_than_skipping_the_check(self):
        out = os.path.join(self.dir, "net.pt")
        for steps in (0, -1, ne.MAX_STEPS + 1, 2.0, True):
            with self.assertRaises(ne.ExportArgumentError) as ctx:
                self.export_to(out, steps=steps)
            self.assertIn(f"steps: {steps!r} is out of range", str(ctx.exception))
        self.assertEqual(os.listdir(self.dir), [])

    def test_steps_1_still_refuses_a_network_with_noise_in_forward(self):
        class Noisy(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(6, 5)
                self.lif = snn.Leaky(beta=0.9, init_hidden=True, output=True)

            def forward(self, x):
                return self.lif(self.fc(x + torch.rand_like(x)))

        with self.assertRaises(ne.ExportError) as ctx:
            ne.export(Noisy(), os.path.join(self.dir, "net.pt"), example_input=spikes(4, 6),
                      stepwise=True, steps=1)
        self.assertIn("differs first", str(ctx.exception))
        self.assertEqual(os.listdir(self.dir), [])

    def test_a_network_with_nan_weights_is_refused_naming_the_parameter(self):
        net = small_net()
        with torch.no_grad():
            net[1].weight[0, 0] = float("nan")
        with self.assertRaises(ne.ExportError) as ctx:
            ne.export(net, os.path.join(self.dir, "net.pt"), example_input=spikes(4, 20),
                      stepwise=True, steps=1)
        self.assertIn("parameter '1.weight' of the network holds NaN", str(ctx.exception))
        self.assertEqual(os.listdir(self.dir), [])

    def test_a_folder_whose_name_is_not_utf8_takes_the_export(self):
        folder = os.path.join(os.fsencode(self.dir), b"d\xff")
        os.mkdir(folder)
        out = os.path.join(folder, b"net\xfe.pt")
        report = self.export_to(out)
        self.assertIn("checked against the eager net", report)
        self.assertEqual(os.listdir(folder), [b"net\xfe.pt"])


SLOW_NET = '''
import snntorch as snn
from torch import nn

def net():
    return nn.Sequential(nn.Linear(20, 64), snn.Leaky(beta=0.9, init_hidden=True),
                         nn.Linear(64, 5), snn.Leaky(beta=0.9, init_hidden=True, output=True))
'''


class CommandLineArgumentsTest(unittest.TestCase):
    """Every argument and option of the command line: a bad one is one line naming it, exit 2,
    and nothing is written."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.out = os.path.join(self.dir, "net.pt")
        self.nets = os.path.join(HERE, "nets.py") + ":kws_sequential"

    def tearDown(self):
        self.tmp.cleanup()

    def file(self, name, contents=b""):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(contents)
        return path

    def cli(self, *args, timeout=120):
        return subprocess.run([sys.executable, os.path.join(ROOT, "python", "neurobench_export.py"),
                               *args], capture_output=True, text=True, timeout=timeout,
                              cwd=self.dir,
                              env=dict(os.environ, PYTHONPATH=os.path.join(THIRD, "snntorch")))

    def main(self, *args):
        """neurobench_export.main() in this process (a process per case takes a second or two
        to import torch): its exit status and what it printed on stderr."""
        cwd, path, err = os.getcwd(), list(sys.path), io.StringIO()
        os.chdir(self.dir)
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                try:
                    status = ne.main(list(args))
                except SystemExit as e:  # argparse's own errors
                    status = e.code
        finally:
            os.chdir(cwd)
            sys.path[:] = path
        return status, err.getvalue()

    def assertBadArgument(self, args, needle, separate_process=False):
        """`separate_process`: for an input that could block the read (a FIFO), so that a
        regression fails here instead of hanging the test."""
        before = sorted(os.listdir(self.dir))
        if separate_process:
            try:
                r = self.cli(*args, timeout=60)
            except subprocess.TimeoutExpired:
                self.fail(f"{args}: still running after 60 s (blocked on a FIFO?)")
            status, stderr = r.returncode, r.stderr
        else:
            status, stderr = self.main(*args)
        self.assertEqual(status, 2, f"{args}: {stderr}")
        self.assertNotIn("Traceback", stderr)
        lines = stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, f"{args}: one line, got {stderr}")
        self.assertTrue(lines[0].startswith("error: "), lines[0])
        self.assertIn(needle, lines[0], args)
        self.assertEqual(sorted(os.listdir(self.dir)), before, f"{args}: nothing written")

    def test_steps_out_of_range_are_refused_naming_the_option(self):
        for value, needle in [("0", "--steps: 0 is out of range"), ("-1", "--steps: -1 is out"),
                              ("nan", "--steps: 'nan' is not an integer"),
                              ("inf", "'inf' is not an integer"), ("1e3", "'1e3' is not an"),
                              ("10001", "10001 is out of range; expected an integer from 1 to "
                                        "10000"),
                              ("9" * 5000, "is out of range")]:
            self.assertBadArgument([self.nets, self.out, "--example-shape", "4,20", "--stepwise",
                                    f"--steps={value}"], needle)

    def test_numeric_options_out_of_range_are_refused_naming_the_option(self):
        shape = ["--example-shape", "4,20", "--stepwise"]
        for args, needle in [
                (shape + ["--spike-rate=nan"], "--spike-rate: 'nan' is not a number"),
                (shape + ["--spike-rate=inf"], "--spike-rate: 'inf' is not a number"),
                (shape + ["--spike-rate=-0.5"], "--spike-rate: -0.5 is out of range"),
                (shape + ["--spike-rate=1e300"], "--spike-rate: 1e300 is out of range"),
                (["--example-shape=-4,20"], "--example-shape: '-4,20' is not a list"),
                (["--example-shape=0,20"], "--example-shape: 0 is out of range"),
                (["--example-shape=4,nan"], "--example-shape: '4,nan' is not a list"),
                (["--example-shape=100000,100000"], "10000000000 values; at most 67108864"),
                (["--example-shape", "99999999999999999999999,2"], "is out of range"),
                (["--example-npz", "x.npz", "--batch-size=0"], "--batch-size: 0 is out of range"),
                (["--example-npz", "x.npz", "--batch-size=-8"], "--batch-size: -8 is out of"),
                (["--example-npz", "x.npz", "--batch-size=4294967296"], "4294967296 is out of"),
                (["--example-npz", "x.npz", "--batch-size=inf"], "'inf' is not an integer")]:
            self.assertBadArgument([self.nets, self.out, *args], needle)

    def test_options_that_do_not_go_together_are_refused(self):
        for args, needle in [
                ([], "give --example-shape or --example-npz"),
                (["--example-shape", "4,20", "--example-npz", "x.npz"], "not both"),
                (["--example-shape", "4,20", "--batch-size", "3"], "--batch-size takes"),
                (["--example-npz", "x.npz", "--spike-rate", "0.5"], "--spike-rate makes"),
                (["--example-shape", "4,20", "--example-kind", "normal", "--spike-rate", "0.5"],
                 "--spike-rate is for --example-kind spikes"),
                (["--example-shape", "4,20", "--stepwise", "--torch-model"], "not allowed with"),
                (["--example-shape", "4,20", "--no-such-option"], "unrecognized arguments")]:
            self.assertBadArgument([self.nets, self.out, *args], needle)

    def test_a_bad_output_path_is_refused_before_the_network_is_loaded(self):
        fifo = os.path.join(self.dir, "pipe")
        os.mkfifo(fifo)
        sub = os.path.join(self.dir, "sub")
        os.mkdir(sub)
        shape = ["--example-shape", "4,20", "--stepwise"]
        # a network that would fail to load: the output is checked first
        for out, needle in [(fifo, "pipe: cannot open for writing: it is a FIFO (named pipe)"),
                            (sub, "sub: cannot open for writing: it is a directory"),
                            ("", "cannot write to an empty path"),
                            (os.path.join(self.dir, "no", "n.pt"), "directory"),
                            (os.path.join(sub, ""), "ends in '/'")]:
            self.assertBadArgument(["no_such_module:x", out, *shape], needle)

    def test_an_output_that_is_an_input_is_refused(self):
        module = self.file("mine.py", b"from nets import kws_sequential\n")
        weights = self.file("w.pth")
        torch.save(nets.kws_sequential().state_dict(), weights)
        shape = ["--example-shape", "4,20", "--stepwise"]
        self.assertBadArgument([module + ":kws_sequential", module, *shape],
                               "is the same file as")
        self.assertBadArgument([self.nets, weights, "--weights", weights, *shape],
                               "(--weights): an output must not overwrite an input")

    def test_a_bad_network_argument_is_one_line_naming_it(self):
        self.file("raises.py", b"def make():\n    raise ValueError('no\\nway')\n"
                               b"def quits():\n    raise SystemExit(0)\nvalue = 3\n"
                               b"def number():\n    return 3\n")
        self.file("broken.py", b"def f(:\n")
        os.mkfifo(os.path.join(self.dir, "pipe.py"))
        shape = ["--example-shape", "4,20", "--stepwise"]
        self.assertBadArgument(["pipe.py:net", self.out, *shape],
                               "pipe.py: the module file is a FIFO (named pipe)",
                               separate_process=True)
        for net, needle in [
                ("no_such_module:net", "no_such_module: no such module"),
                ("missing.py:net", "missing.py: no such module file"),
                ("broken.py:f", "broken.py: cannot import it: SyntaxError"),
                ("raises.py:make", "raises.py:make: making the network raised ValueError: no "
                                   "way (at "),
                ("raises.py:quits", "raises.py:quits: making the network raised SystemExit"),
                ("raises.py:value", "raises.py:value is int, neither a torch.nn.Module"),
                ("raises.py:number", "raises.py:number gave int, not a torch.nn.Module"),
                ("raises.py:absent", "raises.py has no attribute 'absent'"),
                ("raises.py:", "no name after the ':'"), (":make", "no module before the ':'"),
                ("raises.py", "is not MODULE:NAME"), ("a..b:c", "neither a module name")]:
            self.assertBadArgument([net, self.out, *shape], needle)

    def test_bad_weights_are_one_line_naming_the_file(self):
        garbage = self.file("garbage.pth", b"garbage\n")
        wrong = self.file("wrong.pth")
        torch.save({"x": torch.zeros(2)}, wrong)
        tensor = self.file("tensor.pth")
        torch.save(torch.zeros(2), tensor)
        fifo = os.path.join(self.dir, "w.fifo")
        os.mkfifo(fifo)
        shape = ["--example-shape", "4,20", "--stepwise"]
        for weights, needle in [
                (os.path.join(self.dir, "missing.pth"), "missing.pth: no such weights file"),
                (garbage, "garbage.pth: cannot load the weights"),
                (wrong, "wrong.pth: does not fit"), (tensor, "tensor.pth: holds Tensor, not a "
                                                             "state_dict"),
                (self.dir, "the weights file is a directory")]:
            self.assertBadArgument([self.nets, self.out, "--weights", weights, *shape], needle)
        self.assertBadArgument([self.nets, self.out, "--weights", fifo, *shape],
                               "w.fifo: the weights file is a FIFO (named pipe), not a regular "
                               "file", separate_process=True)

    def test_a_fifo_given_as_example_npz_is_refused_without_blocking(self):
        fifo = os.path.join(self.dir, "data.npz")
        os.mkfifo(fifo)
        self.assertBadArgument([self.nets, self.out, "--example-npz", fifo, "--stepwise"],
                               "data.npz: the example file is a FIFO (named pipe), not a regular "
                               "file", separate_process=True)

    def test_bad_example_npz_files_are_one_line_naming_the_file_and_array(self):
        import numpy as np
        cases = {"nodata.npz": {"x": np.zeros(3)}, "empty.npz": {"data": np.zeros((0, 3, 20))},
                 "text.npz": {"data": np.array(["a"])},
                 "nan.npz": {"data": np.full((4, 3, 20), np.nan, dtype=np.float32)},
                 "notime.npz": {"data": np.zeros((4, 0, 20), dtype=np.float32)},
                 "u16.npz": {"data": np.zeros((4, 3, 20), dtype=np.uint16)}}
        for name, arrays in cases.items():
            np.savez(os.path.join(self.dir, name), **arrays)
        np.save(os.path.join(self.dir, "single.npy"), np.zeros(3))
        self.file("garbage.npz", b"garbage")
        for name, needle in [
                ("missing.npz", "missing.npz: no such example file"),
                ("garbage.npz", "garbage.npz: cannot read it as an .npz archive"),
                ("single.npy", "single.npy: is a single .npy array, not an .npz archive"),
                ("nodata.npz", "nodata.npz: has no array 'data' (it has x)"),
                ("empty.npz", "empty.npz: array 'data' of shape [0, 3, 20] has no samples"),
                ("text.npz", "text.npz: array 'data' has dtype <U1"),
                ("nan.npz", "nan.npz: array 'data' holds NaN"),
                ("notime.npz", "notime.npz: step-wise data must be (batch, time, ...)"),
                ("u16.npz", "u16.npz: array 'data' of dtype uint16")]:
            self.assertBadArgument([self.nets, self.out, "--example-npz",
                                    os.path.join(self.dir, name), "--stepwise"], needle)

    def test_an_example_the_export_refuses_as_an_argument_exits_2(self):
        import numpy as np
        np.savez(os.path.join(self.dir, "zero.npz"), data=np.zeros((4, 3, 0), dtype=np.float32))
        self.assertBadArgument([self.nets, self.out, "--example-npz",
                                os.path.join(self.dir, "zero.npz"), "--stepwise"],
                               "example_input is empty, shape [4, 0]")

    def test_a_name_that_is_not_utf8_is_written_and_reported(self):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "python", "neurobench_export.py"),
                            self.nets, os.path.join(os.fsencode(self.dir), b"n\xff.pt"),
                            "--example-shape", "4,20", "--stepwise"], capture_output=True,
                           env=dict(os.environ, PYTHONPATH=os.path.join(THIRD, "snntorch")))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"checked against the eager net", r.stdout)
        self.assertEqual(os.listdir(os.fsencode(self.dir)), [b"n\xff.pt"])

    def interrupt(self, signum):
        self.file("slow.py", SLOW_NET.encode())
        before = sorted(os.listdir(self.dir))
        # SIGINT at its default even where this test runs with it ignored (a background job)
        p = subprocess.Popen([sys.executable, os.path.join(ROOT, "python", "neurobench_export.py"),
                              "slow.py:net", self.out, "--example-shape", "256,20", "--stepwise",
                              "--steps", "10000"], cwd=self.dir, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, PYTHONPATH=os.path.join(THIRD, "snntorch")),
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 120
            while not any(f.startswith("neurobench_export_") for f in os.listdir(self.dir)):
                self.assertIsNone(p.poll(), "the export ended before its temporary folder was "
                                            "seen")
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.02)
            time.sleep(0.5)  # into the scripting or the check
            p.send_signal(signum)
            _, err = p.communicate(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(p.returncode, 128 + signum, err)
        name = signal.Signals(signum).name
        self.assertIn(f"error: interrupted by {name}: nothing was written", err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(sorted(os.listdir(self.dir)), before, "nothing left behind")

    def test_sigterm_leaves_nothing_behind_and_exits_143(self):
        self.interrupt(signal.SIGTERM)

    def test_sigint_leaves_nothing_behind_and_exits_130(self):
        self.interrupt(signal.SIGINT)


if __name__ == "__main__":
    unittest.main()
