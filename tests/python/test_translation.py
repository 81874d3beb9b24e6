#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Unit tests of neurobench_cpp's pure-Python layer (python/neurobench_cpp/_models.py,
_metrics.py, _processors.py): NeuroBench's models, metric lists and processors translated for
the C++ harness, and what is refused. Needs no compiled core: the modules are loaded without the
package's __init__.py.

Run: /usr/bin/python3 tests/python/test_translation.py [--cli PATH/neurobench]
         [--apply-pre PATH/neurobench_apply_pre]
The harness's metric and processor names come from `neurobench list` (--cli, needed), as the
compiled core's registries would give them to the package (_registry.py); with --apply-pre,
the translated pre-processors are run in C++ and compared with NeuroBench's.
Exits 77 (skipped) without python3-torch or the reference packages in ../shared/third_party."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
THIRD = os.environ.get("NEUROBENCH_THIRD_PARTY") or os.path.join(ROOT, "..", "shared",
                                                                   "third_party")
PACKAGE_DIR = os.path.join(ROOT, "python", "neurobench_cpp")

parser = argparse.ArgumentParser()
parser.add_argument("--cli")
parser.add_argument("--apply-pre")
ARGS, UNITTEST_ARGV = parser.parse_known_args()

for needed in ("neurobench", "snntorch"):
    if not os.path.isdir(os.path.join(THIRD, needed)):
        print(f"skipped: {needed} is not at {THIRD}")
        sys.exit(77)
try:
    import numpy as np
    import torch
    import torchaudio  # noqa: F401  (NeuroBench's MFCCPreProcessor)
    import tqdm  # noqa: F401  (NeuroBench's Benchmark)
except ImportError as e:
    print(f"skipped: {e} (scripts/setup --python)")
    sys.exit(77)
sys.path[:0] = [os.path.join(THIRD, "neurobench"), os.path.join(THIRD, "snntorch"),
                os.path.join(ROOT, "python")]

# The package without its __init__.py (Engineer A's, which loads the compiled core).
_package = types.ModuleType("neurobench_cpp")
_package.__path__ = [PACKAGE_DIR]
sys.modules["neurobench_cpp"] = _package
from neurobench_cpp import _metrics, _models, _processors, _registry  # noqa: E402
from neurobench_cpp._metrics import CppMetric, PythonMetric, translate_metrics  # noqa: E402
from neurobench_cpp._models import ModelError, prepare_model  # noqa: E402
from neurobench_cpp._processors import (CppProcessor, PythonProcessor,  # noqa: E402
                                        translate_processors)

import snntorch as snn  # noqa: E402


def listed_names(cli):
    """`neurobench list`'s sections: title -> names."""
    listed = subprocess.run([cli, "list"], capture_output=True, text=True, check=True)
    sections, current = {}, None
    for line in listed.stdout.splitlines():
        if line and not line.startswith(" "):
            current = line.split(" (")[0].rstrip(":")
            sections[current] = []
        elif line.startswith("  ") and not line.startswith("   ") and current:
            sections[current].append(line.split()[0])
    return sections


if not ARGS.cli:
    print("skipped: --cli PATH/neurobench is needed (the harness's names come from its list)")
    sys.exit(77)
LISTED = listed_names(ARGS.cli)
# What the compiled core's registries give the package, here from the command line's list.
_registry.use(LISTED["static metrics"],
              LISTED["workload metrics"] + LISTED["timing metrics, measured by a timing pass"],
              LISTED["pre-processors"], LISTED["post-processors"])
from torch import nn  # noqa: E402
from neurobench.metrics import static as nb_static  # noqa: E402
from neurobench.metrics import workload as nb_workload  # noqa: E402
from neurobench.metrics.abstract import (AccumulatedMetric, StaticMetric,  # noqa: E402
                                         WorkloadMetric)
from neurobench.models import NeuroBenchModel, SNNTorchModel, TorchModel  # noqa: E402
from neurobench.processors.postprocessors import Aggregate, ChooseMaxCount  # noqa: E402
from neurobench.processors.preprocessors import MFCCPreProcessor  # noqa: E402


# --- stand-ins, each with the module and class name NeuroBench gives its own ---------------

