# An snnTorch Synaptic neuron as the output layer (output=True returns spk, syn, mem): NeuroBench's
# SNNTorchModel unpacks two values per step and fails, under either Benchmark.
import torch
import torch.nn as nn
import snntorch as snn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import ActivationSparsity

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(10, 4),
                    snn.Synaptic(alpha=0.9, beta=0.8, init_hidden=True, output=True))
x = (torch.rand(6, 5, 10) < 0.5).float()
b = Benchmark(SNNTorchModel(net), DataLoader(TensorDataset(x, torch.zeros(6)), batch_size=3),
              [], [], [[], [ActivationSparsity]])
results = b.run()
print(results)
