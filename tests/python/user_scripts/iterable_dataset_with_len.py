# An IterableDataset that defines __len__, streaming its samples, batched by a DataLoader.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import ParameterCount
from neurobench.metrics.workload import ClassificationAccuracy, ActivationSparsity


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        g = torch.Generator().manual_seed(11)
        for i in range(self.n):
            yield torch.randn(5, generator=g), i % 3


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
loader = DataLoader(Stream(17), batch_size=4)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [[ParameterCount], [ClassificationAccuracy, ActivationSparsity]])
results = b.run()
print(results)
