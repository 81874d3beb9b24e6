#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's keyword-spotting benchmark end to end, against Python NeuroBench run beside it:
`neurobench run --dataset speech-commands:ROOT --subset testing` with the Speech Commands
example's networks and pre-processors, and NeuroBench's Benchmark with its own SpeechCommands
loader on the same folder (a speech-like synthetic one, tests/fixtures/speech_commands/
make_folder.py), compared metric by metric (relative 1e-3 at most; most agree exactly).

- SNN: the example's spiking network (examples/speech_commands/networks.py), Speech2Spikes
  events (neurobench's S2SPreProcessor; in Python, S2S written from its description,
  tests/audio/s2s_reference.py, on torchaudio's MelSpectrogram), step by step, ChooseMaxCount.
- ANN: the example's M5 on audio resampled to 8 kHz (neurobench's Resample; in Python,
  torchaudio's Resample as NeuroBench's GSC ANN example), argmax of the log-probabilities.

Each network is checked twice: the committed model (examples/speech_commands/models), and one
made here with livelier weights (more spikes, other classes) exported on the spot.

  /usr/bin/python3 tests/examples/check_speech_commands_example.py --cli build/release/neurobench

Needs Debian's python3-torch, python3-torchaudio, python3-numpy, python3-tqdm and snnTorch and
NeuroBench in ../shared/third_party (or NEUROBENCH_THIRD_PARTY); exits 77 (skipped) without.
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import reference_results  # noqa: E402
EXAMPLE = os.path.join(ROOT, "examples", "speech_commands")
STATIC = ["Footprint", "ConnectionSparsity"]
WORKLOAD = ["ClassificationAccuracy", "ActivationSparsity", "SynapticOperations"]


def setup():
    reference_results.third_party(ROOT)
    sys.path[:0] = [os.path.join(ROOT, "python"), EXAMPLE, os.path.join(ROOT, "tests", "audio"),
                    os.path.join(ROOT, "tests", "fixtures", "speech_commands")]
    reference_results.require(["numpy", "torch", "torchaudio", "tqdm"],
                              "python3-torch, -torchaudio, -numpy, -tqdm")


def neurobench_results(kind, net, root, batch_size):
    """NeuroBench's Benchmark on the testing subset, as its GSC examples run it."""
    import torch
    import torchaudio
    import s2s_reference
    from neurobench.benchmarks import Benchmark
    from neurobench.datasets import SpeechCommands
    from neurobench.metrics import static as S
    from neurobench.metrics import workload as W
    from neurobench.models import SNNTorchModel, TorchModel
    from neurobench.processors.abstract import NeuroBenchPostProcessor, NeuroBenchPreProcessor
    from neurobench.processors.postprocessors import ChooseMaxCount

    class S2S(NeuroBenchPreProcessor):
        def __init__(self):
            pass

        def __call__(self, dataset):
            events, _, _ = s2s_reference.s2s(dataset[0][..., 0].numpy())
            return torch.from_numpy(events), dataset[1]

    class Resample(NeuroBenchPreProcessor):
        def __init__(self):
            self.resample = torchaudio.transforms.Resample(orig_freq=16000, new_freq=8000)

        def __call__(self, dataset):
            return self.resample(dataset[0].permute(0, 2, 1)), dataset[1]

    class ConvertToLabel(NeuroBenchPostProcessor):
        def __call__(self, output):
            return output.argmax(dim=-1).squeeze()

    test_set = SpeechCommands(path=root, subset="testing")
    loader = torch.utils.data.DataLoader(test_set, batch_size=batch_size, shuffle=False)
    if kind == "snn":
        model, pre, post = SNNTorchModel(net), [S2S()], [ChooseMaxCount()]
    else:
        model, pre, post = TorchModel(net), [Resample()], [ConvertToLabel()]
    metrics = [[getattr(S, m) for m in STATIC], [getattr(W, m) for m in WORKLOAD]]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            torch.no_grad():
        res = Benchmark(model, loader, pre, post, metrics).run()
    if "Error running" in out.getvalue():
        raise RuntimeError(out.getvalue()[-600:])
    return reference_results.plain(res), len(test_set)


