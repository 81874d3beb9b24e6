# Metrics that do not apply to the network: ConnectionSparsity with no connection layer,
# NeuronOperations and MembraneUpdates on an ANN, ActivationSparsity with no activation layer.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (MSE, ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations, MembraneUpdates, NeuronOperations)

torch.manual_seed(0)
net_relu_0 = nn.Sequential(nn.Identity(), nn.ReLU())
net_linear = nn.Sequential(nn.Linear(20, 20), nn.Tanh())
x = torch.randn(9, 20)
runs = []
for net in (net_relu_0, net_linear):
    loader = DataLoader(TensorDataset(x, torch.rand(9, 20)), batch_size=4)
    b = Benchmark(TorchModel(net), loader, [], [],
                  [[Footprint, ParameterCount, ConnectionSparsity],
                   [MSE, ActivationSparsity, ActivationSparsityByLayer, SynapticOperations,
                    MembraneUpdates, NeuronOperations]])
    runs.append(b.run())
results = runs
print(results)
