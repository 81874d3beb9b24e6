# SPDX-License-Identifier: Apache-2.0
"""The convolutional spiking network of NeuroBench's DVS Gesture benchmark
(examples/dvs_gesture in NeuroBench: `Net`, whose trained weights give the published row), with
its layer names, so that NeuroBench's trained `state_dict` loads into it.

Three blocks of Conv2d (5x5, padding "same"), MaxPool2d(2) and an snnTorch Leaky layer
(16, 32 and 64 channels: 32x32 -> 16x16 -> 8x8 -> 4x4), then Linear 1024-11, Dropout and an
output Leaky layer returning (spikes, membrane). The decay rates and thresholds are the
published network's (found by NeuroBench's hyperparameter search). It takes one frame per call,
`(batch, 2, 32, 32)`, and is run step by step over the 150 frames (`neurobench run
--stepwise`, NeuroBench's `SNNTorchModel`).

Needs torch and snnTorch (../shared/third_party/snntorch in the tests).
"""
import torch
from torch import nn

CLASSES = 11
FRAME = (2, 32, 32)

# The published network's hyperparameters (beta: membrane decay, threshold: firing level).
BETAS = (0.9999903192467171, 0.7291118090686332, 0.9364650136740154, 0.8348241794080301)
THRESHOLDS = (3.511291184386264, 3.494437965584431, 1.5986853560315544, 0.3641469130041378)
DROPOUT = 0.5956071342984011


class Net(nn.Module):
    """`(batch, 2, 32, 32)` frames in, `(spikes, membrane)` of the 11 output neurons out."""

    def __init__(self):
        super().__init__()
        import snntorch as snn
        from snntorch import surrogate

        grad = surrogate.atan()
        widths = (2, 16, 32, 64)
        for i in range(3):
            setattr(self, f"conv{i + 1}", nn.Conv2d(widths[i], widths[i + 1], 5, padding="same"))
            setattr(self, f"pool{i + 1}", nn.MaxPool2d(2))
            setattr(self, f"lif{i + 1}", snn.Leaky(beta=BETAS[i], threshold=THRESHOLDS[i],
                                                   spike_grad=grad, init_hidden=True))
        self.linear1 = nn.Linear(64 * 4 * 4, CLASSES)
        self.dropout_4 = nn.Dropout(DROPOUT)
        self.lif4 = snn.Leaky(beta=BETAS[3], threshold=THRESHOLDS[3], spike_grad=grad,
                              init_hidden=True, output=True)

    def forward(self, x: torch.Tensor):
        x = self.lif1(self.pool1(self.conv1(x)))
        x = self.lif2(self.pool2(self.conv2(x)))
        x = self.lif3(self.pool3(self.conv3(x)))
        return self.lif4(self.dropout_4(self.linear1(x.flatten(1))))
