# A user's recurrent networks that step a cell over the timesteps inside forward: GRUCell,
# LSTMCell and RNNCell (tanh and relu), the state starting from PyTorch's zeros (first call
# without a state), then a Linear readout on the last hidden state.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         SynapticOperations)


class Stepper(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell
        self.relu = nn.ReLU()
        self.readout = nn.Linear(cell.hidden_size, 4)

    def forward(self, x):
        state = None
        for t in range(x.shape[1]):
            state = self.cell(x[:, t]) if state is None else self.cell(x[:, t], state)
        h = state[0] if isinstance(state, tuple) else state
        return self.readout(self.relu(h))


class LSTMStepper(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(6, 8)
        self.readout = nn.Linear(8, 4)

    def forward(self, x):
        h = torch.zeros(x.shape[0], 8)
        c = torch.zeros(x.shape[0], 8)
        for t in range(x.shape[1]):
            h, c = self.cell(x[:, t], (h, c))
        return self.readout(h)


torch.manual_seed(3)
x = torch.randn(10, 5, 6)
x[x.abs() < 0.4] = 0
targets = torch.randint(0, 4, (10,))
runs = []
nets = [Stepper(nn.GRUCell(6, 8)), Stepper(nn.RNNCell(6, 8)),
        Stepper(nn.RNNCell(6, 8, nonlinearity="relu", bias=False)), LSTMStepper()]
for net in nets:
    loader = DataLoader(TensorDataset(x, targets), batch_size=4)
    benchmark = Benchmark(TorchModel(net), loader, [], [lambda out: out.argmax(-1)],
                          [[Footprint, ParameterCount, ConnectionSparsity],
                           [ClassificationAccuracy, ActivationSparsity, SynapticOperations]])
    runs.append(benchmark.run())
results = runs
print(results)
