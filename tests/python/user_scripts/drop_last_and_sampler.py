# drop_last=True (NeuroBench still divides by len(dataset)) and a SubsetRandomSampler with its
# own generator, run twice.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, SubsetRandomSampler

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import ClassificationAccuracy, ActivationSparsity

torch.manual_seed(2)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x = torch.randn(23, 4)
y = torch.randint(0, 2, (23,))
dataset = TensorDataset(x, y)
results = []
loader = DataLoader(dataset, batch_size=5, drop_last=True)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [[], [ClassificationAccuracy, ActivationSparsity]])
results.append(b.run())
sampler = SubsetRandomSampler(list(range(0, 23, 2)), generator=torch.Generator().manual_seed(9))
loader2 = DataLoader(dataset, batch_size=4, sampler=sampler)
results.append(b.run(dataloader=loader2))
results.append(b.run(dataloader=loader2))
print(results)
