# SPDX-License-Identifier: Apache-2.0
"""The command line: its arguments and options checked, the network loaded, export() run; the
exit statuses are main()'s (docs/snntorch.md)."""

import argparse
import importlib
import importlib.util
import math
import os
import re
import signal
import sys
import traceback

import torch
from torch import nn

from .errors import ExportArgumentError, ExportError
from .exporter import MAX_STEPS, export
from .files import _SIGNALS, _Interrupted, _check_regular_input, _output_target


MAX_EXAMPLE_VALUES = 1 << 26
"""The most values --example-shape may ask for (256 MiB of float32); the check runs the net on
the example and on copies of it many times."""
MAX_EXAMPLE_DIMS = 16
MAX_BATCH_SIZE = (1 << 31) - 1  # as `neurobench run --batch-size`

_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


class _CommandLineError(Exception):
    """A bad argument or option: printed as one line, `error: MESSAGE`, exit status 2."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"error: {message} (see --help)\n")


def _one_line(text):
    return " ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _shown(text, limit=40):
    return text if len(text) <= limit else text[:limit] + "..."


def _raised(e):
    """`Type: message (at file:line)` on one line, for an exception from the user's code."""
    text = _one_line(e)
    what = f"{type(e).__name__}: {text}" if text else type(e).__name__
    if isinstance(e, SyntaxError):
        return what  # its message gives the file and line
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if not f.filename.startswith("<frozen")]
    return f"{what} (at {frames[-1].filename}:{frames[-1].lineno})" if frames else what


def _integer(option, text, low, high):
    expected = f"expected an integer from {low} to {high}"
    if not _INTEGER.match(text):
        raise _CommandLineError(f"{option}: '{_shown(text)}' is not an integer; {expected}")
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > 30:  # beyond any range here; int() of thousands of digits is refused
        raise _CommandLineError(f"{option}: {_shown(text)} is out of range; {expected}")
    value = int(text)
    if not low <= value <= high:
        raise _CommandLineError(f"{option}: {value} is out of range; {expected}")
    return value


def _decimal(option, text, low, high):
    expected = f"expected a number from {low} to {high}"
    if not _DECIMAL.match(text):
        raise _CommandLineError(f"{option}: '{_shown(text)}' is not a number; {expected}")
    value = float(text)
    if not (math.isfinite(value) and low <= value <= high):
        raise _CommandLineError(f"{option}: {_shown(text)} is out of range; {expected}")
    return value


def _example_shape(text):
    parts = text.split(",")
    if not all(re.fullmatch(r"[0-9]+", p) for p in parts):
        raise _CommandLineError(f"--example-shape: '{_shown(text)}' is not a list of positive "
                                f"integers such as 8,40")
    if len(parts) > MAX_EXAMPLE_DIMS:
        raise _CommandLineError(f"--example-shape: {len(parts)} dimensions; at most "
                                f"{MAX_EXAMPLE_DIMS}")
    shape = [_integer("--example-shape", p, 1, MAX_BATCH_SIZE) for p in parts]
    if math.prod(shape) > MAX_EXAMPLE_VALUES:
        raise _CommandLineError(f"--example-shape: {text} is {math.prod(shape)} values; at most "
                                f"{MAX_EXAMPLE_VALUES}")
    return shape


def _check_options(a):
    """Numbers in range and options that go together, before anything is loaded."""
    if a.example_npz is not None and a.example_shape is not None:
        raise _CommandLineError("give --example-shape or --example-npz, not both")
    if a.example_npz is None and a.example_shape is None:
        raise _CommandLineError("give --example-shape or --example-npz (the exporter checks the "
                                "saved file against the eager network on that example)")
    if a.example_npz is not None:
        for option, value in (("--example-kind", a.example_kind), ("--spike-rate",
                                                                   a.spike_rate)):
            if value is not None:
                raise _CommandLineError(f"{option} makes a random example; it does not go with "
                                        f"--example-npz")
    else:
        if a.batch_size is not None:
            raise _CommandLineError("--batch-size takes the first samples of --example-npz; "
                                    "with --example-shape the batch is the shape's first number")
        if a.spike_rate is not None and a.example_kind == "normal":
            raise _CommandLineError("--spike-rate is for --example-kind spikes, not normal")
    a.steps = _integer("--steps", a.steps, 1, MAX_STEPS) if a.steps is not None else 8
    a.batch_size = _integer("--batch-size", a.batch_size, 1, MAX_BATCH_SIZE) \
        if a.batch_size is not None else 8
    a.spike_rate = _decimal("--spike-rate", a.spike_rate, 0, 1) \
        if a.spike_rate is not None else 0.3
    a.example_kind = a.example_kind or "spikes"
    a.shape = _example_shape(a.example_shape) if a.example_shape is not None else None


def _split_spec(spec):
    if ":" not in spec:
        raise _CommandLineError(f"'{spec}' is not MODULE:NAME (a module or .py file, then a "
                                f"network or a function making one)")
    mod_name, attr = spec.rsplit(":", 1)
    if not mod_name or not attr:
        raise _CommandLineError(f"'{spec}' is not MODULE:NAME: no "
                                f"{'module before' if not mod_name else 'name after'} the ':'")
    is_file = mod_name.endswith(".py") or os.sep in mod_name
    if not is_file and not all(p.isidentifier() for p in mod_name.split(".")):
        raise _CommandLineError(f"'{mod_name}' (in '{spec}') is neither a module name nor a "
                                f".py file")
    return mod_name, attr, is_file


