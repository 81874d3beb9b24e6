# SPDX-License-Identifier: Apache-2.0
# Not one of NeuroBench's examples: a model whose __net__() returns a submodule of the network
# it runs, as NeuroBench's object detection example (examples/obj_detection/benchmark.py)
# measures its backbone and not its box head. NeuroBench's static and hook metrics look only
# at __net__(); neurobench_cpp runs the whole network with its metrics scoped to that
# submodule (RunOptions::metrics_scope).
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import (
    ActivationSparsity,
    SynapticOperations,
    ClassificationAccuracy
)
from neurobench.metrics.static import (
    Footprint,
    ParameterCount,
    ConnectionSparsity,
)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 8, 3, stride=2), nn.ReLU(), nn.Flatten())
        self.head = nn.Sequential(nn.Linear(8 * 7 * 7, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.head(self.backbone(x))


class BackboneModel(TorchModel):
    def __net__(self):
        return self.net.backbone


torch.manual_seed(4)
net = Detector()
with torch.no_grad():
    net.backbone[2].weight[:, :4] = 0.0  # some connection sparsity in the backbone
data = torch.relu(torch.randn(40, 2, 16, 16))
targets = torch.randint(0, 4, (40,))
loader = DataLoader(TensorDataset(data, targets), batch_size=16)

model = BackboneModel(net)
benchmark = Benchmark(model, loader, [], [lambda preds: preds.argmax(-1)],
                      [[Footprint, ParameterCount, ConnectionSparsity],
                       [ClassificationAccuracy, ActivationSparsity, SynapticOperations]])
results = benchmark.run()
print(results)
