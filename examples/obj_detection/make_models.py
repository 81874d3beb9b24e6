#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes NeuroBench's two object detectors (networks.py: the RED ANN and the hybrid spiking
RED, each with metavision's BoxHead and anchor decoding) as TorchScript, each checked against
the eager network before it is written.

    /usr/bin/python3 examples/obj_detection/make_models.py             # models/*_small.pt
    /usr/bin/python3 examples/obj_detection/make_models.py --size full --out my_models

- `--size small` (the committed models/ann_small.pt, models/hybrid_small.pt): 2 input channels
  (the gen4-detection kind's default histograms), base 4, 16 feature channels; about 1 MB each,
  fast enough for the tests on any frame size.
- `--size full`: NeuroBench's networks, `Vanilla(cin=6, cout=256, base=16)` and
  `Vanilla_lif(...)`: 96 MB (ANN) and 17 MB (hybrid), too large to commit; written here on
  demand. With `--ann-weights 25_ann_model.pth --ann-head 25_ann_pd.pth` and/or
  `--hybrid-weights 14_hybrid_model.pth --hybrid-head 14_hybrid_pd.pth` (NeuroBench's
  examples/obj_detection/model_data/save_models, plain state_dicts) the networks are
  NeuroBench's trained ones, loaded strictly.

Untrained networks are initialised from seed 0 (ANN) and seed 1 (hybrid) with PyTorch's default
initialisation, then every batch norm's weight, bias and running statistics are drawn from the
same generator (weight U(1, 3), bias U(-0.5, 1), mean N(0, 0.1), variance U(0.5, 1.5)), so that
in eval mode the LIF levels spike and the ReLUs are partly active; their detections are
meaningless, their figures depend only on the architecture and these draws.

`--no-reset` writes models whose `reset_slots` does nothing (`reset_at_recording_start =
False`): NeuroBench's example, which never resets the recurrent state (README.md).
Needs torch only (Debian's python3-torch 1.13 writes the committed files).
"""
import argparse
import copy
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import networks  # noqa: E402

SIZES = {"small": dict(cin=2, base=4, cout=16), "full": dict(cin=6, base=16, cout=256)}
SEEDS = {"ann": 0, "hybrid": 1}
# The frames of the export check: (height, width) per size.
CHECK_FRAMES = {"small": (64, 64), "full": (360, 640)}


def untrained(kind, size):
    """The network of `kind` at `size`, from its seed, batch norms drawn as the docstring says."""
    torch.manual_seed(SEEDS[kind])
    model = networks.make(kind, **SIZES[size])
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(1.0, 3.0)
                m.bias.uniform_(-0.5, 1.0)
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    return model.eval()


def load_checkpoints(model, net_path, head_path):
    """NeuroBench's published state_dicts, strictly: the network's into model.net, the head's
    into model.head."""
    model.net.load_state_dict(torch.load(net_path, map_location="cpu"), strict=True)
    model.head.load_state_dict(torch.load(head_path, map_location="cpu"), strict=True)


def check_batches(size, batch=2, tbins=3, batches=3, seed=7):
    """Input batches (B, T, C, H, W) and their starts_recording masks for the export check:
    slot 0 starts a recording at batch 0, slot 1 at batches 0 and 2."""
    g = torch.Generator().manual_seed(seed)
    h, w = CHECK_FRAMES[size]
    cin = SIZES[size]["cin"]
    data = [torch.rand(batch, tbins, cin, h, w, generator=g) * 2 for _ in range(batches)]
    masks = [torch.ones(batch, dtype=torch.bool)] + [
        torch.tensor([False, b == 2]) for b in range(1, batches)]
    return data, masks


def run(model, data, masks):
    """The outputs of consecutive batches, reset_slots before each as neurobench-cpp calls it."""
    outs = []
    with torch.no_grad():
        for x, m in zip(data, masks):
            model.reset_slots(m)
            outs.append(model(x))
    return outs


def export(model, path, size):
    """Scripts `model` (a copy: the state of the check does not go in the file), checks the
    script against the eager network on consecutive batches with resets, writes it."""
    scripted = torch.jit.script(copy.deepcopy(model))
    data, masks = check_batches(size)
    eager = run(copy.deepcopy(model), data, masks)
    script = run(copy.deepcopy(scripted), data, masks)
    worst = max(float((a - b).abs().max()) for a, b in zip(eager, script))
    if worst > 1e-6:
        raise SystemExit(f"{path}: the script differs from the eager network by {worst}")
    scripted.save(path)
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "models"), help="folder to write")
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--no-reset", action="store_true",
                        help="reset_slots does nothing (NeuroBench's example never resets)")
    for kind in SEEDS:
        parser.add_argument(f"--{kind}-weights", help=f"NeuroBench's {kind} network state_dict")
        parser.add_argument(f"--{kind}-head", help=f"NeuroBench's {kind} BoxHead state_dict")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    suffix = "_small" if args.size == "small" else ""
    for kind in SEEDS:
        model = untrained(kind, args.size)
        weights, head = getattr(args, f"{kind}_weights"), getattr(args, f"{kind}_head")
        if weights or head:
            if args.size != "full" or not (weights and head):
                raise SystemExit(f"--{kind}-weights and --{kind}-head go together, with --size "
                                 "full")
            load_checkpoints(model, weights, head)
            print(f"{kind}: NeuroBench's weights from {weights} and {head}")
        model.reset_at_recording_start = not args.no_reset
        path = os.path.join(args.out, f"{kind}{suffix}{'_no_reset' if args.no_reset else ''}.pt")
        worst = export(model, path, args.size)
        print(f"wrote {path} (script vs eager: {worst:.3g})")


if __name__ == "__main__":
    main()
