# SPDX-License-Identifier: Apache-2.0
"""Rewriting the parts of a user's forward that TorchScript cannot compile but whose meaning is
known: snnTorch's `utils.reset(net)` and the neurons' `reset_hidden()` / `detach_hidden()`
class methods. The rewritten source keeps the original line numbers, so TorchScript's errors
point at the user's lines. Also the functions that copy and compile the new methods."""

import ast
import inspect
import linecache
import textwrap
import types
import typing

from torch import Tensor

from .errors import ExportError
from .neurons import _NEURONS


_SELF = object()  # _resolve's answer for a chain that starts at `self`


def _resolve(expr, fn):
    """The Python object an attribute chain like `snn.utils.reset` names in fn's globals."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None, None
    parts.append(expr.id)
    parts.reverse()
    if parts[0] == "self":
        return _SELF, parts[1:]
    scope = dict(fn.__globals__)
    if fn.__closure__:
        scope.update(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
    if parts[0] not in scope:
        obj = getattr(__builtins__, parts[0], None) if not isinstance(__builtins__, dict) \
            else __builtins__.get(parts[0])
    else:
        obj = scope[parts[0]]
    for p in parts[1:]:
        obj = getattr(obj, p, None)
    return obj, None


def _self_path(chain, module):
    obj = module
    for p in chain:
        obj = getattr(obj, p, None)
    return obj


def _submodule_of_self(expr, module):
    """The module an expression like `self`, `self.block` or `self.layers[0]` names, or None."""
    if isinstance(expr, ast.Name):
        return module if expr.id == "self" else None
    if isinstance(expr, ast.Attribute):
        parent = _submodule_of_self(expr.value, module)
        return None if parent is None else parent._modules.get(expr.attr)
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and \
            isinstance(expr.slice.value, int):
        parent = _submodule_of_self(expr.value, module)
        if parent is None:
            return None
        children = list(parent._modules.values())
        i = expr.slice.value
        return children[i] if -len(children) <= i < len(children) else None
    return None


def _path_expr(path):
    """Source text reaching the module at dotted `path` from `self`, in TorchScript that both
    scripted and traced modules accept (Sequential children are named "0", "1", ...)."""
    out = "self"
    for part in path.split(".") if path else []:
        out = f"{out}.{part}" if part.isidentifier() else f'getattr({out}, "{part}")'
    return out


def _module_expr(root, target):
    """Source text that reaches module `target` from `self` (= root)."""
    for path, m in root.named_modules():
        if m is target:
            return _path_expr(path)
    return None


class _Rewriter:
    """Per module instance: finds calls to rewrite in its methods and makes the new methods."""

    def __init__(self, root, module, path, neurons):
        self.root = root            # the whole (converted) network
        self.module = module        # the module whose methods are rewritten
        self.path = path
        self.neurons = neurons      # path -> converted neuron, in module order
        self.extra = {}             # generated method name -> source

    def _neurons_of_classes(self, classes, call_where):
        own = {id(m) for _, m in self.module.named_modules()}
        chosen = [(p, n) for p, n in self.neurons.items() if type(n).__name__ in classes]
        outside = [p for p, n in chosen if id(n) not in own]
        if outside:
            raise ExportError(
                f"{call_where} resets every snnTorch neuron of class {', '.join(sorted(classes))} "
                f"in the process, including {', '.join(outside)} outside module "
                f"'{self.path or '(root)'}', which TorchScript code there cannot reach. Reset the "
                "neurons from the top-level module instead.")
        return [n for _, n in chosen]

    def _reset_method(self, neurons):
        name = f"_neurobench_reset_{len(self.extra)}"
        lines = [f"def {name}(self) -> None:"]
        for n in neurons:
            lines.append(f"    {_module_expr(self.module, n)}._neurobench_reset_state()")
        if len(lines) == 1:
            lines.append("    pass")
        self.extra[name] = "\n".join(lines) + "\n"
        return f"self.{name}()"

    def replacement(self, call, fn):
        """Source to put in place of `call`, or None to leave it."""
        line = call.lineno + fn.__code__.co_firstlineno - 1
        where = f"{type(self.module).__name__}.{fn.__name__} (line {line})"
        target, chain = _resolve(call.func, fn)
        if target is None:
            return None
        if target is _SELF:
            # self.lif1.reset_hidden() / .detach_hidden() / .init_leaky() on a neuron
            if not chain or chain[-1] not in ("reset_hidden", "detach_hidden"):
                return None
            owner = _self_path(chain[:-1], self.module)
            if not hasattr(owner, "_neurobench_reset_state"):
                return None
            if chain[-1] == "detach_hidden":
                return "self._neurobench_noop()"
            return self._reset_method(self._neurons_of_classes({type(owner).__name__}, where))
        mod = getattr(target, "__module__", "") or ""
        name = getattr(target, "__name__", "")
        if mod == "snntorch.utils" and name == "reset":
            if len(call.args) != 1 or call.keywords:
                raise ExportError(f"{where}: snntorch.utils.reset takes the network only")
            net = _submodule_of_self(call.args[0], self.module)
            if net is None:
                raise ExportError(f"{where}: snntorch.utils.reset is exported only when called on "
                                  "self or a submodule of self (self.block, self.layers[0])")
            # snnTorch resets every neuron of the classes found among the net's direct children
            classes = {type(c).__name__ for c in net.children() if type(c).__name__ in _NEURONS}
            return self._reset_method(self._neurons_of_classes(classes, where))
        owner_cls = getattr(target, "__self__", None)
        if inspect.isclass(owner_cls) and owner_cls.__module__.startswith("snntorch.") and \
                name in ("reset_hidden", "detach_hidden"):
            if name == "detach_hidden":
                return "self._neurobench_noop()"
            return self._reset_method(self._neurons_of_classes({owner_cls.__name__}, where))
        return None

    def rewrite(self, fn):
        """fn rewritten (a new function object), or None when nothing in it needs rewriting."""
        parsed = _parsed_source(fn)
        if parsed is None:
            return None
        src, tree, first = parsed
        edits = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                new = self.replacement(node, fn)
                if new is not None:
                    edits.append((node.lineno, node.col_offset, node.end_lineno,
                                  node.end_col_offset, new))
        if not edits:
            return None
        src_lines = src.splitlines(keepends=True)
        for l0, c0, l1, c1, new in sorted(edits, reverse=True):
            head = src_lines[l0 - 1][:c0]
            tail = src_lines[l1 - 1][c1:]
            src_lines[l0 - 1:l1] = [head + new + tail] + [""] * (l1 - l0)
        new_src = "".join(src_lines)
        return _compile_function(new_src, fn.__name__, fn.__globals__,
                                 f"{fn.__code__.co_filename} (rewritten by neurobench_export)",
                                 first, fn.__defaults__)


def _parsed_source(fn):
    """(dedented source, its AST, its first line number) of fn, or None when its source cannot
    be read or parsed (a built-in, a lambda in an expression, code made at run time)."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    src = textwrap.dedent("".join(lines))
    try:
        return src, ast.parse(src), first
    except SyntaxError:
        return None


