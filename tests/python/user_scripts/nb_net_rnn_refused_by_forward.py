# NeuroBench's net_rnn: an nn.RNN in a Sequential, whose (output, h_n) tuple the next snnTorch
# neuron cannot take. The network itself fails on its first batch, under either Benchmark.
import torch
from torch.utils.data import DataLoader, TensorDataset

import tests.models.model_list as models
from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ConnectionSparsity
from neurobench.metrics.workload import ActivationSparsity

x = torch.rand(4, 3, 20)
b = Benchmark(SNNTorchModel(models.net_rnn), DataLoader(TensorDataset(x, torch.zeros(4)),
                                                        batch_size=2),
              [], [], [[Footprint, ConnectionSparsity], [ActivationSparsity]])
results = b.run()
print(results)
