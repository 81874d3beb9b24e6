# SPDX-License-Identifier: Apache-2.0
"""snnTorch networks for the exporter's tests, beyond the six shared conformance cases: the
styles of NeuroBench's published examples (keyword spotting, DVS Gesture, activity recognition,
EEG, primate reaching) written anew, and neuron parameters those six do not reach.

CASES maps a name to how NeuroBench benchmarks the network: wrapper (SNNTorchModel or
TorchModel), custom_forward, batch size, post-processors, metrics and the data it is fed.
Each builder returns a network with seeded random weights, in eval mode.
"""
import numpy as np
import snntorch as snn
import torch
from snntorch import surrogate, utils
from torch import nn

STEPS = 40  # the activity-recognition style net loops over a fixed number of steps


def kws_sequential():
    """Keyword spotting style: a Sequential of init_hidden Leaky layers sharing one surrogate."""
    g = surrogate.fast_sigmoid()
    return nn.Sequential(
        nn.Flatten(), nn.Linear(20, 48), snn.Leaky(beta=0.9, spike_grad=g, init_hidden=True),
        nn.Linear(48, 48), snn.Leaky(beta=0.9, spike_grad=g, init_hidden=True),
        nn.Linear(48, 35), snn.Leaky(beta=0.9, spike_grad=g, init_hidden=True, output=True))


class GestureNet(nn.Module):
    """DVS Gesture style: 'same' convolutions, pooling, per-layer beta and threshold."""

    def __init__(self):
        super().__init__()
        g = surrogate.atan()
        self.conv1 = nn.Conv2d(2, 6, 5, padding="same")
        self.pool1 = nn.MaxPool2d(2)
        self.lif1 = snn.Leaky(beta=0.99, threshold=1.6, spike_grad=g, init_hidden=True)
        self.conv2 = nn.Conv2d(6, 8, 3, padding="same")
        self.pool2 = nn.MaxPool2d(2)
        self.lif2 = snn.Leaky(beta=0.73, threshold=0.5, spike_grad=g, init_hidden=True)
        self.fc = nn.Linear(8 * 4 * 4, 11)
        self.drop = nn.Dropout(0.5)
        self.lif3 = snn.Leaky(beta=0.84, threshold=0.36, spike_grad=g, init_hidden=True,
                              output=True)

    def forward(self, x):
        spk1 = self.lif1(self.pool1(self.conv1(x)))
        spk2 = self.lif2(self.pool2(self.conv2(spk1)))
        spk3, mem3 = self.lif3(self.drop(self.fc(spk2.flatten(1))))
        return spk3, mem3


