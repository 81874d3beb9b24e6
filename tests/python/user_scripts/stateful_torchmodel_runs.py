# A network that carries state in a buffer from batch to batch (NeuroBench's TorchModel never
# resets it), as the primate reaching networks do, run twice: the second run starts where the
# first ended.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint
from neurobench.metrics.workload import MSE, R2, ActivationSparsity, SynapticOperations


class Leaky(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, 2)
        self.act = nn.ReLU()
        self.register_buffer("trace", torch.zeros(2))

    def forward(self, x):
        out = []
        for i in range(x.shape[0]):
            self.trace = 0.8 * self.trace + self.fc(x[i])
            out.append(self.act(self.trace))
        return torch.stack(out)


torch.manual_seed(31)
x = torch.randn(19, 7)
y = torch.randn(19, 2)
b = Benchmark(TorchModel(Leaky(7)), DataLoader(TensorDataset(x, y), batch_size=6), [], [],
              [[Footprint], [MSE, R2, ActivationSparsity, SynapticOperations]])
results = [b.run(), b.run()]
print(results)
