#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the MSWC FSCIL example's networks as TorchScript through python/neurobench_export
(which checks each file against the eager network before writing it):

- models/mswc_cnn_proto.pt: NeuroBench's M5 prototype CNN, full size (seed 0);
- models/mswc_rsnn_128.pt: its spiking network (sparchSNNs RadLIF) at reduced width, two
  hidden layers of 128 neurons instead of 1024 (seed 1), small enough to commit; --full writes
  the full network, models/mswc_rsnn_proto.pt (two layers of 1024, about 3.3 M parameters,
  13 MB), which is not committed.

Untrained, the networks have NeuroBench's parameter counts, footprints and dense operation
counts (the reduced spiking network has its own); their accuracies are those of random
features. With NeuroBench's trained checkpoints (examples/mswc_fscil/model_data/mswc_cnn_proto
and mswc_rsnn_proto in NeuroBench's repository, plain state_dicts) they are NeuroBench's
networks:

    /usr/bin/python3 examples/mswc_fscil/make_models.py --full \
        --cnn-weights mswc_cnn_proto --snn-weights mswc_rsnn_proto --out my_models

Needs torch only.
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

REDUCED = (128, 128)
FULL = (1024, 1024)


def load(net, weights, what):
    if not weights:
        print(f"{what}: initialised from its seed (untrained)")
        return
    state = torch.load(weights, map_location="cpu")
    missing, unexpected = net.load_state_dict(state, strict=False)
    # sparch's readout has no bias (use_readout_bias=False); NeuroBench's example gives its
    # prototype readout one, which the prototypes overwrite for every class seen.
    allowed = {k for k in missing if k.endswith(".W.bias")}
    if set(missing) - allowed or unexpected:
        raise SystemExit(f"{weights}: not {what}'s state_dict: missing {sorted(missing)}, "
                         f"unexpected {sorted(unexpected)}")
    with torch.no_grad():
        for k in allowed:
            net.get_parameter(k).zero_()
        for m in net.modules():
            if isinstance(m, networks.RadLIFLayer):
                m.V.weight.fill_diagonal_(0.0)  # what sparch does at every call
    print(f"{what}: weights from {weights}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "models"), help="folder to write")
    parser.add_argument("--full", action="store_true",
                        help="the full spiking network (1024, 1024) instead of (128, 128)")
    parser.add_argument("--cnn-weights", help="NeuroBench's mswc_cnn_proto (a state_dict)")
    parser.add_argument("--snn-weights", help="NeuroBench's mswc_rsnn_proto (needs --full)")
    args = parser.parse_args()
    if args.snn_weights and not args.full:
        parser.error("--snn-weights needs --full (NeuroBench's network has 1024-neuron layers)")
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)

    torch.manual_seed(0)
    cnn = networks.M5().eval()
    load(cnn, args.cnn_weights, "M5")
    gen = torch.Generator().manual_seed(2)
    # MFCC-like values: (batch, 1, 20, 201) as the pipeline gives them.
    example = 20 * torch.randn(4, 1, networks.MFCC_CHANNELS, networks.FRAMES, generator=gen)
    path = os.path.join(args.out, "mswc_cnn_proto.pt")
    print(export(cnn, path, example_input=example, stepwise=False))
    print(f"wrote {path}")

    torch.manual_seed(1)
    snn = networks.SNN(FULL if args.full else REDUCED).eval()
    load(snn, args.snn_weights, "SNN")
    # Speech2Spikes events in {-1, 0, 1}: (batch, 201, 20).
    events = torch.randint(-1, 2, (4, networks.FRAMES, networks.S2S_MELS), generator=gen)
    path = os.path.join(args.out, "mswc_rsnn_proto.pt" if args.full else "mswc_rsnn_128.pt")
    # sparch draws its initial states from torch's generator: both sides of the check get the
    # same draws.
    print(export(snn, path, example_input=events.float(), stepwise=False, same_draws=True))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
