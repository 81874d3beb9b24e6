#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Throughput of the audio pre-processors next to torchaudio's, clips per second on one thread.

  /usr/bin/python3 benchmarks/audio_throughput.py --cpp build/release/benchmarks/audio_throughput

Times the same work in Python (torch.set_num_threads(1)) on a batch of --clips one-second clips
(clips, 16000, 1):
  S2S        torchaudio's MelSpectrogram (n_fft 512, hop 80, 20 mels, 20 Hz-4 kHz), log(x + 1e-6),
             delta modulation in torch (vectorised over clips and bands, a loop over frames),
             the first frame dropped, (clips, 200, 20)
  MFCC       NeuroBench's MFCCPreProcessor (torchaudio's MFCC, NeuroBench's defaults)
  Resample   NeuroBench's GSC example: permute, torchaudio.transforms.Resample(16000, 8000)
runs the C++ benchmark (--cpp) with the same sizes, and prints both, with the ratio. Each is
also timed on a few clips at a time, as neurobench works internally, so that the ratio due to
torchaudio making whole-batch intermediates (the complex STFT of 100 clips is 41 MB for S2S)
can be told from the rest.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import torch
import torchaudio

HERE = os.path.dirname(os.path.abspath(__file__))
THIRD_PARTY = os.environ.get("NEUROBENCH_THIRD_PARTY",
                             os.path.join(HERE, "..", "..", "shared", "third_party"))
sys.path.insert(0, os.path.join(THIRD_PARTY, "neurobench"))
from neurobench.processors.preprocessors import MFCCPreProcessor  # noqa: E402


class S2S:
    """S2S from its specification, in torch (as tests/audio/s2s_reference.py, vectorised)."""

    def __init__(self):
        self.mel = torchaudio.transforms.MelSpectrogram(16000, n_fft=512, hop_length=80,
                                                        n_mels=20, f_min=20.0, f_max=4000.0)

    def __call__(self, data):
        x = torch.log(self.mel(data.permute(0, 2, 1)) + 1e-6)  # (clips, 1, 20, frames)
        level = torch.round(x[..., 0])
        events = torch.empty_like(x)
        for t in range(x.shape[-1]):
            d = x[..., t] - level
            e = (d > 1).float() - (d < -1).float()
            level = level + e
            events[..., t] = e
        if events.shape[-1] == 16000 // 80 + 1:
            events = events[..., 1:]
        return events.squeeze(1).transpose(1, 2).contiguous()


class Chunked:
    """`f` on `size` clips at a time: what torchaudio costs when the complex STFT of the whole
    batch is not made at once (neurobench works this way)."""

    def __init__(self, f, size):
        self.f = f
        self.size = size

    def __call__(self, data):
        return torch.cat([self.f(data[i:i + self.size]) for i in range(0, len(data), self.size)])


class Resample:
    def __init__(self):
        self.resample = torchaudio.transforms.Resample(16000, 8000)

    def __call__(self, data):
        return self.resample(data.permute(0, 2, 1))


def time_it(f, data, repeats):
    f(data)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f(data)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpp", help="the C++ benchmark, build/release/benchmarks/audio_throughput")
    parser.add_argument("--clips", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    data = (torch.randn(args.clips, 16000, 1) * 0.1).clamp(-1, 1)
    mfcc = MFCCPreProcessor()
    python = {}
    with torch.no_grad():
        python["S2SPreProcessor"] = time_it(S2S(), data, args.repeats)
        python["  by 5 clips"] = time_it(Chunked(S2S(), 5), data, args.repeats)
        python["MFCCPreProcessor"] = time_it(lambda d: mfcc((d, None)), data, args.repeats)
        python["  by 16 clips"] = time_it(Chunked(lambda d: mfcc((d, None))[0], 16), data,
                                          args.repeats)
        python["Resample"] = time_it(Resample(), data, args.repeats)
        python["  by 4 clips"] = time_it(Chunked(Resample(), 4), data, args.repeats)
    cpp = {}
    if args.cpp:
        out = subprocess.run([args.cpp, "--clips", str(args.clips), "--repeats",
                              str(args.repeats)], check=True, capture_output=True, text=True)
        for line in out.stdout.splitlines():
            name, _, ms = line.split()
            cpp[name] = float(ms) / 1e3
    print(f"{args.clips} clips of 16000 samples, one thread, median of {args.repeats}")
    print(f"{'pre-processor':<18} {'torchaudio clips/s':>19} {'neurobench clips/s':>19} "
          f"{'ratio':>6}")
    for name, t in python.items():
        line = f"{name:<18} {args.clips / t:>19.0f}"
        if name.startswith(" "):
            line += f" {'':>19} {t / cpp[current]:>6.2f}" if current in cpp else ""
        else:
            current = name
            if name in cpp:
                line += f" {args.clips / cpp[name]:>19.0f} {t / cpp[name]:>6.2f}"
        print(line)
    print("ratio: torchaudio's time / neurobench's (above 1: neurobench is faster); the indented "
          "rows run torchaudio on a few clips at a time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
