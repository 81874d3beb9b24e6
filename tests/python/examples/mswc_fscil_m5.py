# SPDX-License-Identifier: Apache-2.0
# NeuroBench's MSWC few-shot class-incremental benchmark (examples/mswc_fscil/mswc_fscil.py in
# NeuroBench 2.3, the M5 network without --spiking, no pre-training), its benchmarking part
# written as a user writes it, with neurobench_cpp's Benchmark. Changed: the Benchmark import;
# synthetic 1 s clips at 48 kHz of the real shape ((48000, 1), a tone per class plus noise) in
# place of MSWC and IncrementalFewShot: 10 base classes of 2 clips for the prototypes (NeuroBench:
# 100 of 500), a base test set of 16 clips, 2 sessions of 10 new classes with 5 shots and 2
# queries per class (NeuroBench: 10 sessions, 100 queries); random weights in place of
# model_data/mswc_cnn_proto; batches of 16. NeuroBench's M5.py beside this script (Apache-2.0,
# NeuroBench's copyright).
import copy
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, ConcatDataset, TensorDataset

from neurobench.models import TorchModel
from neurobench_cpp import Benchmark
from neurobench.processors.preprocessors import MFCCPreProcessor
from neurobench.processors.abstract.preprocessor import NeuroBenchPreProcessor
from neurobench.processors.abstract.postprocessor import NeuroBenchPostProcessor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from M5 import M5  # noqa: E402

from neurobench.metrics.workload import (  # noqa: E402
    ActivationSparsity,
    SynapticOperations,
    ClassificationAccuracy
)
from neurobench.metrics.static import (  # noqa: E402
    Footprint,
    ConnectionSparsity,
)


class SqueezeIn(NeuroBenchPreProcessor):
    def __init__(self):
        pass

    def __call__(self, dataset):
        return (dataset[0].squeeze(), dataset[1])


class ToDevice(NeuroBenchPreProcessor):
    def __init__(self):
        pass

    def __call__(self, dataset):
        return (dataset[0].to(device), dataset[1].to(device))


class Out2Pred(NeuroBenchPostProcessor):
    def __call__(self, spikes):
        return torch.argmax(spikes, dim=-1)


class SqueezeOut(NeuroBenchPostProcessor):
    def __call__(self, spikes):
        return torch.squeeze(spikes)


class OutMask(NeuroBenchPostProcessor):
    def __init__(self, mask):
        self.mask = mask

    def __call__(self, spikes):
        return spikes - self.mask


class Softmax(NeuroBenchPostProcessor):
    def __call__(self, spikes):
        return F.softmax(spikes, dim=-1)


squeeze_in = SqueezeIn()
out2pred = Out2Pred()
to_device = ToDevice()
squeeze_out = SqueezeOut()
softmax = Softmax()

device = torch.device("cpu")
BATCH_SIZE = 16
NUM_SHOTS = 5
SESSIONS = 2

encode = MFCCPreProcessor(
    sample_rate=48000,
    n_mfcc=20,
    melkwargs={
        "n_fft": 512,
        "n_mels": 20,
        "hop_length": 240,
        "mel_scale": "htk",
        "f_min": 20,
        "f_max": 4000,
    },
    device=device
)

generator = torch.Generator().manual_seed(11)
clock = torch.arange(48000, dtype=torch.float32) / 48000


def clips(classes):
    """(len(classes), 48000, 1) clips: a tone per class and noise, as MSWC's samples."""
    tones = torch.stack([torch.sin(2 * math.pi * (100 + 37 * c) * clock) for c in classes])
    return (0.3 * tones + 0.1 * torch.randn(tones.shape, generator=generator)).unsqueeze(-1)


torch.manual_seed(2)
model = M5(n_input=20, stride=2, n_channel=256,
           n_output=200, input_kernel=4, pool_kernel=2, drop=True).to(device)
model.eval()
model = TorchModel(model)

# Prototypes of the base classes (NeuroBench: MSWC's base training set in batches of 500)
output = model.net.output
proto_out = nn.Linear(512, 200, bias=True).to(device)
proto_out.weight.data = output.weight.data
for class_id in range(10):
    data, target = encode((clips([class_id, class_id]), torch.tensor([class_id, class_id])))
    data = data.squeeze()
    features = model.net(data, features_out=True)
    mean = torch.sum(features, dim=0) / 2
    proto_out.weight.data[class_id] = 2 * mean
    proto_out.bias.data[class_id] = -torch.matmul(mean, mean.t())
