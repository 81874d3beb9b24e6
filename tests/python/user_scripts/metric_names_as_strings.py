# Metrics given by name, as NeuroBench 1.x scripts and its deprecation notice still allow.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark

torch.manual_seed(6)
net = nn.Sequential(nn.Linear(5, 9), nn.ReLU(), nn.Linear(9, 2))
x = torch.randn(14, 5)
y = torch.randint(0, 2, (14,))
loader = DataLoader(TensorDataset(x, y), batch_size=5)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [["footprint", "parameter_count", "connection_sparsity"],
               ["classification_accuracy", "activation_sparsity", "synaptic_operations"]])
results = b.run()
print(results)