_GENERATED = 0


def _compile_function(src, name, globals_, filename, first_line=1, defaults=None):
    """Defines function `name` from `src`, with source TorchScript can read back (linecache)."""
    global _GENERATED
    _GENERATED += 1
    filename = f"<{filename} #{_GENERATED}>"
    padded = "\n" * (first_line - 1) + src
    linecache.cache[filename] = (len(padded), None, padded.splitlines(keepends=True), filename)
    namespace = {}
    exec(compile(padded, filename, "exec"), globals_, namespace)  # noqa: S102
    fn = namespace[name]
    if defaults is not None:
        fn.__defaults__ = defaults
    return fn


def _copy_function(fn, name=None):
    # TorchScript compiles a method called from forward under its function's __name__.
    name = name or fn.__name__
    new = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__.rsplit(".", 1)[0] + "." + name
    return new


def annotate_literal_defaults(fn):
    """fn rewritten with its unannotated parameters that default to a bool, int, float or str
    annotated with that type in its source (`def forward(self, x, features_out=False)`:
    TorchScript reads types from the source, takes an unannotated parameter for a Tensor and
    then refuses the default), or None when it has none."""
    parsed = _parsed_source(fn)
    if parsed is None:
        return None
    src, tree, first = parsed
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    args = tree.body[0].args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    edits = [(a.lineno, a.end_col_offset, type(d.value).__name__) for a, d in pairs
             if a.annotation is None and isinstance(d, ast.Constant)
             and type(d.value) in (bool, int, float, str)]
    if not edits:
        return None
    src_lines = src.splitlines(keepends=True)
    for line, col, name in sorted(edits, reverse=True):
        text = src_lines[line - 1]
        src_lines[line - 1] = text[:col] + f": {name}" + text[col:]
    new = _compile_function("".join(src_lines), fn.__name__, fn.__globals__,
                            f"{fn.__code__.co_filename} (annotated by neurobench_export)",
                            first, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    return new


def annotate_input(fn, example):
    """fn (a root forward) rewritten with its first parameter annotated with the type of the
    structured `example` it is called on (tensors in tuples: `[x, (h, c)]` is
    Tuple[Tensor, Tuple[Tensor, Tensor]]), where it has no annotation: TorchScript takes an
    unannotated parameter for a Tensor. None when there is nothing to annotate."""
    parsed = _parsed_source(fn)
    if parsed is None or not isinstance(example, (list, tuple)):
        return None
    src, tree, first = parsed
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    positional = tree.body[0].args.posonlyargs + tree.body[0].args.args
    if len(positional) < 2 or positional[1].annotation is not None:
        return None
    arg = positional[1]

    def text(value):
        if isinstance(value, Tensor):
            return "__neurobench_Tensor"
        return "__neurobench_Tuple[" + ", ".join(text(v) for v in value) + "]"

    src_lines = src.splitlines(keepends=True)
    line = src_lines[arg.lineno - 1]
    src_lines[arg.lineno - 1] = line[:arg.end_col_offset] + ": " + text(example) + \
        line[arg.end_col_offset:]
    scope = dict(fn.__globals__)
    scope.update(__neurobench_Tensor=Tensor, __neurobench_Tuple=typing.Tuple)
    new = _compile_function("".join(src_lines), fn.__name__, scope,
                            f"{fn.__code__.co_filename} (annotated by neurobench_export)",
                            first, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    return new


def _custom_forward(self, x: Tensor) -> Tensor:
    # NeuroBench's SNNTorchModel(net, custom_forward=True) transposes (time, batch) to
    # (batch, time); the exported model does it itself.
    return self._neurobench_user_forward(x).transpose(0, 1)


def _user_functions(cls):
    """Functions defined by the user's classes (not torch's, not snnTorch's), name -> function."""
    out = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__.startswith(("torch.", "snntorch.")) or klass is object:
            continue
        for name, value in vars(klass).items():
            if isinstance(value, types.FunctionType):
                out[name] = value
    return out