model.net.output = proto_out

base_classes = [i % 10 for i in range(16)]
base_test_set = TensorDataset(clips(base_classes), torch.tensor(base_classes))

all_results = {}
eval_model = copy.deepcopy(model)
eval_accs = []
query_accs = []
test_loader = DataLoader(base_test_set, batch_size=BATCH_SIZE)
eval_model.net.eval()
static_metrics = [Footprint, ConnectionSparsity]
workload_metrics = [ClassificationAccuracy, ActivationSparsity, SynapticOperations]
benchmark_all_test = Benchmark(eval_model, metric_list=[static_metrics, workload_metrics],
                               dataloader=test_loader,
                               preprocessors=[to_device, encode, squeeze_in], postprocessors=[])
mask = torch.full((200,), float('inf')).to(device)
mask[torch.arange(0, 100, dtype=int)] = 0
out_mask = OutMask(mask)
pre_train_results = benchmark_all_test.run(postprocessors=[out_mask, softmax, out2pred,
                                                           squeeze_out])
all_results["base"] = pre_train_results
eval_accs.append(pre_train_results['ClassificationAccuracy'])

query_data, query_targets = [], []
for session in range(SESSIONS):
    new_classes = list(range(100 + 10 * session, 110 + 10 * session))
    support = [(clips(new_classes), torch.tensor(new_classes)) for _ in range(NUM_SHOTS)]
    query_data.append(clips(new_classes + new_classes))
    query_targets.append(torch.tensor(new_classes + new_classes))
    query = TensorDataset(torch.cat(query_data), torch.cat(query_targets))
    query_classes = list(range(100, 110 + 10 * session))

    benchmark_new_classes = Benchmark(eval_model, metric_list=[[], [ClassificationAccuracy]],
                                      dataloader=None,
                                      preprocessors=[to_device, encode, squeeze_in],
                                      postprocessors=[])
    data = None
    for X_shot, y_shot in support:
        if data is None:
            data = X_shot
            target = y_shot
        else:
            data = torch.cat((data, X_shot), 0)
            target = torch.cat((target, y_shot), 0)
    data, target = encode((data.to(device), target.to(device)))
    data = data.squeeze()
    new_classes = y_shot.tolist()
    Nways = len(y_shot)
    features = eval_model.net(data, features_out=True)
    for index, class_id in enumerate(new_classes):
        mean = torch.sum(features[[i * Nways + index for i in range(NUM_SHOTS)]],
                         dim=0) / NUM_SHOTS
        eval_model.net.output.weight.data[class_id] = 2 * mean
        eval_model.net.output.bias.data[class_id] = -torch.matmul(mean, mean.t())

    eval_model.net.eval()
    query_loader = DataLoader(query, batch_size=BATCH_SIZE)
    full_session_test_set = ConcatDataset([base_test_set, query])
    full_session_test_loader = DataLoader(full_session_test_set, batch_size=BATCH_SIZE)
    session_classes = torch.cat((torch.arange(0, 100, dtype=int), torch.IntTensor(query_classes)))
    mask = torch.full((200,), float('inf')).to(device)
    mask[session_classes] = 0
    out_mask = OutMask(mask)
    session_results = benchmark_all_test.run(dataloader=full_session_test_loader,
                                             postprocessors=[out_mask, softmax, out2pred,
                                                             squeeze_out])
    eval_accs.append(session_results['ClassificationAccuracy'])
    query_results = benchmark_new_classes.run(dataloader=query_loader,
                                              postprocessors=[out_mask, softmax, out2pred,
                                                              squeeze_out])
    query_accs.append(query_results['ClassificationAccuracy'])
    all_results[f"session {session + 1}"] = session_results
    all_results[f"query {session + 1}"] = query_results

print(f"The total mean accuracy is {np.mean(eval_accs) * 100}%")
print(f"Eval Accs: {eval_accs}")
print(f"Query Accs: {query_accs}")
results = all_results
