# A convolutional SNN (Conv2d, MaxPool2d, Leaky) stepped by SNNTorchModel on event frames of
# shape (batch, time, channels, height, width).
import torch
import torch.nn as nn
import snntorch as snn
from snntorch import surrogate
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.processors.postprocessors import ChooseMaxCount
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         ActivationSparsityByLayer, SynapticOperations,
                                         MembraneUpdates, NeuronOperations)

torch.manual_seed(18)
grad = surrogate.fast_sigmoid(slope=25)
net = nn.Sequential(
    nn.Conv2d(2, 6, 5), nn.MaxPool2d(2), snn.Leaky(beta=0.5, spike_grad=grad, init_hidden=True),
    nn.Conv2d(6, 8, 3), nn.MaxPool2d(2), snn.Leaky(beta=0.5, spike_grad=grad, init_hidden=True),
    nn.Flatten(), nn.Linear(8 * 3 * 3, 4),
    snn.Leaky(beta=0.5, spike_grad=grad, init_hidden=True, output=True))
x = (torch.rand(6, 5, 2, 20, 20) < 0.2).float() * 3
y = torch.randint(0, 4, (6,))
b = Benchmark(SNNTorchModel(net), DataLoader(TensorDataset(x, y), batch_size=4), [],
              [ChooseMaxCount()],
              [[Footprint, ParameterCount, ConnectionSparsity],
               [ClassificationAccuracy, ActivationSparsity, ActivationSparsityByLayer,
                SynapticOperations, MembraneUpdates, NeuronOperations]])
results = b.run()
print(results)
