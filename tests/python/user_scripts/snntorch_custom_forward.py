# An snnTorch network with its own loop over time (init_hidden=False, states from
# init_leaky()), returning (time, batch, classes) spikes: SNNTorchModel(custom_forward=True).
import torch
import torch.nn as nn
import snntorch as snn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.processors.postprocessors import ChooseMaxCount
from neurobench.metrics.static import Footprint, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         ActivationSparsityByLayer, SynapticOperations,
                                         MembraneUpdates)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 32)
        self.lif1 = snn.Leaky(beta=0.85)
        self.fc2 = nn.Linear(32, 5)
        self.lif2 = snn.Leaky(beta=0.85)

    def forward(self, x):
        mem1 = self.lif1.init_leaky()
        mem2 = self.lif2.init_leaky()
        spikes = []
        for t in range(x.shape[1]):
            spk1, mem1 = self.lif1(self.fc1(x[:, t]), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spikes.append(spk2)
        return torch.stack(spikes)


torch.manual_seed(1)
net = Net()
x = (torch.rand(10, 20, 12) < 0.4).float()
y = torch.randint(0, 5, (10,))
loader = DataLoader(TensorDataset(x, y), batch_size=4)
b = Benchmark(SNNTorchModel(net, custom_forward=True), loader, [], [ChooseMaxCount()],
              [[Footprint, ConnectionSparsity],
               [ClassificationAccuracy, ActivationSparsity, ActivationSparsityByLayer,
                SynapticOperations, MembraneUpdates]])
results = b.run()
print(results)
