# A seeded, shuffling DataLoader run twice by the same Benchmark: each run draws its order from
# the loader's generator, so the second run sees another order, as NeuroBench's does.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import ClassificationAccuracy, ActivationSparsity, MSE

torch.manual_seed(7)
net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
x = torch.randn(50, 8)
y = torch.randint(0, 3, (50,))
g = torch.Generator()
g.manual_seed(1234)
# batches of unequal size, so that the order changes the weighted means
loader = DataLoader(TensorDataset(x, y), batch_size=7, shuffle=True, generator=g)


class Drop(nn.Module):
    pass


def last_batch_smaller(batch):
    return batch


benchmark = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
                      [[], [ClassificationAccuracy, ActivationSparsity]])
first = benchmark.run()
second = benchmark.run()
third = benchmark.run(quiet=True)
results = [first, second, third]
print(results)