def cli_results(cli, kind, model, root, batch_size, work):
    out = os.path.join(work, f"{kind}_{os.path.basename(model)}.json")
    cmd = [cli, "run", "--model", model, "--dataset", f"speech-commands:{root}", "--subset",
           "testing", "--batch-size", str(batch_size), "--static", ",".join(STATIC),
           "--workload", ",".join(WORKLOAD), "--json", out, "--quiet"]
    if kind == "snn":
        cmd += ["--stepwise", "--pre", "S2SPreProcessor", "--post", "ChooseMaxCount"]
    else:
        cmd += ["--pre", "Resample:orig_freq=16000,new_freq=8000", "--post", "Argmax"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError(f"neurobench run exited {r.returncode}: {r.stderr[-800:]}")
    with open(out) as f:
        return json.load(f)


def lively(kind, seed):
    """The example's network with weights that make it busy: more spikes, varied classes."""
    import torch
    import networks
    torch.manual_seed(seed)
    if kind == "snn":
        net = networks.snn()
        with torch.no_grad():
            for m in net:
                if isinstance(m, torch.nn.Linear):
                    m.weight.mul_(6.0)
                    m.bias.add_(0.05)
        return net
    net = networks.M5()
    with torch.no_grad():  # batch-norm statistics that are not the identity
        for i in range(1, 5):
            bn = getattr(net, f"bn{i}")
            bn.running_mean.uniform_(-0.05, 0.05)
            bn.running_var.uniform_(0.5, 2.0)
    return net.eval()


def committed(kind, models):
    """The eager network with the weights of the model in `models` (the committed ones by
    default)."""
    import torch
    import networks
    path = os.path.join(models, f"{kind}.pt")
    net = networks.snn() if kind == "snn" else networks.M5().eval()
    state = {k: v for k, v in torch.jit.load(path).state_dict().items()}
    missing, unexpected = net.load_state_dict(state, strict=False)
    if missing:
        raise RuntimeError(f"{path}: no weights for {missing}")
    return net, path


def export(kind, net, path):
    import torch
    from neurobench_export import export as export_snn
    if kind == "snn":
        example = torch.randint(-1, 2, (8, 20), generator=torch.Generator().manual_seed(2)).float()
        export_snn(net, path, example_input=example, stepwise=True)
    else:
        torch.jit.script(net).save(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", default=None)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--models", default=os.path.join(EXAMPLE, "models"),
                    help="folder with snn.pt and ann.pt (make_models.py), e.g. with NeuroBench's "
                         "trained weights")
    a = ap.parse_args()
    setup()
    import make_folder
    work = a.work or tempfile.mkdtemp(prefix="nb_gsc_example_")
    os.makedirs(work, exist_ok=True)
    root = os.path.join(work, f"gsc_{a.seed}")
    if not os.path.isdir(root):
        make_folder.write_folder(root, seed=a.seed, labels=6, per_label=7, tricky=True)
    failed = 0
    for kind in ("snn", "ann"):
        for which in ("committed", "lively"):
            if which == "committed":
                net, model = committed(kind, a.models)
            else:
                net = lively(kind, a.seed)
                model = os.path.join(work, f"{kind}_lively.pt")
                export(kind, net, model)
            # A last batch of one clip would break NeuroBench's ANN post-processor (argmax then
            # squeeze leaves a 0-d tensor, which its ClassificationAccuracy refuses).
            batch_size = 6
            expected, n = neurobench_results(kind, net, root, batch_size)
            got = cli_results(a.cli, kind, model, root, batch_size, work)
            bad, worst = reference_results.compare(expected, got)
            name = f"{kind} ({which}, {n} clips)"
            if bad:
                failed += 1
                print(f"FAIL {name}:\n  " + "\n  ".join(bad))
            else:
                ops = "ACs" if kind == "snn" else "MACs"
                print(f"ok   {name}: largest relative difference {worst:.2e}; "
                      f"accuracy {got['ClassificationAccuracy']:.4f}, activation sparsity "
                      f"{got['ActivationSparsity']:.4f}, effective {ops} "
                      f"{got['SynapticOperations']['Effective_' + ops]:.1f}")
    if failed:
        print(f"{failed} of 4 comparisons failed")
        return 1
    print("all 4 comparisons agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