class ActivityConvNet(nn.Module):
    """Activity recognition style: Conv1d over sensor channels, a fixed-length time loop that
    starts with init_leaky() and utils.reset(self), output stacked as (time, batch, classes)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(6, 24, kernel_size=2, padding=4)
        self.pool1 = nn.MaxPool1d(2)
        self.lif1 = snn.Leaky(beta=0.4, threshold=0.02, init_hidden=True)
        self.conv2 = nn.Conv1d(24, 16, kernel_size=1)
        self.pool2 = nn.MaxPool1d(2)
        self.lif2 = snn.Leaky(beta=0.3, threshold=0.01, init_hidden=True)
        self.flat = nn.Flatten()
        self.fc = nn.Linear(32, 7)
        self.lif3 = snn.Leaky(beta=0.5, threshold=0.01, init_hidden=True, output=True)
        self.num_steps = STEPS

    def forward(self, x):
        self.lif1.init_leaky()
        self.lif2.init_leaky()
        self.lif3.init_leaky()
        utils.reset(self)
        spk_rec = []
        for step in range(self.num_steps):
            x_t = x[:, step, :].reshape(x.shape[0], 6, 1)
            h = self.lif1(self.pool1(self.conv1(x_t)))
            h = self.lif2(self.pool2(self.conv2(h)))
            spk, mem = self.lif3(self.fc(self.flat(h)))
            spk_rec.append(spk)
        return torch.stack(spk_rec)


class EEGNet(nn.Module):
    """EEG style: neurons without init_hidden, membranes in local variables from init_leaky(),
    loops over x.shape[1]; time stacked first for custom_forward."""

    def __init__(self):
        super().__init__()
        g = surrogate.fast_sigmoid(slope=25)
        self.fc1 = nn.Linear(12, 32)
        self.lif1 = snn.Leaky(beta=0.9, spike_grad=g)
        self.fc2 = nn.Linear(32, 16)
        self.lif2 = snn.Leaky(beta=0.9, spike_grad=g)
        self.fc3 = nn.Linear(16, 3)
        self.lif3 = snn.Leaky(beta=0.9, spike_grad=g)

    def forward(self, x):
        mem1 = self.lif1.init_leaky()
        mem2 = self.lif2.init_leaky()
        mem3 = self.lif3.init_leaky()
        out = []
        for t in range(x.shape[1]):
            spk1, mem1 = self.lif1(self.fc1(x[:, t]), mem1)
            spk2, mem2 = self.lif2(self.fc2(spk1), mem2)
            spk3, mem3 = self.lif3(self.fc3(spk2), mem3)
            out.append(spk3)
        return torch.stack(out, dim=0)


class FeedForwardState(nn.Module):
    """Activity recognition style with explicit state on self, created empty in __init__ and
    again by reset(); a Leaky encoder, then Synaptic layers."""

    def __init__(self):
        super().__init__()
        self.fc_enc = nn.Linear(6, 24)
        self.lif_enc = snn.Leaky(beta=0.2, threshold=0.5)
        self.fc1 = nn.Linear(24, 40)
        self.lif1 = snn.Synaptic(alpha=0.55, beta=0.7, threshold=0.7)
        self.fc2 = nn.Linear(40, 7)
        self.lif2 = snn.Synaptic(alpha=0.9, beta=0.65, threshold=0.9)
        self.mem_enc = self.lif_enc.init_leaky()
        self.syn1, self.mem1 = self.lif1.init_synaptic()
        self.syn2, self.mem2 = self.lif2.init_synaptic()

    def reset(self):
        self.mem_enc = self.lif_enc.init_leaky()
        self.syn1, self.mem1 = self.lif1.init_synaptic()
        self.syn2, self.mem2 = self.lif2.init_synaptic()

    def forward(self, x):
        spk_enc, self.mem_enc = self.lif_enc(self.fc_enc(x), self.mem_enc)
        spk1, self.syn1, self.mem1 = self.lif1(self.fc1(spk_enc), self.syn1, self.mem1)
        spk2, self.syn2, self.mem2 = self.lif2(self.fc2(spk1), self.syn2, self.mem2)
        return spk2, self.mem2


class ReachingNet(nn.Module):
    """Primate reaching style: one sample at a time over dimension 0 (unbatched), membranes
    kept on self from None, a membrane readout; benchmarked as a TorchModel."""

    def __init__(self):
        super().__init__()
        g = surrogate.fast_sigmoid(slope=20)
        self.fc1 = nn.Linear(24, 20, bias=False)
        self.drop = nn.Dropout(0.3)
        self.lif1 = snn.Leaky(beta=0.96, spike_grad=g, reset_mechanism="zero")
        self.fc2 = nn.Linear(20, 2, bias=False)
        self.lif2 = snn.Leaky(beta=0.96, spike_grad=g, reset_mechanism="none")
        self.mem1 = None
        self.mem2 = None

    def reset(self):
        self.mem1 = self.lif1.init_leaky()
        self.mem2 = self.lif2.init_leaky()

    def single_step(self, x):
        x = x.squeeze()
        spk1, self.mem1 = self.lif1(self.drop(self.fc1(x)), self.mem1)
        _, self.mem2 = self.lif2(self.fc2(spk1), self.mem2)
        return self.mem2.clone()

    def forward(self, x):
        preds = []
        for i in range(x.shape[0]):
            preds.append(self.single_step(x[i, ...]))
        return torch.stack(preds)


class WindowedReachingNet(nn.Module):
    """Primate reaching style with a per-sample inner time loop that first calls the neurons'
    reset_hidden() class method, and a membrane read straight off the last neuron."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm([16])
        self.fc1 = nn.Linear(16, 20)
        self.lif1 = snn.Leaky(beta=0.5, threshold=0.5, init_hidden=True)
        self.fc2 = nn.Linear(20, 2)
        self.lif2 = snn.Leaky(beta=0.5, threshold=0.5, init_hidden=True, reset_mechanism="none")

    def forward(self, x):
        out = []
        for i in range(x.shape[0]):
            self.lif1.reset_hidden()
            self.lif2.reset_hidden()
            for t in range(3):
                h = self.lif1(self.fc1(self.norm(x[i, 0] * (t + 1))))
                self.lif2(self.fc2(h))
            out.append(self.lif2.mem.clone())
        return torch.stack(out)


