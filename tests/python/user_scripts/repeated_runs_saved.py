# One Benchmark run several times: again as it is, with another DataLoader, with other
# post-processors, then saved in NeuroBench's three formats.
import json
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.metrics.static import Footprint, ConnectionSparsity
from neurobench.metrics.workload import ClassificationAccuracy, SynapticOperations

torch.manual_seed(3)
net = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 4))
with torch.no_grad():
    net[0].weight[net[0].weight.abs() < 0.2] = 0
x = torch.randn(30, 8)
y = torch.randint(0, 4, (30,))
loader = DataLoader(TensorDataset(x, y), batch_size=8)
other = DataLoader(TensorDataset(x[:11] * 2, y[:11]), batch_size=3)
b = Benchmark(TorchModel(net), loader, [], [lambda o: o.argmax(-1)],
              [[Footprint, ConnectionSparsity], [ClassificationAccuracy, SynapticOperations]])
runs = [b.run(), b.run(), b.run(dataloader=other),
        b.run(postprocessors=[lambda o: o.argmin(-1)])]
folder = tempfile.mkdtemp()
for fmt in ("json", "csv", "txt"):
    b.save_benchmark_results(os.path.join(folder, "results"), fmt)
saved = {fmt: open(os.path.join(folder, f"results.{fmt}")).read() for fmt in ("json", "csv", "txt")}
runs.append({"json": json.loads(saved["json"]), "csv": saved["csv"].splitlines()[0],
             "txt_lines": len(saved["txt"].splitlines())})
results = runs
print(results)
