# run(verbose=True) printing each batch's results, and run(device="cpu"), as in NeuroBench's
# examples; the results must not change.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint
from neurobench.metrics.workload import ClassificationAccuracy, ActivationSparsity

torch.manual_seed(15)
net = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
x = torch.randn(13, 4)
y = torch.randint(0, 2, (13,))
loader = DataLoader(TensorDataset(x, y), batch_size=5)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [[Footprint], [ClassificationAccuracy, ActivationSparsity]])
results = [b.run(verbose=True), b.run(device="cpu"), b.run(quiet=True, device="cpu")]
print(results)