def recurrent_synaptic():
    """RSynaptic with a Linear recurrence and learnable alpha, beta, threshold; Synaptic out."""
    return nn.Sequential(
        nn.Linear(10, 24),
        snn.RSynaptic(alpha=0.55, beta=0.7, linear_features=24, learn_alpha=True,
                      learn_beta=True, learn_threshold=True, init_hidden=True,
                      spike_grad=surrogate.fast_sigmoid(slope=15)),
        nn.Linear(24, 5),
        snn.Synaptic(alpha=0.9, beta=0.65, learn_alpha=True, learn_beta=True, init_hidden=True),
        nn.Linear(5, 5),
        snn.Leaky(beta=0.9, init_hidden=True, output=True))


class RecurrentForms(nn.Module):
    """RLeaky with a convolutional recurrence, RLeaky with a one-to-one V recurrence
    (learnable and fixed), reset to zero (snnTorch evaluates the recurrence twice then)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.rconv = snn.RLeaky(beta=0.8, conv2d_channels=4, kernel_size=3, init_hidden=True,
                                reset_mechanism="zero")
        self.fc1 = nn.Linear(4 * 6 * 6, 20)
        self.rv = snn.RLeaky(beta=0.85, V=0.5, all_to_all=False, init_hidden=True)
        self.fc2 = nn.Linear(20, 4)
        self.rv_fixed = snn.RLeaky(beta=torch.linspace(0.5, 0.9, 4), V=torch.full((4,), 0.3),
                                   all_to_all=False, learn_recurrent=False, output=True,
                                   init_hidden=True, reset_mechanism="none")

    def forward(self, x):
        h = self.rconv(self.conv(x))
        h = self.rv(self.fc1(h.flatten(1)))
        return self.rv_fixed(self.fc2(h))


class ExplicitRecurrent(nn.Module):
    """RLeaky and RSynaptic without init_hidden: state passed in and out explicitly."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.r1 = snn.RLeaky(beta=0.9, linear_features=16, threshold=0.8)
        self.fc2 = nn.Linear(16, 5)
        self.r2 = snn.RSynaptic(alpha=0.8, beta=0.9, linear_features=5, reset_mechanism="zero")
        self.reset()

    def reset(self):
        self.spk1, self.mem1 = self.r1.init_rleaky()
        self.spk2, self.syn2, self.mem2 = self.r2.init_rsynaptic()

    def forward(self, x):
        self.spk1, self.mem1 = self.r1(self.fc1(x), self.spk1, self.mem1)
        self.spk2, self.syn2, self.mem2 = self.r2(self.fc2(self.spk1), self.spk2, self.syn2,
                                                  self.mem2)
        return self.spk2, self.mem2


