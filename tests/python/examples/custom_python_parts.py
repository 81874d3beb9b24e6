# SPDX-License-Identifier: Apache-2.0
# A NeuroBench script with the user's own Python parts in the chain (not one of NeuroBench's
# examples): a pre-processor function, a post-processor lambda, and metric classes of each
# kind (StaticMetric, WorkloadMetric, AccumulatedMetric) beside NeuroBench's, with batches of
# unequal size. tests/python/check_examples.py runs it with both Benchmarks.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.abstract import StaticMetric, WorkloadMetric, AccumulatedMetric
from neurobench.metrics.static import Footprint, ParameterCount
from neurobench.metrics.workload import ClassificationAccuracy, SynapticOperations


class LinearWeights(StaticMetric):
    def __call__(self, model):
        return sum(m.weight.numel() for m in model.__net__().modules()
                   if isinstance(m, nn.Linear))


class MeanPrediction(WorkloadMetric):
    def __init__(self):
        super().__init__(requires_hooks=False)

    def __call__(self, model, preds, data):
        return float(preds.float().mean())


class SamplesSeen(AccumulatedMetric):
    def __init__(self):
        super().__init__(requires_hooks=False)
        self.samples = 0
        self.correct = 0

    def reset(self):
        self.samples = 0
        self.correct = 0

    def __call__(self, model, preds, data):
        self.samples += data[1].shape[0]
        self.correct += int((preds == data[1]).sum())
        return self.compute()

    def compute(self):
        return {"samples": self.samples, "correct": self.correct}


def scale_inputs(batch):
    return (batch[0] * 2.0, batch[1])


torch.manual_seed(4)
net = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 5))
data = torch.randn(45, 12)
labels = torch.randint(0, 5, (45,))
loader = DataLoader(TensorDataset(data, labels), batch_size=16)

model = TorchModel(net)
static_metrics = [Footprint, ParameterCount, LinearWeights]
workload_metrics = [ClassificationAccuracy, SynapticOperations, MeanPrediction, SamplesSeen]

benchmark = Benchmark(model, loader, [scale_inputs], [lambda out: out.argmax(-1)],
                      [static_metrics, workload_metrics])
results = benchmark.run()
print(results)
