# SPDX-License-Identifier: Apache-2.0
# NeuroBench's DVS Gesture SNN benchmark (examples/dvs_gesture/benchmark_snn.py in NeuroBench
# 2.3), written as a user writes it, with neurobench_cpp's Benchmark. Changed: the Benchmark
# import, and synthetic event frames of the real shape (150 frames of 2 x 32 x 32 counts, 11
# classes) in place of tonic's DVSGesture, with the example's network
# (examples/dvs_gesture/networks.py, random weights).
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench.processors.postprocessors import ChooseMaxCount
from neurobench_cpp import Benchmark
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
                                "examples", "dvs_gesture"))
from networks import Net  # noqa: E402

device = torch.device("cpu")

torch.manual_seed(2)
net = Net()
with torch.no_grad():  # livelier than the default initialisation: every layer spikes
    for layer in (net.conv2, net.conv3, net.linear1):
        layer.weight.mul_(10.0)

model = SNNTorchModel(net)

frames = torch.poisson(torch.full((5, 150, 2, 32, 32), 0.3))
labels = torch.tensor([3, 9, 2, 9, 1])  # some of the classes this network predicts
test_set_loader = DataLoader(TensorDataset(frames, labels), batch_size=4)

preprocessors = []
postprocessors = [ChooseMaxCount()]

static_metrics = [Footprint, ConnectionSparsity]
workload_metrics = [ClassificationAccuracy, ActivationSparsity, SynapticOperations]

benchmark = Benchmark(model, test_set_loader, preprocessors, postprocessors, [static_metrics, workload_metrics])
results = benchmark.run(device=device)
print(results)
