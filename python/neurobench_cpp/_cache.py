# SPDX-License-Identifier: Apache-2.0
"""Exported networks kept between processes, so that the export and its check against the eager
network are paid once per network, not in every script that benchmarks it (docs/python.md,
"The export cache").

An entry is the TorchScript file the exporter wrote and checked, named by a SHA-256 key of what
decides that file:
- the exporter: the source of the neurobench_export package, torch's and snnTorch's versions;
- how the model is exported: TorchModel, SNNTorchModel, custom_forward, and the structure,
  shapes and dtypes of the example input;
- the network: every module's path and class, its plain attributes (numbers, strings, flags,
  the functions it holds by name, hooks by class), which of its snnTorch neurons
  snntorch.utils.reset resets (those snnTorch registered), the source files of the classes that are not
  torch's or snnTorch's (and of the functions their module-level names lead to), and every
  parameter's name, dtype, shape and bytes; buffers by name, dtype and shape (their values are
  the network's state, which each run is given as it is then).
A network whose code cannot be read (defined at the prompt) is not cached.

Reused entries are checked: the file's SHA-256 must be the one recorded when it was written.
Writes go through a temporary file and a rename, so processes sharing the folder never see half
a file. The folder is kept under a size limit, the least recently used entries removed first.

The folder: the `cache_dir` given to Benchmark, else $NEUROBENCH_CPP_CACHE_DIR, else
$XDG_CACHE_HOME/neurobench_cpp, else ~/.cache/neurobench_cpp. NEUROBENCH_CPP_CACHE=0 turns the
cache off; NEUROBENCH_CPP_CACHE_MAX_MB sets the limit (default 1024).
"""
import hashlib
import inspect
import json
import os
import sys
import tempfile
import types

