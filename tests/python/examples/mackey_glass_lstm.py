# SPDX-License-Identifier: Apache-2.0
# NeuroBench's Mackey-Glass LSTM benchmark (examples/mackey_glass/lstm_benchmark.py in
# NeuroBench 2.3), written as a user writes it, with neurobench_cpp's Benchmark. Changed: the
# Benchmark import; synthetic Mackey-Glass series (mackey_glass_common.py) of the real shapes in
# place of MackeyGlass's downloaded files, 2 Lyapunov times of training and of testing instead
# of 10; 2 repeats of 3 training epochs (NeuroBench: 30 of 200); no wandb; NeuroBench's
# lstm_model.py beside this script (Apache-2.0, NeuroBench's copyright).
import os
import sys

import torch
from torch import nn
from torch.utils.data import Subset, DataLoader

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lstm_model import LSTMModel  # noqa: E402
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

device = torch.device("cpu")
repeat, n_epochs = 2, 3

params = {}
params['input_dim'] = 50
params['hidden_size'] = 40
params['n_layers'] = 1
params['output_dim'] = 1
params['dtype'] = torch.float64
params['device'] = device
params['mode'] = 'single_step'

sMAPE_scores = []
all_results = []
start_offset_range = torch.arange(0., 0.5 * repeat, 0.5) * 75

for repeat_id in range(repeat):
    offset = start_offset_range[repeat_id].item()
    torch.manual_seed(repeat_id)
    mg = SyntheticMackeyGlass(tau=17, start_offset=offset)

    train_set = Subset(mg, mg.ind_train)
    test_set = Subset(mg, mg.ind_test)

    lstm = LSTMModel(**params)
    lstm.to(device)
    lstm.train()
    criterion = nn.MSELoss()
    opt = torch.optim.Adam(lstm.parameters(), lr=0.005, weight_decay=0.001)
    train_data, train_labels = train_set[:]
    for epoch in range(n_epochs):
        pre = lstm(train_data)
        loss_val = criterion(pre, train_labels)
        opt.zero_grad()
        loss_val.backward()
        opt.step()

    # Initialize hidden states with the training data, now that weights are trained
    lstm(train_data.to(device))

    test_set_loader = DataLoader(test_set, batch_size=mg.testtime_pts, shuffle=False)

    lstm.mode = "autonomous"
    lstm.device = torch.device("cpu")
    lstm.to(torch.device("cpu"))
    model = TorchModel(lstm)

    static_metrics = [Footprint, ConnectionSparsity]
    workload_metrics = [SMAPE, ActivationSparsity, SynapticOperations]

    benchmark = Benchmark(model, test_set_loader, [], [],
                          [static_metrics, workload_metrics])
    results = benchmark.run()
    print(results)
    sMAPE_scores.append(results["SMAPE"])
    all_results.append(results)

print(f"sMAPE score = {sum(sMAPE_scores) / repeat}")
results = {str(i): r for i, r in enumerate(all_results)}
