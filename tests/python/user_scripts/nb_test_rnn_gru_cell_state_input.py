# NeuroBench's simple_RNN and simple_GRU: forward takes [x, h] and steps an nn.RNNCell or
# nn.GRUCell once, then a ReLU. The state comes from a pre-processor; the GRU also runs on
# random states and inputs with zeros, where NeuroBench's element-wise terms matter.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (MSE, ActivationSparsity, SynapticOperations,
                                         ActivationSparsityByLayer)


class simple_RNN(nn.Module):
    def __init__(self):
        super(simple_RNN, self).__init__()
        self.RNN = nn.RNNCell(input_size=25, hidden_size=5, bias=True)
        self.rel = nn.ReLU()

    def forward(self, inp):
        x, states = inp[0], inp[1]
        x = self.RNN(x, states)
        x = self.rel(x)
        return x


class simple_GRU(nn.Module):
    def __init__(self):
        super(simple_GRU, self).__init__()
        self.GRU = nn.GRUCell(input_size=25, hidden_size=5, bias=True)
        self.rel = nn.ReLU()

    def forward(self, inp):
        x, states = inp[0], inp[1]
        x = self.GRU(x, states)
        x = self.rel(x)
        return x


def ones_state(batch):
    return ([batch[0], torch.ones(batch[0].shape[0], 5)], batch[1])


def random_state(batch):
    g = torch.Generator().manual_seed(int(batch[0].sum()) % 1000)
    h = torch.randn(batch[0].shape[0], 5, generator=g)
    h[:, 1] = 0
    return ([batch[0], h], batch[1])


torch.manual_seed(0)
x = torch.ones(6, 25)
x[:, 0] = 4
x[3:, 5:15] = 0
targets = torch.rand(6, 5)
runs = []
for net in (simple_RNN(), simple_GRU()):
    for pre in (ones_state, random_state):
        loader = DataLoader(TensorDataset(x, targets), batch_size=2)
        benchmark = Benchmark(TorchModel(net), loader, [pre], [],
                              [[Footprint, ParameterCount, ConnectionSparsity],
                               [MSE, ActivationSparsity, ActivationSparsityByLayer,
                                SynapticOperations]])
        runs.append(benchmark.run())
results = runs
print(results)
