# A network pruned with torch.nn.utils.prune, its masks left in place (weight_orig,
# weight_mask and the forward pre-hook), benchmarked as it is after pruning.
import torch
import torch.nn as nn
import torch.nn.utils.prune as prune
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         SynapticOperations)

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                    nn.Linear(32, 4))
prune.l1_unstructured(net[0], name="weight", amount=0.5)
prune.random_unstructured(net[2], name="weight", amount=0.3)
x = torch.randn(20, 16)
y = torch.randint(0, 4, (20,))
loader = DataLoader(TensorDataset(x, y), batch_size=8)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [[Footprint, ParameterCount, ConnectionSparsity],
               [ClassificationAccuracy, ActivationSparsity, SynapticOperations]])
results = b.run()
print(results)
