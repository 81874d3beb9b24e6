# SPDX-License-Identifier: Apache-2.0
# NeuroBench's Primate Reaching SNN3 benchmark (examples/primate_reaching/benchmark_snn_3.py
# in NeuroBench 2.3), written as a user writes it, with neurobench_cpp's Benchmark. Changed: the
# Benchmark import; synthetic spike counts of the real shapes (one 4 ms bin of 96 or 192
# channels per sample, 2-d velocity targets; 120 and 80 samples) in place of PrimateReaching,
# random weights in place of model_data's; NeuroBench's SNN_3.py beside this script (Apache-2.0,
# NeuroBench's copyright).
import os
import sys

import torch
import snntorch as snn
from snntorch import surrogate
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
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
from SNN_3 import SNNModel3  # noqa: E402

all_results = []
device = torch.device("cpu")

torch.manual_seed(5)
for channels, samples in ((96, 120), (192, 80)):
    counts = torch.poisson(torch.full((samples, 1, channels), 0.2))
    velocity = torch.cumsum(torch.randn(samples, 2), dim=0) * 0.1
    test_set_loader = DataLoader(TensorDataset(counts, velocity), batch_size=1024, shuffle=False)

    net = SNNModel3(input_dim=channels, layer1=32, layer2=48, output_dim=2,
                    batch_size=256, bin_window=0.2, num_steps=7, drop_rate=0.5,
                    beta=0.5, mem_thresh=0.5, spike_grad=surrogate.atan(alpha=2))

    model = TorchModel(net)
    model.add_activation_module(snn.SpikingNeuron)

    static_metrics = [Footprint, ConnectionSparsity]
    workload_metrics = [R2, ActivationSparsity, SynapticOperations]

    benchmark = Benchmark(model, test_set_loader, [], [], [static_metrics, workload_metrics])
    results = benchmark.run(device=device)
    print(results)
    all_results.append(results)

results = {str(i): r for i, r in enumerate(all_results)}
