# A small CNN as users write for image classification: Conv2d, BatchNorm, ReLU, MaxPool,
# Dropout, Flatten, Linear, in eval mode, on MNIST-shaped data.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         ActivationSparsityByLayer, SynapticOperations)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(), nn.Dropout(0.2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16 * 6 * 6, 32), nn.ReLU(),
                                        nn.Linear(32, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


torch.manual_seed(14)
net = CNN()
with torch.no_grad():
    net.features[1].running_mean.uniform_(-0.1, 0.1)
    net.features[1].running_var.uniform_(0.5, 1.5)
x = torch.rand(20, 1, 28, 28)
x[x < 0.5] = 0
y = torch.randint(0, 10, (20,))
b = Benchmark(TorchModel(net), DataLoader(TensorDataset(x, y), batch_size=8), [],
              [lambda o: o.argmax(-1)],
              [[Footprint, ParameterCount, ConnectionSparsity],
               [ClassificationAccuracy, ActivationSparsity, ActivationSparsityByLayer,
                SynapticOperations]])
results = b.run()
print(results)
