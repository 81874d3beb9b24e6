# SPDX-License-Identifier: Apache-2.0
"""The two networks of NeuroBench's Primate Reaching benchmark (examples/primate_reaching in
NeuroBench's repository: SNN2.py and ANN.py), with its layer names, so that its trained
`state_dict`s load into them. Both are called once per batch with `(batch, 1, channels)` spike
counts (one 4 ms bin per sample, NeuroBench's num_steps=1, bin_width=0.004) and treat the batch
dimension as time: the state they keep runs on from sample to sample and from batch to batch,
so the test set is one long sequence (NeuroBench's `TorchModel`, never reset).

- `SNN2`: Linear(channels, 50, no bias), dropout 0.3, snnTorch Leaky (beta 0.96, threshold 1,
  reset to zero), Linear(50, 2, no bias), a Leaky output layer without reset whose membrane is
  the prediction: `(batch, 2)` velocities.
- `ANN2D`: a buffer of the last 50 bins (200 ms); the sum of its spike counts through
  Linear(channels, 32), ReLU, BatchNorm1d, Linear(32, 48), dropout 0.5, ReLU, BatchNorm1d,
  Linear(48, 2). Until the buffer holds 50 bins it predicts zeros. `(batch, 2)` velocities.

Needs torch and, for SNN2, snnTorch (../shared/third_party/snntorch in the tests).
"""
from typing import List

import torch
from torch import nn

OUTPUTS = 2


class SNN2(nn.Module):
    def __init__(self, input_size: int = 96, hidden_size: int = 50, tau: float = 0.96,
                 p: float = 0.3):
        super().__init__()
        import snntorch as snn
        from snntorch import surrogate

        grad = surrogate.fast_sigmoid(slope=20)
        self.fc1 = nn.Linear(input_size, hidden_size, bias=False)
        self.fc_out = nn.Linear(hidden_size, OUTPUTS, bias=False)
        self.lif1 = snn.Leaky(beta=tau, spike_grad=grad, threshold=1, reset_mechanism="zero")
        self.lif_out = snn.Leaky(beta=tau, spike_grad=grad, threshold=1, reset_mechanism="none")
        self.dropout = nn.Dropout(p)
        self.mem1, self.mem2 = None, None

    def reset(self):
        self.mem1 = self.lif1.init_leaky()
        self.mem2 = self.lif_out.init_leaky()

    def step(self, x):
        current = self.dropout(self.fc1(x.squeeze()))
        spikes, self.mem1 = self.lif1(current, self.mem1)
        _, self.mem2 = self.lif_out(self.fc_out(spikes), self.mem2)
        return self.mem2.clone()

    def forward(self, x):
        return torch.stack([self.step(x[i, ...]) for i in range(x.shape[0])])


class ANN2D(nn.Module):
    def __init__(self, input_dim: int = 96, layer1: int = 32, layer2: int = 48,
                 bin_window: float = 0.2, drop_rate: float = 0.5):
        super().__init__()
        self.output_dim = OUTPUTS
        # NeuroBench's int(bin_window / 0.004): 50 bins.
        self.bin_window_size = int(bin_window / 0.004)
        self.fc1 = nn.Linear(input_dim, layer1)
        self.fc2 = nn.Linear(layer1, layer2)
        self.fc3 = nn.Linear(layer2, OUTPUTS)
        self.dropout = nn.Dropout(drop_rate)
        self.batchnorm1 = nn.BatchNorm1d(layer1)
        self.batchnorm2 = nn.BatchNorm1d(layer2)
        self.activation = nn.ReLU()
        self.register_buffer("data_buffer", torch.zeros(1, input_dim), persistent=False)

    def predict(self, counts: torch.Tensor) -> torch.Tensor:
        x = self.batchnorm1(self.activation(self.fc1(counts.view(1, -1))))
        x = self.batchnorm2(self.activation(self.dropout(self.fc2(x))))
        return self.fc3(x)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        predictions: List[torch.Tensor] = []
        for i in range(x.shape[0]):
            self.data_buffer = torch.cat((self.data_buffer, x[i, :, :]), dim=0)
            if self.data_buffer.shape[0] <= self.bin_window_size:
                predictions.append(torch.zeros(1, self.output_dim, device=x.device))
            else:
                self.data_buffer = self.data_buffer[1:, :]
                predictions.append(self.predict(torch.sum(self.data_buffer, dim=0)))
        return torch.stack(predictions).squeeze(dim=1)
