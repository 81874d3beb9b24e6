# NeuroBench's convolution test networks (net_conv_2d, net_conv_1d) in TorchModel.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations, MSE)

torch.manual_seed(0)
net_conv_2d = nn.Sequential(nn.Conv2d(1, 1, 3, bias=False), nn.ReLU())
net_conv_1d = nn.Sequential(nn.Conv1d(5, 1, 5, bias=False), nn.ReLU())

x2 = torch.ones(6, 1, 12, 12)
x2[:, 0, 0, 0] = 4
x2[3:, 0, 5:9, 2:7] = 0
x1 = torch.ones(6, 5, 10)
x1[:, 0, 0] = 4
x1[::2, 2] = -1.5
runs = []
for net, x, out in ((net_conv_2d, x2, (6, 1, 10, 10)), (net_conv_1d, x1, (6, 1, 6))):
    loader = DataLoader(TensorDataset(x, torch.rand(*out)), batch_size=4)
    benchmark = Benchmark(TorchModel(net), loader, [], [],
                          [[Footprint, ParameterCount, ConnectionSparsity],
                           [MSE, ActivationSparsity, ActivationSparsityByLayer,
                            SynapticOperations]])
    runs.append(benchmark.run())
results = runs
print(results)
