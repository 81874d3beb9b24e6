# A seeded shuffling DataLoader whose data set is a whole number of batches (the sampler's last
# draw happens only when the loop asks past the last batch), run three times.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import ClassificationAccuracy, ActivationSparsity, MSE

torch.manual_seed(9)
net = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
x = torch.randn(48, 6)
y = torch.randint(0, 3, (48,))
g = torch.Generator().manual_seed(77)
loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, generator=g)


class FirstSampleSeen(torch.nn.Module):
    pass


def first_label(batch):
    return batch


order = []


def record(batch):
    order.append(int(batch[1][0]))
    return batch


b = Benchmark(TorchModel(net), loader, [record], [lambda o: o.argmax(-1)],
              [[], [ClassificationAccuracy, ActivationSparsity]])
results = [b.run(), b.run(), b.run()]
results.append({"first_labels": order})
print(results)
