#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Compares the C++ MSWC data set and FSCIL sessions with NeuroBench's own MSWC loader and
IncrementalFewShot, live and exactly: the same clips in the same order, bit-equal waveforms,
equal labels, for every subset and procedure; then every session's support and query tensors
and query classes, from one draws file given to both sides.

  /usr/bin/python3 tests/datasets/check_mswc.py --tool build/release/tests/neurobench_dump_dataset \\
      --sessions-tool build/release/tests/neurobench_mswc_sessions

Each run writes a random release in NeuroBench's layout (ROOT/MSWC: base_train.csv,
base_val.csv, base_test.csv, LANG/evaluation.csv and LANG/clips/WORD/NAME.opus; the CSV layout
of NeuroBench's Hugging Face subset, LINK,WORD,LANG with a header), its clips 48 kHz mono Ogg
Opus encoded by libsndfile (python3-soundfile), of random lengths from one sample to one
second, loud and quiet, with Windows line ends and whitespace Python strips in the lists.

The sessions: our tool draws them (our seeded generator) and writes the draws file; the same
tool reads it back and dumps each session's tensors; NeuroBench's IncrementalFewShot runs with
Python's random.sample and NumPy's np.random.choice replaced, inside its module only, by a
replay of that file, each call checked to be the call NeuroBench makes at that point (the
population it draws from) before it gets the drawn values.

The samples are compared bit for bit when torchaudio decodes Opus through FFmpeg, as Debian's
torchaudio 0.13 does (its libsox has no Opus) and torchaudio 2's FFmpeg backend does: the same
libavcodec decoder as ours. A torchaudio whose libsox reads Opus (PyPI's 0.13 wheels: libsox
on libopusfile's 16-bit, dithered op_read) gives other samples, within 2e-3; this script then
says so and compares within that (docs/datasets.md, "mswc").

Needs Debian's python3-torch, python3-torchaudio, python3-numpy, python3-soundfile and
NeuroBench in ../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without
them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77
BASE_WORDS = {"en": ["surrounding", "appearance", "collection"],
              "fr": ["nombreuses", "l’amendement", "aujourd’hui"]}
SESSION_LANGUAGES = ["fa", "eo", "pt"]
SMALL_LANGUAGE = "it"
EXACT = True  # set by setup(): whether torchaudio decodes Opus through FFmpeg


def setup():
    global EXACT
    tp = os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                         os.path.join(ROOT, "..", "shared", "third_party"))
    if not os.path.isfile(os.path.join(tp, "neurobench", "neurobench", "datasets",
                                       "MSWC_IncrementalLoader.py")):
        print(f"skipped: NeuroBench's MSWC is not in {tp}")
        sys.exit(SKIP)
    sys.path[:0] = [os.path.join(tp, "neurobench")]
    try:
        import numpy  # noqa: F401
        import soundfile  # noqa: F401
        import torch
        import torchaudio  # noqa: F401
    except (ImportError, OSError) as e:
        print(f"skipped: {e} (Debian's python3-torch, python3-torchaudio, python3-numpy, "
              "python3-soundfile)")
        sys.exit(SKIP)
    probe = os.path.join(tempfile.mkdtemp(prefix="nb_mswc_probe_"), "p.opus")
    write_clip(probe, numpy.zeros(960, dtype=numpy.float32))
    try:
        torchaudio.load(probe)
    except RuntimeError as e:
        print(f"skipped: this torchaudio cannot decode Opus ({e})")
        sys.exit(SKIP)
    sox = torch.ops.torchaudio.sox_io_get_info(probe, None) is not None
    shutil.rmtree(os.path.dirname(probe))
    EXACT = not sox
    print(f"torchaudio {torchaudio.__version__} decodes Opus through "
          + ("libsox (libopusfile): compared within 2e-3" if sox else
             "FFmpeg (its libsox has no Opus): compared bit for bit"))


def write_clip(path, samples):
    import soundfile
    os.makedirs(os.path.dirname(path), exist_ok=True)
    soundfile.write(path, samples, 48000, format="OGG", subtype="OPUS")


