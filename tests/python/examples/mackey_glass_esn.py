# SPDX-License-Identifier: Apache-2.0
# NeuroBench's Mackey-Glass echo state network benchmark (examples/mackey_glass/esn_benchmark.py
# in NeuroBench 2.3), written as a user writes it, with neurobench_cpp's Benchmark. Changed: the
# Benchmark import; synthetic Mackey-Glass series (mackey_glass_common.py) of the real shapes in
# place of MackeyGlass's downloaded files, 2 Lyapunov times of training and of testing instead
# of 10; tau 17 only (its row of model_data/echo_state_network_hyperparameters.csv, reservoir
# 96 instead of 966) and 2 repeats instead of 30; NeuroBench's echo_state_network.py beside this
# script (Apache-2.0, NeuroBench's copyright).
import os
import sys

import torch
from torch.utils.data import Subset, DataLoader

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from echo_state_network import EchoStateNetwork  # noqa: E402
from mackey_glass_common import SyntheticMackeyGlass  # noqa: E402

from neurobench.metrics.workload import (  # noqa: E402
    ActivationSparsity,
    SynapticOperations,
    SMAPE
)
from neurobench.metrics.static import (  # noqa: E402
    Footprint,
    ConnectionSparsity,
)

esn_parameters = {"reservoir_size": 96, "scale_bias": 0.9, "scale_input": 0.78,
                  "connect_prob": 0.97, "spectral_radius": 1.19, "leakage": 0.69,
                  "ridge_param": 1e-07}

sMAPE_scores = []
all_results = []
repeat = 2
start_offset_range = torch.arange(0., 0.5 * repeat, 0.5) * 75

for tau in (17,):
    for repeat_id in range(repeat):
        offset = start_offset_range[repeat_id].item()
        mg = SyntheticMackeyGlass(tau=tau, start_offset=offset)
        train_set = Subset(mg, mg.ind_train)
        test_set = Subset(mg, mg.ind_test)

        esn = EchoStateNetwork(in_channels=1,
                reservoir_size=esn_parameters['reservoir_size'],
                input_scale=torch.tensor([esn_parameters['scale_bias'],
                                          esn_parameters['scale_input']], dtype=torch.float64),
                connect_prob=esn_parameters['connect_prob'],
                spectral_radius=esn_parameters['spectral_radius'],
                leakage=esn_parameters['leakage'],
                ridge_param=esn_parameters['ridge_param'],
                seed_id=repeat_id)

        esn.train()
        train_data, train_labels = train_set[:]
        warmup_pts = round(0.6 * mg.pts_per_lyaptime)
        train_labels = train_labels[warmup_pts:]
        esn.fit(train_data, train_labels, warmup_pts)

        test_set_loader = DataLoader(test_set, batch_size=mg.testtime_pts, shuffle=False)
        model = TorchModel(esn)

        static_metrics = [Footprint, ConnectionSparsity]
        workload_metrics = [SMAPE, ActivationSparsity, SynapticOperations]

        benchmark = Benchmark(model, test_set_loader, [], [], [static_metrics, workload_metrics])
        results = benchmark.run()
        print(results)
        sMAPE_scores.append(results["SMAPE"])
        all_results.append(results)

print("Average sMAPE score: ", sum(sMAPE_scores) / len(sMAPE_scores))
results = {str(i): r for i, r in enumerate(all_results)}
