#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Makes the models of benchmarks/hook_overhead: a ReLU CNN on 28x28 inputs and a 3-layer
spiking MLP of leaky integrate-and-fire neurons (run step-wise over 100 timesteps). Imported by
benchmarks/gpu_overhead.py for the same networks in eager PyTorch (load_eager).

Run with Debian's python3 (python3-torch 1.13):  /usr/bin/python3 make_models.py
Weights are random (seeded): the benchmark measures cost, not accuracy.
"""
import os
from typing import Optional, Tuple

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))


class Leaky(nn.Module):
    """A leaky integrate-and-fire neuron with snnTorch's inference semantics (reset by subtraction)."""

    def __init__(self, beta: float = 0.9, threshold: float = 1.0):
        super().__init__()
        self.register_buffer("beta", torch.tensor(beta))
        self.register_buffer("threshold", torch.tensor(threshold))
        self.register_buffer("mem", torch.zeros(0))
        self._reset_mechanism = "subtract"

    def forward(self, input_: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = (self.mem - self.threshold > 0).float()
        self.mem = self.beta * self.mem + input_ - reset * self.threshold
        spk = (self.mem - self.threshold > 0).float()
        return spk, self.mem


class SnnMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.lif1 = Leaky()
        self.fc2 = nn.Linear(256, 128)
        self.lif2 = Leaky()
        self.fc3 = nn.Linear(128, 10)
        self.lif3 = Leaky()

    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        s1, _ = self.lif1(self.fc1(x))
        s2, _ = self.lif2(self.fc2(s1))
        return self.lif3(self.fc3(s2))


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(32 * 7 * 7, 128), nn.ReLU(),
                                        nn.Linear(128, 10))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x))


def main():
    torch.manual_seed(0)
    snn = SnnMlp()
    with torch.no_grad():  # scale so that every layer spikes at a moderate rate
        snn.fc1.weight.mul_(3.0)
        snn.fc2.weight.mul_(4.0)
        snn.fc3.weight.mul_(4.0)
    torch.jit.script(snn.eval()).save(os.path.join(HERE, "snn_mlp.pt"))
    torch.jit.script(Cnn().eval()).save(os.path.join(HERE, "cnn_relu.pt"))
    print("models written to", HERE)


def load_eager(name):
    """The eager network of a model file written here (cnn_relu.pt or snn_mlp.pt), with its
    weights: what Python NeuroBench benchmarks (benchmarks/gpu_overhead.py)."""
    net = {"cnn_relu.pt": Cnn, "snn_mlp.pt": SnnMlp}[name]()
    scripted = torch.jit.load(os.path.join(HERE, name), map_location="cpu")
    net.load_state_dict(scripted.state_dict())
    return net.eval()


if __name__ == "__main__":
    main()
