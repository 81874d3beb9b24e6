# A regression network scored with MSE, sMAPE and R2, as NeuroBench's primate reaching and
# Mackey-Glass tasks do, on batches of unequal size.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount
from neurobench.metrics.workload import MSE, SMAPE, R2, ActivationSparsity, SynapticOperations

torch.manual_seed(21)
net = nn.Sequential(nn.Linear(9, 24), nn.ReLU(), nn.Linear(24, 2))
x = torch.randn(37, 9)
y = torch.stack([x[:, 0] * 2 + x[:, 1], x[:, 2] - x[:, 3]], dim=1)
loader = DataLoader(TensorDataset(x, y), batch_size=10)
b = Benchmark(TorchModel(net), loader, [], [],
              [[Footprint, ParameterCount],
               [MSE, SMAPE, R2, ActivationSparsity, SynapticOperations]])
results = b.run()
print(results)
