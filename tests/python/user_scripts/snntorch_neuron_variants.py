# snnTorch's neuron classes beside Leaky, as users mix them: Synaptic, Alpha, Lapicque, and
# Leaky with reset_mechanism="zero", in NeuroBench's SNNTorchModel with the spiking metrics.
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
                                         SynapticOperations, MembraneUpdates, NeuronOperations)

torch.manual_seed(0)
grad = surrogate.atan()
nets = {
    "synaptic": nn.Sequential(
        nn.Linear(10, 16), snn.Synaptic(alpha=0.9, beta=0.8, spike_grad=grad, init_hidden=True),
        nn.Linear(16, 4), snn.Leaky(beta=0.8, init_hidden=True, output=True)),
    "alpha": nn.Sequential(
        nn.Linear(10, 16), snn.Alpha(alpha=0.8, beta=0.6, init_hidden=True),
        nn.Linear(16, 4), snn.Leaky(beta=0.7, init_hidden=True, output=True)),
    "lapicque": nn.Sequential(
        nn.Linear(10, 16), snn.Lapicque(beta=0.9, init_hidden=True),
        nn.Linear(16, 4), snn.Lapicque(beta=0.9, init_hidden=True, output=True)),
    "leaky_zero": nn.Sequential(
        nn.Linear(10, 16), snn.Leaky(beta=0.8, reset_mechanism="zero", init_hidden=True),
        nn.Linear(16, 4),
        snn.Leaky(beta=0.8, threshold=0.5, reset_mechanism="zero", init_hidden=True,
                  output=True)),
}
x = (torch.rand(12, 15, 10) < 0.5).float() * 2.0
y = torch.randint(0, 4, (12,))
results = {}
for name, net in nets.items():
    loader = DataLoader(TensorDataset(x, y), batch_size=5)
    b = Benchmark(SNNTorchModel(net), loader, [], [ChooseMaxCount()],
                  [[Footprint, ParameterCount, ConnectionSparsity],
                   [ClassificationAccuracy, ActivationSparsity, SynapticOperations,
                    MembraneUpdates, NeuronOperations]])
    results[name] = b.run()
print(results)