class S2SPreProcessor:
    """The attributes NeuroBench 2.3's S2SPreProcessor has (its code is under a non-commercial
    licence and not in ../shared/third_party; the translation reads only these)."""

    def __init__(self, device=None, transpose=True, log_offset=1e-6):
        self.device = device
        self.transpose = transpose
        self.log_offset = log_offset
        self.spec_kwargs = {"sample_rate": 16000, "n_mels": 20, "n_fft": 512, "f_min": 20,
                            "f_max": 4000, "hop_length": 80}
        self.threshold = 1
        self.transform = torchaudio.transforms.MelSpectrogram(**self.spec_kwargs)

    def configure(self, threshold=1, **spec_kwargs):
        self.threshold = threshold
        self.spec_kwargs = {**self.spec_kwargs, **spec_kwargs}
        self.transform = torchaudio.transforms.MelSpectrogram(**self.spec_kwargs)

    def __call__(self, batch):
        raise AssertionError("the stand-in is never called")


S2SPreProcessor.__module__ = "neurobench.processors.preprocessors.speech2spikes"


def choose_max_count(spikes):
    return spikes.sum(1).argmax(1)


def aggregate(spikes):
    return spikes.sum(1)


choose_max_count.__module__ = aggregate.__module__ = "neurobench.postprocessing.postprocessor"


class StepNet(nn.Module):
    """A step-wise snnTorch network as SNNTorchModel(net) runs it: returns (spk, mem)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.lif1 = snn.Leaky(beta=0.9, init_hidden=True)
        self.fc2 = nn.Linear(8, 3)
        self.lif2 = snn.Leaky(beta=0.8, init_hidden=True, output=True)

    def forward(self, x):
        return self.lif2(self.fc2(self.lif1(self.fc1(x))))


class LoopNet(nn.Module):
    """SNNTorchModel(net, custom_forward=True): loops over time, returns (time, batch, out)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.lif = snn.Leaky(beta=0.9)

    def forward(self, x):
        mem = self.lif.init_leaky()
        out = []
        for t in range(x.shape[1]):
            spk, mem = self.lif(self.fc(x[:, t]), mem)
            out.append(spk)
        return torch.stack(out)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 3))


def spikes(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g) < 0.4).float()


# --- metrics ---------------------------------------------------------------------------------

class MyWorkload(WorkloadMetric):
    def __init__(self):
        super().__init__(requires_hooks=False)

    def __call__(self, model, preds, data):
        return float(preds.float().mean())


class MyAccumulated(AccumulatedMetric):
    def __init__(self):
        super().__init__(requires_hooks=True)
        self.total = 0

    def reset(self):
        self.total = 0

    def __call__(self, model, preds, data):
        self.total += preds.numel()
        return self.compute()

    def compute(self):
        return self.total


class MyStatic(StaticMetric):
    def __call__(self, model):
        return 1


class RenamedAccuracy(nb_workload.ClassificationAccuracy):
    pass


class TopOneAccuracy(nb_workload.ClassificationAccuracy):
    def __call__(self, model, preds, data):
        return 1.0


