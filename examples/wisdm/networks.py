# SPDX-License-Identifier: Apache-2.0
"""The network of NeuroBench's WISDM (human activity recognition) benchmark, with the layer
names of NeuroBench's own (examples/nehar/SCNN.py in NeuroBench 2.3.0), so that its trained
checkpoint (examples/nehar/model_data/WISDM_snnTorch.ckpt) loads into it.

`SCNN()`: a spiking convolutional network that reads each timestep of a window as a sequence of
length one with 6 channels (accelerometer and gyroscope, x, y, z):
- Conv1d 6-200 (kernel 2, padding 4: length 1 becomes 8), max pooling by 2, Leaky neurons
  (beta 0.4, threshold 0.002);
- Conv1d 200-256 (kernel 1), max pooling by 2 (length 2), Leaky neurons (beta 0.3, threshold
  0.001);
- Flatten (512), Linear 512-7, output Leaky neurons (beta 0.5, threshold 0.001).

Its forward takes a whole window `(batch, timesteps, 6)`, resets the neurons, runs the layers
once per timestep and returns the output spikes `(timesteps, batch, 7)`, as NeuroBench's
`SNNTorchModel(net, custom_forward=True)` expects (that model transposes it to
`(batch, timesteps, 7)`; the exported TorchScript file returns that shape itself). NeuroBench's
network always runs 40 steps (`num_steps`); this one runs as many as the window has, the same
on NeuroBench's 40-step windows.

Needs torch and snnTorch (../shared/third_party/snntorch in the tests).
"""
import snntorch
import torch
from snntorch import utils
from torch import nn

CHANNELS = 6
CLASSES = 7
TIMESTEPS = 40


class SCNN(nn.Module):
    """NeuroBench's WISDM spiking CNN: `(batch, timesteps, 6)` -> spikes `(timesteps, batch, 7)`."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(CHANNELS, 200, kernel_size=2, padding=4)
        self.max1 = nn.MaxPool1d(2)
        self.leaky1 = snntorch.Leaky(beta=0.4, threshold=0.002, init_hidden=True)
        self.conv2 = nn.Conv1d(200, 256, kernel_size=1)
        self.max2 = nn.MaxPool1d(2)
        self.leaky2 = snntorch.Leaky(beta=0.3, threshold=0.001, init_hidden=True)
        self.flatten = nn.Flatten()
        self.linear = nn.Linear(512, CLASSES)
        self.leaky3 = snntorch.Leaky(beta=0.5, threshold=0.001, init_hidden=True, output=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        utils.reset(self)  # every window starts from empty membranes
        spikes = []
        for t in range(x.shape[1]):
            # one timestep: (batch, 6) as a length-1 sequence of 6 channels
            h = self.leaky1(self.max1(self.conv1(x[:, t, :].unsqueeze(2))))
            h = self.leaky2(self.max2(self.conv2(h)))
            spk, _ = self.leaky3(self.linear(self.flatten(h)))
            spikes.append(spk)
        return torch.stack(spikes)
