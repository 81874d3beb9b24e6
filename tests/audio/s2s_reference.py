# SPDX-License-Identifier: Apache-2.0
"""Speech2Spikes written from NeuroBench's description (issue 12) and the paper (Stewart et al.,
NICE 2023), as the reference of the S2S tests; no speech2spikes code was used (its licence is
non-commercial).

  mel spectrogram (torchaudio's MelSpectrogram: sample rate 16 kHz, n_fft 512, hop 80, 20 mels
  from 20 Hz to 4 kHz, otherwise its defaults) -> log(x + 1e-6) -> delta modulation per mel band
  along time: level = round(x[0]) (half to even); at every frame d = x - level, event +1 when
  d > threshold, -1 when d < -threshold, else 0; level += event * threshold.
  Output (batch, frames, n_mels), the first frame dropped when there are
  sample_rate // hop_length + 1 frames.
"""
import numpy as np


def log_mel(waveforms, sample_rate=16000, n_fft=512, hop_length=80, n_mels=20, f_min=20.0,
            f_max=4000.0):
    """(batch, samples) float32 -> log(mel + 1e-6), (batch, n_mels, frames) float32 (numpy)."""
    import torch
    import torchaudio
    mel = torchaudio.transforms.MelSpectrogram(sample_rate=sample_rate, n_fft=n_fft,
                                               hop_length=hop_length, n_mels=n_mels, f_min=f_min,
                                               f_max=f_max)
    with torch.no_grad():
        return torch.log(mel(torch.from_numpy(np.ascontiguousarray(waveforms))) + 1e-6).numpy()


def delta_modulate(x, threshold=1.0):
    """Events of x (..., time) float32 along the last axis, in float32 arithmetic, and the
    difference value - level at every step (before the level moves)."""
    x = np.asarray(x, dtype=np.float32)
    th = np.float32(threshold)
    events = np.zeros_like(x)
    diffs = np.zeros_like(x)
    level = np.round(x[..., 0]).astype(np.float32)  # numpy rounds half to even, as torch.round
    for t in range(x.shape[-1]):
        d = (x[..., t] - level).astype(np.float32)
        e = np.where(d > th, 1, np.where(d < -th, -1, 0)).astype(np.float32)
        level = (level + e * th).astype(np.float32)
        events[..., t] = e
        diffs[..., t] = d
    return events, diffs


def s2s(waveforms, threshold=1.0, sample_rate=16000, hop_length=80, **mel_options):
    """(batch, samples) float32 -> (events (batch, frames, n_mels), log mel (batch, n_mels,
    frames before the drop), diffs (batch, n_mels, frames before the drop))."""
    lm = log_mel(waveforms, sample_rate=sample_rate, hop_length=hop_length, **mel_options)
    events, diffs = delta_modulate(lm, threshold)
    if events.shape[-1] == sample_rate // hop_length + 1:
        events = events[..., 1:]
    return np.ascontiguousarray(events.transpose(0, 2, 1)), lm, diffs
