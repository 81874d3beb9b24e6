# NeuroBench's test network `net` (tests/models/model_list.py): an snnTorch MLP of four Leaky
# layers in NeuroBench's SNNTorchModel, with every static and workload metric NeuroBench has.
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

beta = 0.9
torch.manual_seed(0)
spike_grad = surrogate.fast_sigmoid()
net = nn.Sequential(
    nn.Flatten(),
    nn.Linear(20, 256),
    snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True),
    nn.Linear(256, 256),
    snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True),
    nn.Linear(256, 256),
    snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True),
    nn.Linear(256, 35),
    snn.Leaky(beta=beta, spike_grad=spike_grad, init_hidden=True, output=True),
)

data = (torch.rand(24, 12, 20) < 0.3).float()
targets = torch.randint(0, 35, (24,))
loader = DataLoader(TensorDataset(data, targets), batch_size=8)

model = SNNTorchModel(net)
static_metrics = [Footprint, ParameterCount, ConnectionSparsity]
workload_metrics = [ClassificationAccuracy, ActivationSparsity, ActivationSparsityByLayer,
                    SynapticOperations, MembraneUpdates, NeuronOperations]
benchmark = Benchmark(model, loader, [], [ChooseMaxCount()], [static_metrics, workload_metrics])
results = benchmark.run()
print(results)