def _import(mod_name, is_file):
    try:
        if is_file:
            sys.path.insert(0, os.path.dirname(os.path.abspath(mod_name)))
            s = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(mod_name))[0], mod_name)
            module = importlib.util.module_from_spec(s)
            sys.modules[s.name] = module
            s.loader.exec_module(module)
            return module
        sys.path.insert(0, os.getcwd())
        return importlib.import_module(mod_name)
    except (_Interrupted, KeyboardInterrupt):
        raise
    except ModuleNotFoundError as e:
        if not is_file and e.name is not None and (mod_name + ".").startswith(e.name + "."):
            raise _CommandLineError(f"{mod_name}: no such module (nor a .py file; give "
                                    f"FILE.py:NAME for a file)") from None
        raise _CommandLineError(f"{mod_name}: cannot import it: {_raised(e)}") from None
    except BaseException as e:  # noqa: BLE001 (SystemExit too: the module is not ours)
        raise _CommandLineError(f"{mod_name}: cannot import it: {_raised(e)}") from None


def _load_net(spec, mod_name, module):
    attr = spec.rsplit(":", 1)[1]
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise _CommandLineError(f"{mod_name} has no attribute '{attr}'") from None
    except (_Interrupted, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001
        raise _CommandLineError(f"{spec}: reading it raised {_raised(e)}") from None
    if isinstance(obj, nn.Module):
        net = obj
    elif callable(obj):
        try:
            net = obj()
        except (_Interrupted, KeyboardInterrupt):
            raise
        except BaseException as e:  # noqa: BLE001
            raise _CommandLineError(f"{spec}: making the network raised {_raised(e)}") from None
    else:
        raise _CommandLineError(f"{spec} is {type(obj).__name__}, neither a torch.nn.Module nor "
                                f"a function returning one")
    if not isinstance(net, nn.Module):
        raise _CommandLineError(f"{spec} gave {type(net).__name__}, not a torch.nn.Module")
    return net


def _load_weights(net, spec, weights):
    try:
        with open(weights, "rb") as f:
            state = torch.load(f, map_location="cpu")
    except (_Interrupted, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001 (unpickling runs the file's own code)
        raise _CommandLineError(f"{weights}: cannot load the weights: {type(e).__name__}: "
                                f"{_one_line(e)}") from None
    if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
        state = state["state_dict"]
    if isinstance(state, nn.Module):
        raise _CommandLineError(f"{weights}: holds a whole network ({type(state).__name__}), "
                                f"not a state_dict; save net.state_dict() instead")
    if not isinstance(state, dict):
        raise _CommandLineError(f"{weights}: holds {type(state).__name__}, not a state_dict (a "
                                f"dict of tensors by parameter name)")
    try:
        net.load_state_dict(state)
    except (_Interrupted, KeyboardInterrupt):
        raise
    except BaseException as e:  # noqa: BLE001
        raise _CommandLineError(f"{weights}: does not fit {spec}: {_one_line(e)}") from None


def _example_from_npz(a):
    try:
        import numpy as np  # only for this option
    except ImportError:
        raise _CommandLineError("--example-npz needs numpy (Debian: python3-numpy)") from None
    path = a.example_npz
    try:
        archive = np.load(path, allow_pickle=False)
    except Exception as e:  # noqa: BLE001
        raise _CommandLineError(f"{path}: cannot read it as an .npz archive: "
                                f"{_one_line(e)}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise _CommandLineError(f"{path}: is a single .npy array, not an .npz archive with an "
                                f"array 'data'")
    with archive as z:
        if "data" not in z.files:
            names = ", ".join(z.files[:5]) + (f" and {len(z.files) - 5} more"
                                              if len(z.files) > 5 else "")
            raise _CommandLineError(f"{path}: has no array 'data' (it has "
                                    f"{names or 'no arrays'})")
        try:
            data = z["data"]
        except Exception as e:  # noqa: BLE001
            raise _CommandLineError(f"{path}: cannot read its array 'data': "
                                    f"{_one_line(e)}") from None
    if data.dtype.kind not in "biuf":
        raise _CommandLineError(f"{path}: array 'data' has dtype {data.dtype}; expected numbers "
                                f"(bool, integer or float)")
    if data.ndim == 0 or data.shape[0] == 0:
        raise _CommandLineError(f"{path}: array 'data' of shape {list(data.shape)} has no "
                                f"samples")
    x = data[: a.batch_size]
    if a.stepwise:
        if x.ndim < 2 or x.shape[1] == 0:
            raise _CommandLineError(f"{path}: step-wise data must be (batch, time, ...) with at "
                                    f"least one timestep, got shape {list(data.shape)}")
        x = x[:, 0]
    try:
        t = torch.from_numpy(np.ascontiguousarray(x))
    except TypeError as e:
        raise _CommandLineError(f"{path}: array 'data' of dtype {data.dtype}: {e}") from None
    if t.is_floating_point() and bool(torch.isnan(t).any()):
        raise _CommandLineError(f"{path}: array 'data' holds NaN in the samples taken as the "
                                f"example")
    return t


def _example_from_args(a):
    if a.example_npz is not None:
        return _example_from_npz(a)
    g = torch.Generator().manual_seed(0)
    if a.example_kind == "spikes":
        return (torch.rand(a.shape, generator=g) < a.spike_rate).float()
    return torch.randn(a.shape, generator=g)


def _check_not_an_input(out, target, inputs):
    """Refuses an output that is one of the inputs (by device and inode: links too)."""
    if target[1] is None:
        return
    o = os.stat(target[0])
    for path, role in inputs:
        try:
            i = os.stat(path)
        except OSError:
            continue
        if (o.st_dev, o.st_ino) == (i.st_dev, i.st_ino):
            raise _CommandLineError(f"{out} (the output) is the same file as {path} ({role}): "
                                    f"an output must not overwrite an input")


def _run(a):
    _check_options(a)
    target = _output_target(a.out)
    mod_name, _, is_file = _split_spec(a.net)
    inputs = []
    if is_file:
        _check_regular_input(mod_name, "module file")
        inputs.append((mod_name, "the network's module"))
    if a.weights is not None:
        _check_regular_input(a.weights, "weights file")
        inputs.append((a.weights, "--weights"))
    if a.example_npz is not None:
        _check_regular_input(a.example_npz, "example file")
        inputs.append((a.example_npz, "--example-npz"))
    _check_not_an_input(a.out, target, inputs)
    module = _import(mod_name, is_file)
    if not is_file and isinstance(getattr(module, "__file__", None), str):
        _check_not_an_input(a.out, target, [(module.__file__, "the network's module")])
    net = _load_net(a.net, mod_name, module)
    if a.weights is not None:
        _load_weights(net, a.net, a.weights)
    net.eval()
    example = _example_from_args(a)
    stepwise = True if a.stepwise else (False if (a.torch_model or a.custom_forward) else None)
    print(export(net, a.out, example_input=example, custom_forward=a.custom_forward,
                 stepwise=stepwise, steps=a.steps))
    return 0


def main(argv=None, prog="neurobench_export.py"):
    """The command line; returns its exit status: 0 written, 1 refused, 2 bad arguments, 130 or
    143 interrupted by SIGINT or SIGTERM (nothing left behind). `prog`: the name --help shows."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")  # names that are not UTF-8
    ap = _ArgumentParser(
        prog=prog,
        description="Export a network, with snnTorch neurons or without, to TorchScript for "
                    "neurobench-cpp, checked against the eager network.")
    ap.add_argument("net", help="MODULE:NAME or FILE.py:NAME: a network, or a function "
                                "returning one")
    ap.add_argument("out", help="TorchScript file to write: a regular file (replaced whole) or "
                                "a new name; a directory, device or FIFO is refused")
    ap.add_argument("--weights", help="a state_dict file to load into the network first")
    ap.add_argument("--example-shape", help="shape of one example call, e.g. 8,40 (one "
                                            "timestep for --stepwise)")
    ap.add_argument("--example-kind", choices=["spikes", "normal"],
                    help="values of the generated example: 0/1 spikes (the default) or standard "
                         "normal")
    ap.add_argument("--spike-rate", help="probability of a spike in the generated example, "
                                         "0 to 1 (default 0.3)")
    ap.add_argument("--example-npz", help="take the example from the 'data' array of this .npz "
                                          "(first --batch-size samples)")
    ap.add_argument("--batch-size", help=f"samples taken from --example-npz, 1 to "
                                         f"{MAX_BATCH_SIZE} (default 8)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--stepwise", action="store_true",
                      help="NeuroBench's SNNTorchModel(net): run with neurobench run --stepwise")
    mode.add_argument("--custom-forward", action="store_true",
                      help="SNNTorchModel(net, custom_forward=True): the net loops over time")
    mode.add_argument("--torch-model", action="store_true",
                      help="TorchModel(net): called once per batch, never reset")
    ap.add_argument("--steps", help=f"calls per batch in the check, 1 to {MAX_STEPS} (default 8)")
    a = ap.parse_args(argv)
    import threading
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        _SIGNALS.install()
    try:
        return _run(a)
    except _CommandLineError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ExportArgumentError as e:
        print(f"error: {_one_line(e)}", file=sys.stderr)
        return 2
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except _Interrupted as e:
        _SIGNALS.remove_temporaries()
        name = signal.Signals(e.signum).name
        if e.written:
            print(f"error: interrupted by {name} after {e.written} was written (checked)",
                  file=sys.stderr)
        else:
            print(f"error: interrupted by {name}: nothing was written", file=sys.stderr)
        return 128 + e.signum
    finally:
        _SIGNALS.remove_temporaries()
        for s, handler in previous.items():
            if handler is not None:
                signal.signal(s, handler)


def console_main():
    """The `neurobench-export` console script of the installed package."""
    return main(prog="neurobench-export")
