# SPDX-License-Identifier: Apache-2.0
"""The two networks of NeuroBench's keyword-spotting (Google Speech Commands) benchmark, with
the layer names of NeuroBench's own, so that its trained `state_dict`s load into them.

- `snn()`: the spiking network of NeuroBench's GSC SNN row. Flatten, then Linear 20-256 and
  three hidden layers of 256 snnTorch Leaky neurons (beta 0.9), and an output layer of 35
  Leaky neurons. It takes one Speech2Spikes frame per call, `(batch, 20)`, and is run step by
  step (`neurobench run --stepwise`, NeuroBench's `SNNTorchModel`).
- `M5`: the convolutional network of NeuroBench's GSC ANN row (the M5 architecture of Dai et
  al., "Very deep convolutional neural networks for raw waveforms", 2017): four Conv1d
  blocks (batch norm, ReLU, max pooling by 4) on the waveform resampled to 8 kHz
  `(batch, 1, 8000)`, global average pooling and a linear layer to 35 log-probabilities
  `(batch, 1, 35)`.

Needs torch and, for `snn()`, snnTorch (../shared/third_party/snntorch in the tests).
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASSES = 35
MEL_BANDS = 20


def snn(beta: float = 0.9) -> nn.Sequential:
    import snntorch as snn_
    from snntorch import surrogate

    grad = surrogate.fast_sigmoid()
    hidden = 256
    layers = [nn.Flatten(), nn.Linear(MEL_BANDS, hidden)]
    layers.append(snn_.Leaky(beta=beta, spike_grad=grad, init_hidden=True))
    for _ in range(2):
        layers.append(nn.Linear(hidden, hidden))
        layers.append(snn_.Leaky(beta=beta, spike_grad=grad, init_hidden=True))
    layers.append(nn.Linear(hidden, CLASSES))
    layers.append(snn_.Leaky(beta=beta, spike_grad=grad, init_hidden=True, output=True))
    return nn.Sequential(*layers)


class M5(nn.Module):
    """M5 on `(batch, 1, samples)` waveforms: `(batch, 1, 35)` log-probabilities."""

    def __init__(self, channels: int = 32, classes: int = CLASSES):
        super().__init__()
        widths = [1, channels, channels, 2 * channels, 2 * channels]
        # conv1 reads 10 ms at 8 kHz with a stride of 2 ms; the others are 3 wide.
        self.conv1 = nn.Conv1d(widths[0], widths[1], kernel_size=80, stride=16)
        self.conv2 = nn.Conv1d(widths[1], widths[2], kernel_size=3)
        self.conv3 = nn.Conv1d(widths[2], widths[3], kernel_size=3)
        self.conv4 = nn.Conv1d(widths[3], widths[4], kernel_size=3)
        for i in range(1, 5):
            setattr(self, f"bn{i}", nn.BatchNorm1d(widths[i]))
            setattr(self, f"pool{i}", nn.MaxPool1d(4))
            # one ReLU object per layer, so that each is its own activation layer to the hooks
            setattr(self, f"act{i}", nn.ReLU())
        self.fc1 = nn.Linear(widths[4], classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(self.act1(self.bn1(self.conv1(x))))
        x = self.pool2(self.act2(self.bn2(self.conv2(x))))
        x = self.pool3(self.act3(self.bn3(self.conv3(x))))
        x = self.pool4(self.act4(self.bn4(self.conv4(x))))
        x = F.avg_pool1d(x, x.shape[-1])
        x = self.fc1(x.permute(0, 2, 1))
        return F.log_softmax(x, dim=2)
