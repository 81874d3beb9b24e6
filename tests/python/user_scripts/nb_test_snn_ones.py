# NeuroBench's net_snn (one Linear, one Leaky neuron with output=True) on the inputs of its own
# tests (ones, zeros), with the spiking metrics: membrane updates, neuron operations, sparsity.
import torch
import torch.nn as nn
import snntorch as snn
from snntorch import surrogate
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ConnectionSparsity
from neurobench.metrics.workload import (ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations, MembraneUpdates, NeuronOperations)

torch.manual_seed(0)
net_snn = nn.Sequential(
    nn.Linear(20, 5, bias=False),
    snn.Leaky(beta=0.9, spike_grad=surrogate.fast_sigmoid(), init_hidden=True, output=True))

runs = []
for x in (torch.ones(5, 10, 20), torch.zeros(5, 10, 20)):
    loader = DataLoader(TensorDataset(x, torch.zeros(5)), batch_size=5)
    benchmark = Benchmark(SNNTorchModel(net_snn), loader, [], [],
                          [[Footprint, ConnectionSparsity],
                           [ActivationSparsity, ActivationSparsityByLayer, SynapticOperations,
                            MembraneUpdates, NeuronOperations]])
    runs.append(benchmark.run())
results = runs
print(results)
