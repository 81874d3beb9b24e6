#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the Primate Reaching example's networks as TorchScript, for both monkeys' channel
counts (indy: 96, loco: 192): models/snn2_C.pt (through python/neurobench_export.py, which keeps
the snnTorch neurons' state and checks the file against the eager network) and models/ann2d_C.pt
(torch.jit.script).

Without weights the networks are initialised from a fixed seed: their footprint and dense
operation counts are NeuroBench's, their R2 is that of an untrained network. With NeuroBench's
trained weights of one session (examples/primate_reaching/model_data in NeuroBench's
repository: SNN2_indy_20160622_01.pt, 2D_ANN_Weight/indy_20160622_01_model_state_dict.pth)
they are the networks of NeuroBench's published rows for that session:

    PYTHONPATH=path/to/snntorch /usr/bin/python3 examples/primate_reaching/make_models.py \
        --channels 96 --snn-weights SNN2_indy_20160622_01.pt \
        --ann-weights indy_20160622_01_model_state_dict.pth --out my_models

Needs torch and snnTorch; the committed models/ were written by this script with no weights.
"""
import argparse
import copy
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
    parser.add_argument("--channels", type=int, action="append",
                        help="input channels (default: 96 and 192)")
    parser.add_argument("--snn-weights", help="NeuroBench's SNN2_<session>.pt checkpoint")
    parser.add_argument("--ann-weights", help="NeuroBench's 2D ANN state_dict of a session")
    args = parser.parse_args()
    channels = args.channels or [96, 192]
    if (args.snn_weights or args.ann_weights) and len(channels) != 1:
        parser.error("trained weights are for one session: give its --channels")
    os.makedirs(args.out, exist_ok=True)
    for c in channels:
        torch.manual_seed(0)
        snn = networks.SNN2(input_size=c)
        if args.snn_weights:
            # NeuroBench's checkpoints hold {'model_state_dict': ...}, loaded non-strictly.
            state = torch.load(args.snn_weights, map_location="cpu")["model_state_dict"]
            snn.load_state_dict(state, strict=False)
        snn.reset()
        snn.eval()
        generator = torch.Generator().manual_seed(1)
        example = (torch.rand(64, 1, c, generator=generator) < 0.05).float()
        export(snn, os.path.join(args.out, f"snn2_{c}.pt"), example_input=example,
               stepwise=False)

        torch.manual_seed(0)
        ann = networks.ANN2D(input_dim=c)
        if args.ann_weights:
            ann.load_state_dict(torch.load(args.ann_weights, map_location="cpu"))
        ann.eval()
        # The check runs copies: the saved network keeps its initial (1, channels) buffer of
        # zeros, the state NeuroBench's Footprint counts.
        counts = (torch.rand(80, 1, c, generator=generator) < 0.05).float()
        eager, scripted = copy.deepcopy(ann), torch.jit.script(copy.deepcopy(ann))
        if not torch.equal(scripted(counts), eager(counts)):
            sys.exit("make_models: the scripted ANN differs from the eager network")
        torch.jit.script(ann).save(os.path.join(args.out, f"ann2d_{c}.pt"))
        print(f"wrote {args.out}/snn2_{c}.pt and {args.out}/ann2d_{c}.pt")


if __name__ == "__main__":
    main()
