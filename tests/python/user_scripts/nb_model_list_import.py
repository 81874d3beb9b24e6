# NeuroBench's own test networks imported from its tests (tests/models/model_list.py), each
# benchmarked with the inputs of NeuroBench's test_metrics.py as one-batch DataLoaders.
import torch
from torch.utils.data import DataLoader, TensorDataset

import tests.models.model_list as models
from neurobench.models import SNNTorchModel, TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ParameterCount, ConnectionSparsity
from neurobench.metrics.workload import (ActivationSparsity, ActivationSparsityByLayer,
                                         SynapticOperations, MembraneUpdates, NeuronOperations)

static = [Footprint, ParameterCount, ConnectionSparsity]
workload = [ActivationSparsity, ActivationSparsityByLayer, SynapticOperations, MembraneUpdates,
            NeuronOperations]


def one_batch(x):
    return DataLoader(TensorDataset(x, torch.zeros(x.shape[0])), batch_size=x.shape[0])


half = torch.ones(1, 20)
half[:, 0:10] = 5
neg = torch.ones(2, 20)
neg[:, 0:10] = -1
conv2d = torch.ones(1, 1, 12, 12)
conv2d[0, 0, 0, 0] = 4
conv1d = torch.ones(1, 5, 10)
conv1d[0, 0, 0] = 4
cases = [
    ("net_relu_0", TorchModel(models.net_relu_0), torch.ones(3, 20)),
    ("net_relu_50", TorchModel(models.net_relu_50), neg),
    ("net_relu_0_2", TorchModel(models.net_relu_0_2), half),
    ("net_relu_50_2", TorchModel(models.net_relu_50_2), half),
    ("net_torch_relu_0", TorchModel(models.net_torch_relu_0), neg),
    ("net_sigm", TorchModel(models.net_sigm), torch.ones(2, 20)),
    ("net_conv_2d", TorchModel(models.net_conv_2d), conv2d),
    ("net_conv_1d", TorchModel(models.net_conv_1d), conv1d),
    ("net_snn", SNNTorchModel(models.net_snn), torch.ones(5, 10, 20)),
    ("net", SNNTorchModel(models.net), (torch.rand(3, 6, 20) > 0.5).float()),
]
results = {}
for name, model, x in cases:
    b = Benchmark(model, one_batch(x), [], [], [static, workload])
    results[name] = b.run()
print(results)
