# SPDX-License-Identifier: Apache-2.0
# NeuroBench's human activity recognition (WISDM) benchmark (examples/nehar/benchmark.py in
# NeuroBench 2.3), written as a user writes it, with neurobench_cpp's Benchmark: an snnTorch
# network that loops over time itself (SNNTorchModel(net, custom_forward=True)), every hook
# metric, the network exported to ONNX at the end. Changed: the Benchmark import, the files
# written to a temporary folder, and synthetic windows of the real shape (40 timesteps of
# 6 channels, 7 classes) with the example's network (examples/wisdm/networks.py, random weights)
# in place of the WISDM data module and its checkpoint.
import os
import sys
import tempfile

import torch
from torch.utils.data import DataLoader, TensorDataset

from neurobench.processors.postprocessors import ChooseMaxCount
from neurobench_cpp import Benchmark
from neurobench.models import SNNTorchModel
from neurobench.metrics.workload import (
    ActivationSparsity,
    ActivationSparsityByLayer,
    MembraneUpdates,
    SynapticOperations,
    ClassificationAccuracy,
    NeuronOperations,
)
from neurobench.metrics.static import (
    ParameterCount,
    Footprint,
    ConnectionSparsity,
)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples", "wisdm"))
from networks import SCNN  # noqa: E402

if __name__ == "__main__":
    batch_size = 256

    torch.manual_seed(5)
    windows = torch.randn(300, 40, 6)
    labels = torch.randint(0, 7, (300,))
    test_set_loader = DataLoader(TensorDataset(windows, labels), batch_size=batch_size)

    model = SNNTorchModel(SCNN(), custom_forward=True)

    dummy_input = torch.randn(1, 40, 6)

    # # # postprocessors
    postprocessors = [ChooseMaxCount()]

    # #
    static_metrics = [ParameterCount, Footprint, ConnectionSparsity]
    workload_metrics = [ActivationSparsity, ActivationSparsityByLayer, MembraneUpdates, SynapticOperations, ClassificationAccuracy, NeuronOperations]
    # #
    benchmark = Benchmark(
        model, test_set_loader, [], postprocessors, [static_metrics, workload_metrics]
    )
    results = benchmark.run(verbose=False)
    print(results)

    with tempfile.TemporaryDirectory() as file_path:  # the example writes beside itself
        results_path = os.path.join(file_path, "results")
        benchmark.save_benchmark_results(results_path)
        with open(results_path + ".json") as f:
            saved = f.read()

        # nir_path = os.path.join(file_path, "model_data/nehar_snnTorch.nir")
        # benchmark.to_nir(dummy_input, nir_path)

        os.makedirs(os.path.join(file_path, "model_data"))
        onnx_path = os.path.join(file_path, "model_data/nehar_snnTorch.onnx")
        benchmark.to_onnx(dummy_input, onnx_path)
        with open(onnx_path, "rb") as f:
            onnx_bytes = f.read()