def leaky_variants():
    """Leaky with reset_delay=False, graded spikes (learnable), per-neuron learnable beta and
    threshold, and no reset; a Lapicque from R and C; an Alpha with subtraction reset."""
    return nn.Sequential(
        nn.Linear(16, 24),
        snn.Leaky(beta=0.8, threshold=0.6, reset_delay=False, init_hidden=True),
        nn.Linear(24, 24),
        snn.Leaky(beta=torch.rand(24) * 0.5 + 0.4, threshold=torch.rand(24) + 0.5,
                  learn_beta=True, learn_threshold=True, graded_spikes_factor=2.0,
                  learn_graded_spikes_factor=True, reset_mechanism="zero", reset_delay=False,
                  init_hidden=True),
        nn.Linear(24, 16),
        snn.Lapicque(R=5.0, C=0.3, time_step=0.5, threshold=0.4, init_hidden=True),
        nn.Linear(16, 12),
        snn.Alpha(alpha=0.9, beta=0.7, threshold=0.3, reset_mechanism="subtract",
                  init_hidden=True),
        nn.Linear(12, 6),
        snn.Leaky(beta=0.9, reset_mechanism="none", init_hidden=True, output=True))


class MixedStateNet(nn.Module):
    """Explicit Lapicque (from beta) and Alpha (reset to zero) state, Synaptic with
    reset_delay=False, an inhibiting Leaky, and graded spikes."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 20)
        self.lap = snn.Lapicque(beta=0.8, threshold=0.5)
        self.fc2 = nn.Linear(20, 16)
        self.alpha = snn.Alpha(alpha=0.85, beta=0.6, threshold=0.2)
        self.fc3 = nn.Linear(16, 12)
        self.syn = snn.Synaptic(alpha=0.7, beta=0.8, reset_mechanism="zero", reset_delay=False,
                                init_hidden=True)
        self.fc4 = nn.Linear(12, 4)
        self.out = snn.Leaky(beta=0.9, threshold=0.3, inhibition=True, init_hidden=True,
                             output=True)
        self.reset()

    def reset(self):
        self.mem_lap = self.lap.init_lapicque()
        self.exc, self.inh, self.mem_alpha = self.alpha.init_alpha()
        utils.reset(self)

    def forward(self, x):
        spk, self.mem_lap = self.lap(self.fc1(x), self.mem_lap)
        spk, self.exc, self.inh, self.mem_alpha = self.alpha(self.fc2(spk), self.exc, self.inh,
                                                             self.mem_alpha)
        spk = self.syn(self.fc3(spk))
        return self.out(self.fc4(spk))


class Block(nn.Module):
    def __init__(self, n_in, n_out, beta):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.lif = snn.Leaky(beta=beta, init_hidden=True)

    def forward(self, x):
        return self.lif(self.fc(x))


class NestedNet(nn.Module):
    """Neurons inside submodules; reset() resets them all with snntorch.utils.reset, which
    resets every neuron of the classes among its argument's direct children."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(Block(14, 20, 0.9), nn.Linear(20, 20),
                                    snn.Leaky(beta=0.8, init_hidden=True))
        self.head = nn.Sequential(nn.Linear(20, 3), snn.Leaky(beta=0.7, init_hidden=True))
        self.readout = snn.Leaky(beta=0.95, init_hidden=True, output=True)

    def reset(self):
        utils.reset(self.blocks[0])

    def forward(self, x):
        return self.readout(self.head(self.blocks(x)))


class NestedNoReset(nn.Module):
    """No reset(): NeuroBench calls snntorch.utils.reset(net), which resets only the neuron
    classes among the direct children (Synaptic here), so the nested Leaky layers carry their
    membranes from one batch into the next; the export's reset() must do the same."""

    def __init__(self):
        super().__init__()
        self.block = nn.Sequential(nn.Linear(10, 16), snn.Leaky(beta=0.95, threshold=0.7,
                                                                init_hidden=True))
        self.fc = nn.Linear(16, 4)
        self.out = snn.Synaptic(alpha=0.8, beta=0.9, init_hidden=True, output=True)

    def forward(self, x):
        spk, _, mem = self.out(self.fc(self.block(x)))
        return spk, mem


def _spikes(rng, shape, p):
    return (rng.random(shape) < p).astype(np.float32)


