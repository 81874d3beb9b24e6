# SPDX-License-Identifier: Apache-2.0
# NeuroBench's Primate Reaching 3D ANN benchmark (examples/primate_reaching/benchmark_3d_ann.py
# in NeuroBench 2.3), written as a user writes it, with neurobench_cpp's Benchmark. Changed: the
# Benchmark import; synthetic spike counts of the real shapes (one 4 ms bin of 96 or 192
# channels per sample, 2-d velocity targets; 300 and 200 samples) in place of PrimateReaching,
# random weights in place of model_data's; NeuroBench's ANN.py beside this script (Apache-2.0,
# NeuroBench's copyright).
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models.torch_model import TorchModel
from neurobench_cpp import Benchmark

from neurobench.metrics.workload import (
    ActivationSparsity,
    SynapticOperations,
    R2
)
from neurobench.metrics.static import (
    Footprint,
    ConnectionSparsity,
)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ANN import ANNModel3D  # noqa: E402

all_results = []
device = torch.device("cpu")

torch.manual_seed(5)
for channels, samples in ((96, 300), (192, 200)):
    counts = torch.poisson(torch.full((samples, 1, channels), 0.2))
    velocity = torch.cumsum(torch.randn(samples, 2), dim=0) * 0.1
    test_set_loader = DataLoader(TensorDataset(counts, velocity), batch_size=256, shuffle=False)

    net = ANNModel3D(input_dim=channels, layer1=32, layer2=48,
                     output_dim=2, bin_window=0.2, num_steps=7, drop_rate=0.5)

    model = TorchModel(net)

    static_metrics = [Footprint, ConnectionSparsity]
    workload_metrics = [R2, ActivationSparsity, SynapticOperations]

    benchmark = Benchmark(model, test_set_loader, [], [], [static_metrics, workload_metrics])
    results = benchmark.run(device=device)
    print(results)
    all_results.append(results)

results = {str(i): r for i, r in enumerate(all_results)}