def random_samples(rng, n):
    import numpy as np
    kind = rng.integers(0, 4)
    t = np.arange(n) / 48000.0
    if kind == 0:
        x = np.zeros(n)  # silence
    elif kind == 1:
        x = rng.uniform(0.5, 0.99) * np.sin(2 * np.pi * rng.uniform(80, 4000) * t)  # loud
    elif kind == 2:
        x = rng.normal(0, 0.2, n)  # noise
    else:
        x = (rng.uniform(0.01, 0.3) * np.sin(2 * np.pi * rng.uniform(100, 900) * t)
             + rng.normal(0, 0.01, n))
    return np.clip(x, -1, 1).astype(np.float32)


def write_list(path, lines, rng):
    """A list with a header, in Windows or Unix line ends, some lines padded with whitespace."""
    end = "\r\n" if rng.integers(0, 2) else "\n"
    text = "LINK,WORD,LANG" + end
    for line in lines:
        pad = rng.integers(0, 4)
        text += (" " if pad == 1 else "") + line + ("\t" if pad == 2 else "") + end
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def make_release(root, rng):
    m = os.path.join(root, "MSWC")
    clip_number = [0]

    def clip(lang, word, n):
        clip_number[0] += 1
        path = f"{word}/common_voice_{lang}_{clip_number[0]:08d}.opus"
        write_clip(os.path.join(m, lang, "clips", path), random_samples(rng, n))
        return f"{path},{word},{lang}"

    def length():
        return int(rng.choice([48000, 48000, rng.integers(1, 48000), rng.integers(1, 500)]))

    for split, per_word in (("base_train", 4), ("base_val", 2), ("base_test", 3)):
        lines = [clip(lang, word, length())
                 for lang, words in BASE_WORDS.items() for word in words for _ in range(per_word)]
        write_list(os.path.join(m, f"{split}.csv"), lines, rng)
    # The session languages: 10 classes of 200 short clips each, as IncrementalFewShot needs.
    from neurobench.datasets.MSWC_dataset import FSCIL_KEYWORDS
    for i, lang in enumerate(SESSION_LANGUAGES):
        words = FSCIL_KEYWORDS[100 + 10 * i:110 + 10 * i]
        lines = [clip(lang, w, int(rng.integers(1, 2400))) for w in words for _ in range(200)]
        write_list(os.path.join(m, lang, "evaluation.csv"), lines, rng)
    words = FSCIL_KEYWORDS[190:193]
    lines = [clip(SMALL_LANGUAGE, w, length()) for w in words for _ in range(3)]
    write_list(os.path.join(m, SMALL_LANGUAGE, "evaluation.csv"), lines, rng)
    return m


def same(a, b):
    import numpy as np
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if EXACT:
        return np.array_equal(np.ascontiguousarray(a).view(np.uint32),
                              np.ascontiguousarray(b).view(np.uint32))
    return np.allclose(a, b, rtol=0, atol=2e-3)


def report(name, problems, what):
    print(f"{'FAIL' if problems else 'ok':4} {name}: {what}" +
          "".join(f"\n     {p}" for p in problems))
    return not problems


def check_subset(tool, root, work, name, options, neurobench_args):
    import numpy as np
    from neurobench.datasets.MSWC_dataset import MSWC
    out = os.path.join(work, "cpp.npz")
    if os.path.exists(out):
        os.remove(out)
    r = subprocess.run([tool, f"mswc:{root}", out, options], capture_output=True, text=True)
    if r.returncode != 0:
        return report(name, [r.stderr.strip()], "our tool failed")
    with np.load(out) as z:
        x, y = z["data"], z["targets"]
    nb = MSWC(root=os.path.dirname(os.path.normpath(root)) if root.endswith("MSWC") else root,
              **neurobench_args)
    items = [nb[i] for i in range(len(nb))]
    nb_x = np.stack([item[0].numpy() for item in items]) if items else np.zeros((0, 48000, 1))
    nb_y = np.array([item[1] for item in items], dtype=np.int64)
    problems = []
    if x.shape != nb_x.shape:
        problems.append(f"data shape {x.shape}, NeuroBench {nb_x.shape}")
    elif not same(x, nb_x.astype(np.float32)):
        bad = [i for i in range(len(x)) if not same(x[i], nb_x[i])]
        problems.append(f"samples differ in clips {bad[:8]} (max |diff| "
                        f"{np.abs(x - nb_x).max():.3g})")
    if not np.array_equal(y, nb_y):
        problems.append(f"targets {y.tolist()}, NeuroBench {nb_y.tolist()}")
    return report(name, problems, f"{len(y)} clips, labels {sorted(set(y.tolist()))}")


