#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ Speech Commands data set with NeuroBench's own SpeechCommands loader (and
torchaudio's SPEECHCOMMANDS under it), live, sample by sample and exactly: the same clips in the
same order, bit-equal waveforms, equal labels, for every subset.

  /usr/bin/python3 tests/datasets/check_speech_commands.py --tool build/release/tests/neurobench_dump_dataset

Each run writes random Speech Commands-shaped folders (seeded: a few labels, some that sort
differently with and without the trailing '/', clips of random lengths up to one second, some
of a sample or two, hidden files, files that are not clips, noise, list files with './', '//'
and trailing spaces) in NeuroBench's layout ROOT/SpeechCommands/speech_commands_v0.02, so
that NeuroBench finds them and downloads nothing.

Checked, besides equality on the release's shape:
- without _background_noise_, NeuroBench numbers the labels from -1 and we from 0 (our choice,
  docs/speech-commands.md): its targets are ours minus one;
- a clip longer than one second: NeuroBench's loader raises on it; we refuse it by default and
  with long_clips=truncate give torchaudio's first 16000 samples.

Needs Debian's python3-torch, python3-torchaudio, python3-numpy and NeuroBench in
../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without them.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
RELEASE = os.path.join("SpeechCommands", "speech_commands_v0.02")
SUBSETS = {"training": "training", "validation": "validation", "testing": "testing", None: "all"}


def setup():
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    if not os.path.isdir(os.path.join(tp, "neurobench")):
        print(f"skipped: NeuroBench is not at {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, "snntorch"), os.path.join(tp, "neurobench")]
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
        import torchaudio  # noqa: F401
    except ImportError as e:
        print(f"skipped: {e} (Debian's python3-torch, python3-torchaudio, python3-numpy)")
        sys.exit(SKIP)


def write_wav(path, samples):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(int(s).to_bytes(2, "little", signed=True) for s in samples))


def random_clip(rng, n):
    out = [rng.randint(-32768, 32767) for _ in range(n)]
    if n >= 2:
        out[0], out[-1] = -32768, 32767  # the extremes, in every clip that has room
    return out


