# snnTorch's recurrent neurons (RLeaky with a linear recurrence, RSynaptic) in an SNN:
# NeuroBench's NeuronOperations has no figures for them.
import torch
import torch.nn as nn
import snntorch as snn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.processors.postprocessors import ChooseMaxCount
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         SynapticOperations, MembraneUpdates, NeuronOperations)

torch.manual_seed(17)
net = nn.Sequential(
    nn.Linear(8, 10), snn.RLeaky(beta=0.9, linear_features=10, init_hidden=True),
    nn.Linear(10, 3), snn.Leaky(beta=0.9, init_hidden=True, output=True))
x = (torch.rand(9, 12, 8) < 0.4).float()
y = torch.randint(0, 3, (9,))
b = Benchmark(SNNTorchModel(net), DataLoader(TensorDataset(x, y), batch_size=4), [],
              [ChooseMaxCount()],
              [[Footprint, ParameterCount, ConnectionSparsity],
               [ClassificationAccuracy, ActivationSparsity, SynapticOperations,
                MembraneUpdates, NeuronOperations]])
results = b.run()
print(results)
