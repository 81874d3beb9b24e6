# An IterableDataset without __len__ (a stream), batched by a DataLoader. NeuroBench needs
# len(dataloader.dataset) to weigh each batch.
# differs: raises (NeuroBench needs len(dataloader.dataset) and raises TypeError; docs/python.md)
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.workload import ClassificationAccuracy


class Stream(IterableDataset):
    def __iter__(self):
        g = torch.Generator().manual_seed(11)
        for i in range(10):
            yield torch.randn(5, generator=g), i % 3


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
b = Benchmark(TorchModel(net), DataLoader(Stream(), batch_size=4), [], [lambda o: o.argmax(-1)],
              [[], [ClassificationAccuracy]])
results = b.run()
print(results)
