# Activation layers nested in blocks whose attribute names repeat (block.act in each block):
# NeuroBench keys ActivationSparsityByLayer by the attribute name, so the blocks' layers merge.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (MSE, ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations)


class Block(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(6, 10), Block(10, 10), Block(10, 4)])
        self.out_act = nn.Sigmoid()

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.out_act(x)


torch.manual_seed(12)
x = torch.randn(11, 6)
loader = DataLoader(TensorDataset(x, torch.rand(11, 4)), batch_size=4)
b = Benchmark(TorchModel(Net()), loader, [], [],
              [[Footprint, ParameterCount, ConnectionSparsity],
               [MSE, ActivationSparsity, ActivationSparsityByLayer, SynapticOperations]])
results = b.run()
print(results)
