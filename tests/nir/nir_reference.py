#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A plain PyTorch (float32) reference of what a NIR graph computes, one timestep at a time,
under the three time conventions of `neurobench convert --nir-time` (snntorch, euler, exact).

This is the specification the C++ import implements, written as directly as possible:

* State is zero at the start of a sequence; run_reference() steps the graph over x[:, t].
* Neuron coefficients are computed in float64 from the file's values, then cast to float32; the
  update is `v = decay * v + gain * x + bias` in float32, evaluated in that order.
  - euler: LIF/LI decay 1 - dt/tau, gain r*dt/tau, bias v_leak*dt/tau; IF/I decay 1, gain r*dt.
  - exact: LIF/LI e = exp(-dt/tau), decay e, gain r*(1-e), bias v_leak*(1-e); IF/I as euler.
  - snntorch: the LIF and CubaLIF nodes snnTorch 0.9.4's import_from_nir takes are snnTorch's
    own modules, built as its import builds them (Leaky/Synaptic, reset to zero whatever the
    reset asked): a LIF or CubaLIF with v_reset allclose 0 that the import's node conversion
    accepts (v_leak allclose 0, one threshold after the w_scale division; CubaLIF: r allclose
    tau_mem/1e-4). The other LIF/LI/CubaLIF/CubaLI as euler with dt 1e-4; IF/I decay 1, gain r
    (one step, one time unit). Delay counts steps of the dt given in every convention.
