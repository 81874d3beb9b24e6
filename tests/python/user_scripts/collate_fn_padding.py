# A custom collate_fn padding variable-length sequences into (batch, time, features) and
# returning a list [data, targets], as event-data users write (tonic's PadTensors does this).
import torch
import torch.nn as nn
import snntorch as snn
from torch.utils.data import DataLoader

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark
from neurobench.processors.postprocessors import ChooseMaxCount
from neurobench.metrics.workload import (ClassificationAccuracy, ActivationSparsity,
                                         SynapticOperations)


def pad_collate(samples):
    longest = max(s[0].shape[0] for s in samples)
    data = torch.zeros(len(samples), longest, samples[0][0].shape[1])
    for i, (x, _) in enumerate(samples):
        data[i, :x.shape[0]] = x
    return [data, torch.tensor([s[1] for s in samples])]


torch.manual_seed(4)
samples = [((torch.rand(5 + (i * 7) % 9, 6) < 0.3).float(), i % 3) for i in range(14)]
net = nn.Sequential(nn.Linear(6, 12), snn.Leaky(beta=0.9, init_hidden=True),
                    nn.Linear(12, 3), snn.Leaky(beta=0.9, init_hidden=True, output=True))
loader = DataLoader(samples, batch_size=4, collate_fn=pad_collate)
b = Benchmark(SNNTorchModel(net), loader, [], [ChooseMaxCount()],
              [[], [ClassificationAccuracy, ActivationSparsity, SynapticOperations]])
results = b.run()
print(results)