class MetricTranslation(unittest.TestCase):
    def test_neurobench_classes(self):
        static = [getattr(nb_static, n) for n in nb_static.__all__]
        workload = [getattr(nb_workload, n) for n in nb_workload.__all__]
        s, w = translate_metrics([static, workload])
        self.assertEqual([(m.name, m.result_key, m.options) for m in s],
                         [(c.__name__, c.__name__, {}) for c in static])
        self.assertEqual([(m.name, m.result_key) for m in w],
                         [(c.__name__, c.__name__) for c in workload])
        self.assertTrue(all(isinstance(m, CppMetric) for m in s + w))
        # NeuroBench keys per-layer results by attribute name, shared names merged
        self.assertEqual({m.name: m.options for m in w if m.options},
                         {"ActivationSparsityByLayer": {"keys": "name"}})

    def test_names_2x_and_1x(self):
        s, w = translate_metrics([
            ["footprint", "connection_sparsity", "parameter_count", "Footprint"],
            ["classification_accuracy", "activation_sparsity", "synaptic_operations",
             "membrane_updates", "sMAPE", "MSE", "mse", "r2", "COCO_mAP",
             "activation_sparsity_by_layer", "neuron_operations"]])
        self.assertEqual([(m.name, m.result_key) for m in s],
                         [("Footprint", "footprint"), ("ConnectionSparsity", "connection_sparsity"),
                          ("ParameterCount", "parameter_count"), ("Footprint", "Footprint")])
        self.assertEqual([m.name for m in w],
                         ["ClassificationAccuracy", "ActivationSparsity", "SynapticOperations",
                          "MembraneUpdates", "SMAPE", "MSE", "MSE", "R2", "CocoMap",
                          "ActivationSparsityByLayer", "NeuronOperations"])
        self.assertEqual(w[4].result_key, "sMAPE")
        self.assertEqual(w[9].options, {"keys": "name"})  # NeuroBench's name: its keys
        _, ours = translate_metrics([[], [CppMetric("ActivationSparsityByLayer")]])
        self.assertEqual(ours[0].options, {})  # the project's metric as asked: by path

    def test_project_metrics(self):
        s, w = translate_metrics([["ModelFileSize"], ["Latency", "dense_macs", "EnergyEstimate",
                                                      CppMetric("MemoryEstimate",
                                                                {"precision": "int8"}, "mem")]])
        self.assertEqual([m.name for m in s], ["ModelFileSize"])
        self.assertEqual([(m.name, m.result_key, m.options) for m in w],
                         [("Latency", "Latency", {}), ("DenseMACs", "dense_macs", {}),
                          ("EnergyEstimate", "EnergyEstimate", {}),
                          ("MemoryEstimate", "mem", {"precision": "int8"})])

    def test_python_metrics(self):
        s, w = translate_metrics([[MyStatic], [MyWorkload, MyAccumulated, TopOneAccuracy]])
        self.assertEqual([(type(m), m.kind, m.result_key) for m in s],
                         [(PythonMetric, "static", "MyStatic")])
        self.assertEqual([(type(m), m.kind, m.result_key, m.requires_hooks) for m in w],
                         [(PythonMetric, "workload", "MyWorkload", False),
                          (PythonMetric, "accumulated", "MyAccumulated", True),
                          (PythonMetric, "workload", "TopOneAccuracy", False)])
        self.assertIsInstance(w[1].obj, MyAccumulated)  # instantiated, as NeuroBench does
        self.assertIsNot(translate_metrics([[], [MyAccumulated]])[1][0].obj, w[1].obj)

    def test_renamed_subclass_runs_in_cpp(self):
        _, w = translate_metrics([[], [RenamedAccuracy]])
        self.assertEqual(w, [CppMetric("ClassificationAccuracy", {}, "RenamedAccuracy", True)])

    def test_repeated_key_keeps_first_place_last_metric(self):
        _, w = translate_metrics([[], [MyWorkload, nb_workload.MSE, MyWorkload]])
        self.assertEqual([m.result_key for m in w], ["MyWorkload", "MSE"])

    def test_refusals(self):
        cases = [
            ([[], ["number_neuron_updates"]], ValueError, "number_neuron_updates"),
            ([[], ["accuracy"]], ValueError, "unknown metric name 'accuracy'"),
            ([["Latency"], []], ValueError, "'Latency' is a workload metric"),
            ([[], ["footprint"]], ValueError, "'footprint' is a static metric"),
            ([[nb_workload.MSE], []], TypeError, "put it in the other list"),
            ([[], [MyStatic]], TypeError, "must inherit from WorkloadMetric"),
            ([[MyWorkload], []], TypeError, "must inherit from StaticMetric"),
            ([[], [nb_workload.MSE()]], TypeError, "pass the class MSE itself"),
            ([[], [dict]], TypeError, "class builtins.dict is not accepted"),
            ([[], [42]], TypeError, "int 42 is not accepted"),
            ([[], [CppMetric("Nope")]], ValueError, "names no workload metric"),
            ([[Footprint_like := "Footprint"], "ClassificationAccuracy"], TypeError,
             "must be a list of metrics"),
            ([["Footprint"]], TypeError, "[[static metrics], [workload metrics]]"),
        ]
        for metric_list, error, text in cases:
            with self.subTest(metric_list=repr(metric_list)):
                with self.assertRaises(error) as caught:
                    translate_metrics(metric_list)
                self.assertIn(text, str(caught.exception))
        self.assertEqual(Footprint_like, "Footprint")
        # The message lists what is accepted.
        with self.assertRaises(ValueError) as caught:
            translate_metrics([[], ["accuracy"]])
        self.assertIn("SynapticOperations", str(caught.exception))
        self.assertIn("metric #0 of metric_list[1]", str(caught.exception))

    def test_constructor_failure_names_the_class(self):
        class Broken(WorkloadMetric):
            def __init__(self):
                raise RuntimeError("no")

            def __call__(self, model, preds, data):
                return 0

        with self.assertRaises(TypeError) as caught:
            translate_metrics([[], [Broken]])
        self.assertIn("constructing 'Broken' raised RuntimeError: no", str(caught.exception))

    def test_names_come_from_the_registry(self):
        # A metric the registry has (a plugin's, say) is taken by name; one it lacks is not,
        # and the message lists the registry's names.
        saved = _registry._NAMES
        try:
            _registry.use(["Footprint"], ["PluginCount"], [], [])
            static, workload = translate_metrics([["footprint"], ["plugin_count"]])
            self.assertEqual((static[0].name, workload[0].name), ("Footprint", "PluginCount"))
            with self.assertRaises(ValueError) as caught:
                translate_metrics([[], ["ClassificationAccuracy"]])
            self.assertIn("PluginCount", str(caught.exception))
        finally:
            _registry._NAMES = saved


