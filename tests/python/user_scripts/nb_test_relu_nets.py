# NeuroBench's test networks of ReLU, Sigmoid and Identity layers (tests/models/model_list.py)
# in TorchModel, each with every workload metric NeuroBench computes on an ANN.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (MSE, ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations, MembraneUpdates)

torch.manual_seed(0)
net_relu_0_2 = nn.Sequential(
    nn.Linear(20, 25, bias=False), nn.Sigmoid(), nn.Linear(25, 25, bias=False), nn.ReLU())
net_relu_50_2 = nn.Sequential(
    nn.Linear(20, 20, bias=False), nn.Sigmoid(), nn.Linear(20, 25, bias=False), nn.Sigmoid(),
    nn.Linear(25, 25, bias=False), nn.Sigmoid(), nn.Linear(25, 25, bias=False), nn.Sigmoid())
net_sigm = nn.Sequential(nn.Identity(), nn.Sigmoid())

x = torch.ones(12, 20)
x[:, 0:10] = 5
x[6:, 3:8] = 0
y = torch.rand(12, 25)
loader = DataLoader(TensorDataset(x, y), batch_size=5)
all_results = []
for net in (net_relu_0_2, net_relu_50_2):
    benchmark = Benchmark(TorchModel(net), loader, [], [],
                          [[Footprint, ParameterCount, ConnectionSparsity],
                           [MSE, ActivationSparsity, ActivationSparsityByLayer,
                            SynapticOperations, MembraneUpdates]])
    all_results.append(benchmark.run())

loader20 = DataLoader(TensorDataset(x, torch.rand(12, 20)), batch_size=4)
benchmark = Benchmark(TorchModel(net_sigm), loader20, [], [],
                      [[Footprint], [MSE, ActivationSparsity, ActivationSparsityByLayer]])
all_results.append(benchmark.run())
results = all_results[-1]
print(all_results)
