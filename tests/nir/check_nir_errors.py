#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Bad NIR graphs and bad options given to `neurobench run` and `neurobench convert`: each must
stop with exit status 2 and a message that names the file and the node or option at fault,
and write nothing. The graphs are written here with h5py, as `nir.write` lays them out.

  /usr/bin/python3 tests/nir/check_nir_errors.py --neurobench build/release/neurobench

Exits 77 (skipped) without h5py or numpy.
"""
import argparse
import os
import subprocess
import sys
import tempfile

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"skipped: {e}")
    sys.exit(77)

F32 = np.float32


def node(group, name, kind, **fields):
    """A node group `name` of type `kind` with numeric (or text) fields."""
    g = group.create_group(name)
    g.create_dataset("type", data=kind, dtype=h5py.string_dtype())
    for key, value in fields.items():
        if isinstance(value, str):
            g.create_dataset(key, data=value, dtype=h5py.string_dtype())
        else:
            g.create_dataset(key, data=value)
    return g


def graph(group, edges):
    """Makes `group` a NIRGraph with `edges`; returns its `nodes` group."""
    group.create_dataset("type", data="NIRGraph", dtype=h5py.string_dtype())
    if edges:
        group.create_dataset("edges", data=np.array(edges, dtype=object),
                             dtype=h5py.string_dtype())
    else:
        group.create_dataset("edges", data=np.zeros((0,), F32))
    return group.create_group("nodes")


def lif(nodes, name, n, **overrides):
    fields = dict(tau=np.full(n, 2e-3, F32), r=np.full(n, 20.0, F32), v_leak=np.zeros(n, F32),
                  v_threshold=np.ones(n, F32))
    fields.update(overrides)
    return node(nodes, name, "LIF", **fields)


def affine(nodes, name, n_out, n_in, weight=None):
    w = np.ones((n_out, n_in), F32) if weight is None else weight
    return node(nodes, name, "Affine", weight=w, bias=np.zeros(n_out, F32))


def write(path, build, edges):
    with h5py.File(path, "w") as f:
        f.create_dataset("version", data="1.0.0", dtype=h5py.string_dtype())
        nodes = graph(f.create_group("node"), edges)
        build(nodes)


def chain(*middle):
    names = ["input", *middle, "output"]
    return [(a, b) for a, b in zip(names, names[1:])]


def io(nodes, n_in, n_out):
    node(nodes, "input", "Input", shape=np.array([n_in]))
    node(nodes, "output", "Output", shape=np.array([n_out]))


def cases(work):
    """(name, path, builder and edges or raw writer, expected message parts)."""
    def good(nodes):
        io(nodes, 8, 16)
        affine(nodes, "fc", 16, 8)
        lif(nodes, "lif", 16)

    def shape_mismatch(nodes):
        io(nodes, 8, 10)
        affine(nodes, "fc", 16, 8)
        lif(nodes, "lif", 10)

    def nan_param(nodes):
        io(nodes, 8, 16)
        affine(nodes, "fc", 16, 8)
        lif(nodes, "lif", 16, tau=np.array([np.nan] * 16, F32))

    def negative_tau(nodes):
        io(nodes, 8, 16)
        affine(nodes, "fc", 16, 8)
        lif(nodes, "lif", 16, tau=np.full(16, -1e-3, F32))

    def unknown_type(nodes):
        io(nodes, 8, 16)
        affine(nodes, "fc", 16, 8)
        node(nodes, "lif", "Izhikevich", a=np.ones(16, F32))

    def unknown_field(nodes):
        io(nodes, 8, 16)
        affine(nodes, "fc", 16, 8)
        lif(nodes, "lif", 16, refractory=np.ones(16, F32))

    def algebraic_loop(nodes):
        io(nodes, 8, 8)
        affine(nodes, "a", 8, 8)
        affine(nodes, "b", 8, 8)

    def two_inputs(nodes):
        good(nodes)
        node(nodes, "input2", "Input", shape=np.array([8]))

    def huge(nodes):
        io(nodes, 8, 16)
        g = nodes.create_group("fc")
        g.create_dataset("type", data="Affine", dtype=h5py.string_dtype())
        g.create_dataset("weight", shape=(2**20, 2**22), dtype=F32, chunks=(1, 1024))
        g.create_dataset("bias", data=np.zeros(16, F32))
        lif(nodes, "lif", 16)

    def not_fed(nodes):
        good(nodes)
        lif(nodes, "orphan", 16)

    def bad_output(nodes):
        io(nodes, 8, 12)
        affine(nodes, "fc", 16, 8)
        lif(nodes, "lif", 16)

    def bad_padding(nodes):
        node(nodes, "input", "Input", shape=np.array([2, 8, 8]))
        node(nodes, "output", "Output", shape=np.array([4, 8, 8]))
        node(nodes, "conv", "Conv2d", weight=np.ones((4, 2, 3, 3), F32), bias=np.zeros(4, F32),
             stride=np.array([1, 1]), padding="full", dilation=np.array([1, 1]), groups=1)

    def not_nir(path):
        with h5py.File(path, "w") as f:
            f.create_dataset("x", data=np.ones(3))

    feed = chain("fc", "lif")
    return [
        ("missing node in an edge", good, feed + [("lif", "ghost")],
         ["edge 'lif' -> 'ghost'", "no node 'ghost'"]),
        ("shape that does not fit", shape_mismatch, feed,
         ["node 'lif'", "shape (10,)", "(16,)"]),
        ("NaN parameter", nan_param, feed, ["node 'lif'", "'tau'", "finite"]),
        ("negative time constant", negative_tau, feed, ["node 'lif'", "'tau'", "more than 0"]),
        ("unknown node type", unknown_type, feed, ["node 'lif'", "Izhikevich", "NIR 1.0"]),
        ("unknown field", unknown_field, feed, ["node 'lif'", "refractory"]),
        ("cycle without a neuron", algebraic_loop,
         [("input", "a"), ("a", "b"), ("b", "a"), ("a", "output")],
         ["cycle through no neuron", "'a'", "'b'"]),
        ("two inputs", two_inputs, feed + [("input2", "fc")], ["2 Input"]),
        ("absurd size", huge, feed, ["node 'fc'", "weight", "bytes"]),
        ("node fed by nothing", not_fed, feed + [("orphan", "output")],
         ["node 'orphan'", "no edge leads into it"]),
        ("output shape", bad_output, feed, ["node 'output'", "(12,)", "(16,)"]),
        ("bad padding text", bad_padding, chain("conv"), ["node 'conv'", "'full'"]),
        ("HDF5 but not NIR", not_nir, None, ["not a NIR graph", "no group 'node'"]),
    ]


def run(neurobench, args):
    p = subprocess.run([neurobench, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def expect_error(label, neurobench, args, parts, failures, must_not_exist=None):
    code, text = run(neurobench, args)
    missing = [p for p in parts if p not in text]
    if code != 2 or missing:
        failures.append(f"{label}: exit {code}, missing {missing!r} in:\n{text}")
        print(f"FAIL {label}")
        return
    if must_not_exist and os.path.exists(must_not_exist):
        failures.append(f"{label}: {must_not_exist} was written")
        print(f"FAIL {label}")
        return
    print(f"ok   {label}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neurobench", required=True)
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="nir_errors_") as work:
        data = os.path.join(work, "d.npz")
        rng = np.random.default_rng(0)
        np.savez(data, data=(rng.random((4, 5, 8)) < 0.3).astype(F32),
                 targets=np.zeros(4, np.int64))
        for i, (label, build, edges, parts) in enumerate(cases(work)):
            path = os.path.join(work, f"g{i}.nir")
            if edges is None:
                build(path)
            else:
                write(path, build, edges)
            out = os.path.join(work, f"g{i}.pt")
            expect_error(f"run: {label}", args.neurobench,
                         ["run", "--model", path, "--data", data, "--metrics", "Footprint", "-q"],
                         [path] + parts, failures)
            expect_error(f"convert: {label}", args.neurobench, ["convert", path, out],
                         [path] + parts, failures, must_not_exist=out)
        # A good graph with bad data and bad options.
        good = os.path.join(work, "good.nir")
        write(good, cases(work)[0][1], chain("fc", "lif"))
        wide = os.path.join(work, "wide.npz")
        np.savez(wide, data=np.zeros((4, 5, 9), F32), targets=np.zeros(4, np.int64))
        # (A workload metric: a run of static metrics alone reads no data.)
        expect_error("run: data of the wrong shape", args.neurobench,
                     ["run", "--model", good, "--data", wide, "--metrics",
                      "Footprint,ActivationSparsity", "-q"],
                     ["inputs shaped (batch, 8)"], failures)
        expect_error("run: --nir-dt 0", args.neurobench,
                     ["run", "--model", good, "--data", data, "--nir-dt", "0", "--metrics", "Footprint",
                      "-q"],
                     ["nir_dt"], failures)
        expect_error("run: --nir-time wrong", args.neurobench,
                     ["run", "--model", good, "--data", data, "--nir-time", "rk4", "-q"],
                     ["--nir-time", "rk4"], failures)
        expect_error("convert: output over the graph", args.neurobench,
                     ["convert", good, good], ["good.nir", "NIR graph"], failures)
        text = os.path.join(work, "text.nir")
        with open(text, "w", encoding="utf-8") as f:
            f.write("not a graph\n")
        expect_error("run: a .nir that is not HDF5", args.neurobench,
                     ["run", "--model", text, "--data", data, "--metrics", "Footprint", "-q"],
                     [text, "not an HDF5 file"], failures)
        code, out = run(args.neurobench, ["convert", good, os.path.join(work, "good.pt")])
        if code != 0 or "Leaky" not in out:
            failures.append(f"convert of a good graph: exit {code}:\n{out}")
    if failures:
        print("\n\n".join(failures))
        return 1
    print("every bad graph and option refused by name")
    return 0


if __name__ == "__main__":
    sys.exit(main())
