# ActivationSparsityByLayer first in the workload list, before any metric that needs hooks: its
# class never sets requires_hooks, so NeuroBench's Benchmark raises when it is built.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import (ActivationSparsityByLayer, ActivationSparsity,
                                         ClassificationAccuracy)

torch.manual_seed(2)
net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
loader = DataLoader(TensorDataset(torch.randn(8, 4), torch.randint(0, 2, (8,))), batch_size=4)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [[], [ClassificationAccuracy, ActivationSparsityByLayer, ActivationSparsity]])
results = b.run()
print(results)
