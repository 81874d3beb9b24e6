#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The snnTorch exporter at its old path: a thin wrapper around the package
python/neurobench_export/ beside it (docs/snntorch.md).

    python3 python/neurobench_export.py my_module:make_net out.pt --example-shape 8,40

Loaded by path under the package's own name, as ../shared/conformance/snntorch/check.py does
(`spec_from_file_location("neurobench_export", this file)`, registered as
`sys.modules["neurobench_export"]`), this module is that entry while it runs: an `import
neurobench_export` here would find this file, half made. So the package is loaded from the
folder beside this file by its path, under its own name (its submodules then import as usual),
and this module hands on every name the package has: `export`, `ExportError`, `main`, ...
"""
import importlib.util
import os
import sys

_NAME = "neurobench_export"
_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), _NAME)


def _is_ours(module):
    """Whether `module` is the package in _FOLDER or one of its submodules."""
    file = getattr(module, "__file__", None)
    return isinstance(file, str) and \
        os.path.realpath(os.path.dirname(file)) == os.path.realpath(_FOLDER)


def _load_package():
    """The package in _FOLDER, imported already or loaded now as sys.modules["neurobench_export"]
    (in place of this wrapper when the wrapper was loaded under that name)."""
    current = sys.modules.get(_NAME)
    if current is not None and _is_ours(current):
        return current
    spec = importlib.util.spec_from_file_location(
        _NAME, os.path.join(_FOLDER, "__init__.py"), submodule_search_locations=[_FOLDER])
    package = importlib.util.module_from_spec(spec)
    # This folder's submodules, imported already, are kept (one export, one ExportError); those
    # of another copy of the package (one installed in site-packages, say) must not stand in
    # for them.
    before = {k: v for k, v in sys.modules.items() if k == _NAME or k.startswith(_NAME + ".")}
    for k, v in before.items():
        if not _is_ours(v):
            del sys.modules[k]
    sys.modules[_NAME] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        for k in [k for k in sys.modules if k == _NAME or k.startswith(_NAME + ".")]:
            del sys.modules[k]
        sys.modules.update(before)
        raise
    for k, v in list(sys.modules.items()):  # kept submodules, which their import did not bind
        if k.startswith(_NAME + ".") and k.count(".") == 1 and _is_ours(v):
            vars(package).setdefault(k.rpartition(".")[2], v)
    return package


_package = _load_package()
__all__ = list(_package.__all__)
globals().update({k: v for k, v in vars(_package).items() if not k.startswith("_")})


def __getattr__(name):  # the package's private names and submodules
    return getattr(_package, name)


if __name__ == "__main__":
    sys.exit(_package.main())
