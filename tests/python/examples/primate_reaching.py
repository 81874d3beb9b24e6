# SPDX-License-Identifier: Apache-2.0
# NeuroBench's Primate Reaching benchmarks (examples/primate_reaching/benchmark_2d_ann.py and
# benchmark_SNN2.py in NeuroBench 2.3), written as a user writes them, with neurobench_cpp's
# Benchmark. Changed: the Benchmark import, and synthetic spike counts of the real shapes (one
# 4 ms bin of 96 channels per sample, 2-d velocity targets, two sessions' sizes) in place of
# PrimateReaching, with the examples' networks (examples/primate_reaching/networks.py, random
# weights).
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
import snntorch as snn

from neurobench.metrics.workload import (
    ActivationSparsity,
    SynapticOperations,
    R2
)
from neurobench.metrics.static import (
    Footprint,
    ConnectionSparsity,
)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples", "primate_reaching"))
from networks import ANN2D, SNN2  # noqa: E402

footprint = []
connection_sparsity = []
activation_sparsity = []
dense = []
macs = []
acs = []
r2 = []
all_results = []

device = torch.device("cpu")

torch.manual_seed(3)
for channels, samples in ((96, 300), (192, 200)):
    counts = torch.poisson(torch.full((samples, 1, channels), 0.2))
    velocity = torch.cumsum(torch.randn(samples, 2), dim=0) * 0.1

    for kind in ("ANN", "SNN2"):
        if kind == "ANN":
            test_set_loader = DataLoader(TensorDataset(counts, velocity), batch_size=256,
                                         shuffle=False)
            net = ANN2D(input_dim=channels, layer1=32, layer2=48, bin_window=0.2, drop_rate=0.5)
            model = TorchModel(net)
        else:
            test_set_loader = DataLoader(TensorDataset(counts, velocity), batch_size=samples,
                                         shuffle=False)
            net = SNN2(input_size=channels)
            with torch.no_grad():
                net.fc1.weight.mul_(8.0)
            # init the model
            net.reset()
            model = TorchModel(net)  # using TorchModel instead of SNNTorchModel because the SNN iterates over dimension 0
            model.add_activation_module(snn.SpikingNeuron)

        static_metrics = [Footprint, ConnectionSparsity]
        workload_metrics = [R2, ActivationSparsity, SynapticOperations]

        # Benchmark expects the following:
        benchmark = Benchmark(model, test_set_loader, [], [], [static_metrics, workload_metrics])
        results = benchmark.run(device=device)
        print(results)
        all_results.append(results)

        footprint.append(results['Footprint'])
        connection_sparsity.append(results['ConnectionSparsity'])
        activation_sparsity.append(results['ActivationSparsity'])
        dense.append(results['SynapticOperations']['Dense'])
        macs.append(results['SynapticOperations']['Effective_MACs'])
        acs.append(results['SynapticOperations']['Effective_ACs'])
        r2.append(results['R2'])

print("Footprint: {}".format(footprint))
print("R2: {}".format(r2), sum(r2) / len(r2))
results = {str(i): r for i, r in enumerate(all_results)}