def make_release(folder, rng, noise=True):
    """A random release in `folder`; returns the relative paths of its clips."""
    labels = ["a", "a-b", "a.b", "bed", "off_on", "yes"]
    os.makedirs(folder)
    clips = []
    for label in labels:
        os.makedirs(os.path.join(folder, label))
        for k in range(rng.randint(3, 6)):
            n = rng.choice([16000, 16000, rng.randint(1, 16000), rng.randint(1, 3)])
            name = f"{rng.getrandbits(32):08x}_nohash_{k}.wav"
            write_wav(os.path.join(folder, label, name), random_clip(rng, n))
            clips.append(f"{label}/{name}")
    # A hidden clip: torchaudio's pathlib glob finds it, and so do we.
    write_wav(os.path.join(folder, "yes", ".0000hidden_nohash_0.wav"), random_clip(rng, 800))
    clips.append("yes/.0000hidden_nohash_0.wav")
    # Not clips: no _nohash_, not a WAV, a hidden folder without clips.
    write_wav(os.path.join(folder, "bed", "plain.wav"), random_clip(rng, 10))
    with open(os.path.join(folder, "bed", "notes.txt"), "w") as f:
        f.write("not audio\n")
    os.makedirs(os.path.join(folder, ".cache"))
    with open(os.path.join(folder, ".cache", "readme.txt"), "w") as f:
        f.write("hidden\n")
    if noise:
        os.makedirs(os.path.join(folder, "_background_noise_"))
        write_wav(os.path.join(folder, "_background_noise_", "white_noise.wav"),
                  random_clip(rng, 40000))
        write_wav(os.path.join(folder, "_background_noise_", "x_nohash_0.wav"),
                  random_clip(rng, 100))
    listed = rng.sample(clips, len(clips) // 2)
    validation, testing = listed[: len(listed) // 2], listed[len(listed) // 2:]
    testing_lines = list(testing)
    testing_lines[0] = "./" + testing_lines[0]
    testing_lines[1] = testing_lines[1].replace("/", "//") + "  "
    with open(os.path.join(folder, "validation_list.txt"), "w") as f:
        f.write("".join(line + "\n" for line in validation))
    with open(os.path.join(folder, "testing_list.txt"), "w") as f:
        f.write("".join(line + "\n" for line in testing_lines))
    return clips


def neurobench_subset(root, subset):
    import numpy as np
    from neurobench.datasets import SpeechCommands
    ds = SpeechCommands(path=root, subset=subset)
    data = np.zeros((len(ds), 16000, 1), dtype=np.float32)
    targets = np.zeros(len(ds), dtype=np.int64)
    for i in range(len(ds)):
        waveform, label = ds[i]
        data[i] = waveform.numpy()
        targets[i] = int(label)
    return data, targets


def cpp_subset(tool, path, subset, work, options=""):
    import numpy as np
    out = os.path.join(work, f"cpp_{subset}.npz")
    opts = f"subset={subset}" + (f",{options}" if options else "")
    r = subprocess.run([tool, f"speech-commands:{path}", out, opts], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with np.load(out) as z:
        return (z["data"], z["targets"]), ""


def compare(name, nb, cpp, target_offset=0):
    import numpy as np
    (nb_data, nb_targets), (data, targets) = nb, cpp
    problems = []
    if nb_data.shape != data.shape:
        problems.append(f"data shape {data.shape}, NeuroBench {nb_data.shape}")
    elif not np.array_equal(nb_data.view(np.uint32), data.view(np.uint32)):
        rows = np.nonzero((nb_data.view(np.uint32) != data.view(np.uint32)).any(axis=(1, 2)))[0]
        problems.append(f"waveforms differ in samples {rows[:10].tolist()}")
    if data.dtype != np.float32 or targets.dtype != np.int64:
        problems.append(f"dtypes {data.dtype}, {targets.dtype}; expected float32, int64")
    if not np.array_equal(nb_targets, targets + target_offset):
        problems.append(f"targets {targets.tolist()}, NeuroBench {nb_targets.tolist()}"
                        + (f" (minus {-target_offset})" if target_offset else ""))
    status = "FAIL" if problems else "ok"
    print(f"{status:4} {name}: {len(targets)} clips" + "".join(f"\n     {p}" for p in problems))
    return not problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True, help="neurobench_dump_dataset")
    parser.add_argument("--work", help="a scratch folder (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    setup()
    import torchaudio

    work = args.work or tempfile.mkdtemp(prefix="speech_commands_check_")
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    rng = random.Random(args.seed)
    ok = True

    # The release's shape: NeuroBench's root and the release folder itself, every subset.
    root = os.path.join(work, "root")
    make_release(os.path.join(root, RELEASE), rng)
    for subset, name in SUBSETS.items():
        nb = neurobench_subset(root, subset)
        for path in (root, os.path.join(root, RELEASE)):
            cpp, err = cpp_subset(args.tool, path, name, work)
            if cpp is None:
                print(f"FAIL {name} ({path}): {err}")
                ok = False
                continue
            ok &= compare(f"{name} ({os.path.relpath(path, work)})", nb, cpp)

    # No _background_noise_: NeuroBench's labels start at -1, ours at 0.
    bare = os.path.join(work, "bare")
    make_release(os.path.join(bare, RELEASE), rng, noise=False)
    for subset, name in SUBSETS.items():
        cpp, err = cpp_subset(args.tool, bare, name, work)
        if cpp is None:
            print(f"FAIL {name} without noise: {err}")
            ok = False
            continue
        ok &= compare(f"{name} without _background_noise_ (NeuroBench's labels = ours - 1)",
                      neurobench_subset(bare, subset), cpp, target_offset=-1)

    # A clip longer than one second.
    long_root = os.path.join(work, "long")
    make_release(os.path.join(long_root, RELEASE), rng)
    long_file = os.path.join(long_root, RELEASE, "bed", "0000long_nohash_0.wav")
    write_wav(long_file, random_clip(rng, 16001))
    from neurobench.datasets import SpeechCommands
    ds = SpeechCommands(path=long_root, subset="training")
    index = [i for i in range(len(ds)) if ds._walker[i].endswith("0000long_nohash_0.wav")][0]
    try:
        ds[index]
        print("FAIL NeuroBench read a clip longer than one second (the docs say it fails)")
        ok = False
    except RuntimeError as e:
        print(f"ok   NeuroBench fails on a clip of 16001 samples: {str(e).splitlines()[0]}")
    cpp, err = cpp_subset(args.tool, long_root, "training", work)
    if cpp is not None or "16001 samples" not in err or "longer than" not in err:
        print(f"FAIL long clip: expected an error naming its length, got {err!r}")
        ok = False
    else:
        print(f"ok   long clip refused: {err}")
    cpp, err = cpp_subset(args.tool, long_root, "training", work, "long_clips=truncate")
    if cpp is None:
        print(f"FAIL long clip with truncate: {err}")
        ok = False
    else:
        expected = torchaudio.load(long_file)[0][0, :16000].numpy()
        got = cpp[0][index, :, 0]
        same = (expected.view("uint32") == got.view("uint32")).all()
        print(f"{'ok' if same else 'FAIL':4} long clip truncated to torchaudio's first 16000 "
              "samples")
        ok &= bool(same)

    if not args.work:
        shutil.rmtree(work)
    print("all equal" if ok else "DIFFERENCES FOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
