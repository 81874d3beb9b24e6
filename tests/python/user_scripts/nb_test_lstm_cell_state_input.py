# NeuroBench's simple_LSTM (tests/models/model_list.py): forward takes a list [x, (h, c)] and
# steps an nn.LSTMCell once. A pre-processor builds that list from each batch, as a user
# feeding a recurrent cell its state would.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (MSE, ActivationSparsity, SynapticOperations,
                                         ActivationSparsityByLayer)


class simple_LSTM(nn.Module):
    """Nonsense LSTM for operations testing Should be 615 MACs."""

    def __init__(self):
        super(simple_LSTM, self).__init__()
        self.lstm = nn.LSTMCell(input_size=25, hidden_size=5, bias=True)
        self.rel = nn.ReLU()

    def forward(self, inp):
        x, states = inp[0], inp[1]
        x, _ = self.lstm(x, states)
        return x


def with_state(batch):
    x = batch[0]
    states = (torch.ones(x.shape[0], 5), torch.ones(x.shape[0], 5))
    return ([x, states], batch[1])


torch.manual_seed(0)
x = torch.ones(6, 25)
x[:, 0] = 4
x[3:, 5:15] = 0
loader = DataLoader(TensorDataset(x, torch.rand(6, 5)), batch_size=2)
benchmark = Benchmark(TorchModel(simple_LSTM()), loader, [with_state], [],
                      [[Footprint, ParameterCount, ConnectionSparsity],
                       [MSE, ActivationSparsity, ActivationSparsityByLayer, SynapticOperations]])
results = benchmark.run()
print(results)