* LIF, IF, CubaLIF spike with z = (v > v_threshold) and reset to v_reset (or subtract the
  threshold); LI, I, CubaLI output v. CubaLIF/CubaLI update the current first and the membrane
  from the previous current (forward Euler, as NIR's reference implementation does).
* Edges into a node are summed in the graph's edge order. In a cycle, an edge leaving a stateful
  node to a node of its strongly connected component carries that node's output of the previous
  step (zeros at the first). Nested NIRGraph nodes are inlined.

check_cubalif_against_paper() compares the CubaLIF update with the NIR paper's own reference
(nir/paper/03_rnn/extras/debug_CubaLIF/nir_reference_impl.py). Run as a script, it runs that check.
"""
import contextlib
import importlib.util
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
import make_graphs  # noqa: E402  (puts the reference packages on sys.path)
import nir  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

DEFAULT_DT = 1e-4
SNNTORCH_DT = 1e-4  # the step snnTorch's import assumes
CONVENTIONS = ("snntorch", "euler", "exact")
RESETS = ("v_reset", "subtract")
SPIKING = (nir.LIF, nir.IF, nir.CubaLIF)
STATEFUL = (nir.LIF, nir.IF, nir.CubaLIF, nir.LI, nir.CubaLI, nir.I, nir.Delay)


# ---- graph structure ----------------------------------------------------------------------

class Flat:
    """A graph with its nested NIRGraph nodes inlined: nodes (name -> NIR node; a nested graph's
    nodes named 'sub.name', its Input and Output kept as pass-through nodes), edges in order,
    and the names of the top-level Input and Output."""

    def __init__(self, graph):
        self.nodes, self.edges = {}, []
        self.input, self.output = self._inline(graph, "")

    def _inline(self, graph, prefix):
        ends = {}  # nested graph name -> (its Input's flat name, its Output's flat name)
        for name, node in graph.nodes.items():
            if isinstance(node, nir.NIRGraph):
                ends[name] = self._inline(node, prefix + name + ".")
            else:
                self.nodes[prefix + name] = node
        for a, b in graph.edges:
            src = ends[a][1] if a in ends else prefix + a
            dst = ends[b][0] if b in ends else prefix + b
            self.edges.append((src, dst))
        return self._only(graph, nir.Input, prefix), self._only(graph, nir.Output, prefix)

    @staticmethod
    def _only(graph, kind, prefix):
        names = [n for n, node in graph.nodes.items() if isinstance(node, kind)]
        if len(names) != 1:
            raise ValueError(f"graph '{prefix}' needs one {kind.__name__} node, has {names}")
        return prefix + names[0]

    def sources(self, name):
        """The nodes feeding `name`, in edge order (repeated if an edge is)."""
        return [a for a, b in self.edges if b == name]


def strongly_connected(names, edges):
    """name -> index of its strongly connected component (Tarjan, iterative)."""
    succ = {n: [] for n in names}
    for a, b in edges:
        succ[a].append(b)
    index, low, comp, stack, on_stack = {}, {}, {}, [], set()
    counter = 0
    for root in names:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            if i < len(succ[node]):
                work.append((node, i + 1))
                nxt = succ[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp[member] = index[node]
                    if member == node:
                        break
    return comp


def recurrent_edges(flat):
    """The edges that carry the previous step's output: from a stateful node to a node of the
    same strongly connected component (a self-loop included)."""
    comp = strongly_connected(list(flat.nodes), flat.edges)
    return {(a, b) for a, b in flat.edges
            if comp[a] == comp[b] and isinstance(flat.nodes[a], STATEFUL)}


def schedule(flat, recurrent):
    """The nodes in topological order of the edges that are not recurrent (ties: node order)."""
    pending = {n: 0 for n in flat.nodes}
    for a, b in flat.edges:
        if (a, b) not in recurrent:
            pending[b] += 1
    order = []
    ready = [n for n in flat.nodes if pending[n] == 0]
    while ready:
        name = ready.pop(0)
        order.append(name)
        for a, b in flat.edges:
            if a == name and (a, b) not in recurrent:
                pending[b] -= 1
                if pending[b] == 0:
                    ready.append(b)
    if len(order) != len(flat.nodes):
        stuck = sorted(set(flat.nodes) - set(order))
        raise ValueError(f"a cycle without a stateful node through {stuck}")
    return order


def spiking_nodes(graph):
    """The flat names of the LIF, IF and CubaLIF nodes (ActivationSparsity's layers)."""
    flat = Flat(graph)
    return [n for n, node in flat.nodes.items() if isinstance(node, SPIKING)]


def output_is_spikes(graph):
    """Whether the graph's output is 0/1 spikes: every node feeding its Output spikes."""
    flat = Flat(graph)
    name = flat.output
    while True:
        srcs = flat.sources(name)
        if len(srcs) != 1 or not isinstance(flat.nodes[srcs[0]], (nir.Input, nir.Output)):
            break
        name = srcs[0]  # through a nested graph's Output / Input
    return bool(srcs) and all(isinstance(flat.nodes[s], SPIKING + (nir.Threshold,))
                              for s in srcs)


# ---- coefficients (float64, then float32) --------------------------------------------------

def f64(a):
    return np.asarray(a, dtype=np.float64)


def t32(a):
    """A float32 tensor of a float64 array: the cast happens last."""
    return torch.from_numpy(np.ascontiguousarray(np.asarray(a, dtype=np.float64))
                            .astype(np.float32))


def leaky_coefficients(tau, r, v_leak, convention, dt):
    """(decay, gain, bias) for tau dv/dt = (v_leak - v) + r x."""
    tau, r, v_leak = f64(tau), f64(r), f64(v_leak)
    if convention == "snntorch":
        convention, dt = "euler", SNNTORCH_DT
    if convention == "euler":
        return 1 - dt / tau, r * dt / tau, v_leak * dt / tau
    e = np.exp(-dt / tau)
    return e, r * (1 - e), v_leak * (1 - e)


def integrator_coefficients(r, convention, dt):
    """(decay, gain, bias) for dv/dt = r x; snntorch: one step is one unit of time."""
    r = f64(r)
    gain = r if convention == "snntorch" else r * dt
    return np.ones_like(r), gain, np.zeros_like(r)


def synapse_coefficients(tau_syn, w_in, convention, dt):
    """(decay, gain) for tau_syn di/dt = -i + w_in x."""
    tau_syn, w_in = f64(tau_syn), f64(w_in)
    if convention == "snntorch":
        convention, dt = "euler", SNNTORCH_DT
    if convention == "euler":
        return 1 - dt / tau_syn, w_in * dt / tau_syn
    e = np.exp(-dt / tau_syn)
    return e, w_in * (1 - e)


# ---- operators ------------------------------------------------------------------------------

class Neuron:
    """LIF, LI, IF, I: v = decay * v + gain * x + bias; spiking ones fire and reset."""

    def __init__(self, coefficients, threshold=None, v_reset=None, reset="v_reset"):
        self.decay, self.gain, self.bias = (t32(c) for c in coefficients)
        self.threshold = None if threshold is None else t32(threshold)
        self.v_reset = None if v_reset is None else t32(v_reset)
        self.reset = reset
        self.v = None
        self.state = {}

    def step(self, x):
        if self.v is None:
            self.v = torch.zeros_like(x)
        v = self.decay * self.v + self.gain * x + self.bias
        y = v
        if self.threshold is not None:
            y, v = fire(v, self.threshold, self.v_reset, self.reset)
        self.v = v
        self.state = {"v": v}
        return y


class Cuba:
    """CubaLIF, CubaLI: i = decay_s*i + gain_s*x; v = decay_m*v + gain_m*i_old + bias_m."""

    def __init__(self, synapse, membrane, threshold=None, v_reset=None, reset="v_reset"):
        self.decay_s, self.gain_s = (t32(c) for c in synapse)
        self.decay_m, self.gain_m, self.bias_m = (t32(c) for c in membrane)
        self.threshold = None if threshold is None else t32(threshold)
        self.v_reset = None if v_reset is None else t32(v_reset)
        self.reset = reset
        self.i = self.v = None
        self.state = {}

    def step(self, x):
        if self.v is None:
            self.i, self.v = torch.zeros_like(x), torch.zeros_like(x)
        i_old = self.i
        self.i = self.decay_s * self.i + self.gain_s * x
        v = self.decay_m * self.v + self.gain_m * i_old + self.bias_m
        y = v
        if self.threshold is not None:
            y, v = fire(v, self.threshold, self.v_reset, self.reset)
        self.v = v
        self.state = {"v": v, "i": self.i}
        return y


def fire(v, threshold, v_reset, reset):
    """(spikes, membrane after the reset)."""
    z = (v > threshold).float()
    if reset == "subtract":
        return z, v - z * threshold
    return z, torch.where(z > 0, v_reset, v)


class SnnTorchNeuron:
    """A LIF or CubaLIF node as snnTorch's import_from_nir runs it: its own Leaky / Synaptic
    module, built by the import's node conversion, stepped with the state it keeps."""

    def __init__(self, module):
        self.module = module
        self.state = {}

    def step(self, x):
        spk = self.module(x)
        self.state = {"v": self.module.mem}
        return spk


def snntorch_module(node):
    """The snnTorch module import_from_nir builds for `node`, or None when it does not take it
    (or, for a LIF or CubaLIF with a nonzero v_reset, would take it with another meaning)."""
    if not isinstance(node, (nir.LIF, nir.CubaLIF)) or not np.allclose(node.v_reset, 0.0):
        return None
    from snntorch import import_nir
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module = import_nir._nir_to_snntorch_module(node, init_hidden=True)
    except AssertionError:
        return None
    return module.to(dtype=torch.float32)  # as nirtorch.nir_to_torch does


class Delay:
    """y_t = x_{t-k}, k = round(delay / dt) per element (zeros before the start)."""

    def __init__(self, delay, dt):
        steps = np.rint(f64(delay) / dt).astype(np.int64)
        if (steps < 0).any():
            raise ValueError(f"negative delay {delay}")
        self.steps = torch.from_numpy(steps)
        self.history = []
        self.state = {}

    def step(self, x):
        self.history.append(x)
        t = len(self.history) - 1
        y = torch.zeros_like(x)
        for k in sorted(set(self.steps.flatten().tolist())):
            if t - k >= 0:
                y = torch.where(self.steps == k, self.history[t - k], y)
        return y


class Stateless:
    """A node without state: y = fn(x)."""

    def __init__(self, fn):
        self.fn = fn
        self.state = {}

    def step(self, x):
        return self.fn(x)


def int_tuple(value, n):
    """NIR's int, array or sequence of ints as an n-tuple of ints."""
    a = np.asarray(value).astype(np.int64).reshape(-1)
    return tuple(int(v) for v in (np.repeat(a, n) if a.size == 1 else a))


def conv_padding(value, n):
    """NIR's padding: 'same' / 'valid' (str or the bytes h5py reads) or ints."""
    if isinstance(value, bytes):
        value = value.decode()
    if isinstance(value, np.ndarray) and value.dtype.kind in "OSU":
        value = value.item()
        value = value.decode() if isinstance(value, bytes) else value
    return value if isinstance(value, str) else int_tuple(value, n)


def conv_op(node, n):
    weight, bias = torch.from_numpy(node.weight), torch.from_numpy(node.bias)
    fn = F.conv1d if n == 1 else F.conv2d
    stride, dilation = int_tuple(node.stride, n), int_tuple(node.dilation, n)
    padding, groups = conv_padding(node.padding, n), int(node.groups)
    return Stateless(lambda x: fn(x, weight, bias, stride, padding, dilation, groups))


def pool_op(node, divisor_override):
    kernel, stride = int_tuple(node.kernel_size, 2), int_tuple(node.stride, 2)
    padding = int_tuple(node.padding, 2)
    return Stateless(lambda x: F.avg_pool2d(x, kernel, stride, padding, ceil_mode=False,
                                            count_include_pad=True,
                                            divisor_override=divisor_override))


def flatten_op(node):
    start, end = (int(d) + 1 if int(d) >= 0 else int(d) for d in (node.start_dim, node.end_dim))
    return Stateless(lambda x: torch.flatten(x, start, end))


def stateless_op(node):
    """The operator of a node without state, or None."""
    if isinstance(node, (nir.Input, nir.Output)):
        return Stateless(lambda x: x)
    if isinstance(node, nir.Affine):
        w, b = torch.from_numpy(node.weight), torch.from_numpy(node.bias)
        return Stateless(lambda x: F.linear(x, w, b))
    if isinstance(node, nir.Linear):
        w = torch.from_numpy(node.weight)
        return Stateless(lambda x: F.linear(x, w))
    if isinstance(node, nir.Scale):
        s = torch.from_numpy(node.scale)
        return Stateless(lambda x: s * x)
    if isinstance(node, nir.Threshold):
        thr = torch.from_numpy(node.threshold)
        return Stateless(lambda x: (x > thr).float())
    if isinstance(node, (nir.Conv1d, nir.Conv2d)):
        return conv_op(node, 1 if isinstance(node, nir.Conv1d) else 2)
    if isinstance(node, nir.AvgPool2d):
        return pool_op(node, None)
    if isinstance(node, nir.SumPool2d):
        return pool_op(node, 1)
    if isinstance(node, nir.Flatten):
        return flatten_op(node)
    return None


def neuron_op(node, convention, dt, reset):
    """The operator of a neuron node under `convention`."""
    if convention == "snntorch":
        module = snntorch_module(node)
        if module is not None:
            return SnnTorchNeuron(module)
    if isinstance(node, (nir.LIF, nir.LI)):
        c = leaky_coefficients(node.tau, node.r, node.v_leak, convention, dt)
        if isinstance(node, nir.LI):
            return Neuron(c)
        return Neuron(c, node.v_threshold, node.v_reset, reset)
    if isinstance(node, (nir.IF, nir.I)):
        c = integrator_coefficients(node.r, convention, dt)
        if isinstance(node, nir.I):
            return Neuron(c)
        return Neuron(c, node.v_threshold, node.v_reset, reset)
    if isinstance(node, (nir.CubaLIF, nir.CubaLI)):
        syn = synapse_coefficients(node.tau_syn, node.w_in, convention, dt)
        mem = leaky_coefficients(node.tau_mem, node.r, node.v_leak, convention, dt)
        if isinstance(node, nir.CubaLI):
            return Cuba(syn, mem)
        return Cuba(syn, mem, node.v_threshold, node.v_reset, reset)
    raise ValueError(f"no reference for NIR node type {type(node).__name__}")


def make_op(node, convention, dt, reset):
    op = stateless_op(node)
    if op is not None:
        return op
    if isinstance(node, nir.Delay):
        return Delay(node.delay, dt)
    return neuron_op(node, convention, dt, reset)


def output_shape(node):
    """The output shape of a stateful node, from its parameters."""
    for field in ("v_threshold", "tau", "tau_mem", "r", "delay"):
        if hasattr(node, field):
            return tuple(np.shape(getattr(node, field)))
    raise ValueError(f"no parameter gives the shape of {type(node).__name__}")


# ---- running ------------------------------------------------------------------------------

class Runner:
    """Steps a graph one timestep per call, state zero at construction."""

    def __init__(self, graph, convention="snntorch", dt=DEFAULT_DT, reset="v_reset"):
        if convention not in CONVENTIONS or reset not in RESETS:
            raise ValueError(f"convention {convention!r}, reset {reset!r}")
        self.flat = Flat(graph)
        self.recurrent = recurrent_edges(self.flat)
        self.order = schedule(self.flat, self.recurrent)
        self.ops = {n: make_op(node, convention, dt, reset) for n, node in self.flat.nodes.items()}
        self.previous = {}  # output of the previous step of each recurrent edge's source

    def term(self, a, b, outputs, batch):
        if (a, b) not in self.recurrent:
            return outputs[a]
        if a not in self.previous:
            return torch.zeros((batch,) + output_shape(self.flat.nodes[a]))
        return self.previous[a]

    def step(self, x):
        """(output, every node's output, every node's summed input) of one timestep."""
        outputs, inputs = {}, {}
        for name in self.order:
            if name == self.flat.input:
                total = x
            else:
                srcs = self.flat.sources(name)
                if not srcs:
                    raise ValueError(f"node '{name}' has no input")
                total = self.term(srcs[0], name, outputs, x.shape[0])
                for src in srcs[1:]:
                    total = total + self.term(src, name, outputs, x.shape[0])
            inputs[name] = total
            outputs[name] = self.ops[name].step(total)
        self.previous = {a: outputs[a] for a, _ in self.recurrent}
        return outputs[self.flat.output], outputs, inputs


def _stack(steps):
    return torch.stack(steps, dim=1)


def run_with_states(graph, x_btf, convention="snntorch", dt=DEFAULT_DT, reset="v_reset"):
    """run_reference(), and each neuron's state after each step: name -> {'v': (B,T,...)}."""
    x = torch.as_tensor(np.asarray(x_btf, dtype=np.float32))
    runner = Runner(graph, convention, dt, reset)
    outs, nodes_out, nodes_in, states = [], {}, {}, {}
    with torch.no_grad():
        for t in range(x.shape[1]):
            y, node_outputs, node_inputs = runner.step(x[:, t])
            outs.append(y)
            for name in node_outputs:
                nodes_out.setdefault(name, []).append(node_outputs[name])
                nodes_in.setdefault(name, []).append(node_inputs[name])
                for key, value in runner.ops[name].state.items():
                    states.setdefault(name, {}).setdefault(key, []).append(value.clone())
    return (_stack(outs), {n: _stack(v) for n, v in nodes_out.items()},
            {n: _stack(v) for n, v in nodes_in.items()},
            {n: {k: _stack(v) for k, v in s.items()} for n, s in states.items()})


def run_reference(graph, x_btf, convention="snntorch", dt=DEFAULT_DT, reset="v_reset"):
    """Runs `graph` over x_btf (batch, time, *input shape), state zero at the start.

    Returns (outputs (B, T, ...), per-node outputs name -> (B, T, ...), per-node summed inputs
    name -> (B, T, ...)); nested graphs' nodes are named 'sub.name'."""
    outs, nodes_out, nodes_in, _ = run_with_states(graph, x_btf, convention, dt, reset)
    return outs, nodes_out, nodes_in


# ---- the NIR paper's CubaLIF ---------------------------------------------------------------

def paper_reference_module():
    """The NIR paper's numpy CubaLIF implementation, imported from the third-party copy."""
    path = os.path.join(make_graphs.third_party_dir(), "nir", "paper", "03_rnn", "extras",
                        "debug_CubaLIF", "nir_reference_impl.py")
    spec = importlib.util.spec_from_file_location("nir_paper_reference_impl", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_cubalif_against_paper(seed=0, tolerance=1e-5):
    """Runs linear_cubalif under euler with reset 'subtract' and the paper's implementation on
    the same CubaLIF inputs; returns a list of mismatches (empty when they agree)."""
    graph = make_graphs.graphs(seed)["linear_cubalif"][0]
    rng = np.random.default_rng(seed)
    x = (rng.random((4, 20, 8)) < 0.3).astype(np.float32)
    _, node_out, node_in, states = run_with_states(graph, x, "euler", DEFAULT_DT, "subtract")
    paper = paper_reference_module()
    bad = []
    for b in range(x.shape[0]):
        impl = paper.CubaLIFImplementation(DEFAULT_DT, graph.nodes["cuba"])
        ref = paper.run_cuba_reference_model(impl, node_in["cuba"][b].numpy())
        ours_v = states["cuba"]["v"][b].numpy()
        ours_z = node_out["cuba"][b].numpy()
        dv = np.abs(ours_v - ref["voltages"]).max()
        dz = np.abs(ours_z - ref["spikes"].astype(np.float32)).max()
        if not (dv <= tolerance and dz <= tolerance):
            bad.append(f"sample {b}: voltages differ by up to {dv:.3g}, spikes by {dz}")
    spikes = float(node_out["cuba"].sum())
    if spikes == 0:
        bad.append("the CubaLIF never fired: the check would not test the reset")
    return bad


def main():
    bad = check_cubalif_against_paper()
    for line in bad:
        print(f"FAIL CubaLIF vs the NIR paper's reference: {line}")
    if not bad:
        print("ok CubaLIF (euler, reset subtract) equals the NIR paper's reference to 1e-5")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
