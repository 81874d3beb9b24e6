# The user's own metric classes (a WorkloadMetric returning a tensor, an AccumulatedMetric with
# a dict, a StaticMetric reading the network) and processor classes subclassing NeuroBench's
# abstract ones, with a lambda, beside NeuroBench's metrics.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.processors.abstract import NeuroBenchPreProcessor, NeuroBenchPostProcessor
from neurobench.metrics.abstract import StaticMetric, WorkloadMetric, AccumulatedMetric
from neurobench.metrics.static import Footprint
from neurobench.metrics.workload import ClassificationAccuracy, ActivationSparsity


class Normalise(NeuroBenchPreProcessor):
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, dataset):
        return ((dataset[0] - self.mean) / self.std, dataset[1])


class TopClass(NeuroBenchPostProcessor):
    def __call__(self, spikes):
        return spikes.argmax(dim=-1)


class NonZeroWeights(StaticMetric):
    def __call__(self, model):
        return int(sum((p != 0).sum() for p in model.__net__().parameters()))


class Top1Error(WorkloadMetric):
    def __init__(self):
        super().__init__(requires_hooks=False)

    def __call__(self, model, preds, data):
        return (preds != data[1]).float().mean()


class Confusion(AccumulatedMetric):
    def __init__(self):
        super().__init__(requires_hooks=False)
        self.reset()

    def reset(self):
        self.hits = {}

    def __call__(self, model, preds, data):
        for p, t in zip(preds.tolist(), data[1].tolist()):
            self.hits[f"{t}->{p}"] = self.hits.get(f"{t}->{p}", 0) + 1
        return self.compute()

    def compute(self):
        return dict(sorted(self.hits.items()))


torch.manual_seed(8)
net = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
x = torch.randn(26, 6) * 3 + 1
y = torch.randint(0, 3, (26,))
loader = DataLoader(TensorDataset(x, y), batch_size=6)
b = Benchmark(TorchModel(net), loader, [Normalise(1.0, 3.0), lambda d: (d[0].clamp(-2, 2), d[1])],
              [TopClass()],
              [[Footprint, NonZeroWeights], [ClassificationAccuracy, Top1Error, Confusion,
                                             ActivationSparsity]])
results = b.run()
print(results)
