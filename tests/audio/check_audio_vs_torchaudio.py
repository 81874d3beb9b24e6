#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The audio pre-processors against their references on signals made at run time.

  check_audio_vs_torchaudio.py --apply-pre PATH/neurobench_apply_pre --work DIR

For several seeds and batch sizes it makes speech-like clips (random voices, fricatives, noise,
chirps, clicks, silence, clipping, very quiet ones), runs them through neurobench_apply_pre and
through the references, and checks:
  - MFCCPreProcessor against NeuroBench's MFCCPreProcessor (torchaudio's MFCC), 3-d and 2-d
    batches, default and custom melkwargs: within 1e-4 relative (absolute floor 1e-3);
  - Resample against torchaudio.transforms.Resample after NeuroBench's permute: within 1e-4
    relative (absolute floor 1e-6);
  - S2SPreProcessor against S2S written from its specification (s2s_reference.py): events equal
    on at least 99.9% of entries, and every series that differs first differs where the
    reference's value - level is within 1e-4 of the threshold.
It prints the largest relative errors and the S2S agreement. Exit 0 on success, 1 on a failed
check, 77 (skipped) without torchaudio or NeuroBench (../shared/third_party/neurobench, or
$NEUROBENCH_THIRD_PARTY/neurobench).
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
THIRD_PARTY = os.environ.get("NEUROBENCH_THIRD_PARTY",
                             os.path.join(HERE, "..", "..", "..", "shared", "third_party"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(THIRD_PARTY, "neurobench"))

try:
    import numpy as np
    import torch
    import torchaudio
    from neurobench.processors.preprocessors import MFCCPreProcessor
except ImportError as e:  # the reference is missing: skip
    print(f"skipped: {e}")
    sys.exit(77)

import s2s_reference  # noqa: E402
import signals  # noqa: E402

SR = 16000
RTOL = 1e-4
failures = []
worst = {}


def make_batch(rng, batch, n=SR):
    """`batch` clips of n samples: mostly random voices, plus one of each special kind."""
    kinds = ["voice", "voice", "noise", "chirp", "silence", "clipped", "quiet", "clicks"]
    clips = []
    for i in range(batch):
        kind = kinds[i % len(kinds)] if i > 0 else "voice"
        if kind == "voice":
            x = signals.speech_like(n, SR, rng)
        elif kind == "noise":
            x = signals.fricative(n, SR, rng, 0.1, 0.8, level=rng.uniform(0.05, 0.8))
        elif kind == "chirp":
            x = signals.chirp(n, SR, rng.uniform(20, 200), rng.uniform(3000, 7900))
        elif kind == "silence":
            x = np.zeros(n)
        elif kind == "clipped":
            x = np.clip(10 * signals.speech_like(n, SR, rng), -1, 1)
        elif kind == "quiet":
            x = 1e-4 * signals.speech_like(n, SR, rng)
        else:
            x = signals.clicks(n, int(rng.integers(200, 3000)), rng.uniform(0.1, 1.0))
        clips.append(signals.from_pcm16(signals.to_pcm16(x)))
    return np.stack(clips).astype(np.float32)


def apply_pre(args, data, *specs):
    path_in = os.path.join(args.work, "in.npz")
    path_out = os.path.join(args.work, "out.npz")
    np.savez(path_in, data=data)
    run = subprocess.run([args.apply_pre, path_in, path_out, *specs], capture_output=True,
                         text=True)
    if run.returncode != 0:
        raise SystemExit(f"neurobench_apply_pre {' '.join(specs)} failed: {run.stderr}")
    with np.load(path_out) as out:
        return out["data"]


def compare(name, ours, ref, atol):
    ref = np.asarray(ref, dtype=np.float64)
    ours = np.asarray(ours, dtype=np.float64)
    if ours.shape != ref.shape:
        failures.append(f"{name}: shape {ours.shape}, reference {ref.shape}")
        return
    err = np.abs(ours - ref)
    big = np.abs(ref) > atol
    rel = float(np.max(err[big] / np.abs(ref[big]))) if big.any() else 0.0
    worst[name] = max(worst.get(name, 0.0), rel)
    bad = err > RTOL * np.abs(ref) + atol
    if bad.any():
        failures.append(f"{name}: {int(bad.sum())} of {bad.size} entries outside rtol {RTOL} "
                        f"atol {atol} (max abs error {err.max():.3g}, max rel {rel:.3g})")


s2s_stats = {"entries": 0, "differing": 0}


def check_s2s(name, ours, data, threshold=1.0):
    ref, _, diffs = s2s_reference.s2s(data, threshold=threshold)
    if ours.shape != ref.shape:
        failures.append(f"{name}: shape {ours.shape}, reference {ref.shape}")
        return
    differs = ours != ref
    s2s_stats["entries"] += differs.size
    s2s_stats["differing"] += int(differs.sum())
    agreement = 1 - differs.mean()
    if agreement < 0.999:
        failures.append(f"{name}: S2S events agree on {agreement:.5f} of entries (< 0.999)")
    dropped = diffs.shape[-1] - ref.shape[1]
    for b, m in sorted({(b, m) for b, _, m in zip(*np.nonzero(differs))}):
        t = int(np.nonzero(differs[b, :, m])[0][0]) + dropped
        d = float(diffs[b, m, t])
        if abs(abs(d) - threshold) > 1e-4:
            failures.append(f"{name}: clip {b} band {m} first differs at frame {t}, where the "
                            f"reference's value - level is {d}, not on the threshold")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apply-pre", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(1)
    melkwargs = dict(n_fft=512, hop_length=128, n_mels=64, f_min=30.0, f_max=7000.0,
                     mel_scale="slaney", norm="slaney")
    melkwargs_json = ('{"n_fft":512,"hop_length":128,"n_mels":64,"f_min":30,"f_max":7000,'
                      '"mel_scale":"slaney","norm":"slaney"}')
    # The checks themselves: a perturbation of 1e-3 relative must fail the comparison.
    probe = np.linspace(-1, 1, 101)
    compare("self-check", probe * (1 + 1e-3), probe, 1e-6)
    if len(failures) != 1:
        raise SystemExit("self-check: compare() did not flag a 1e-3 relative error")
    failures.clear()
    del worst["self-check"]
    for seed, batch in [(0, 1), (1, 3), (2, 8), (3, 5), (4, 16)]:
        rng = np.random.default_rng(1000 + seed)
        clips = make_batch(rng, batch)  # (batch, 16000)
        data = clips[:, :, None]
        with torch.no_grad():
            # S2S, NeuroBench's settings; and a shorter clip with another threshold.
            check_s2s("S2S", apply_pre(args, data, "S2SPreProcessor"), clips)
            short = clips[:, :12000]
            check_s2s("S2S threshold 0.5, 12000 samples",
                      apply_pre(args, short[:, :, None], "S2SPreProcessor:threshold=0.5"), short,
                      threshold=0.5)
            # MFCC: NeuroBench's pre-processor on the same batch.
            ref, _ = MFCCPreProcessor()((torch.from_numpy(data), None))
            compare("MFCC (batch, timesteps, 1)", apply_pre(args, data, "MFCCPreProcessor"),
                    ref.numpy(), 1e-3)
            ref, _ = MFCCPreProcessor()((torch.from_numpy(clips.copy()), None))
            compare("MFCC (batch, timesteps)", apply_pre(args, clips, "MFCCPreProcessor"),
                    ref.numpy(), 1e-3)
            ref, _ = MFCCPreProcessor(n_mfcc=20, log_mels=bool(seed % 2), melkwargs=melkwargs)(
                (torch.from_numpy(data), None))
            ours = apply_pre(args, data, f"MFCCPreProcessor:n_mfcc=20,"
                                         f"log_mels={'true' if seed % 2 else 'false'},"
                                         f"melkwargs={melkwargs_json}")
            compare("MFCC custom melkwargs", ours, ref.numpy(), 1e-3)
            # Resample: NeuroBench's GSC example, and 44.1 kHz stereo to 16 kHz.
            ref = torchaudio.transforms.Resample(16000, 8000)(torch.from_numpy(data).permute(0, 2, 1))
            compare("Resample 16000 -> 8000", apply_pre(args, data, "Resample"), ref.numpy(), 1e-6)
            stereo = np.stack([clips[:, :8820], clips[:, 8820:17640] if clips.shape[1] >= 17640
                               else clips[:, ::-1][:, :8820]], axis=2).copy()
            # torchaudio's view() refuses the permuted stereo batch; neurobench takes it.
            ref = torchaudio.transforms.Resample(44100, 16000)(
                torch.from_numpy(stereo).permute(0, 2, 1).contiguous())
            compare("Resample 44100 -> 16000, 2 channels",
                    apply_pre(args, stereo, "Resample:orig_freq=44100,new_freq=16000"),
                    ref.numpy(), 1e-6)
    for name, rel in worst.items():
        print(f"{name}: max relative error {rel:.3g}")
    agreement = 1 - s2s_stats["differing"] / s2s_stats["entries"]
    print(f"S2S: {s2s_stats['differing']} of {s2s_stats['entries']} events differ "
          f"(agreement {agreement:.6f})")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
