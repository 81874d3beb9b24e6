# shuffle=True with no generator: the order comes from torch's global RNG, seeded once at the
# top of the script; two Benchmarks over the same loader, one after the other.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint
from neurobench.metrics.workload import ClassificationAccuracy, SynapticOperations

torch.manual_seed(42)
x = torch.randn(33, 10)
x[x < 0] = 0
y = torch.randint(0, 2, (33,))
loader = DataLoader(TensorDataset(x, y), batch_size=5, shuffle=True)
net_a = nn.Sequential(nn.Linear(10, 6), nn.ReLU(), nn.Linear(6, 2))
net_b = nn.Sequential(nn.Linear(10, 4), nn.Sigmoid(), nn.Linear(4, 2))
results = []
for net in (net_a, net_b, net_a):
    b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
                  [[Footprint], [ClassificationAccuracy, SynapticOperations]])
    results.append(b.run())
print(results)