class Replay:
    """random.sample and np.random.choice for NeuroBench's IncrementalFewShot, giving back the
    draws of a draws file in the order NeuroBench draws: the languages; per language its
    classes, then every class's queries, then every class's support."""

    def __init__(self, draws, rows):
        import numpy as np
        self.calls = [("sample", [s["language"] for s in draws["sessions"]])]
        for s in draws["sessions"]:
            index = rows[s["language"]]
            self.calls.append(("sample", s["classes"]))
            for kind in ("query", "support"):
                for clips in s[kind]:
                    self.calls.append(("choice", np.array([index[p] for p in clips])))
        self.problems = []

    def take(self, kind, population, k):
        if not self.calls:
            self.problems.append(f"an extra {kind} call")
            raise RuntimeError("draws exhausted")
        want, values = self.calls.pop(0)
        population = list(population)
        if want != kind or len(values) != k or any(v not in population for v in list(values)):
            self.problems.append(f"{kind}(k={k}) from {population[:12]}... where the draws file "
                                 f"has {want} {list(values)[:12]}")
        return values

    def sample(self, population, k):
        return list(self.take("sample", population, k))

    def choice(self, population, size, replace=True):
        if replace:
            self.problems.append("np.random.choice with replacement")
        return self.take("choice", population, size)


def check_sessions(tools, root, work, rng):
    import numpy as np
    import torch
    from neurobench.datasets import MSWC_IncrementalLoader as loader
    from neurobench.datasets.MSWC_dataset import MSWC
    draws_file = os.path.join(work, "draws.json")
    seed = int(rng.integers(0, 2**63))
    r = subprocess.run([tools[1], "draw", root, draws_file, str(seed), "3", "5", "100", "100",
                        ",".join(SESSION_LANGUAGES)], capture_output=True, text=True)
    if r.returncode != 0:
        return report("sessions: draw", [r.stderr.strip()], "our tool failed")
    dump = os.path.join(work, "sessions")
    os.makedirs(dump, exist_ok=True)
    r = subprocess.run([tools[1], "dump", root, draws_file, dump], capture_output=True, text=True)
    if r.returncode != 0:
        return report("sessions: dump", [r.stderr.strip()], "our tool failed")
    with open(draws_file, encoding="utf-8") as f:
        draws = json.load(f)
    rows = {}
    for lang in draws["languages"]:
        walker = MSWC(root=root, subset="evaluation", language=lang)._walker
        rows[lang] = {path: i for i, (path, _, _) in enumerate(walker)}
    replay = Replay(draws, rows)
    saved = (loader.random, loader.np)
    few_shot = loader.IncrementalFewShot(
        k_shot=draws["k_shot"], root=root, inc_languages=draws["languages"],
        query_shots=draws["query_shots"], support_query_split=tuple(draws["support_query_split"]))
    ok = True
    try:
        # The module's own names for the two generators, so that nothing else sees the replay.
        loader.random = types.SimpleNamespace(sample=replay.sample)
        loader.np = types.SimpleNamespace(random=types.SimpleNamespace(choice=replay.choice))
        for i, (support, query, query_classes) in enumerate(few_shot):
            sx = torch.cat([x for x, _ in support]).numpy()
            sy = torch.cat([y for _, y in support]).numpy()
            items = [query[j] for j in range(len(query))]
            qx = np.stack([item[0].numpy() for item in items])
            qy = np.array([int(item[1]) for item in items], dtype=np.int64)
            with np.load(os.path.join(dump, f"session_{i}.npz")) as z:
                ours = {k: z[k] for k in z.files}
            problems = []
            for name, mine, theirs in (("support data", ours["support_data"], sx),
                                       ("query data", ours["query_data"], qx)):
                if not same(mine, theirs):
                    problems.append(f"{name}: ours {mine.shape}, NeuroBench {theirs.shape}"
                                    + (f", max |diff| {np.abs(mine - theirs).max():.3g}"
                                       if mine.shape == theirs.shape else ""))
            for name, mine, theirs in (("support targets", ours["support_targets"], sy),
                                       ("query targets", ours["query_targets"], qy),
                                       ("query classes", ours["query_classes"],
                                        np.array(query_classes, dtype=np.int64))):
                if not np.array_equal(mine, theirs):
                    problems.append(f"{name}: ours {mine.tolist()[:12]}, NeuroBench "
                                    f"{theirs.tolist()[:12]}")
            ok &= report(f"session {i + 1} ({draws['sessions'][i]['language']})", problems,
                         f"support {sx.shape[0]} clips, query {qx.shape[0]} clips, classes "
                         f"{list(query_classes)}")
    finally:
        loader.random, loader.np = saved
    if replay.calls:
        replay.problems.append(f"{len(replay.calls)} draws left over")
    ok &= report("sessions: NeuroBench drew as the draws file says", replay.problems,
                 f"{len(draws['sessions'])} sessions, seed {seed}")
    return ok


