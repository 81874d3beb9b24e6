#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""ctest example_mswc_fscil: the example's configs, fscil_cnn.json and fscil_snn.json, run with
`neurobench fscil` and the committed networks on a small synthetic MSWC release (written as
tests/datasets/check_mswc.py writes it: Ogg Opus clips, 6 base keywords, three session
languages of 10 keywords), with the configs' own pre-processing and metrics; only the paths,
the session languages and the query shots are changed to fit the release. Checks that each run
completes with sane results (4 sessions, each seeing 10 classes more; accuracies and sparsity
in [0, 1]; Footprint equal to the network's parameters and buffers; dense operations per
sample the same in every session; the CNN's effective ACs 0), and that replaying the draws
file the first run wrote gives the same results.

  /usr/bin/python3 examples/mswc_fscil/check_example.py --neurobench build/release/neurobench

Needs numpy, soundfile, torch and torchaudio (Debian's) and NeuroBench in ../shared/third_party
(its keyword list names the session classes); exits 77 (skipped) without them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "datasets"))
import check_mswc  # noqa: E402  (the synthetic release writer)

QUERY_SHOTS = 20
SESSIONS = len(check_mswc.SESSION_LANGUAGES)


def config_for(name, root, work):
    """The committed config with the release's paths and sessions."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        config = json.load(f)
    config["model"] = os.path.join(HERE, config["model"])
    config["dataset"]["path"] = root
    config["fscil"]["prototypes"]["path"] = root
    config["fscil"]["languages"] = check_mswc.SESSION_LANGUAGES
    config["fscil"]["query_shots"] = QUERY_SHOTS
    config["fscil"]["write_draws"] = os.path.join(work, name.replace(".json", "_draws.json"))
    config["outputs"] = {"json": os.path.join(work, name.replace(".json", "_results.json"))}
    config["quiet"] = True
    return config


def run(tool, config, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)
    r = subprocess.run([tool, "fscil", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAIL neurobench fscil {path} exited {r.returncode}:\n{r.stderr}")
    print(r.stdout.rstrip())
    with open(config["outputs"]["json"], encoding="utf-8") as f:
        return json.load(f)


def footprint(model):
    import torch
    m = torch.jit.load(model)
    return sum(t.numel() * t.element_size() for t in list(m.parameters()) + list(m.buffers()))


def check(name, config, results):
    problems = []
    sessions = results["_fscil"]["sessions"]
    if len(sessions) != SESSIONS + 1:
        return [f"{len(sessions)} sessions, expected {SESSIONS + 1}"]
    per_sample = set()
    for i, s in enumerate(sessions):
        v = s["values"]
        where = f"{name} session {i}"
        if s["classes"] != 100 + 10 * i:
            problems.append(f"{where}: {s['classes']} classes seen, expected {100 + 10 * i}")
        if s["query_samples"] != 10 * QUERY_SHOTS * i:
            problems.append(f"{where}: {s['query_samples']} query clips, expected "
                            f"{10 * QUERY_SHOTS * i}")
        if s["failures"]:
            problems.append(f"{where}: failed metrics {s['failures']}")
        for key in ("ClassificationAccuracy", "ActivationSparsity"):
            if not 0 <= v[key] <= 1:
                problems.append(f"{where}: {key} {v[key]} outside [0, 1]")
        new = s["new_classes_accuracy"]
        if (new is None) != (i == 0) or (new is not None and not 0 <= new <= 1):
            problems.append(f"{where}: new classes accuracy {new}")
        ops = v["SynapticOperations"]
        if not 0 < ops["Effective_MACs"] + ops["Effective_ACs"] <= ops["Dense"]:
            problems.append(f"{where}: synaptic operations {ops}")
        if name == "cnn" and ops["Effective_ACs"] != 0:
            problems.append(f"{where}: the CNN has {ops['Effective_ACs']} effective ACs")
        per_sample.add(ops["Dense"])
        if v["Footprint"] != footprint(config["model"]):
            problems.append(f"{where}: Footprint {v['Footprint']}, the network holds "
                            f"{footprint(config['model'])} bytes")
    if len(per_sample) != 1:
        problems.append(f"{name}: dense operations per sample differ between sessions: "
                        f"{sorted(per_sample)}")
    mean = sum(s["values"]["ClassificationAccuracy"] for s in sessions) / len(sessions)
    if abs(results["ClassificationAccuracy"] - mean) > 1e-12:
        problems.append(f"{name}: mean accuracy {results['ClassificationAccuracy']}, sessions' "
                        f"mean {mean}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--neurobench", required=True, help="the neurobench command")
    parser.add_argument("--work", help="a folder to work in (default: a temporary one)")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    check_mswc.setup()
    import numpy as np
    work = args.work or tempfile.mkdtemp(prefix="nb_mswc_fscil_")
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    root = os.path.join(work, "data")
    check_mswc.make_release(root, np.random.default_rng(args.seed))
    problems = []
    for name in ("cnn", "snn"):
        config = config_for(f"fscil_{name}.json", root, work)
        first = run(args.neurobench, config, os.path.join(work, f"{name}.json"))
        found = check(name, config, first)
        # The draws file the run wrote, read back: the same sessions, the same results (the
        # spiking network's random initial states aside, so only the CNN's are compared).
        replay = json.loads(json.dumps(config))
        for key in ("seed", "k_shot", "query_shots", "support_pool", "query_pool", "languages",
                    "write_draws"):
            replay["fscil"].pop(key, None)
        replay["fscil"]["draws"] = config["fscil"]["write_draws"]
        replay["outputs"] = {"json": os.path.join(work, f"{name}_replay_results.json")}
        second = run(args.neurobench, replay, os.path.join(work, f"{name}_replay.json"))
        if name == "cnn" and [s["values"] for s in second["_fscil"]["sessions"]] != \
                [s["values"] for s in first["_fscil"]["sessions"]]:
            found.append("cnn: the run from the draws file differs from the run that wrote it")
        if [s["new_classes"] for s in second["_fscil"]["sessions"]] != \
                [s["new_classes"] for s in first["_fscil"]["sessions"]]:
            found.append(f"{name}: the draws file gives other classes")
        print(f"{'FAIL' if found else 'ok':4} {name}: {len(first['_fscil']['sessions'])} "
              "sessions, sane results, the draws file replayed")
        problems += found
    for p in problems:
        print("     " + p)
    if not args.work:
        shutil.rmtree(work)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
