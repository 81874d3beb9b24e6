#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of python/neurobench_export.py: what it refuses and how it says so, what it
leaves behind, the command line. Run: /usr/bin/python3 tests/snntorch/test_exporter.py
Exits 77 (skipped) without python3-torch or the reference snnTorch in ../shared/third_party."""
import os
import subprocess
import sys
import tempfile
import unittest

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

    def test_a_net_without_neurons_is_refused(self):
        self.assertRefused(nn.Sequential(nn.Linear(6, 5), nn.ReLU()), "no snnTorch neurons")

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


if __name__ == "__main__":
    unittest.main()
