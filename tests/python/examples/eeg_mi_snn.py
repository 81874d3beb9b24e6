# SPDX-License-Identifier: Apache-2.0
# NeuroBench's EEG motor imagery benchmark (examples/eeg_mi/benchmark.py in NeuroBench 2.3),
# written as a user writes it, with neurobench_cpp's Benchmark: an snnTorch network that loops
# over time itself (SNNTorchModel(net, custom_forward=True)) and the script's own post-processing
# function, run in Python. Changed: the Benchmark import, and synthetic trials of the real shape
# (250 timesteps of 62 channels, 2 classes) with the example's network
# (examples/eeg_mi/networks.py, random weights) in place of ThorEEGMI and the trained weights;
# that network returns (timesteps, batch, 2), so it is wrapped here to return NeuroBench's
# EEG_SNN's (batch, timesteps, 2), which the example's post-processing expects.
import os
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench_cpp import Benchmark
from neurobench.models import SNNTorchModel
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (
    ClassificationAccuracy,
    ActivationSparsity,
    SynapticOperations,
)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples", "eeg_mi"))
import networks  # noqa: E402


class EEG_SNN(nn.Module):  # noqa: N801 (NeuroBench's name)
    def __init__(self):
        super().__init__()
        self.net = networks.EEG_SNN()

    def forward(self, x):
        return self.net(x).transpose(0, 1)


DEVICE = "cpu"


def postprocess(spikes):
    return spikes.sum(dim=0).argmax(dim=1)


torch.manual_seed(6)
val_set = TensorDataset(torch.randn(70, 250, 62), torch.randint(0, 2, (70,)))
loader = DataLoader(val_set, batch_size=64, shuffle=False)

# Load model
net = EEG_SNN().to(DEVICE)

nb_model = SNNTorchModel(net, custom_forward=True)

benchmark = Benchmark(
    model=nb_model,
    dataloader=loader,
    preprocessors=[],
    postprocessors=[postprocess],
    metric_list=[
        [Footprint, ParameterCount, ConnectionSparsity],
        [ClassificationAccuracy, ActivationSparsity, SynapticOperations],
    ],
)

results = benchmark.run()
print("\nBenchmark results:", results)