# --- processors ------------------------------------------------------------------------------

MFCC_DEFAULT_MEL = {"n_fft": 400, "win_length": 400, "hop_length": 200, "pad": 0, "power": 2.0,
                    "normalized": False, "center": True, "pad_mode": "reflect",
                    "onesided": True, "n_mels": 128, "f_min": 0.0, "f_max": 8000.0,
                    "norm": None, "mel_scale": "htk"}


class ProcessorTranslation(unittest.TestCase):
    def test_mfcc(self):
        [p] = translate_processors([MFCCPreProcessor()], "pre")
        self.assertEqual(p, CppProcessor("MFCCPreProcessor", {
            "sample_rate": 16000, "n_mfcc": 40, "dct_type": 2, "norm": "ortho",
            "log_mels": False, "melkwargs": MFCC_DEFAULT_MEL}, "NeuroBench's MFCCPreProcessor"))
        [p] = translate_processors([MFCCPreProcessor(
            sample_rate=8000, n_mfcc=13, norm=None, log_mels=True,
            melkwargs={"n_fft": 256, "hop_length": 64, "n_mels": 32, "f_max": 3000,
                       "mel_scale": "slaney", "norm": "slaney", "center": False})], "pre")
        self.assertEqual(p.options["sample_rate"], 8000)
        self.assertEqual((p.options["n_mfcc"], p.options["norm"], p.options["log_mels"]),
                         (13, None, True))
        self.assertEqual(p.options["melkwargs"], {
            **MFCC_DEFAULT_MEL, "n_fft": 256, "win_length": 256, "hop_length": 64, "n_mels": 32,
            "f_max": 3000.0, "mel_scale": "slaney", "norm": "slaney", "center": False})

    def test_mfcc_not_exact_runs_in_python(self):
        hamming = MFCCPreProcessor(melkwargs={"window_fn": torch.hamming_window})
        [p] = translate_processors([hamming], "pre")
        self.assertIsInstance(p, PythonProcessor)
        self.assertIs(p.fn, hamming)
        self.assertIn("window is not the periodic Hann window", p.describe)
        complex_power = MFCCPreProcessor()
        complex_power.mfcc.MelSpectrogram.spectrogram.power = None
        self.assertIsInstance(translate_processors([complex_power], "pre")[0], PythonProcessor)

    def test_s2s(self):
        [p] = translate_processors([S2SPreProcessor()], "pre")
        self.assertEqual(p, CppProcessor("S2SPreProcessor", {
            "threshold": 1.0, "sample_rate": 16000, "n_fft": 512, "hop_length": 80,
            "n_mels": 20, "f_min": 20.0, "f_max": 4000.0}, "NeuroBench's S2SPreProcessor"))
        configured = S2SPreProcessor()
        configured.configure(threshold=0.5, n_mels=40, f_max=None, hop_length=160)
        [p] = translate_processors([configured], "pre")
        self.assertEqual(p.options, {"threshold": 0.5, "sample_rate": 16000, "n_fft": 512,
                                     "hop_length": 160, "n_mels": 40, "f_min": 20.0,
                                     "f_max": 8000.0})

    def test_s2s_not_exact_runs_in_python(self):
        cases = []
        cases.append(S2SPreProcessor(transpose=False))
        cases.append(S2SPreProcessor(log_offset=1e-3))
        cases.append(S2SPreProcessor(log_offset=0))
        for kwargs in ({"win_length": 400}, {"power": 1.0}, {"norm": "slaney"}, {"center": False},
                       {"threshold": 0}):
            s2s = S2SPreProcessor()
            s2s.configure(**kwargs)
            cases.append(s2s)
        mismatched = S2SPreProcessor()
        mismatched.spec_kwargs["hop_length"] = 160
        cases.append(mismatched)
        for s2s in cases:
            with self.subTest(vars=repr(vars(s2s))[:120]):
                [p] = translate_processors([s2s], "pre")
                self.assertIsInstance(p, PythonProcessor)
                self.assertIs(p.fn, s2s)

    def test_post(self):
        got = translate_processors([ChooseMaxCount(), Aggregate(), choose_max_count, aggregate,
                                    "argmax", CppProcessor("BoxNms", {"max_boxes": 10})], "post")
        self.assertEqual([(type(p), p.name, p.options) for p in got],
                         [(CppProcessor, "ChooseMaxCount", {}), (CppProcessor, "Aggregate", {}),
                          (CppProcessor, "ChooseMaxCount", {}), (CppProcessor, "Aggregate", {}),
                          (CppProcessor, "Argmax", {}), (CppProcessor, "BoxNms",
                                                         {"max_boxes": 10})])

    def test_callables_and_subclasses_run_in_python(self):
        class Votes(ChooseMaxCount):
            def __call__(self, spikes):
                return spikes.sum(1)

        def to_label(output):
            return output.argmax(-1)

        items = [Votes(), to_label, lambda x: x, torch.nn.Softmax(dim=-1)]
        got = translate_processors(items, "post")
        self.assertEqual([type(p) for p in got], [PythonProcessor] * 4)
        self.assertEqual([p.fn for p in got], items)
        self.assertIn("to_label", got[1].describe)

    def test_refusals(self):
        cases = [([42], "pre", TypeError, "pre-processor #0: int 42 is neither callable"),
                 ([ChooseMaxCount(), None], "post", TypeError, "post-processor #1: NoneType"),
                 (["Argmax"], "pre", ValueError, "unknown pre-processor name 'Argmax'"),
                 ([CppProcessor("S2SPreProcessor")], "post", ValueError,
                  "names no post-processor"),
                 (ChooseMaxCount(), "post", TypeError, "postprocessors must be a list"),
                 ([], "middle", ValueError, "stage must be 'pre' or 'post'")]
        for items, stage, error, text in cases:
            with self.subTest(items=repr(items), stage=stage):
                with self.assertRaises(error) as caught:
                    translate_processors(items, stage)
                self.assertIn(text, str(caught.exception))
        self.assertEqual(translate_processors(None, "pre"), [])

    @unittest.skipUnless(ARGS.apply_pre, "--apply-pre not given")
    def test_translated_pre_processors_run_as_neurobench(self):
        """The C++ pre-processor with the translated options gives NeuroBench's output."""
        rng = np.random.default_rng(7)
        audio = (rng.standard_normal((3, 8000, 1)) * 0.1).astype(np.float32)
        mfcc = MFCCPreProcessor(sample_rate=8000, n_mfcc=13, log_mels=True,
                                melkwargs={"n_fft": 256, "hop_length": 64, "n_mels": 32,
                                           "f_max": 3000, "mel_scale": "slaney"})
        [p] = translate_processors([mfcc], "pre")
        ours = apply_pre(audio, p)
        ref, _ = mfcc((torch.from_numpy(audio), torch.zeros(3)))
        self.assertEqual(ours.shape, tuple(ref.shape))
        np.testing.assert_allclose(ours, ref.numpy(), rtol=1e-3, atol=1e-3)


