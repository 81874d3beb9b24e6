# add_activation_module: Tanh and LeakyReLU counted as activations, as a user of other
# nonlinearities does; functional torch.relu in forward is not a layer.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         ActivationSparsityByLayer, SynapticOperations)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(7, 12)
        self.tanh = nn.Tanh()
        self.fc2 = nn.Linear(12, 12)
        self.leaky = nn.LeakyReLU(0.0)
        self.fc3 = nn.Linear(12, 3)

    def forward(self, x):
        x = self.tanh(self.fc1(x))
        x = torch.relu(self.fc2(x))
        x = self.leaky(x)
        return self.fc3(x)


torch.manual_seed(13)
x = torch.randn(15, 7)
y = torch.randint(0, 3, (15,))
model = TorchModel(Net())
model.add_activation_module(nn.Tanh)
model.add_activation_module(nn.LeakyReLU)
b = Benchmark(model, DataLoader(TensorDataset(x, y), batch_size=6), [],
              [lambda o: o.argmax(-1)],
              [[], [ClassificationAccuracy, ActivationSparsity, ActivationSparsityByLayer,
                    SynapticOperations]])
results = b.run()
print(results)
