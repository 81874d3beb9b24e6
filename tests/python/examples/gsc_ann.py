# SPDX-License-Identifier: Apache-2.0
# NeuroBench's keyword-spotting ANN benchmark (examples/gsc/benchmark_ann.py in NeuroBench 2.3),
# written as a user writes it, with neurobench_cpp's Benchmark: its own pre-processor class
# (torchaudio's Resample) and post-processor class run in Python, in the chain. Changed: the
# Benchmark import, and synthetic data of the real shapes (one-second 16 kHz clips, 35 classes)
# with the example's M5 (examples/speech_commands/networks.py, random weights).
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset
import torchaudio

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark

from neurobench.processors.abstract import NeuroBenchPreProcessor, NeuroBenchPostProcessor

from neurobench.metrics.workload import (
    ActivationSparsity,
    SynapticOperations,
    ClassificationAccuracy
)
from neurobench.metrics.static import (
    Footprint,
    ConnectionSparsity,
)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples", "speech_commands"))
from networks import M5  # noqa: E402

device = torch.device("cpu")

torch.manual_seed(1)
clips = torch.randn(20, 16000, 1) * 0.1
labels = torch.randint(0, 35, (20,))
test_set_loader = DataLoader(TensorDataset(clips, labels), batch_size=8, shuffle=False)

net = M5()


class resample(NeuroBenchPreProcessor):
    def __init__(self):
        self.resample = torchaudio.transforms.Resample(orig_freq=16000, new_freq=8000).to(device)

    def __call__(self, dataset):
        inputs = dataset[0].permute(0, 2, 1)
        inputs = self.resample(inputs)
        return (inputs, dataset[1])


preprocessors = [resample()]


class convert_to_label(NeuroBenchPostProcessor):

    def __call__(self, output):
        return output.argmax(dim=-1).squeeze()


postprocessors = [convert_to_label()]

## Define model ##
model = TorchModel(net)

static_metrics = [Footprint, ConnectionSparsity]
workload_metrics = [ClassificationAccuracy, ActivationSparsity, SynapticOperations]

benchmark = Benchmark(model, test_set_loader, preprocessors, postprocessors, [static_metrics, workload_metrics])
results = benchmark.run(device=device)
print(results)