DEFAULT_LIMIT_MB = 1024
_SKIP_ATTRIBUTES = ("_parameters", "_buffers", "_modules", "_non_persistent_buffers_set",
                    "training", "_is_full_backward_hook", "_state_dict_hooks",
                    "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                    "_state_dict_pre_hooks")
_exporter_digest = None


def folder(given=None):
    """The cache folder to use, or None when the cache is off."""
    if os.environ.get("NEUROBENCH_CPP_CACHE", "").lower() in ("0", "off", "no", "false"):
        return None
    if given is not None:
        return os.fspath(given) if given is not False else None
    if os.environ.get("NEUROBENCH_CPP_CACHE_DIR"):
        return os.environ["NEUROBENCH_CPP_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "neurobench_cpp")


def _limit_bytes():
    try:
        return int(float(os.environ.get("NEUROBENCH_CPP_CACHE_MAX_MB", DEFAULT_LIMIT_MB)) * 2**20)
    except ValueError:
        return DEFAULT_LIMIT_MB * 2**20


def _exporter():
    """A digest of the exporter's own source and the libraries the export depends on."""
    global _exporter_digest
    if _exporter_digest is None:
        import torch
        import neurobench_export
        h = hashlib.sha256(f"torch {torch.__version__}".encode())
        snntorch = sys.modules.get("snntorch")
        h.update(f"snntorch {getattr(snntorch, '__version__', None)}".encode())
        package = os.path.dirname(neurobench_export.__file__)
        for name in sorted(os.listdir(package)):
            if name.endswith(".py"):
                with open(os.path.join(package, name), "rb") as f:
                    h.update(name.encode() + b"\0" + f.read())
        _exporter_digest = h.hexdigest()
    return _exporter_digest


class _Uncacheable(Exception):
    """The network's code cannot be read: no key."""


def _is_library(module_name):
    return (module_name or "").split(".")[0] in ("torch", "snntorch", "builtins", "typing",
                                                 "collections", "functools", "math", "numpy")


def _source_files(net):
    """The contents of the source files of the network's own classes, and of the non-library
    modules their module-level names come from."""
    files = {}

    def add_module(module_name):
        if _is_library(module_name) or module_name in files:
            return False
        module = sys.modules.get(module_name)
        path = getattr(module, "__file__", None)
        if not path or not os.path.isfile(path):
            raise _Uncacheable(module_name)
        with open(path, "rb") as f:
            files[module_name] = f.read()
        return True

    for m in net.modules():
        for cls in type(m).__mro__:
            if cls is object or _is_library(cls.__module__):
                continue
            if add_module(cls.__module__):
                module = sys.modules[cls.__module__]
                for value in list(vars(module).values()):
                    owner = getattr(value, "__module__", None)
                    if isinstance(value, (types.FunctionType, type)) and owner:
                        add_module(owner)
    return [files[k] for k in sorted(files)]


def _plain(value):
    """A stable text of a plain attribute value."""
    import torch
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return type(value).__name__ + "(" + ",".join(_plain(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_plain(k)}:{_plain(v)}" for k, v in value.items()) + "}"
    if isinstance(value, torch.Tensor):
        return "tensor:" + _tensor_digest(value)
    if callable(value):
        name = getattr(value, "__qualname__", type(value).__qualname__)
        return f"callable:{getattr(value, '__module__', '')}.{name}"
    return f"object:{type(value).__module__}.{type(value).__qualname__}"


def _tensor_digest(t):
    import torch
    t = t.detach().to("cpu").contiguous()
    h = hashlib.sha256(f"{t.dtype} {tuple(t.shape)}".encode())
    if t.numel():
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def _describe_input(example):
    import torch
    if isinstance(example, torch.Tensor):
        return f"{example.dtype}{tuple(example.shape)}"
    if isinstance(example, (list, tuple)):
        return type(example).__name__ + "[" + ",".join(_describe_input(e) for e in example) + "]"
    return type(example).__name__


def _reset_decision(net):
    """Which snnTorch neurons snntorch.utils.reset(net) resets: it resets only neurons its
    class registered when they were made (a deep copy's are not), a fact of the process, not of
    the network's tensors; the export mirrors it."""
    from neurobench_export.neurons import _is_snntorch_neuron
    if not any(_is_snntorch_neuron(m) for m in net.modules()):
        return None
    from neurobench_export.build import _snntorch_reset
    return _snntorch_reset(net)


def key(net, kind, custom_forward, stepwise, example):
    """The entry's key (64 hex digits), or None when the network cannot be cached."""
    try:
        sources = _source_files(net)
    except _Uncacheable:
        return None
    except OSError:
        return None
    h = hashlib.sha256(_exporter().encode())
    h.update(f"{kind} custom_forward={bool(custom_forward)} stepwise={bool(stepwise)} "
             f"input={_describe_input(example)}".encode())
    for source in sources:
        h.update(hashlib.sha256(source).digest())
    for path, m in net.named_modules(remove_duplicate=False):
        cls = type(m)
        h.update(f"\0module {path} {cls.__module__}.{cls.__qualname__}".encode())
        for name in sorted(vars(m)):
            if name in _SKIP_ATTRIBUTES:
                continue
            value = vars(m)[name]
            if name.endswith("hooks"):
                value = [f"{type(v).__module__}.{type(v).__qualname__}"
                         for v in getattr(value, "values", lambda: [])()]
            h.update(f"\0{name}={_plain(value)}".encode())
    h.update(f"\0reset {_reset_decision(net)}".encode())
    for name, p in net.named_parameters():
        h.update(f"\0param {name} ".encode() + _tensor_digest(p).encode())
    for name, b in net.named_buffers():
        h.update(f"\0buffer {name} {b.dtype} {tuple(b.shape)}".encode())
    return h.hexdigest()


def _file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def lookup(directory, entry_key):
    """The path of the entry's TorchScript file when it is there and intact, else None."""
    if directory is None or entry_key is None:
        return None
    path = os.path.join(directory, entry_key + ".pt")
    meta = os.path.join(directory, entry_key + ".json")
    try:
        with open(meta) as f:
            recorded = json.load(f)
        if recorded.get("sha256") != _file_digest(path):
            return None  # a file that is not what was written: exported again
        os.utime(path)  # most recently used
    except (OSError, ValueError):
        return None
    return path


def _write_atomically(directory, name, write):
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, os.path.join(directory, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def store(directory, entry_key, source, describe=""):
    """Copies the exported file `source` into the cache as entry `entry_key`; returns its path,
    or None when the folder cannot be written (the run goes on from `source`)."""
    if directory is None or entry_key is None:
        return None
    try:
        os.makedirs(directory, exist_ok=True)
        digest = _file_digest(source)

        def copy(f):
            with open(source, "rb") as src:
                for chunk in iter(lambda: src.read(1 << 20), b""):
                    f.write(chunk)

        _write_atomically(directory, entry_key + ".pt", copy)
        meta = json.dumps({"sha256": digest, "network": describe}).encode()
        _write_atomically(directory, entry_key + ".json", lambda f: f.write(meta))
        _evict(directory, keep=entry_key)
    except OSError:
        return None
    return os.path.join(directory, entry_key + ".pt")


def _evict(directory, keep):
    """Removes the least recently used entries while the folder is over its limit."""
    entries = []
    total = 0
    for name in os.listdir(directory):
        if not name.endswith(".pt") or name.startswith("."):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.stat(path)
        except OSError:
            continue
        total += st.st_size
        entries.append((st.st_mtime, st.st_size, name[:-3]))
    limit = _limit_bytes()
    for _, size, entry in sorted(entries):
        if total <= limit:
            break
        if entry == keep:
            continue
        for suffix in (".pt", ".json"):
            try:
                os.unlink(os.path.join(directory, entry + suffix))
            except OSError:
                pass
        total -= size
