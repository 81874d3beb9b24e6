#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the Speech Commands example's two networks as TorchScript: models/snn.pt (through
python/neurobench_export.py, which keeps the snnTorch neurons' state and checks the file
against the eager network) and models/ann.pt (torch.jit.script).

Without weights the networks are initialised from a fixed seed: their footprint and operation
counts are NeuroBench's, their accuracy is chance. With NeuroBench's trained `state_dict`s
(examples/gsc/model_data/s2s_gsc_snntorch and m5_ann in NeuroBench's repository) they are the
networks of NeuroBench's published rows:

    PYTHONPATH=path/to/snntorch /usr/bin/python3 examples/speech_commands/make_models.py \
        --snn-weights s2s_gsc_snntorch --ann-weights m5_ann --out my_models

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


def load(net, weights, what):
    if weights:
        state = torch.load(weights, map_location="cpu")
        net.load_state_dict(state)
        print(f"{what}: weights from {weights}")
    else:
        print(f"{what}: initialised from seed 0 (untrained)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "models"), help="folder to write")
    parser.add_argument("--snn-weights", help="NeuroBench's s2s_gsc_snntorch state_dict")
    parser.add_argument("--ann-weights", help="NeuroBench's m5_ann state_dict")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    torch.manual_seed(0)
    snn = networks.snn()
    load(snn, args.snn_weights, "SNN")
    # One Speech2Spikes frame per call: 16 clips' events, -1, 0 or +1 in each of 20 mel bands.
    generator = torch.Generator().manual_seed(1)
    example = torch.randint(-1, 2, (16, networks.MEL_BANDS), generator=generator).float()
    export(snn, os.path.join(args.out, "snn.pt"), example_input=example, stepwise=True)

    torch.manual_seed(0)
    m5 = networks.M5()
    load(m5, args.ann_weights, "ANN (M5)")
    m5.eval()
    scripted = torch.jit.script(m5)
    waveform = torch.randn(4, 1, 8000, generator=generator) * 0.1
    if not torch.equal(scripted(waveform), m5(waveform)):
        sys.exit("make_models: the scripted M5 differs from the eager network")
    scripted.save(os.path.join(args.out, "ann.pt"))
    print(f"wrote {args.out}/snn.pt and {args.out}/ann.pt")


if __name__ == "__main__":
    main()
