# nn.LSTM, nn.GRU and nn.RNN layers (not cells) with a Linear readout, as a user classifying
# sequences writes them. NeuroBench's SynapticOperations raises on such a layer.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         SynapticOperations)


class SeqNet(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.rnn = kind(input_size=6, hidden_size=12, num_layers=2, batch_first=True)
        self.act = nn.ReLU()
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(self.act(out[:, -1]))


torch.manual_seed(5)
x = torch.randn(9, 7, 6)
targets = torch.randint(0, 3, (9,))
runs = []
for kind in (nn.LSTM, nn.GRU, nn.RNN):
    loader = DataLoader(TensorDataset(x, targets), batch_size=4)
    benchmark = Benchmark(TorchModel(SeqNet(kind)), loader, [], [lambda o: o.argmax(-1)],
                          [[Footprint, ParameterCount, ConnectionSparsity],
                           [ClassificationAccuracy, ActivationSparsity, SynapticOperations]])
    runs.append(benchmark.run())
results = runs
print(results)
