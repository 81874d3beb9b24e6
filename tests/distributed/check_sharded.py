#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Sharded runs of `neurobench run` (docs/distributed.md) over 127.0.0.1 on this machine.

  check_sharded.py NEUROBENCH_CLI CONFORMANCE_CASES BENCHMARK_MODELS [--quick]

1. Results: every case is run by one process, then by 2 and 4 processes started with the
   torchrun environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, LOCAL_RANK); each metric
   of rank 0's results file must equal the one-process value (integers exactly, floats within
   1e-9 relative; the comparison reports how many were bit for bit equal). Cases: the shared
   conformance cases with several batches (some at a smaller batch size, so that they have
   several), a step-wise spiking MLP with every hook metric, and the timing metrics (checked
   for consistency, not for equality).
2. Faults: a rank killed during its shard, a rank stopped (hung), a rank that never starts, a
   rank that fails on its shard, ranks started with different commands, Ctrl-C, and wrong
   rendezvous variables: every rank stops, with an error naming the rank or the variable (exit
   130 for Ctrl-C), within the timeout, and no results file is written.
3. torchrun itself, when it is installed: `torchrun --no_python ... neurobench run ...`.
--quick (the asan preset, where each process starts several times slower): the same code
paths, with fewer repetitions of them: each results case by 2 processes only, and two of the
conformance cases (one dense, one step-wise spiking) instead of eleven.
Exit status 0 when all hold; 1 with the failures listed.
"""
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CLI, CASES, MODELS = sys.argv[1], sys.argv[2], sys.argv[3]
QUICK = "--quick" in sys.argv[4:]
failures = []
TIMING = {"Latency", "InferenceTime", "Throughput", "StartupTime", "PeakMemory"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_env(rank, world, port, **extra):
    env = dict(os.environ)
    for key in list(env):
        if key.startswith(("OMPI_", "SLURM_", "TORCHELASTIC_")) or key in (
                "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                "MASTER_PORT"):
            del env[key]
    env.update({"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank),
                "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": str(port)})
    env.update(extra)
    return env


def start_ranks(world, args, out, timeout_s=60, rank_args=None, cwd_of=None):
    """`cwd_of(rank)`, when given, is the folder each rank runs in (relative paths in `args`)."""
    port = free_port()
    procs = []
    for rank in range(world):
        extra = (rank_args or {}).get(rank, [])
        procs.append(subprocess.Popen(
            [os.path.abspath(CLI), "run", *args, "--json", out, "--quiet",
             "--distributed-timeout", str(timeout_s), *extra],
            cwd=cwd_of(rank) if cwd_of else None, env=rank_env(rank, world, port),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    return procs


def wait_for_first_batch(proc):
    """Reads the rank's stderr (it runs with --verbose) until it has run a batch."""
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("batch "):
            return "".join(seen)
    raise RuntimeError("the rank ended before its first batch: " + "".join(seen)[-1000:])


def finish(procs, limit=300):
    outs = []
    for p in procs:
        try:
            o, e = p.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            p.kill()
            o, e = p.communicate()
            e += "\n(killed: did not finish within %d s)" % limit
        outs.append((p.returncode, o, e))
    return outs


