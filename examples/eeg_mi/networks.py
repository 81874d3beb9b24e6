# SPDX-License-Identifier: Apache-2.0
"""The network of NeuroBench's THOR EEG motor imagery example (examples/eeg_mi/model.py,
`EEG_SNN`), with its layer names, so that NeuroBench's trained weights
(examples/eeg_mi/model_data/best_model.pt, a plain `state_dict`) load into it.

`EEG_SNN()`: a three-layer fully connected spiking network run one EEG timestep at a time:
- Linear 62-256, Leaky neurons (beta 0.9);
- Linear 256-128, Leaky neurons (beta 0.9);
- Linear 128-2, output Leaky neurons (beta 0.9).
The neurons keep their membranes in local variables (`init_leaky()`), so every call starts from
empty membranes. The fast-sigmoid surrogate gradient (slope 25) matters only to training.

One difference, in what forward returns: NeuroBench's EEG_SNN returns the output spikes
`(batch, timesteps, 2)`, which its `SNNTorchModel(net, custom_forward=True)` transposes to
`(timesteps, batch, 2)`, and its example's post-processing `spikes.sum(dim=0).argmax(dim=1)`
sums over the timesteps. This one returns `(timesteps, batch, 2)`, the order `custom_forward`
expects, so that the exported file returns `(batch, timesteps, 2)` as every model does in
neurobench-cpp, and ChooseMaxCount (sum over the timesteps, argmax over the classes) makes the
same predictions. The weights, the spikes and every metric are the same.

Needs torch and snnTorch (../shared/third_party/snntorch in the tests).
"""
import snntorch as snn
import torch
from snntorch import surrogate
from torch import nn

CHANNELS = 62
HIDDEN = 256
CLASSES = 2
TIMESTEPS = 250  # 2.5 s at 100 Hz in NeuroBench's release


class EEG_SNN(nn.Module):  # noqa: N801 (NeuroBench's name)
    """NeuroBench's EEG motor imagery SNN: `(batch, timesteps, 62)` -> spikes
    `(timesteps, batch, 2)`."""

    def __init__(self, n_inputs=CHANNELS, n_hidden=HIDDEN, n_outputs=CLASSES, beta=0.9):
        super().__init__()
        spike_grad = surrogate.fast_sigmoid(slope=25)
        self.fc1 = nn.Linear(n_inputs, n_hidden)
        self.lif1 = snn.Leaky(beta=beta, spike_grad=spike_grad)
        self.fc2 = nn.Linear(n_hidden, n_hidden // 2)
        self.lif2 = snn.Leaky(beta=beta, spike_grad=spike_grad)
        self.fc3 = nn.Linear(n_hidden // 2, n_outputs)
        self.lif3 = snn.Leaky(beta=beta, spike_grad=spike_grad)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mem1 = self.lif1.init_leaky()
        mem2 = self.lif2.init_leaky()
        mem3 = self.lif3.init_leaky()
        spikes = []
        for t in range(x.shape[1]):
            spk1, mem1 = self.lif1(self.fc1(x[:, t, :]), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spk3, mem3 = self.lif3(self.fc3(spk2), mem3)
            spikes.append(spk3)
        return torch.stack(spikes)
