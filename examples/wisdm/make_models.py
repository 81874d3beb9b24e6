#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the WISDM example's network as TorchScript, models/scnn.pt, through
python/neurobench_export.py (which keeps the snnTorch neurons' state and checks the file
against the eager network).

Without weights the network is initialised from a fixed seed: its footprint, parameter count
and dense operation count are those of NeuroBench's network, its accuracy is chance. With
NeuroBench's trained checkpoint (examples/nehar/model_data/WISDM_snnTorch.ckpt in NeuroBench
2.3.0's repository, a PyTorch Lightning checkpoint whose `state_dict` holds the network under
`model.`) it is the network of NeuroBench's WISDM benchmark:

    PYTHONPATH=path/to/snntorch /usr/bin/python3 examples/wisdm/make_models.py \
        --weights WISDM_snnTorch.ckpt --out my_models

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
    """Loads a plain `state_dict` or a Lightning checkpoint (`state_dict` with `model.` keys)."""
    if not weights:
        print("SCNN: initialised from seed 0 (untrained)")
        return
    state = torch.load(weights, map_location="cpu")
    if isinstance(state, dict) and "state_dict" in state:
        state = state["state_dict"]
    prefix = "model."
    if all(k.startswith(prefix) for k in state):
        state = {k[len(prefix):]: v for k, v in state.items()}
    net.load_state_dict(state)
    print(f"SCNN: weights from {weights}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "models"), help="folder to write")
    parser.add_argument("--weights", help="NeuroBench's WISDM_snnTorch.ckpt (or a state_dict)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(0)
    net = networks.SCNN()
    load(net, args.weights)
    # A batch of 16 windows of 40 timesteps, values like the release's (standardised signals).
    generator = torch.Generator().manual_seed(1)
    example = torch.randn(16, networks.TIMESTEPS, networks.CHANNELS, generator=generator)
    path = os.path.join(args.out, "scnn.pt")
    export(net, path, example_input=example, custom_forward=True)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