def numbers(value, prefix=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from numbers(v, f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix, value


def compare(name, one, many, world):
    exact = total = 0
    for metric, value in one.items():
        if metric.startswith("_") or metric in TIMING:
            continue
        got = dict(numbers(many.get(metric), metric))
        for key, want in numbers(value, metric):
            total += 1
            have = got.get(key)
            if isinstance(want, bool) or want is None or isinstance(want, str):
                ok = have == want
            elif isinstance(want, int) and isinstance(have, int):
                ok = have == want
            elif isinstance(have, (int, float)):
                ok = math.isclose(have, want, rel_tol=1e-9, abs_tol=0.0) or have == want
            else:
                ok = False
            if not ok:
                failures.append(f"{name}, {world} processes: {key} = {have}, one process: {want}")
            exact += have == want
    return exact, total


def check_run_metadata(name, one, many, world):
    d = many.get("_run", {}).get("distributed")
    if not d or d.get("world_size") != world or len(d.get("ranks", [])) != world:
        failures.append(f"{name}, {world} processes: _run.distributed is {d}")
        return
    if many["_run"]["samples"] != one["_run"]["samples"]:
        failures.append(f"{name}, {world} processes: {many['_run']['samples']} samples, "
                        f"one process: {one['_run']['samples']}")
    ends = [r["batches"] for r in d["ranks"]]
    if ends[0][0] != 0 or any(a[1] != b[0] for a, b in zip(ends, ends[1:])):
        failures.append(f"{name}, {world} processes: shards are not contiguous: {ends}")
    if any("host" not in r for r in d["ranks"]):
        failures.append(f"{name}, {world} processes: a rank has no host: {d['ranks']}")
    # The exchange is a phase of its own, after this rank's workload pass.
    phases = list(many["_run"].get("phases", {}))
    if "workload_pass_s" in phases and (
            phases[phases.index("workload_pass_s") + 1:][:1] != ["state_exchange_s"]):
        failures.append(f"{name}, {world} processes: no state_exchange_s after the workload "
                        f"pass in _run.phases: {phases}")
    if "state_exchange_s" in one["_run"].get("phases", {}):
        failures.append(f"{name}: one process records a state exchange")


def run_case(name, args, work, worlds=(2, 4), timing=False):
    if QUICK:
        worlds = worlds[:1]
    one_path = os.path.join(work, f"{name}_1.json")
    r = subprocess.run([CLI, "run", *args, "--json", one_path, "--quiet"], capture_output=True,
                       text=True, env=rank_env(0, 1, 1, WORLD_SIZE="1"))
    if r.returncode != 0:
        failures.append(f"{name}: one process failed ({r.returncode}): {r.stderr[-2000:]}")
        return
    one = json.load(open(one_path))
    for world in worlds:
        path = os.path.join(work, f"{name}_{world}.json")
        outs = finish(start_ranks(world, args, path))
        bad = [(rank, o) for rank, o in enumerate(outs) if o[0] != 0]
        if bad:
            rank, (code, _, err) = bad[0]
            failures.append(f"{name}, {world} processes: rank {rank} exit {code}: {err[-2000:]}")
            continue
        if any(o[1].strip() for o in outs[1:]):
            failures.append(f"{name}, {world} processes: a rank other than 0 printed results")
        many = json.load(open(path))
        exact, total = compare(name, one, many, world)
        check_run_metadata(name, one, many, world)
        if timing:
            check_timing(name, one, many, world)
        print(f"{name}: {world} processes: {exact} of {total} values bit for bit equal to one "
              f"process's, the rest within 1e-9")


def check_timing(name, one, many, world):
    d = many["_run"]["distributed"]
    thr = many.get("Throughput") or {}
    per_rank = [r.get("timing", {}).get("Throughput") for r in d["ranks"]]
    if any(p is None for p in per_rank) or not thr:
        failures.append(f"{name}, {world} processes: Throughput per rank {per_rank}, merged {thr}")
        return
    rate = sum(p["samples_per_s"] for p in per_rank)
    if not math.isclose(thr["samples_per_s"], rate, rel_tol=1e-9):
        failures.append(f"{name}: merged throughput {thr['samples_per_s']} is not the sum "
                        f"of the ranks' {rate}")
    if thr["samples"] != sum(p["samples"] for p in per_rank):
        failures.append(f"{name}: merged throughput samples {thr['samples']} != ranks' sum")
    lat = many.get("Latency") or {}
    if lat.get("runs") != sum(r["timing"]["Latency"]["runs"] for r in d["ranks"]):
        failures.append(f"{name}: merged Latency runs {lat.get('runs')} != the ranks' sum")
    if not many.get("PeakMemory", {}).get("peak_rss_bytes"):
        failures.append(f"{name}: no PeakMemory in the sharded results")


def nan_case(work):
    """NaN in the last sample alone: rank 1 of 2 reads that shard (rows 4 to 9 of 10, in batches
    of 2), and rank 0's results still say so, at the index in the whole file."""
    import numpy as np
    rng = np.random.default_rng(3)
    x = (rng.random((10, 5, 784)) < 0.2).astype(np.float32)
    x[9, 2, 7] = np.nan
    data = os.path.join(work, "nan.npz")
    np.savez(data, data=x, targets=rng.integers(0, 10, 10))
    args = ["--model", os.path.join(MODELS, "snn_mlp.pt"), "--data", data, "--batch-size", "2",
            "--stepwise", "--post", "ChooseMaxCount",
            "--workload", "ClassificationAccuracy,SynapticOperations"]
    one_path = os.path.join(work, "nan_1.json")
    r = subprocess.run([CLI, "run", *args, "--json", one_path, "--quiet"], capture_output=True,
                       text=True, env=rank_env(0, 1, 1, WORLD_SIZE="1"))
    path = os.path.join(work, "nan_2.json")
    outs = finish(start_ranks(2, args, path))
    if r.returncode != 0 or any(o[0] != 0 for o in outs):
        failures.append(f"NaN in rank 1's shard: a run failed: {r.stderr[-1000:]} "
                        f"{[o[2][-1000:] for o in outs]}")
        return
    one = json.load(open(one_path))["_run"].get("non_finite_inputs", [])
    many = json.load(open(path))["_run"].get("non_finite_inputs", [])
    if [rec.get("first_index") for rec in one] != [[9, 2, 7]]:
        failures.append(f"NaN, one process: non_finite_inputs {one}")
    if ([rec.get("first_index") for rec in many] != [[9, 2, 7]] or
            [rec.get("rows") for rec in many] != [[4, 10]]):
        failures.append(f"NaN in rank 1's shard: rank 0's non_finite_inputs {many}")
    if "in rows [4, 10); the first is data[9, 2, 7] = nan" not in outs[0][2]:
        failures.append(f"NaN in rank 1's shard: rank 0 did not warn of it: {outs[0][2][-1000:]}")
    # --strict: rank 1 refuses, and rank 0 stops naming its reason; no results file.
    os.remove(path)
    outs = finish(start_ranks(2, args + ["--strict"], path))
    said = "data[9, 2, 7] = nan; strict: refusing to run"
    if ([o[0] for o in outs] != [2, 2] or os.path.exists(path) or
            "rank 1 (on " not in outs[0][2] or said not in outs[0][2] or said not in outs[1][2]):
        failures.append(f"--strict, NaN in rank 1's shard: exit statuses {[o[0] for o in outs]}, "
                        f"rank 0 said {outs[0][2][-600:]!r}, rank 1 {outs[1][2][-600:]!r}")
    print("NaN in rank 1's shard: in rank 0's results, at its index in the file; --strict "
          "stops both ranks, naming it")


def member_bytes(path, name, begin, end):
    """Bytes [begin, end) of a stored zip member, read from the file itself."""
    import struct
    import zipfile
    info = zipfile.ZipFile(path).getinfo(name)
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        header = f.read(30)
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        f.seek(info.header_offset + 30 + name_len + extra_len + begin)
        return f.read(end - begin)


def parts_case(work):
    """Each rank reads only its rows' bytes of an .npz stored uncompressed: rank 0's results
    record which bytes each rank read and their SHA-256 (`_run.data_shards`) in place of the
    whole file's digest, and a rank whose copy of the file is damaged in its rows stops every
    rank. A deflated `data` is read through, and its digest is the whole file's."""
    import hashlib
    import numpy as np
    rng = np.random.default_rng(5)
    x = (rng.random((12, 5, 784)) < 0.2).astype(np.float32)
    y = rng.integers(0, 10, 12)
    args = ["--model", os.path.join(MODELS, "snn_mlp.pt"), "--data", "parts.npz",
            "--batch-size", "2", "--stepwise", "--post", "ChooseMaxCount",
            "--workload", "ClassificationAccuracy,SynapticOperations"]

    def ranks(data_of, out):
        """Each rank in a folder of its own, reading its copy of data_of(rank) as parts.npz."""
        def cwd_of(rank):
            return os.path.join(work, f"parts_rank{rank}")
        for rank in range(2):
            os.makedirs(cwd_of(rank), exist_ok=True)
            shutil.copy(data_of(rank), os.path.join(cwd_of(rank), "parts.npz"))
        return finish(start_ranks(2, args, out, cwd_of=cwd_of))

    stored = os.path.join(work, "parts.npz")
    np.savez(stored, data=x, targets=y)
    out = os.path.join(work, "parts_2.json")
    outs = ranks(lambda rank: stored, out)
    if any(o[0] != 0 for o in outs):
        failures.append(f"rows read alone: a rank failed: {[o[2][-1000:] for o in outs]}")
        return
    run = json.load(open(out))["_run"]
    record = run.get("data_shards", {})
    parts = record.get("parts", [])
    if "data_sha256" in run or [p.get("rows") for p in parts] != [[0, 6], [6, 12]]:
        failures.append(f"rows read alone: _run has data_sha256 {run.get('data_sha256')}, "
                        f"data_shards {record}")
        return
    size = zipfile_member_size(stored, "data.npy")
    if parts[0]["bytes"][0] != 0 or parts[0]["bytes"][1] != parts[1]["bytes"][0] or \
            parts[1]["bytes"][1] != size or record.get("entry_bytes") != size:
        failures.append(f"rows read alone: the parts do not tile data.npy's {size} bytes: "
                        f"{record}")
    for p in parts:
        got = hashlib.sha256(member_bytes(stored, "data.npy", *p["bytes"])).hexdigest()
        if got != p["sha256"]:
            failures.append(f"rows read alone: rank {p['rank']}'s sha256 {p['sha256']} is not "
                            f"that of its bytes {p['bytes']}: {got}")
    # Rank 1's copy damaged in its own rows: the parts' CRC-32s do not make the entry's.
    damaged = os.path.join(work, "parts_damaged.npz")
    raw = bytearray(open(stored, "rb").read())
    raw[raw.index(b"\x93NUMPY") + parts[1]["bytes"][0] + 100] ^= 0x40
    open(damaged, "wb").write(raw)
    os.remove(out)
    outs = ranks(lambda rank: damaged if rank == 1 else stored, out)
    if ([o[0] == 0 for o in outs] != [False, False] or os.path.exists(out) or
            not all("CRC-32 mismatch" in o[2] for o in outs)):
        failures.append(f"rows read alone, rank 1's copy damaged: exit statuses "
                        f"{[o[0] for o in outs]}, said {[o[2][-600:] for o in outs]}")
    # Deflated: read through, the whole file's digest.
    deflated = os.path.join(work, "parts_deflated.npz")
    np.savez_compressed(deflated, data=x, targets=y)
    outs = ranks(lambda rank: deflated, out)
    run = json.load(open(out))["_run"] if os.path.exists(out) else {}
    if any(o[0] != 0 for o in outs) or "data_shards" in run or \
            run.get("data_sha256") != hashlib.sha256(open(deflated, "rb").read()).hexdigest():
        failures.append(f"deflated data, sharded: _run {run.get('data_sha256')} "
                        f"{run.get('data_shards')}; {[o[2][-600:] for o in outs]}")
    print("rows read alone: each rank's bytes and their SHA-256 in rank 0's results; a rank's "
          "damaged copy stops both; deflated data read through")


def zipfile_member_size(path, name):
    import zipfile
    return zipfile.ZipFile(path).getinfo(name).file_size


def case_args(case, batch_size=None, extra_workload=()):
    d = json.load(open(os.path.join(CASES, case, "case.json")))
    args = ["--model", os.path.join(CASES, case, d["model"]),
            "--data", os.path.join(CASES, case, d["data"]),
            "--batch-size", str(batch_size or d["batch_size"])]
    if d.get("static"):
        args += ["--static", ",".join(d["static"])]
    workload = list(d.get("workload", [])) + [m for m in extra_workload
                                                if m not in d.get("workload", [])]
    if workload:
        args += ["--workload", ",".join(workload)]
    if d.get("post"):
        args += ["--post", ",".join(d["post"])]
    if d.get("stepwise"):
        args.append("--stepwise")
    if d.get("activation_modules"):
        args += ["--activation-modules", ",".join(d["activation_modules"])]
    return args


def results_cases(work):
    if os.path.isdir(CASES):
        for case in ("rx_cnn_classifier", "rx_snn_mlp_stepwise") + (
                () if QUICK else ("tm_accuracy", "tm_act_shared_relu")):
            run_case(case, case_args(case, extra_workload=["DenseMACs"]), work)
        # On a device (docs/devices.md): each rank moves its model and batches there, and the
        # metric states still travel through Gloo on the CPU.
        run_case("rx_snn_mlp_stepwise_lazy",
                 case_args("rx_snn_mlp_stepwise", extra_workload=["DenseMACs"]) +
                 ["--device", "lazy"], work, worlds=(2,))
        # Single-batch cases at batch size 1 to 3, so that every rank has batches.
        single_batch = (("tm_r2", 3), ("tm_mse", 3), ("tm_smape", 4), ("tm_snn_ones", 1),
                        ("tm_synops_lstm", 1), ("tm_synops_gru", 1), ("tm_synops_rnn", 1))
        for case, batch in () if QUICK else single_batch:
            run_case(f"{case}_batch{batch}", case_args(case, batch), work)
    else:
        print(f"(no conformance cases at {CASES}: only the bundled benchmark model)")
    # The step-wise spiking MLP of benchmarks/ with every hook metric, on 23 samples of 20
    # timesteps in batches of 4 (6 batches: uneven shards), and the timing metrics.
    import numpy as np
    rng = np.random.default_rng(7)
    data = os.path.join(work, "snn.npz")
    np.savez(data, data=(rng.random((23, 20, 784)) < 0.2).astype(np.float32),
             targets=rng.integers(0, 10, 23))
    args = ["--model", os.path.join(MODELS, "snn_mlp.pt"), "--data", data, "--batch-size", "4",
            "--stepwise", "--post", "ChooseMaxCount",
            "--static", "Footprint,ParameterCount,ConnectionSparsity,ModelFileSize",
            "--workload", "ClassificationAccuracy,ActivationSparsity,ActivationSparsityByLayer,"
            "SynapticOperations,MembraneUpdates,NeuronOperations,DenseMACs,PeakMemory,Latency,"
            "InferenceTime,Throughput,StartupTime", "--runs", "3", "--warmup", "1",
            "--startup-runs", "1"]
    run_case("snn_mlp_every_hook_metric", args, work, worlds=(2, 3), timing=True)
    return args


def expect_failure(name, outs, rank_words, path, limit_s=None, started=None):
    codes = [o[0] for o in outs]
    if os.path.exists(path):
        failures.append(f"{name}: a results file was written")
    if codes[0] in (0, None):
        failures.append(f"{name}: rank 0 exited {codes[0]}")
    if not any(w in outs[0][2] for w in rank_words):
        failures.append(f"{name}: rank 0's error does not say {rank_words}: {outs[0][2][-1500:]}")
    if limit_s is not None and time.monotonic() - started > limit_s:
        failures.append(f"{name}: took {time.monotonic() - started:.0f} s, more than {limit_s}")
    print(f"{name}: exit statuses {codes}; rank 0 said: "
          f"{outs[0][2].strip().splitlines()[-1] if outs[0][2].strip() else ''}")


def slow_args(work):
    import numpy as np
    data = os.path.join(work, "slow.npz")
    rng = np.random.default_rng(8)
    np.savez(data, data=(rng.random((96, 100, 784)) < 0.2).astype(np.float32),
             targets=rng.integers(0, 10, 96))
    return ["--model", os.path.join(MODELS, "snn_mlp.pt"), "--data", data, "--batch-size", "2",
            "--stepwise", "--post", "ChooseMaxCount", "--workload",
            "ClassificationAccuracy,SynapticOperations"]


def fault_cases(work):
    args = slow_args(work)
    # A rank killed during its shard: rank 0 finishes its own, then stops at the exchange.
    path = os.path.join(work, "killed.json")
    procs = start_ranks(2, args, path, timeout_s=60, rank_args={1: ["--verbose"]})
    wait_for_first_batch(procs[1])  # joined, and in the middle of its shard
    procs[1].send_signal(signal.SIGKILL)
    started = time.monotonic()
    expect_failure("rank 1 killed", finish(procs), ["rank 1"], path, 60, started)
    # Ctrl-C, as torchrun passes it on: every rank stops after its batch, exit 130, no file.
    path = os.path.join(work, "interrupted.json")
    procs = start_ranks(2, args, path, timeout_s=60, rank_args={0: ["--verbose"], 1: ["--verbose"]})
    for p in procs:
        wait_for_first_batch(p)  # both in their workload pass
    for p in procs:
        p.send_signal(signal.SIGINT)
    outs = finish(procs, limit=60)
    if [o[0] for o in outs] != [130, 130] or os.path.exists(path):
        failures.append(f"SIGINT to every rank: exit statuses {[o[0] for o in outs]}, file "
                        f"written: {os.path.exists(path)}: {outs[0][2][-500:]}")
    else:
        print(f"SIGINT to every rank: exit statuses [130, 130]; rank 0 said: "
              f"{outs[0][2].strip().splitlines()[-1]}")
    # A rank that hangs (stopped): the others give up after --distributed-timeout.
    path = os.path.join(work, "hung.json")
    procs = start_ranks(2, args, path, timeout_s=5, rank_args={1: ["--verbose"]})
    wait_for_first_batch(procs[1])
    procs[1].send_signal(signal.SIGSTOP)
    started = time.monotonic()
    out0 = finish(procs[:1])
    procs[1].send_signal(signal.SIGCONT)
    procs[1].kill()
    finish(procs[1:])
    expect_failure("rank 1 hung", out0, ["rank 1", "ranks 1"], path, 60, started)
    # A rank that never starts: rank 0 names it after the timeout.
    path = os.path.join(work, "absent.json")
    port = free_port()
    started = time.monotonic()
    p = subprocess.Popen([CLI, "run", *args, "--json", path, "--quiet", "--distributed-timeout",
                          "3"], env=rank_env(0, 3, port), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    expect_failure("ranks 1 and 2 never started", finish([p]), ["ranks 1, 2"], path, 30, started)
    # A rank whose shard holds a sample the model fails on: every rank stops, rank 0 naming it.
    import numpy as np
    import torch

    class Picky(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            if bool((x > 5).any()):
                raise RuntimeError("a sample above 5")
            return x.sum(1).long()

    model = os.path.join(work, "picky.pt")
    torch.jit.script(Picky()).save(model)
    data = os.path.join(work, "picky.npz")
    values = np.zeros((8, 3), np.float32)
    values[7, 0] = 9  # in the last batch: rank 1's shard
    np.savez(data, data=values, targets=np.zeros(8, np.int64))
    path = os.path.join(work, "picky.json")
    outs = finish(start_ranks(2, ["--model", model, "--data", data, "--batch-size", "2",
                                  "--workload", "ClassificationAccuracy"], path))
    expect_failure("rank 1 fails on its shard", outs, ["rank 1 (on"], path)
    if outs[1][0] != 2 or "a sample above 5" not in outs[1][2]:
        failures.append(f"rank 1 fails on its shard: rank 1 exit {outs[1][0]}: {outs[1][2]}")
    # Ranks started with different commands: refused at the exchange, naming the difference.
    path = os.path.join(work, "different.json")
    data = os.path.join(work, "zeros.npz")
    np.savez(data, data=np.zeros((8, 3), np.float32), targets=np.zeros(8, np.int64))
    port = free_port()
    procs = [subprocess.Popen([CLI, "run", "--model", model, "--data", data, "--batch-size",
                               str(2 + rank), "--workload", "ClassificationAccuracy", "--json",
                               path, "--quiet"], env=rank_env(rank, 2, port),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rank in range(2)]
    outs = finish(procs)
    expect_failure("ranks with different batch sizes", outs,
                   ["rank 1 runs another benchmark than rank 0: its batches is 3"], path)
    # Wrong or missing variables: a clear error naming them, before anything runs.
    for label, extra, drop, word in (
            ("RANK missing", {}, "RANK", "RANK is not set"),
            ("RANK out of range", {"RANK": "2"}, None, "RANK=2 is not below WORLD_SIZE=2"),
            ("MASTER_ADDR missing", {}, "MASTER_ADDR", "MASTER_ADDR is not set"),
            ("MASTER_PORT not a number", {"MASTER_PORT": "http"}, None, "MASTER_PORT='http'")):
        env = rank_env(0, 2, free_port(), **extra)
        if drop:
            del env[drop]
        path = os.path.join(work, "bad_env.json")
        r = subprocess.run([CLI, "run", *args, "--json", path, "--quiet"], env=env,
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 2 or word not in r.stderr or os.path.exists(path):
            failures.append(f"{label}: exit {r.returncode}, said: {r.stderr.strip()[-500:]}")
        else:
            print(f"{label}: {r.stderr.strip().splitlines()[-1]}")


def torchrun_case(args, work):
    torchrun = shutil.which("torchrun")
    if torchrun is None:
        print("(torchrun is not installed: its launch line is not checked)")
        return
    one = os.path.join(work, "snn_mlp_every_hook_metric_1.json")
    path = os.path.join(work, "torchrun.json")
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    # Debian's torchrun (python3-torch 1.13 on Python 3.11) fails on its own default
    # --redirects/--tee values; PET_REDIRECTS and PET_TEE set them (docs/distributed.md), so
    # that the line runs as it is.
    env.update(PET_REDIRECTS="1", PET_TEE="1")
    r = subprocess.run([torchrun, "--no_python", "--nproc_per_node", "2", "--master_port",
                        str(free_port()), CLI, "run", *args, "--json", path, "--quiet"],
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0 or not os.path.exists(path):
        failures.append(f"torchrun: exit {r.returncode}: {r.stderr[-2000:]}")
        return
    exact, total = compare("torchrun", json.load(open(one)), json.load(open(path)), 2)
    print(f"torchrun --nproc_per_node 2: {exact} of {total} values bit for bit equal")


def main():
    work = tempfile.mkdtemp(prefix="neurobench_sharded_")
    try:
        args = results_cases(work)
        nan_case(work)
        parts_case(work)
        fault_cases(work)
        torchrun_case(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("sharded runs:", "all checks passed" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
