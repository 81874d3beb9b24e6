# NeuroBench's net_torch_relu_0: one nn.ReLU object at four places of a Sequential, so that the
# same module is called four times per forward (NeuroBench lists it once, as layer "1").
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (MSE, ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations)

act = nn.ReLU()
net_torch_relu_0 = nn.Sequential(
    nn.Identity(), act, nn.Identity(), act, nn.Identity(), act, nn.Identity(), act)

torch.manual_seed(1)
x = torch.randn(10, 20)
loader = DataLoader(TensorDataset(x, torch.rand(10, 20)), batch_size=4)
benchmark = Benchmark(TorchModel(net_torch_relu_0), loader, [], [],
                      [[Footprint, ParameterCount, ConnectionSparsity],
                       [MSE, ActivationSparsity, ActivationSparsityByLayer, SynapticOperations]])
results = benchmark.run()
print(results)
