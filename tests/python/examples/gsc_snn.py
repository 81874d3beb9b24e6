# SPDX-License-Identifier: Apache-2.0
# NeuroBench's keyword-spotting SNN benchmark (examples/gsc/benchmark_snn.py in NeuroBench 2.3),
# written as a user writes it, with neurobench_cpp's Benchmark. Changed: the Benchmark import,
# and synthetic data of the real shapes (one-second 16 kHz clips, 35 classes) with the example's
# network (examples/speech_commands/networks.py, random weights) in place of the data set and
# the trained weights. tests/python/check_examples.py runs it as it is and with NeuroBench's
# import, and compares the results.
import os
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from neurobench.processors.preprocessors import S2SPreProcessor
from neurobench.processors.postprocessors import ChooseMaxCount

from neurobench.models import SNNTorchModel
from neurobench_cpp import Benchmark

from neurobench.metrics.workload import (
    ActivationSparsity,
    SynapticOperations,
    ClassificationAccuracy
)
from neurobench.metrics.static import (
    Footprint,
    ConnectionSparsity,
)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples", "speech_commands"))
from networks import snn  # noqa: E402

device = torch.device("cpu")

torch.manual_seed(0)
clips = torch.randn(14, 16000, 1) * torch.logspace(-3, 0, 14).view(14, 1, 1)
labels = torch.randint(8, 11, (14,))  # around the class this network favours: accuracy not 0
test_set_loader = DataLoader(TensorDataset(clips, labels), batch_size=6, shuffle=False)

net = snn()
with torch.no_grad():  # livelier than the default initialisation: more spikes
    for layer in net:
        if isinstance(layer, torch.nn.Linear):
            layer.weight.mul_(4.0)

## Define model ##
model = SNNTorchModel(net)

preprocessors = [S2SPreProcessor(device=device)]
postprocessors = [ChooseMaxCount()]

static_metrics = [Footprint, ConnectionSparsity]
workload_metrics = [ClassificationAccuracy, ActivationSparsity, SynapticOperations]

benchmark = Benchmark(model, test_set_loader, preprocessors, postprocessors, [static_metrics, workload_metrics])
results = benchmark.run(device=device)
print(results)
