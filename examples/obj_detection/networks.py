# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's two event-camera object detectors (examples/obj_detection in NeuroBench's
repository) as TorchScript-ready PyTorch modules, written for neurobench-cpp.

- `Vanilla`: the RED ANN, a time-folded convolutional front (a 7x7 ConvLayer and three
  squeeze-excite blocks, stride 4) and 5 levels of convolutional LSTMs (stride 2 each).
- `Vanilla_lif`: the hybrid spiking RED, residual blocks in the front and 5 levels of
  convolution + batch norm + multi-step LIF neurons.
- `BoxHead`: metavision's shared box and class head, `BoxHead(cout, 6, 3 + 1, 0)`.
- `Detector`: network + head + the decoding of metavision's `Anchors(num_levels=5,
  anchor_list="PSEE_ANCHORS", variances=[0.1, 0.2])`: input `(B, T, C, H, W)`, output one
  float tensor `(B, T, N, 4 + 3)`: for each slot, time bin and anchor the decoded box `x1, y1,
  x2, y2` in input pixels and the 3 class probabilities (softmax, background column removed),
  which the post-processor `BoxNms` turns into detections.

These are our own definitions, written from the published structure of NeuroBench's
`obj_det_model.py` / `modules.py` and metavision_core_ml / metavision_ml 4.2.1 (Prophesee's
code is not copied); the parameter and buffer names are theirs, so NeuroBench's published
checkpoints (`25_ann_model.pth` / `25_ann_pd.pth`, `14_hybrid_model.pth` / `14_hybrid_pd.pth`)
load with `load_state_dict(..., strict=True)` into `Detector.net` / `Detector.head`.

State: the LSTM cells (`prev_h`, `prev_c`) and the LIF neurons (`v`) keep their state in
buffers from one forward call to the next, as metavision's ConvLSTMCell and spikingjelly's
multi-step LIFNode do. `Detector.reset_slots(mask)` zeroes the state of the slots where the
bool `(B)` mask is true; neurobench-cpp's workload and timing passes call it before each
forward with the batch's `starts_recording` (all true at a pass's first batch).
`Detector.reset_at_recording_start = False` makes it do nothing: NeuroBench's example, which
never resets its networks (see README.md).
"""
import math
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F

# metavision_ml's PSEE_ANCHORS: (aspect ratio w/h, scale) per anchor of a grid position.
PSEE_ANCHORS = [(1.0 / 3, 1.0), (0.5, 1.0), (1.0, 1.0), (1.0, 1.5), (2.0, 1.0), (3.0, 1.0)]
LEVELS = 5
NUM_CLASSES = 3  # pedestrian, two wheeler, car (NeuroBench's class_selection)


def fold_time(x: torch.Tensor) -> torch.Tensor:
    """(T, B, C, H, W) -> (T * B, C, H, W), time major (metavision's time_to_batch)."""
    return x.reshape(x.shape[0] * x.shape[1], x.shape[2], x.shape[3], x.shape[4])


class ConvLayer(nn.Sequential):
    """Convolution, normalisation (or Identity), activation module: children 0, 1, 2 as
    metavision's ConvLayer (NeuroBench's modules.py) names them."""

    def __init__(self, cin, cout, kernel_size=3, stride=1, padding=1, bias=True,
                 norm="BatchNorm2d", activation="ReLU"):
        conv = nn.Conv2d(cin, cout, kernel_size, stride=stride, padding=padding, bias=bias)
        normalise = nn.Identity() if norm == "none" else nn.BatchNorm2d(cout)
        act = nn.ReLU() if activation == "ReLU" else nn.Identity()
        super().__init__(conv, normalise, act)


class PreActBlock(nn.Module):
    """Two 3x3 ConvLayers, a squeeze-excite gate (global mean, 1x1 conv to a quarter of the
    channels, ReLU module, 1x1 conv back, sigmoid) scaling them, plus the input (through a
    1x1 convolution without bias when the shape changes)."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = ConvLayer(cin, cout, stride=stride, bias=False)
        self.conv2 = ConvLayer(cout, cout, bias=False)
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False))
        else:
            self.downsample = nn.Sequential()
        self.fc1 = nn.Conv2d(cout, cout // 4, 1)
        self.fc2 = nn.Conv2d(cout // 4, cout, 1)
        self.activation = nn.ReLU()

    def forward(self, x):
        y = self.conv2(self.conv1(x))
        gate = torch.sigmoid(self.fc2(self.activation(self.fc1(F.adaptive_avg_pool2d(y, 1)))))
        return y * gate + self.downsample(x)


class ResBlock(nn.Module):
    """A 3x3 ConvLayer, a strided 3x3 ConvLayer, plus the input (through a strided 1x1
    ConvLayer without activation when the shape changes), then a ReLU module."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = ConvLayer(cin, cout, bias=False)
        self.conv2 = ConvLayer(cout, cout, stride=stride, bias=False)
        if stride != 1 or cin != cout:
            self.downsample = ConvLayer(cin, cout, kernel_size=1, stride=stride, padding=0,
                                        bias=False, activation="Identity")
        else:
            self.downsample = nn.Sequential()
        self.activation = nn.ReLU()

    def forward(self, x):
        return self.activation(self.conv2(self.conv1(x)) + self.downsample(x))


class SequenceWise(nn.Module):
    """Applies `module` to every time bin of a (T, B, ...) tensor at once (folded into the
    batch dimension)."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        y = self.module(fold_time(x))
        return y.reshape(x.shape[0], x.shape[1], y.shape[1], y.shape[2], y.shape[3])


class ConvLSTMCell(nn.Module):
    """The recurrent part of a convolutional LSTM: the input already holds the 4 gates'
    input terms (4 * hidden channels); a 3x3 convolution of the hidden state is added, gates
    in the order input, forget, output, cell. `prev_h`, `prev_c` (non-persistent buffers) carry
    the state across calls; a state of another shape than the input's (first call, another
    batch size) starts from zeros."""

    def __init__(self, hidden):
        super().__init__()
        self.hidden = hidden
        self.conv_h2h = nn.Conv2d(hidden, 4 * hidden, 3, padding=1, bias=True)
        self.register_buffer("prev_h", torch.zeros(1, hidden, 0, 0), persistent=False)
        self.register_buffer("prev_c", torch.zeros(1, hidden, 0, 0), persistent=False)

    def forward(self, x):
        b, h, w = x.shape[1], x.shape[3], x.shape[4]
        if self.prev_h.shape[0] != b or self.prev_h.shape[2] != h or self.prev_h.shape[3] != w:
            self.prev_h = torch.zeros(b, self.hidden, h, w, dtype=x.dtype, device=x.device)
            self.prev_c = torch.zeros(b, self.hidden, h, w, dtype=x.dtype, device=x.device)
        hidden, cell = self.prev_h, self.prev_c
        outputs: List[torch.Tensor] = []
        for t in range(x.shape[0]):
            gates = self.conv_h2h(hidden) + x[t]
            i, f, o, g = torch.split(gates, self.hidden, dim=1)
            cell = torch.sigmoid(f) * cell + torch.sigmoid(i) * torch.tanh(g)
            hidden = torch.sigmoid(o) * torch.tanh(cell)
            outputs.append(hidden)
        self.prev_h, self.prev_c = hidden, cell
        return torch.stack(outputs, 0)

    def reset_slots(self, mask: torch.Tensor):
        if self.prev_h.shape[0] == mask.shape[0]:
            zero = mask.view(-1, 1, 1, 1).to(self.prev_h.device)
            self.prev_h = torch.where(zero, torch.zeros_like(self.prev_h), self.prev_h)
            self.prev_c = torch.where(zero, torch.zeros_like(self.prev_c), self.prev_c)


class ConvRNN(nn.Module):
    """metavision's ConvRNN with an LSTM cell: a strided 3x3 ConvLayer (batch norm, no
    activation) to the 4 gates' inputs over every time bin, then the ConvLSTMCell."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv_x2h = SequenceWise(ConvLayer(cin, 4 * cout, stride=stride,
                                               activation="Identity"))
        self.timepool = ConvLSTMCell(cout)

    def forward(self, x):
        return self.timepool(self.conv_x2h(x))

    def reset_slots(self, mask: torch.Tensor):
        self.timepool.reset_slots(mask)


class LIFNode(nn.Module):
    """spikingjelly's multi-step LIFNode with its defaults (tau 2, decay_input, v_threshold 1,
    v_reset 0: hard reset, reset not detached), written out: for each time bin t,
    h = v + (x_t - v) / tau; s = (h >= v_threshold); v = h * (1 - s) (v_reset 0). The membrane
    `v` (a non-persistent buffer) carries over to the next call; a membrane of another shape
    than the input's (first call) starts from v_reset."""

    def __init__(self, tau: float = 2.0, v_threshold: float = 1.0, v_reset: float = 0.0):
        super().__init__()
        self.tau = tau
        self.v_threshold = v_threshold
        self.v_reset = v_reset
        self.register_buffer("v", torch.zeros(0), persistent=False)

    def forward(self, x):
        if self.v.shape != x.shape[1:]:
            self.v = torch.full_like(x[0], self.v_reset)
        v = self.v
        spikes: List[torch.Tensor] = []
        for t in range(x.shape[0]):
            h = v + (x[t] - (v - self.v_reset)) / self.tau
            s = (h - self.v_threshold >= 0).to(x.dtype)
            v = h * (1.0 - s) + self.v_reset * s
            spikes.append(s)
        self.v = v
        return torch.stack(spikes, 0)

    def reset_slots(self, mask: torch.Tensor):
        if self.v.dim() > 0 and self.v.shape[0] == mask.shape[0]:
            zero = mask.view([-1] + [1] * (self.v.dim() - 1)).to(self.v.device)
            self.v = torch.where(zero, torch.full_like(self.v, self.v_reset), self.v)


class Conv2dLIF(nn.Module):
    """A strided 3x3 convolution and batch norm over every time bin, then LIF neurons
    (NeuroBench's Conv2dLIF with spikingjelly's multi-step layers)."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=True)
        self.bn = nn.BatchNorm2d(cout)
        self.lif = LIFNode()

    def forward(self, x):
        y = self.bn(self.conv1(fold_time(x)))
        y = y.reshape(x.shape[0], x.shape[1], y.shape[1], y.shape[2], y.shape[3])
        return self.lif(y)

    def reset_slots(self, mask: torch.Tensor):
        self.lif.reset_slots(mask)


class _Red(nn.Module):
    """What the two RED networks share: a time-folded front (a 7x7 ConvLayer, then three
    blocks of `block`), then LEVELS recurrent levels of `level`, each stride 2; input (T, B,
    cin, H, W), output the levels' features, each (T * B, cout, h, w) time major, strides 8,
    16, 32, 64, 128. The attribute names are NeuroBench's, so its checkpoints load."""

    def __init__(self, block, level, cin, base, cout):
        super().__init__()
        self.cin, self.base, self.cout, self.levels = cin, base, cout, LEVELS
        self.conv1 = SequenceWise(nn.Sequential(
            ConvLayer(cin, 2 * base, kernel_size=7, stride=2, padding=3),
            block(2 * base, 4 * base, 2),
            block(4 * base, 4 * base, 1),
            block(4 * base, 8 * base, 1)))
        self.conv2 = nn.ModuleList(
            [level(8 * base if i == 0 else cout, cout, stride=2) for i in range(LEVELS)])

    def forward(self, x) -> List[torch.Tensor]:
        x = self.conv1(x)
        outs: List[torch.Tensor] = []
        for level in self.conv2:
            x = level(x)
            outs.append(fold_time(x))
        return outs

    def reset_slots(self, mask: torch.Tensor):
        for level in self.conv2:
            level.reset_slots(mask)


class Vanilla(_Red):
    """The RED ANN: pre-activation blocks in the front, ConvRNN (ConvLSTM) levels."""

    def __init__(self, cin=6, base=16, cout=256):
        super().__init__(PreActBlock, ConvRNN, cin, base, cout)


class Vanilla_lif(_Red):  # noqa: N801 (NeuroBench's name)
    """The hybrid spiking RED: residual blocks in the front, Conv2dLIF levels."""

    def __init__(self, cin=6, base=16, cout=256):
        super().__init__(ResBlock, Conv2dLIF, cin, base, cout)


class BoxHead(nn.Module):
    """metavision's BoxHead with n_layers 0: for every level, a 3x3 conv to 256 channels with
    ReLU, then a 3x3 conv to num_anchors * 4 box deltas (`box_head`) or num_anchors *
    num_logits class logits (`cls_head`); the levels' anchors concatenated in level, row,
    column, anchor order."""

    def __init__(self, cin, num_anchors, num_logits):
        super().__init__()
        self.num_anchors, self.num_logits = num_anchors, num_logits
        self.box_head = nn.Sequential(ConvLayer(cin, 256, norm="none"),
                                      nn.Conv2d(256, num_anchors * 4, 3, padding=1))
        self.cls_head = nn.Sequential(ConvLayer(cin, 256, norm="none"),
                                      nn.Conv2d(256, num_anchors * num_logits, 3, padding=1))

    def forward(self, features: List[torch.Tensor]) -> List[torch.Tensor]:
        boxes: List[torch.Tensor] = []
        logits: List[torch.Tensor] = []
        for f in features:
            boxes.append(self.box_head(f).permute(0, 2, 3, 1).reshape(f.shape[0], -1, 4))
            logits.append(self.cls_head(f).permute(0, 2, 3, 1).reshape(f.shape[0], -1,
                                                                        self.num_logits))
        return [torch.cat(boxes, 1), torch.cat(logits, 1)]


def anchor_sizes(base_size=32, levels=LEVELS, anchors=PSEE_ANCHORS):
    """(levels, anchors, 2) float32 (width, height): scale * size * sqrt(ratio), scale * size /
    sqrt(ratio) for level sizes base_size * 2 ** level, computed in float64 and rounded once."""
    rows = [[[scale * base_size * 2 ** level * math.sqrt(ratio),
              scale * base_size * 2 ** level / math.sqrt(ratio)] for ratio, scale in anchors]
            for level in range(levels)]
    return torch.tensor(rows, dtype=torch.float64).float()


class Detector(nn.Module):
    """Network + BoxHead + anchor decoding: input (B, T, C, H, W) (neurobench-cpp's and
    NeuroBench's batch layout; permuted to (T, B, ...) inside), output (B, T, N, 4 + 3)."""

    def __init__(self, net, variances=(0.1, 0.2)):
        super().__init__()
        self.net = net
        self.head = BoxHead(net.cout, len(PSEE_ANCHORS), NUM_CLASSES + 1)
        self.variances = [float(variances[0]), float(variances[1])]
        self.register_buffer("anchor_wh", anchor_sizes(), persistent=False)
        self.reset_at_recording_start = True

    def anchors(self, features: List[torch.Tensor], width: int) -> torch.Tensor:
        """(N, 4) anchors (cx, cy, w, h): for every level a grid of centres (k + 0.5) * stride
        (torch.linspace, as metavision), stride = input width // feature width."""
        grids: List[torch.Tensor] = []
        for level, f in enumerate(features):
            h, w = f.shape[2], f.shape[3]
            stride = float(width // w)
            ys = torch.linspace(0.5 * stride, (h - 1 + 0.5) * stride, h, device=f.device)
            xs = torch.linspace(0.5 * stride, (w - 1 + 0.5) * stride, w, device=f.device)
            a = self.anchor_wh.shape[1]
            cx = xs.view(1, w, 1).expand(h, w, a)
            cy = ys.view(h, 1, 1).expand(h, w, a)
            wh = self.anchor_wh[level].to(f.device).view(1, 1, a, 2).expand(h, w, a, 2)
            grids.append(torch.cat([cx.unsqueeze(-1), cy.unsqueeze(-1), wh], -1).reshape(-1, 4))
        return torch.cat(grids, 0)

    def forward(self, x):
        b, t = x.shape[0], x.shape[1]
        features = self.net(x.permute(1, 0, 2, 3, 4))
        head = self.head(features)
        deltas, logits = head[0], head[1]
        anchors = self.anchors(features, x.shape[4])
        centre = deltas[..., :2] * self.variances[0] * anchors[:, 2:] + anchors[:, :2]
        size = torch.exp(deltas[..., 2:] * self.variances[1]) * anchors[:, 2:]
        scores = F.softmax(logits, dim=2)[..., 1:]
        out = torch.cat([centre - size / 2, centre + size / 2, scores], -1)
        return out.reshape(t, b, out.shape[1], out.shape[2]).permute(1, 0, 2, 3).contiguous()

    @torch.jit.export
    def reset_slots(self, mask: torch.Tensor):
        """Zeroes the recurrent state of the slots where `mask` (bool (B)) is true, unless
        reset_at_recording_start is False (NeuroBench's example never resets)."""
        if self.reset_at_recording_start:
            self.net.reset_slots(mask)


def make(kind, cin=6, base=16, cout=256):
    """`Detector` around `Vanilla` ("ann") or `Vanilla_lif` ("hybrid")."""
    nets = {"ann": Vanilla, "hybrid": Vanilla_lif}
    return Detector(nets[kind](cin=cin, base=base, cout=cout))
