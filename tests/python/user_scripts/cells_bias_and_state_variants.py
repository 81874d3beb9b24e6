# Recurrent cells as users write them besides NeuroBench's test models: a GRUCell without
# biases given its state, an LSTMCell without biases stepped from no state, an RNNCell with ReLU
# given a state, each in a network that takes [x, state] or loops over time.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ConnectionSparsity
from neurobench.metrics.workload import MSE, SynapticOperations, ActivationSparsity


class CellWithState(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, inp):
        return self.cell(inp[0], inp[1])


class LSTMFromNothing(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(4, 3, bias=False)
        self.out = nn.Linear(3, 3)

    def forward(self, x):
        h, c = self.cell(x[:, 0])
        for t in range(1, x.shape[1]):
            h, c = self.cell(x[:, t], (h, c))
        return self.out(h)


def with_state(batch):
    return ([batch[0][:, 0], torch.ones(batch[0].shape[0], 3)], batch[1])


torch.manual_seed(40)
x = torch.randn(7, 5, 4)
x[x.abs() < 0.3] = 0
y = torch.rand(7, 3)
runs = []
for net, pre in ((CellWithState(nn.GRUCell(4, 3, bias=False)), [with_state]),
                 (CellWithState(nn.RNNCell(4, 3, nonlinearity="relu")), [with_state]),
                 (LSTMFromNothing(), [])):
    b = Benchmark(TorchModel(net), DataLoader(TensorDataset(x, y), batch_size=3), pre, [],
                  [[Footprint, ConnectionSparsity], [MSE, ActivationSparsity, SynapticOperations]])
    runs.append(b.run())
results = runs
print(results)