def check_refused(tool, work, rng):
    """A clip longer than one second: NeuroBench's loader fails on it; we refuse it by name."""
    from neurobench.datasets.MSWC_dataset import MSWC
    root = os.path.join(work, "long")
    m = os.path.join(root, "MSWC")
    write_clip(os.path.join(m, "en", "clips", "w", "long.opus"), random_samples(rng, 48001))
    write_list(os.path.join(m, "base_test.csv"), ["w/long.opus,surrounding,en"], rng)
    try:
        MSWC(root=root, subset="base", procedure="testing")[0]
        nb_fails = False
    except RuntimeError:
        nb_fails = True
    out = os.path.join(work, "long.npz")
    r = subprocess.run([tool, f"mswc:{root}", out, "subset=base,procedure=testing"],
                       capture_output=True, text=True)
    refused = r.returncode == 2 and "long.opus: more than 48000 samples" in r.stderr
    return report("a clip of 48001 samples", [] if nb_fails and refused else
                  [f"NeuroBench fails: {nb_fails}; ours: {r.stderr.strip()}"],
                  "NeuroBench fails on it; we refuse it: " + r.stderr.strip()[:160])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tool", required=True, help="neurobench_dump_dataset")
    parser.add_argument("--sessions-tool", required=True, help="neurobench_mswc_sessions")
    parser.add_argument("--work", help="a folder for the releases (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    setup()
    import numpy as np
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    work = args.work or tempfile.mkdtemp(prefix="nb_mswc_")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    root = os.path.join(work, "root")
    m = make_release(root, rng)
    ok = True
    for procedure in ("training", "validation", "testing"):
        for path in (root, m):
            ok &= check_subset(args.tool, path, work,
                               f"base {procedure} ({'root' if path == root else 'MSWC folder'})",
                               f"subset=base,procedure={procedure}",
                               {"subset": "base", "procedure": procedure})
    # A session language's 2,000 clips are compared through the sessions below.
    ok &= check_subset(args.tool, root, work, f"evaluation {SMALL_LANGUAGE}",
                       f"subset=evaluation,language={SMALL_LANGUAGE}",
                       {"subset": "evaluation", "language": SMALL_LANGUAGE})
    ok &= check_sessions((args.tool, args.sessions_tool), root, work, rng)
    ok &= check_refused(args.tool, work, rng)
    if not args.work:
        shutil.rmtree(work)
    print("all equal" if ok else "DIFFERENCES FOUND")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