CLASSIFY = ["ClassificationAccuracy", "ActivationSparsity", "ActivationSparsityByLayer",
            "SynapticOperations", "MembraneUpdates", "NeuronOperations"]
NO_NEURON_OPS = CLASSIFY[:-1]  # NeuroBench has no NeuronOperations cost for R* neurons
REGRESS = ["R2", "MSE", "ActivationSparsity", "SynapticOperations", "MembraneUpdates"]

CASES = {
    "kws_sequential": dict(build=kws_sequential, batch_size=8, post=["ChooseMaxCount"],
                           data=lambda r: _spikes(r, (20, 30, 20), 0.3), classes=35),
    "gesture_conv": dict(build=GestureNet, batch_size=4, post=["ChooseMaxCount"],
                         data=lambda r: r.poisson(0.4, (10, 10, 2, 16, 16)).astype(np.float32),
                         classes=11),
    "activity_loop": dict(build=ActivityConvNet, custom_forward=True, batch_size=8,
                          post=["ChooseMaxCount"], classes=7,
                          data=lambda r: r.standard_normal((20, STEPS, 6)).astype(np.float32)),
    "eeg_local_state": dict(build=EEGNet, custom_forward=True, batch_size=6, post=[],
                            data=lambda r: r.standard_normal((15, 25, 12)).astype(np.float32),
                            classes=3, workload=NO_NEURON_OPS[1:]),
    "feedforward_state": dict(build=FeedForwardState, batch_size=8, post=["ChooseMaxCount"],
                              data=lambda r: r.standard_normal((20, 20, 6)).astype(np.float32),
                              classes=7),
    "reaching_dim0": dict(build=ReachingNet, wrapper="TorchModel", batch_size=16, post=[],
                          data=lambda r: r.poisson(0.5, (40, 1, 24)).astype(np.float32),
                          regression=2),
    "reaching_window": dict(build=WindowedReachingNet, wrapper="TorchModel", batch_size=10,
                            post=[], data=lambda r: r.poisson(1.0, (25, 1, 16)).astype(np.float32),
                            regression=2),
    "recurrent_synaptic": dict(build=recurrent_synaptic, batch_size=8, post=["ChooseMaxCount"],
                               data=lambda r: _spikes(r, (20, 15, 10), 0.4), classes=5,
                               workload=NO_NEURON_OPS),
    "recurrent_forms": dict(build=RecurrentForms, batch_size=4, post=["ChooseMaxCount"],
                            data=lambda r: r.poisson(0.6, (10, 8, 1, 6, 6)).astype(np.float32),
                            classes=4, workload=NO_NEURON_OPS),
    "explicit_recurrent": dict(build=ExplicitRecurrent, batch_size=8, post=["ChooseMaxCount"],
                               data=lambda r: _spikes(r, (20, 12, 12), 0.3), classes=5,
                               workload=NO_NEURON_OPS),
    "leaky_variants": dict(build=leaky_variants, batch_size=8, post=["ChooseMaxCount"],
                           data=lambda r: r.standard_normal((20, 15, 16)).astype(np.float32),
                           classes=6, workload=NO_NEURON_OPS),  # no cost for reset 'none'
    "mixed_state": dict(build=MixedStateNet, batch_size=8, post=["ChooseMaxCount"],
                        data=lambda r: r.standard_normal((20, 15, 10)).astype(np.float32) * 2,
                        classes=4),
    "nested_no_reset": dict(build=NestedNoReset, batch_size=8, post=["ChooseMaxCount"],
                            data=lambda r: _spikes(r, (24, 10, 10), 0.4), classes=4),
    "nested_blocks": dict(build=NestedNet, batch_size=8, post=["ChooseMaxCount"],
                          data=lambda r: _spikes(r, (20, 12, 14), 0.35), classes=3),
}

STATIC = ["Footprint", "ConnectionSparsity", "ParameterCount"]


def build_net(name):
    torch.manual_seed(sum(map(ord, name)))
    return CASES[name]["build"]().eval()