def apply_pre(data, processor):
    spec = processor.name + (":" + ",".join(f"{k}={json.dumps(v)}"
                                            for k, v in processor.options.items())
                             if processor.options else "")
    with tempfile.TemporaryDirectory() as work:
        path_in, path_out = os.path.join(work, "in.npz"), os.path.join(work, "out.npz")
        np.savez(path_in, data=data)
        run = subprocess.run([ARGS.apply_pre, path_in, path_out, spec], capture_output=True,
                             text=True)
        if run.returncode != 0:
            raise AssertionError(f"neurobench_apply_pre {spec} failed: {run.stderr}")
        return np.load(path_out)["data"]


# --- models ----------------------------------------------------------------------------------

def stepwise_run(script, data):
    """What the harness does with a step-wise model: reset, one call per timestep, stacked."""
    script.reset()
    return torch.stack([script(data[:, t])[0] for t in range(data.shape[1])], dim=1)


class ModelPreparation(unittest.TestCase):
    def test_neurobench_snntorch_model(self):
        torch.manual_seed(1)
        model = SNNTorchModel(StepNet())
        data = spikes(5, 7, 6)
        p = prepare_model(model, data)
        self.assertEqual((p.kind, p.stepwise, p.activation_modules),
                         ("snntorch", True, ("Leaky",)))
        self.assertIs(p.original, model)
        self.assertEqual(p.describe, "NeuroBench's SNNTorchModel(StepNet)")
        self.assertTrue(os.path.isfile(p.path))
        with torch.no_grad():
            self.assertTrue(torch.equal(stepwise_run(p.script, data), model(data)))
            self.assertTrue(torch.equal(stepwise_run(torch.jit.load(p.path), data), model(data)))

    def test_custom_forward(self):
        torch.manual_seed(2)
        model = SNNTorchModel(LoopNet(), custom_forward=True)
        data = spikes(4, 9, 6)
        p = prepare_model(model, data)
        self.assertEqual((p.kind, p.stepwise), ("snntorch", False))
        self.assertIn("custom_forward=True", p.describe)
        with torch.no_grad():
            self.assertTrue(torch.equal(p.script(data), model(data)))

    def test_torch_model_and_activation_modules(self):
        model = TorchModel(mlp())
        p = prepare_model(model, torch.randn(4, 6))
        self.assertEqual((p.kind, p.stepwise, p.activation_modules), ("torch", False, ("ReLU",)))
        model.add_activation_module(nn.Tanh)
        self.assertEqual(prepare_model(model, torch.randn(4, 6)).activation_modules,
                         ("ReLU", "Tanh"))
        x = torch.randn(9, 6)
        with torch.no_grad():
            self.assertTrue(torch.equal(p.script(x), model(x)))

    def test_our_wrappers_behave_as_neurobench(self):
        for ours, theirs, data in (
                (_models.TorchModel, TorchModel, torch.randn(4, 6)),
                (_models.SNNTorchModel, SNNTorchModel, spikes(4, 6, 6))):
            with self.subTest(wrapper=ours.__name__):
                torch.manual_seed(3)
                net = mlp() if ours is _models.TorchModel else StepNet()
                a, b = ours(net), theirs(net)
                with torch.no_grad():
                    self.assertTrue(torch.equal(a(data), b(data)))
                self.assertIs(a.__net__(), net)
                p, q = prepare_model(a, data), prepare_model(b, data)
                self.assertEqual((p.kind, p.stepwise, p.activation_modules),
                                 (q.kind, q.stepwise, q.activation_modules))
                self.assertTrue(p.describe.startswith("neurobench_cpp "))
                self.assertEqual([x["layer_name"] for x in a.activation_layers()],
                                 [x["layer_name"] for x in b.activation_layers()])
        loop = _models.SNNTorchModel(LoopNet(), custom_forward=True)
        data = spikes(3, 5, 6)
        with torch.no_grad():
            self.assertTrue(torch.equal(loop(data), SNNTorchModel(loop.net, True)(data)))

    def test_torchscript_module_and_file(self):
        script = torch.jit.script(mlp())
        p = prepare_model(script)
        self.assertEqual((p.kind, p.stepwise, p.activation_modules), ("torchscript", False, None))
        self.assertIs(p.script, script)
        self.assertTrue(os.path.isfile(p.path))
        q = prepare_model(p.path)
        self.assertEqual((q.kind, q.path, q.original), ("torchscript", p.path, p.path))
        x = torch.randn(3, 6)
        self.assertTrue(torch.equal(q.script(x), script(x)))
        # A ScriptModule inside a wrapper runs as it is, with the wrapper's stepping.
        w = prepare_model(SNNTorchModel(script))
        self.assertEqual((w.kind, w.stepwise, w.activation_modules), ("snntorch", True, None))

    def test_refusals(self):
        with tempfile.TemporaryDirectory() as work:
            garbage = os.path.join(work, "garbage.pt")
            with open(garbage, "wb") as f:
                f.write(b"not a model")
            missing = os.path.join(work, "missing.pt")
            nan_net = mlp()
            with torch.no_grad():
                nan_net[0].weight[0, 0] = float("nan")

            class OwnWrapper(NeuroBenchModel):  # as NeuroBench's object detection example
                def __call__(self, batch):
                    return batch

                def __net__(self):
                    return mlp()

            class OwnCall(TorchModel):
                def __call__(self, batch):
                    return self.net(batch) * 2

            cases = [
                (lambda: prepare_model(TorchModel(mlp())), ModelError,
                 "NeuroBench's TorchModel(Sequential): an eager network is exported"),
                (lambda: prepare_model(garbage), ModelError,
                 f"TorchScript file '{garbage}' cannot be loaded"),
                (lambda: prepare_model(missing), ModelError, "no such file"),
                (lambda: prepare_model(TorchModel(nan_net), torch.randn(2, 6)), ModelError,
                 "parameter '0.weight' of the network holds NaN"),
                (lambda: prepare_model(OwnCall(mlp()), torch.randn(2, 6)), ModelError,
                 "OwnCall (a subclass of NeuroBench's TorchModel) defines its own __call__"),
                (lambda: prepare_model(mlp()), TypeError, "wrap the network as NeuroBench does"),
                (lambda: prepare_model(OwnWrapper()), ModelError,
                 "OwnWrapper is the script's own NeuroBenchModel: its __call__ is Python code"),
                (lambda: prepare_model(42), TypeError, "builtins.int is not accepted"),
                (lambda: prepare_model(SNNTorchModel(StepNet()), torch.zeros(4)), ModelError,
                 "SNNTorchModel's input is (batch, timesteps, ...)"),
                (lambda: prepare_model(TorchModel(mlp()), [1, 2]), ModelError,
                 "the model's input[0] must be a tensor or tensors in lists and tuples, got "
                 "int"),
            ]
            for make, error, text in cases:
                with self.subTest(text=text):
                    with self.assertRaises(error) as caught:
                        make()
                    self.assertIn(text, str(caught.exception))
            # The exporter's refusal names the network and keeps its reason.
            with self.assertRaises(ModelError) as caught:
                prepare_model(TorchModel(nan_net), torch.randn(2, 6))
            self.assertIn("cannot be exported to TorchScript with its exact behaviour",
                          str(caught.exception))


