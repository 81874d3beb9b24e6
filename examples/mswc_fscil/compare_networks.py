#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks networks.py against NeuroBench's own network files: NeuroBench's M5 and sparch SNN,
built as its examples/mswc_fscil/mswc_fscil.py builds them (the SNN at the width asked) from a
seed, their state_dicts loaded into ours by make_models.py's loader, the outputs (and the CNN's
features) compared bit for bit on random inputs from the same generator state.

  /usr/bin/python3 examples/mswc_fscil/compare_networks.py \
      --neurobench-example path/to/neurobench/examples/mswc_fscil [--width 1024]

Needs torch and numpy. Exits 0 when every output is equal, 1 otherwise.
"""
import argparse
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_models  # noqa: E402
import networks  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--neurobench-example", required=True,
                        help="NeuroBench's examples/mswc_fscil (M5.py, sparchSNNs.py)")
    parser.add_argument("--width", type=int, default=64, help="the SNN's hidden layer width")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.neurobench_example))
    from M5 import M5  # NeuroBench's
    from sparchSNNs import SNN  # NeuroBench's
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        torch.manual_seed(args.seed)
        theirs = M5(n_input=20, stride=2, n_channel=256, n_output=200, input_kernel=4,
                    pool_kernel=2, drop=True).eval()
        torch.save(theirs.state_dict(), os.path.join(tmp, "cnn"))
        ours = networks.M5().eval()
        make_models.load(ours, os.path.join(tmp, "cnn"), "M5")
        x = 20 * torch.randn(6, 1, networks.MFCC_CHANNELS, networks.FRAMES)
        with torch.no_grad():
            if not torch.equal(theirs(x.squeeze()), ours(x)):
                problems.append("M5: the outputs differ")
            if not torch.equal(theirs(x.squeeze(), features_out=True), ours.features(x)):
                problems.append("M5: the features differ")

        torch.manual_seed(args.seed)
        theirs = SNN(input_shape=(256, networks.FRAMES, networks.S2S_MELS),
                     neuron_type="RadLIF", layer_sizes=[args.width, args.width, 200],
                     normalization="batchnorm", dropout=0.1, bidirectional=False,
                     use_readout_layer=True).eval()
        with torch.no_grad():  # batch norm statistics other than the initial ones
            for m in theirs.modules():
                if isinstance(m, torch.nn.BatchNorm1d):
                    m.running_mean.uniform_(-0.5, 0.5)
                    m.running_var.uniform_(0.5, 2)
        torch.save(theirs.state_dict(), os.path.join(tmp, "snn"))
        ours = networks.SNN((args.width, args.width)).eval()
        make_models.load(ours, os.path.join(tmp, "snn"), "SNN")
        x = torch.randint(-1, 2, (6, networks.FRAMES, networks.S2S_MELS)).float()
        with torch.no_grad():
            torch.manual_seed(args.seed + 1)
            a = theirs(x)
            torch.manual_seed(args.seed + 1)
            b = ours(x)
            if not torch.equal(a, b):
                problems.append(f"SNN: the outputs differ (max |diff| {(a - b).abs().max()})")
            torch.manual_seed(args.seed + 1)
            f = x
            for layer in theirs.snn[:-1]:
                f = layer(f)
            torch.manual_seed(args.seed + 1)
            if not torch.equal(f, ours.features(x)):
                problems.append("SNN: the features differ")
    for p in problems:
        print("FAIL " + p)
    if not problems:
        print(f"ok   M5 and SNN (width {args.width}): outputs and features equal NeuroBench's, "
              "bit for bit")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
