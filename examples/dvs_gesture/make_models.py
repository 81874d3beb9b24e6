#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the DVS Gesture example's network as TorchScript, models/snn.pt, through
python/neurobench_export.py (which keeps the snnTorch neurons' state and checks the file
against the eager network).

Without weights the network is initialised from a fixed seed: its footprint, connection
sparsity and dense operation count are NeuroBench's, its accuracy is chance. With NeuroBench's
trained `state_dict` (examples/dvs_gesture/model_data/dvs_gesture_snn in NeuroBench's
repository) it is the network of NeuroBench's published row:

    PYTHONPATH=path/to/snntorch /usr/bin/python3 examples/dvs_gesture/make_models.py \
        --weights dvs_gesture_snn --out my_models

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "models"), help="folder to write")
    parser.add_argument("--weights", help="NeuroBench's dvs_gesture_snn state_dict")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(0)
    net = networks.Net()
    if args.weights:
        net.load_state_dict(torch.load(args.weights, map_location="cpu"))
        print(f"weights from {args.weights}")
    else:
        print("initialised from seed 0 (untrained)")
    net.eval()
    # One frame per call: 8 samples' event counts, mostly zero, in 2 x 32 x 32 pixels.
    generator = torch.Generator().manual_seed(1)
    counts = torch.poisson(torch.full((8,) + networks.FRAME, 0.3), generator=generator)
    print(export(net, os.path.join(args.out, "snn.pt"), example_input=counts, stepwise=True))


if __name__ == "__main__":
    main()