class WithoutNeuroBench(unittest.TestCase):
    def test_modules_import_no_neurobench(self):
        """The three modules work, and import no NeuroBench, where NeuroBench is missing."""
        code = (
            "import sys, types\n"
            f"sys.path.insert(0, {os.path.join(ROOT, 'python')!r})\n"
            "p = types.ModuleType('neurobench_cpp'); "
            f"p.__path__ = [{PACKAGE_DIR!r}]; sys.modules['neurobench_cpp'] = p\n"
            "from neurobench_cpp import _models, _metrics, _processors, _registry\n"
            f"_registry.use({list(_registry.metrics('static'))!r}, "
            f"{list(_registry.metrics('workload'))!r}, {list(_registry.processors('pre'))!r}, "
            f"{list(_registry.processors('post'))!r})\n"
            "import torch\n"
            "s, w = _metrics.translate_metrics([['Footprint'], ['SynapticOperations']])\n"
            "pre = _processors.translate_processors([lambda b: b], 'pre')\n"
            "m = _models.prepare_model(_models.TorchModel(torch.nn.Sequential("
            "torch.nn.Linear(3, 2), torch.nn.ReLU())), torch.randn(4, 3))\n"
            "assert m.activation_modules == ('ReLU',), m\n"
            "bad = [n for n in sys.modules if n == 'neurobench' or n.startswith('neurobench.')]\n"
            "assert not bad, bad\n"
            "print('ok', s[0].name, w[0].name, m.kind)\n")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        # `python -c` puts its working folder first on sys.path: an empty folder of its own,
        # not the shared temporary folder, where any scratch file (inspect.py, random.py, ...)
        # would shadow the module of that name.
        with tempfile.TemporaryDirectory() as empty:
            run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 env=env, cwd=empty)
        self.assertEqual(run.returncode, 0, run.stderr)
        # NeuroBench's deprecation notice for each name, then the result.
        lines = run.stdout.strip().splitlines()
        self.assertEqual(lines[-1], "ok Footprint SynapticOperations torch")
        self.assertEqual(len(lines), 3)
        self.assertTrue(all(line.startswith("[DEPRECATION WARNING]: Using string-based metric "
                                            "names ('") for line in lines[:2]), lines)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + UNITTEST_ARGV)
