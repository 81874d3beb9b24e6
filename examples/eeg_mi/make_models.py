#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the EEG motor imagery example's network as TorchScript, models/eeg_snn.pt, through
python/neurobench_export (which checks the file against the eager network before writing it).

Without weights the network is initialised from seed 0: its parameter count, footprint and
dense operation count are those of NeuroBench's network, its accuracy is chance. With
NeuroBench's trained weights (examples/eeg_mi/model_data/best_model.pt in NeuroBench's
repository, a plain `state_dict`) it is the network of NeuroBench's EEG motor imagery benchmark:

    PYTHONPATH=path/to/snntorch /usr/bin/python3 examples/eeg_mi/make_models.py \
        --weights best_model.pt --out my_models

Needs torch and snnTorch; the committed models/ were written by this script with no weights.
"""
import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import networks  # noqa: E402
from neurobench_export import export  # noqa: E402


def load(net, weights):
    """Loads NeuroBench's best_model.pt (a plain state_dict, as its benchmark.py loads it)."""
    if not weights:
        print("EEG_SNN: initialised from seed 0 (untrained)")
        return
    net.load_state_dict(torch.load(weights, map_location="cpu"))
    print(f"EEG_SNN: weights from {weights}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "models"), help="folder to write")
    parser.add_argument("--weights", help="NeuroBench's best_model.pt (a state_dict)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(0)
    net = networks.EEG_SNN()
    load(net, args.weights)
    # 8 trials of 250 timesteps: values large enough for every layer to spike, so that the
    # exporter's check sees spikes.
    generator = torch.Generator().manual_seed(1)
    example = 3 * torch.randn(8, networks.TIMESTEPS, networks.CHANNELS, generator=generator)
    path = os.path.join(args.out, "eeg_snn.pt")
    print(export(net, path, example_input=example, custom_forward=True))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
