# A recurrent classifier whose forward returns (logits, hidden state), with a post-processor that
# takes the logits out of the tuple, as users of nn.GRU write it.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint
from neurobench.metrics.workload import ClassificationAccuracy


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(5, 8, batch_first=True)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        out, h = self.gru(x)
        return self.fc(out[:, -1]), h


torch.manual_seed(41)
x = torch.randn(10, 6, 5)
y = torch.randint(0, 3, (10,))
b = Benchmark(TorchModel(GRUClassifier()), DataLoader(TensorDataset(x, y), batch_size=4), [],
              [lambda out: out[0].argmax(-1)], [[Footprint], [ClassificationAccuracy]])
results = b.run()
print(results)
