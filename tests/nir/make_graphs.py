#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The NIR graphs the `.nir` import of neurobench is tested on (tests/nir/check_nir.py).

`graphs(seed)` builds every graph with float32 weights drawn from NumPy's generator `seed`,
scaled so that the neurons fire at moderate rates on random 0/1 input spikes at rate 0.3. Each
entry is (graph, input shape without the batch, whether snnTorch 0.9.4's `import_from_nir` takes
the graph and runs it as NIR means it). Run as a script, it writes every graph:

  /usr/bin/python3 tests/nir/make_graphs.py OUTDIR     # OUTDIR/NAME.nir, prints the names

The reference packages come from $NEUROBENCH_THIRD_PARTY (default ../shared/third_party beside
the checkout).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DT = 1e-4  # the time step snnTorch's import and export assume


def third_party_dir():
    """$NEUROBENCH_THIRD_PARTY, else ../shared/third_party beside the checkout."""
    return os.path.abspath(os.environ.get("NEUROBENCH_THIRD_PARTY") or
                           os.path.join(ROOT, "..", "shared", "third_party"))


def add_third_party_paths():
    """Puts snnTorch, NeuroBench, NIR and NIRTorch first on sys.path (once)."""
    tp = third_party_dir()
    for name in ("nirtorch", "nir", "neurobench", "snntorch"):
        path = os.path.join(tp, name)
        if path not in sys.path:
            sys.path.insert(0, path)


add_third_party_paths()
import numpy as np  # noqa: E402
import nir  # noqa: E402

nir.version = getattr(nir, "version", "1.0.0")  # nir.write needs it; this copy lacks it


# ---- parameters ---------------------------------------------------------------------------

def f32(value, shape=None):
    """A float32 array of `value`, broadcast to `shape` when given."""
    a = np.asarray(value, dtype=np.float32)
    return np.ascontiguousarray(np.broadcast_to(a, shape)) if shape is not None else a


def dense(rng, n_out, n_in, mean, std):
    """A (n_out, n_in) float32 weight matrix, normal(mean, std)."""
    return rng.normal(mean, std, size=(n_out, n_in)).astype(np.float32)


def affine(rng, n_out, n_in, mean=0.15, std=0.4, scale=1.0):
    """nir.Affine with weights normal(mean, std) * scale and small biases * scale."""
    w = dense(rng, n_out, n_in, mean, std) * np.float32(scale)
    b = rng.normal(0.0, 0.05, size=n_out).astype(np.float32) * np.float32(scale)
    return nir.Affine(weight=w, bias=b)


def linear(rng, n_out, n_in, mean=0.15, std=0.4):
    """nir.Linear with weights normal(mean, std)."""
    return nir.Linear(weight=dense(rng, n_out, n_in, mean, std))


def lif(shape, tau, r, v_threshold=1.0, v_leak=0.0, v_reset=0.0):
    """nir.LIF with every parameter broadcast to `shape` (float32)."""
    return nir.LIF(tau=f32(tau, shape), r=f32(r, shape), v_leak=f32(v_leak, shape),
                   v_threshold=f32(v_threshold, shape), v_reset=f32(v_reset, shape))


def snn_lif(shape, tau):
    """A LIF as snnTorch exports snn.Leaky: r = tau/dt (so r*dt/tau is 1), threshold 1."""
    tau = f32(tau, shape)
    return lif(shape, tau, (tau / np.float32(DT)).astype(np.float32))


def cubalif(shape, tau_syn, tau_mem, w_in, r=None, v_threshold=1.0, v_leak=0.0, v_reset=0.0):
    """nir.CubaLIF, r = tau_mem/dt unless given."""
    tau_mem = f32(tau_mem, shape)
    r = tau_mem / np.float32(DT) if r is None else r
    return nir.CubaLIF(tau_syn=f32(tau_syn, shape), tau_mem=tau_mem, r=f32(r, shape),
                       v_leak=f32(v_leak, shape), v_threshold=f32(v_threshold, shape),
                       v_reset=f32(v_reset, shape), w_in=f32(w_in, shape))


