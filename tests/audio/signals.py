# SPDX-License-Identifier: Apache-2.0
"""Synthetic test signals for the audio tests: speech-like voices, fricatives, clicks, chirps.

Shared by tests/fixtures/audio/make_audio_fixtures.py and check_audio_vs_torchaudio.py. Every
function returns float64 samples in [-1, 1]; `to_pcm16` quantises them as a 16-bit WAV would.
"""
import numpy as np


def _envelope(n, sr, segments):
    """Raised-cosine syllables: `segments` is a list of (start s, end s)."""
    env = np.zeros(n)
    t = np.arange(n) / sr
    for start, end in segments:
        inside = (t >= start) & (t < end)
        phase = (t[inside] - start) / (end - start)
        env[inside] = np.maximum(env[inside], np.sin(np.pi * phase) ** 0.7)
    return env


def voice(n, sr, f0_start, f0_end, formants, rng, segments=((0.08, 0.36), (0.45, 0.9))):
    """Voiced speech-like sound: harmonics of a gliding f0 with vibrato, shaped by moving formants
    (list of ((F start, F end) Hz, bandwidth Hz, gain)), in syllables, with breath noise."""
    t = np.arange(n) / sr
    f0 = np.linspace(f0_start, f0_end, n) * (1 + 0.03 * np.sin(2 * np.pi * 5.5 * t))
    phase = 2 * np.pi * np.cumsum(f0) / sr
    x = np.zeros(n)
    for k in range(1, int(sr / 2 / max(f0_start, f0_end))):
        fk = k * f0
        amp = np.zeros(n)
        for (fa, fb), bw, gain in formants:
            fc = np.linspace(fa, fb, n)
            amp += gain / (1 + ((fk - fc) / bw) ** 2)
        amp *= fk < sr / 2 * 0.95
        x += amp / k ** 0.5 * np.cos(k * phase + rng.uniform(0, 2 * np.pi))
    x = x / np.max(np.abs(x)) * _envelope(n, sr, segments)
    x += 0.01 * rng.standard_normal(n) * _envelope(n, sr, segments)
    return 0.5 * x / np.max(np.abs(x))


def fricative(n, sr, rng, start, end, level=0.2):
    """An 's'-like burst: high-passed noise in one raised-cosine segment."""
    noise = np.diff(rng.standard_normal(n + 1))
    return level * noise / np.max(np.abs(noise)) * _envelope(n, sr, [(start, end)])


def chirp(n, sr, f_start, f_end, level=0.4):
    """A logarithmic sweep from f_start to f_end Hz."""
    t = np.arange(n) / sr
    duration = n / sr
    k = (f_end / f_start) ** (1 / duration)
    return level * np.sin(2 * np.pi * f_start * (k ** t - 1) / np.log(k))


def clicks(n, every, level=0.9):
    """Single-sample impulses every `every` samples, alternating in sign."""
    x = np.zeros(n)
    x[every // 2::every] = level
    x[every // 2 + every::2 * every] = -level
    return x


def speech_like(n, sr, rng):
    """A random voice: f0, formant paths and syllable timing drawn from rng."""
    f0a = rng.uniform(90, 250)
    f0b = f0a * rng.uniform(0.75, 1.3)
    formants = [((rng.uniform(250, 800), rng.uniform(250, 800)), 80, 1.0),
                ((rng.uniform(900, 2300), rng.uniform(900, 2300)), 120, 0.5),
                ((rng.uniform(2400, 3400), rng.uniform(2400, 3400)), 200, 0.25)]
    dur = n / sr
    a = rng.uniform(0.02, 0.2) * dur
    b = a + rng.uniform(0.2, 0.4) * dur
    c = min(b + rng.uniform(0.05, 0.15) * dur, 0.95 * dur)
    x = voice(n, sr, f0a, f0b, formants, rng, segments=((a, b), (c, dur * 0.97)))
    if rng.uniform() < 0.5:
        x += fricative(n, sr, rng, b, c, level=rng.uniform(0.05, 0.3))
    return x * rng.uniform(0.05, 1.0)


def to_pcm16(x):
    """Samples in [-1, 1] to int16 as a WAV file stores them (clipped, rounded)."""
    return np.clip(np.round(np.asarray(x) * 32768), -32768, 32767).astype(np.int16)


def from_pcm16(pcm):
    """int16 samples to float32 in [-1, 1): value / 32768."""
    return (np.asarray(pcm).astype(np.float32) / np.float32(32768))
