#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The build without the optional components (the `minimal` preset), used as its users would:

  tests/components/check_minimal.py --build build/minimal [--work DIR]

- `neurobench list` says each component is missing and what it needs;
- the core still gives NeuroBench's numbers (../shared/conformance/check.sh, when it is there);
- a primate-reaching data set (HDF5), a NIR graph (HDF5), a speech-commands data set (WAV) and
  a sharded launch
  (distributed) each stop with exit status 2 and a message naming the missing component, with
  no results file;
- the installed package: `find_package(neurobench)` builds and runs tests/consumer, and
  `find_package(neurobench COMPONENTS hdf5)` fails at configure time naming the component.

Needs python3 (standard library), cmake and ninja; CI runs it after `cmake --build --preset
minimal`. Exit status 0 when every check passed.
"""
import argparse
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import wave

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(SOURCE, "tests", "fixtures")
failures = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} {name}" + (f": {detail}" if detail and not ok else ""),
          flush=True)
    if not ok:
        failures.append(name)


def run(cmd, env=None, cwd=None):
    return subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=1200)


def refuses(name, cli, args, component, work, env=None):
    """`cli run ARGS --json OUT` exits 2 naming the missing component and writes no file."""
    out = os.path.join(work, name + ".json")
    r = run([cli, "run"] + args + ["--quiet", "--json", out], env=env)
    said = f"without its '{component}' component"
    ok = r.returncode == 2 and said in r.stderr and not os.path.exists(out)
    check(f"{name}: exit 2 naming '{component}'", ok,
          f"exit {r.returncode}, stderr: {r.stderr.strip()[-400:]}")


def write_speech_commands(folder):
    """A Speech Commands release of four one-second clips, two labels, both lists."""
    for label in ("no", "yes"):
        os.makedirs(os.path.join(folder, label), exist_ok=True)
        for i in range(2):
            with wave.open(os.path.join(folder, label, f"s{i}_nohash_0.wav"), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(16000)
                w.writeframes(struct.pack("<16000h", *([i * 100] * 16000)))
    with open(os.path.join(folder, "testing_list.txt"), "w") as f:
        f.write("no/s0_nohash_0.wav\nyes/s0_nohash_0.wav\n")
    with open(os.path.join(folder, "validation_list.txt"), "w") as f:
        f.write("no/s1_nohash_0.wav\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def consumer(build, work, components):
    """Configures tests/consumer against the package installed from `build`; returns the
    configure result and, when it configured, the build and run result."""
    prefix = os.path.join(work, "prefix")
    if not os.path.isdir(prefix):
        r = run(["cmake", "--install", build, "--prefix", prefix])
        if r.returncode != 0:
            return r, None
    out = os.path.join(work, "consumer-" + ("-".join(components) or "none"))
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["cmake", "-S", os.path.join(SOURCE, "tests", "consumer"), "-B", out, "-G", "Ninja",
           "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}",
           f"-DNEUROBENCH_CONSUMER_COMPONENTS={';'.join(components)}"]
    if shutil.which("ccache"):
        cmd.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    configured = run(cmd)
    if configured.returncode != 0:
        return configured, None
    built = run(["cmake", "--build", out, "-j", "2"])
    if built.returncode != 0:
        return configured, built
    return configured, run([os.path.join(out, "consumer"),
                            os.path.join(FIXTURES, "core", "classifier.pt"),
                            os.path.join(FIXTURES, "core", "classifier.npz")])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(SOURCE, "build", "minimal"))
    parser.add_argument("--work", help="a folder for what the checks write (default: a temporary one)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    cli = os.path.join(build, "neurobench")
    if not os.access(cli, os.X_OK):
        sys.exit(f"check_minimal: {cli} not built (cmake --build --preset minimal)")
    work = args.work or tempfile.mkdtemp(prefix="nb_minimal_")
    os.makedirs(work, exist_ok=True)

    listed = run([cli, "list"])
    missing = [line for line in listed.stdout.splitlines()
               if line.strip().split()[:2] in ([c, "missing"] for c in
                                               ("hdf5", "sndfile", "distributed", "cuda",
                                                "ffmpeg"))]
    check("list: every component missing, with what it needs",
          listed.returncode == 0 and len(missing) == 5 and "needs HDF5's C library" in
          listed.stdout, listed.stdout[-600:])

    conformance = os.path.join(SOURCE, "..", "shared", "conformance", "check.sh")
    if os.path.exists(conformance):
        r = run([conformance, cli])
        check("conformance: the core gives NeuroBench's numbers", r.returncode == 0,
              r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-400:])

    refuses("primate-reaching", cli,
            ["--model", os.path.join(FIXTURES, "core", "regressor.pt"),
             "--dataset", "primate-reaching:" + os.path.join(FIXTURES, "primate_reaching",
                                                             "small.mat"),
             "--subset", "test", "--workload", "R2"], "hdf5", work)
    refuses("NIR graph", cli,
            ["--model", os.path.join(FIXTURES, "nir_paper", "lif_norse.nir"),
             "--data", os.path.join(FIXTURES, "npz", "savez.npz"), "--metrics", "Footprint"],
            "hdf5", work)
    gsc = os.path.join(work, "gsc")
    write_speech_commands(gsc)
    refuses("speech-commands", cli,
            ["--model", os.path.join(FIXTURES, "speech_commands", "clip_classifier.pt"),
             "--dataset", "speech-commands:" + gsc, "--subset", "testing",
             "--workload", "ClassificationAccuracy"], "sndfile", work)
    env = dict(os.environ, WORLD_SIZE="2", RANK="0", LOCAL_RANK="0", LOCAL_WORLD_SIZE="2",
               MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()))
    refuses("sharded run", cli,
            ["--model", os.path.join(FIXTURES, "core", "classifier.pt"), "--data",
             os.path.join(FIXTURES, "core", "classifier.npz"), "--workload",
             "ClassificationAccuracy", "--distributed", "on"], "distributed", work, env)

    configured, ran = consumer(build, work, [])
    check("find_package(neurobench): a program builds and runs",
          ran is not None and ran.returncode == 0 and "ParameterCount" in ran.stdout,
          (configured.stderr + (ran.stderr if ran else ""))[-800:])
    configured, _ = consumer(build, work, ["hdf5"])
    said = configured.stdout + configured.stderr
    check("find_package(neurobench COMPONENTS hdf5) fails naming it",
          configured.returncode != 0 and "without the component(s) hdf5" in said, said[-800:])

    print(f"check_minimal: {'all passed' if not failures else f'{len(failures)} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