def conv2d(rng, c_out, c_in, k, input_shape, stride=1, padding=0, dilation=1, groups=1,
           mean=0.05, std=0.3):
    """nir.Conv2d with a (c_out, c_in/groups, k, k) kernel."""
    w = rng.normal(mean, std, size=(c_out, c_in // groups, k, k)).astype(np.float32)
    b = rng.normal(0.0, 0.05, size=c_out).astype(np.float32)
    return nir.Conv2d(input_shape=input_shape, weight=w, stride=stride, padding=padding,
                      dilation=dilation, groups=groups, bias=b)


def inp(shape):
    return nir.Input(input_type=np.array(shape))


def out(shape):
    return nir.Output(output_type=np.array(shape))


def chain(names_nodes, type_check=True):
    """A graph whose nodes (an ordered list of (name, node)) are connected one after another."""
    nodes = dict(names_nodes)
    names = [n for n, _ in names_nodes]
    edges = list(zip(names[:-1], names[1:]))
    return nir.NIRGraph(nodes=nodes, edges=edges, type_check=type_check)


# ---- graphs snnTorch's import takes ---------------------------------------------------------

def affine_lif(rng):
    tau2 = rng.uniform(2e-3, 1e-2, size=4)
    g = chain([("input", inp([8])), ("fc1", affine(rng, 16, 8, mean=0.2, std=0.5)),
               ("lif1", snn_lif([16], 2e-3)), ("fc2", affine(rng, 4, 16, mean=0.15, std=0.5)),
               ("lif2", snn_lif([4], tau2)), ("output", out([4]))])
    return g, (8,), True


def affine_lif_scaled(rng):
    """r = 1: r*dt/tau is not 1, snnTorch divides the threshold by it (weights scaled up)."""
    g = chain([("input", inp([8])),
               ("fc1", affine(rng, 16, 8, mean=0.2, std=0.5, scale=2e-3 / DT)),
               ("lif1", lif([16], 2e-3, 1.0)),
               ("fc2", affine(rng, 4, 16, mean=0.15, std=0.5, scale=5e-3 / DT)),
               ("lif2", lif([4], 5e-3, 1.0)), ("output", out([4]))])
    return g, (8,), True


def linear_cubalif(rng, w_in=None):
    tau_syn = 5e-4
    # w_in * dt / tau_syn is 1 by default: snnTorch then leaves the threshold as it is
    w_in = tau_syn / DT if w_in is None else w_in
    gain = w_in * DT / tau_syn
    g = chain([("input", inp([8])), ("fc", linear(rng, 6, 8, mean=0.05 / gain, std=0.1 / gain)),
               ("cuba", cubalif([6], tau_syn, 2e-3, w_in)), ("output", out([6]))])
    return g, (8,), True


def conv_lif_avgpool(rng):
    pool = nir.AvgPool2d(kernel_size=np.array([2, 2]), stride=np.array([2, 2]),
                         padding=np.array([0, 0]))
    g = chain([("input", inp([2, 8, 8])),
               ("conv.0", conv2d(rng, 4, 2, 3, (8, 8), stride=1, padding=1, mean=0.15)),
               ("lif", snn_lif([4, 8, 8], 2e-3)), ("pool", pool), ("output", out([4, 4, 4]))])
    return g, (2, 8, 8), True


def conv1d_lif(rng):
    w = rng.normal(0.15, 0.4, size=(4, 2, 3)).astype(np.float32)
    conv = nir.Conv1d(input_shape=16, weight=w, stride=2, padding=1, dilation=1, groups=1,
                      bias=rng.normal(0.0, 0.05, size=4).astype(np.float32))
    g = chain([("input", inp([2, 16])), ("conv", conv), ("lif", snn_lif([4, 8], 2e-3)),
               ("output", out([4, 8]))])
    return g, (2, 16), True


def sumpool(rng):
    pool = nir.SumPool2d(kernel_size=np.array([2, 2]), stride=np.array([2, 2]),
                         padding=np.array([0, 0]))
    g = chain([("input", inp([2, 8, 8])), ("conv", conv2d(rng, 4, 2, 3, (8, 8), mean=0.15)),
               ("lif", snn_lif([4, 6, 6], 2e-3)), ("pool", pool), ("output", out([4, 3, 3]))])
    return g, (2, 8, 8), True


def fanin(rng):
    nodes = {"input": inp([8]), "fc_a": affine(rng, 4, 8, mean=0.1), "fc_b":
             affine(rng, 4, 8, mean=0.1), "lif": snn_lif([4], 2e-3), "output": out([4])}
    edges = [("input", "fc_a"), ("input", "fc_b"), ("fc_a", "lif"), ("fc_b", "lif"),
             ("lif", "output")]
    return nir.NIRGraph(nodes=nodes, edges=edges), (8,), True


def fanout(rng):
    nodes = {"input": inp([8]), "fc1": affine(rng, 12, 8, mean=0.2, std=0.5),
             "lif1": snn_lif([12], 2e-3), "fc_a": affine(rng, 4, 12, mean=0.1),
             "fc_b": affine(rng, 4, 12, mean=0.1), "lif2": snn_lif([4], 3e-3),
             "output": out([4])}
    edges = [("input", "fc1"), ("fc1", "lif1"), ("lif1", "fc_a"), ("lif1", "fc_b"),
             ("fc_b", "lif2"), ("fc_a", "lif2"), ("lif2", "output")]
    return nir.NIRGraph(nodes=nodes, edges=edges), (8,), True


# ---- graphs snnTorch's import does not take (nested, conv_groups_dilation: does) -------------

def if_cnn(rng):
    """Conv2d padding 'same' -> IF -> SumPool2d -> Flatten(start_dim=0) -> Affine -> IF."""
    pool = nir.SumPool2d(kernel_size=np.array([2, 2]), stride=np.array([2, 2]),
                         padding=np.array([0, 0]))
    flat = nir.Flatten(input_type={"input": np.array([4, 4, 4])}, start_dim=0, end_dim=-1)
    thr1 = rng.uniform(0.8, 1.2, size=(4, 8, 8))
    g = chain([("input", inp([2, 8, 8])),
               ("conv", conv2d(rng, 4, 2, 3, (8, 8), padding="same", mean=0.1)),
               ("if1", nir.IF(r=f32(1000.0, (4, 8, 8)), v_threshold=f32(thr1))),
               ("pool", pool), ("flat", flat),
               ("fc", affine(rng, 4, 64, mean=0.02, std=0.15)),
               ("if2", nir.IF(r=f32(1000.0, (4,)), v_threshold=f32(1.0, (4,)))),
               ("output", out([4]))])
    return g, (2, 8, 8), False


def li_readout(rng):
    li = nir.LI(tau=f32(rng.uniform(5e-3, 2e-2, size=4)), r=f32(10.0, (4,)),
                v_leak=f32(0.0, (4,)))
    g = chain([("input", inp([8])), ("fc1", affine(rng, 16, 8, mean=0.2, std=0.5)),
               ("lif1", lif([16], 2e-3, 10.0)), ("fc2", affine(rng, 4, 16)), ("li", li),
               ("output", out([4]))])
    return g, (8,), False


def integrator(rng):
    g = chain([("input", inp([8])), ("fc", affine(rng, 4, 8)),
               ("integ", nir.I(r=f32(rng.uniform(50.0, 200.0, size=4)))), ("output", out([4]))])
    return g, (8,), False


def cubali(rng):
    node = nir.CubaLI(tau_syn=f32(1e-3, (4,)), tau_mem=f32(rng.uniform(3e-3, 1e-2, size=4)),
                      r=f32(5.0, (4,)), v_leak=f32(0.1, (4,)), w_in=f32(2.0, (4,)))
    g = chain([("input", inp([8])), ("fc", affine(rng, 4, 8)), ("cuba", node),
               ("output", out([4]))])
    return g, (8,), False


def scale_threshold(rng):
    g = chain([("input", inp([8])), ("fc", affine(rng, 6, 8)),
               ("scale", nir.Scale(scale=f32(rng.uniform(0.5, 2.0, size=6)))),
               ("thr", nir.Threshold(threshold=f32(rng.uniform(0.2, 0.6, size=6)))),
               ("output", out([6]))])
    return g, (8,), False


def delay(rng):
    # multiples of both test steps' dt (1e-4, 1e-3) or well away from k + 0.5 at either
    d = f32([0.0, 1e-4, 3e-4, 1e-3, 2e-3, 4e-4])
    g = chain([("input", inp([8])), ("fc", affine(rng, 6, 8)), ("delay", nir.Delay(delay=d)),
               ("lif", lif([6], 2e-3, 10.0, v_threshold=0.5)), ("output", out([6]))])
    return g, (8,), False


def recurrent(rng, neuron):
    """Affine -> neuron with a recurrent Linear neuron -> W -> neuron, named as snnTorch's
    export names an RLeaky ('rec.lif', 'rec.w_rec'), -> Affine -> LIF."""
    nodes = {"input": inp([8]), "fc1": affine(rng, 10, 8, mean=0.15, std=0.5), "rec.lif": neuron,
             "rec.w_rec": linear(rng, 10, 10, mean=0.0, std=0.3),
             "fc2": affine(rng, 4, 10, mean=0.2), "lif2": lif([4], 2e-3, 10.0),
             "output": out([4])}
    edges = [("input", "fc1"), ("rec.w_rec", "rec.lif"), ("fc1", "rec.lif"),
             ("rec.lif", "rec.w_rec"), ("rec.lif", "fc2"), ("fc2", "lif2"), ("lif2", "output")]
    return nir.NIRGraph(nodes=nodes, edges=edges)


def recurrent_lif(rng):
    return recurrent(rng, lif([10], 2e-3, 10.0)), (8,), False


def recurrent_cubalif(rng):
    return recurrent(rng, cubalif([10], 1e-3, 2e-3, 2.0, r=10.0)), (8,), False


def nested(rng):
    sub = chain([("input", inp([8])), ("fc", affine(rng, 12, 8, mean=0.2, std=0.5)),
                 ("lif", lif([12], 2e-3, 10.0)), ("output", out([12]))])
    g = chain([("input", inp([8])), ("sub", sub), ("fc2", affine(rng, 4, 12, mean=0.15)),
               ("lif2", lif([4], 2e-3, 10.0)), ("output", out([4]))])
    return g, (8,), True  # snnTorch's import inlines the nested graph (NIRTorch recurses)


def fanin3(rng):
    """Three Affine branches into one LIF: summed in edge order (NIRTorch sums in the order of
    a Python set, so snnTorch's import is not compared bit for bit)."""
    nodes = {"input": inp([8]), "fc_c": affine(rng, 4, 8, mean=0.07),
             "fc_a": affine(rng, 4, 8, mean=0.07), "fc_b": affine(rng, 4, 8, mean=0.07),
             "lif": lif([4], 2e-3, 10.0), "output": out([4])}
    edges = [("input", "fc_a"), ("input", "fc_b"), ("input", "fc_c"), ("fc_b", "lif"),
             ("fc_c", "lif"), ("fc_a", "lif"), ("lif", "output")]
    return nir.NIRGraph(nodes=nodes, edges=edges), (8,), False


def lif_self_loop(rng):
    """A LIF whose spikes feed back into itself (an edge lif -> lif) besides an Affine."""
    nodes = {"input": inp([8]), "fc": affine(rng, 6, 8, mean=0.1), "lif": lif([6], 2e-3, 10.0),
             "output": out([6])}
    edges = [("input", "fc"), ("lif", "lif"), ("fc", "lif"), ("lif", "output")]
    return nir.NIRGraph(nodes=nodes, edges=edges), (8,), False


def lif_vleak_vreset(rng):
    node = lif([8], f32(rng.uniform(2e-3, 4e-3, size=8)), 15.0,
               v_threshold=f32(rng.uniform(0.7, 1.0, size=8)),
               v_leak=f32(rng.uniform(-0.5, 0.5, size=8)),
               v_reset=f32(rng.uniform(-0.3, 0.2, size=8)))
    g = chain([("input", inp([8])), ("fc", affine(rng, 8, 8, mean=0.1)), ("lif", node),
               ("output", out([8]))])
    return g, (8,), False


def conv_groups_dilation(rng):
    # NIR's Conv2d takes its input channels from weight.shape[1] (C_in / groups): with
    # groups=2 that type is wrong, so the input shape is left to the graph's type inference
    conv = conv2d(rng, 6, 4, 3, None, stride=2, padding=1, dilation=2, groups=2, mean=0.15)
    g = chain([("input", inp([4, 12, 12])), ("conv", conv), ("lif", lif([6, 5, 5], 2e-3, 10.0)),
               ("output", out([6, 5, 5]))])
    return g, (4, 12, 12), True  # read with type_check=False


BUILDERS = [
    ("affine_lif", affine_lif),
    ("affine_lif_scaled", affine_lif_scaled),
    ("linear_cubalif", linear_cubalif),
    ("linear_cubalif_win", lambda rng: linear_cubalif(rng, w_in=2.0)),
    ("conv_lif_avgpool", conv_lif_avgpool),
    ("conv1d_lif", conv1d_lif),
    ("sumpool", sumpool),
    ("fanin", fanin),
    ("fanout", fanout),
    ("if_cnn", if_cnn),
    ("li_readout", li_readout),
    ("integrator", integrator),
    ("cubali", cubali),
    ("scale_threshold", scale_threshold),
    ("delay", delay),
    ("recurrent_lif", recurrent_lif),
    ("recurrent_cubalif", recurrent_cubalif),
    ("nested", nested),
    ("fanin3", fanin3),
    ("lif_self_loop", lif_self_loop),
    ("lif_vleak_vreset", lif_vleak_vreset),
    ("conv_groups_dilation", conv_groups_dilation),
]


def graphs(seed=0):
    """name -> (nir.NIRGraph, input shape without the batch, importable by snnTorch)."""
    result = {}
    for i, (name, build) in enumerate(BUILDERS):
        rng = np.random.default_rng([seed, i])  # each graph its own stream
        result[name] = build(rng)
    return result


# ---- files --------------------------------------------------------------------------------

def write(path, graph):
    """Writes `graph` to `path` (HDF5, NIR's format)."""
    nir.write(path, graph)


def read(path):
    """Reads a graph written by write(): NIR's type check is left out, since NIR types a
    grouped Conv2d's input by weight.shape[1] (C_in / groups) and so rejects it."""
    return nir.read(path, type_check=False)


def assert_same(a, b, where):
    """Raises AssertionError unless NIR nodes `a` and `b` hold the same parameters."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} read back as {type(b).__name__}"
    if isinstance(a, nir.NIRGraph):
        # HDF5 keeps a group's members sorted by name: the file does not keep the node order
        assert sorted(a.nodes) == sorted(b.nodes), \
            f"{where}: nodes {list(a.nodes)} read back as {list(b.nodes)}"
        assert [tuple(e) for e in a.edges] == [tuple(e) for e in b.edges], f"{where}: edges"
        for name in a.nodes:
            assert_same(a.nodes[name], b.nodes[name], f"{where}/{name}")
        return
    da, db = a.to_dict(), b.to_dict()
    da.pop("metadata", None)
    db.pop("metadata", None)
    for key, value in da.items():
        if key == "input_shape" and value is None:
            continue  # set on write by type inference
        got = db.get(key)
        if isinstance(value, str) or isinstance(got, bytes):
            got = got.decode() if isinstance(got, bytes) else got
            assert value == got, f"{where}.{key}: {value!r} read back as {got!r}"
            continue
        va, vb = np.asarray(value), np.asarray(got)
        assert va.shape == vb.shape and np.array_equal(va, vb), \
            f"{where}.{key}: {value!r} read back as {got!r}"
        if va.dtype.kind == "f":
            assert va.dtype == vb.dtype, f"{where}.{key}: dtype {va.dtype} read as {vb.dtype}"


def round_trip(graph, path):
    """Writes `graph` to `path`, reads it back, checks that nothing changed; returns it."""
    write(path, graph)
    back = read(path)
    assert_same(graph, back, os.path.basename(path))
    return back


def main(argv):
    if len(argv) != 2:
        print(f"usage: {argv[0]} OUTDIR", file=sys.stderr)
        return 2
    os.makedirs(argv[1], exist_ok=True)
    for name, (graph, _, _) in graphs().items():
        round_trip(graph, os.path.join(argv[1], name + ".nir"))
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
