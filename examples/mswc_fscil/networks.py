# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's two MSWC FSCIL networks as eager PyTorch modules, written for neurobench-cpp:

- M5: the prototype CNN of NeuroBench's examples/mswc_fscil/M5.py, with the example's settings
  (20 MFCC channels in, stride 2, 256 channels, kernel 4, pooling 2, 200 outputs);
- SNN: the spiking network of its sparchSNNs.py as the example builds it (two RadLIF layers of
  1024 neurons with batch norm, a readout summed over time, 200 outputs).

Each has a `features` method (@torch.jit.export) that the FSCIL protocol computes prototypes
from (docs/fscil.md), and a readout with a bias (the example gives its prototype readout one).
Parameter and buffer names are NeuroBench's, so its checkpoints mswc_cnn_proto and
mswc_rsnn_proto load with load_state_dict (make_models.py --weights). Dropout is left out: the
benchmark runs in eval mode, where it is the identity, and it holds no parameters.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = 200
MFCC_CHANNELS = 20
FRAMES = 201  # 48,000 samples, hop 240: S2S's and MFCC's frames
S2S_MELS = 20


class M5(nn.Module):
    """NeuroBench's M5 prototype CNN: input (batch, 20, frames) MFCCs (the pipeline's
    (batch, 1, 20, frames) is squeezed here, as NeuroBench's SqueezeIn does)."""

    def __init__(self, n_input: int = MFCC_CHANNELS, n_output: int = CLASSES, stride: int = 2,
                 n_channel: int = 256, input_kernel: int = 4, pool_kernel: int = 2):
        super().__init__()
        c = n_channel
        self.conv1 = nn.Conv1d(n_input, c, kernel_size=input_kernel, stride=stride)
        self.bn1 = nn.BatchNorm1d(c)
        self.act1 = nn.ReLU()
        self.pool1 = nn.MaxPool1d(pool_kernel)
        self.conv2 = nn.Conv1d(c, c, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(c)
        self.act2 = nn.ReLU()
        self.pool2 = nn.MaxPool1d(pool_kernel)
        self.conv3 = nn.Conv1d(c, 2 * c, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * c)
        self.act3 = nn.ReLU()
        self.pool3 = nn.MaxPool1d(pool_kernel)
        self.conv4 = nn.Conv1d(2 * c, 2 * c, kernel_size=3)
        self.bn4 = nn.BatchNorm1d(2 * c)
        self.act4 = nn.ReLU()
        self.pool4 = nn.MaxPool1d(pool_kernel)
        self.output = nn.Linear(2 * c, n_output, bias=True)

    @torch.jit.export
    def features(self, x):
        """(batch, features): NeuroBench's `net(data, features_out=True)`."""
        x = x.squeeze()  # NeuroBench's SqueezeIn; a no-op after it
        x = self.pool1(self.act1(self.bn1(self.conv1(x))))
        x = self.pool2(self.act2(self.bn2(self.conv2(x))))
        x = self.pool3(self.act3(self.bn3(self.conv3(x))))
        x = self.pool4(self.act4(self.bn4(self.conv4(x))))
        x = F.avg_pool1d(x, x.shape[-1])
        return x.permute(0, 2, 1).squeeze()

    def forward(self, x):
        return self.output(self.features(x))


class RadLIFLayer(nn.Module):
    """sparch's adaptive LIF layer with recurrent connections, batch norm on W x, threshold 1.
    Like sparch's, each call starts from random states (torch.rand: torch's global generator).
    sparch zeroes V's diagonal at every call; here it is zeroed once, when the weights are set
    (make_models.py), which gives the same V at every call."""

    def __init__(self, input_size: int, hidden_size: int, threshold: float = 1.0):
        super().__init__()
        self.threshold = threshold
        self.alpha_lim = [math.exp(-1 / 5), math.exp(-1 / 25)]
        self.beta_lim = [math.exp(-1 / 30), math.exp(-1 / 120)]
        self.a_lim = [-1.0, 1.0]
        self.b_lim = [0.0, 2.0]
        self.W = nn.Linear(input_size, hidden_size, bias=False)
        self.V = nn.Linear(hidden_size, hidden_size, bias=False)
        self.alpha = nn.Parameter(torch.empty(hidden_size))
        self.beta = nn.Parameter(torch.empty(hidden_size))
        self.a = nn.Parameter(torch.empty(hidden_size))
        self.b = nn.Parameter(torch.empty(hidden_size))
        nn.init.uniform_(self.alpha, self.alpha_lim[0], self.alpha_lim[1])
        nn.init.uniform_(self.beta, self.beta_lim[0], self.beta_lim[1])
        nn.init.uniform_(self.a, self.a_lim[0], self.a_lim[1])
        nn.init.uniform_(self.b, self.b_lim[0], self.b_lim[1])
        nn.init.orthogonal_(self.V.weight)
        with torch.no_grad():
            self.V.weight.fill_diagonal_(0.0)
        self.norm = nn.BatchNorm1d(hidden_size, momentum=0.05)

    def forward(self, x):
        wx = self.W(x)
        wx = self.norm(wx.reshape(wx.shape[0] * wx.shape[1], wx.shape[2])).reshape(wx.shape)
        ut = torch.rand(wx.shape[0], wx.shape[2], device=wx.device)
        wt = torch.rand(wx.shape[0], wx.shape[2], device=wx.device)
        # sparch draws a third random state and replaces it at once; the draw is kept (it moves
        # the generator, so the next layer's states are sparch's), used only for its dtype, so
        # that TorchScript does not remove it as dead code.
        drawn = torch.rand(wx.shape[0], wx.shape[2], device=wx.device)
        st = (ut - 0.5).gt(0).to(drawn.dtype)
        alpha = torch.clamp(self.alpha, min=self.alpha_lim[0], max=self.alpha_lim[1])
        beta = torch.clamp(self.beta, min=self.beta_lim[0], max=self.beta_lim[1])
        a = torch.clamp(self.a, min=self.a_lim[0], max=self.a_lim[1])
        b = torch.clamp(self.b, min=self.b_lim[0], max=self.b_lim[1])
        spikes = []
        for t in range(wx.shape[1]):
            wt = beta * wt + a * ut + b * st
            ut = alpha * (ut - st) + (1 - alpha) * (wx[:, t, :] + self.V(st) - wt)
            st = (ut - self.threshold).gt(0).float()
            spikes.append(st)
        return torch.stack(spikes, dim=1)


class SimpleReadout(nn.Module):
    """sparch's Simple_ReadoutLayer: W x summed over time; here with a bias (the example's
    prototype readout has one)."""

    def __init__(self, input_size: int, hidden_size: int):
        super().__init__()
        self.W = nn.Linear(input_size, hidden_size, bias=True)

    def forward(self, x):
        wx = self.W(x)
        out = torch.zeros(wx.shape[0], wx.shape[2], device=wx.device)
        for t in range(wx.shape[1]):
            out = out + wx[:, t, :]
        return out


class SNN(nn.Module):
    """sparch's SNN as NeuroBench's example builds it: input (batch, 201, 20) Speech2Spikes
    events; `layer_sizes` hidden RadLIF layers, then the readout of 200 classes. The readout is
    `snn.<len(layer_sizes)>.W`."""

    def __init__(self, layer_sizes=(1024, 1024), n_input: int = S2S_MELS,
                 n_output: int = CLASSES):
        super().__init__()
        layers = []
        size = n_input
        for hidden in layer_sizes:
            layers.append(RadLIFLayer(size, hidden))
            size = hidden
        layers.append(SimpleReadout(size, n_output))
        self.snn = nn.ModuleList(layers)

    @torch.jit.export
    def features(self, x):
        """(batch, timesteps, features): the last hidden layer's spikes (NeuroBench's
        `snn[:-1]`)."""
        x = x.squeeze()  # NeuroBench's SqueezeIn; a no-op after it
        for i, layer in enumerate(self.snn):
            if i < len(self.snn) - 1:
                x = layer(x)
        return x

    def forward(self, x):
        x = self.features(x)
        for i, layer in enumerate(self.snn):
            if i == len(self.snn) - 1:
                x = layer(x)
        return x
