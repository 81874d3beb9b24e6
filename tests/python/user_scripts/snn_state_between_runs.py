# An SNN benchmarked twice by one Benchmark, and again by a second one: NeuroBench's network keeps
# its neurons' last state, so a later Footprint counts the membrane of the last batch's shape.
import torch
import torch.nn as nn
import snntorch as snn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount
from neurobench.metrics.workload import ActivationSparsity, MembraneUpdates, SynapticOperations

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(20, 5, bias=False),
                    snn.Leaky(beta=0.9, init_hidden=True, output=True))
x = (torch.rand(5, 10, 20) > 0.3).float()
loader = DataLoader(TensorDataset(x, torch.zeros(5)), batch_size=3)
metrics = [[Footprint, ParameterCount], [ActivationSparsity, MembraneUpdates, SynapticOperations]]
b = Benchmark(SNNTorchModel(net), loader, [], [], metrics)
results = [b.run(), b.run()]
b2 = Benchmark(SNNTorchModel(net), DataLoader(TensorDataset(x, torch.zeros(5)), batch_size=4),
               [], [], metrics)
results.append(b2.run())
results.append({"mem_shape": list(net[1].mem.shape)})
print(results)
