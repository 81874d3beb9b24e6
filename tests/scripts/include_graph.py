#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The project's include graph, read from the sources without compiling them.

A file's includes are its `#include <neurobench/...>` lines (public headers, in include/) and
its `#include "x/y.hpp"` lines (private headers: beside the file, else under src/ or
python/src/); system and LibTorch headers are leaves, named as written. Conditional includes
count as includes: the graph is what a file may reach.

Used by check_layers.py (the layering, the JIT-free headers) and on its own:

  include_graph.py [ROOT] --jit    every source of src/ and python/src/ that reaches one of
                                   LibTorch's JIT headers (JIT_HEADERS), by folder, with the
                                   chain that takes it there
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# LibTorch's TorchScript (JIT) headers: the heavy ones a plain data header must not reach.
JIT_HEADERS = ("torch/script.h", "torch/torch.h", "torch/jit.h", "torch/csrc/jit/")


def is_jit(name):
    return name.startswith(JIT_HEADERS)


class Graph:
    """Files (paths relative to the root) and what each includes directly."""

    def __init__(self, root):
        self.root = root
        self.edges = {}
        self._reach = {}

    def _resolve(self, path, bracket, name):
        if bracket == "<":
            if name.startswith("neurobench/"):
                candidate = os.path.join("include", name)
                if os.path.exists(os.path.join(self.root, candidate)):
                    return candidate
            return name  # a system or LibTorch header: a leaf
        for base in (os.path.dirname(path), "src", "python/src"):
            candidate = os.path.normpath(os.path.join(base, name))
            if os.path.exists(os.path.join(self.root, candidate)):
                return candidate
        return name

    def includes(self, path):
        """The files `path` includes directly (resolved), in order."""
        if path not in self.edges:
            found = []
            full = os.path.join(self.root, path)
            if os.path.isfile(full) and path.endswith((".hpp", ".cpp", ".h")):
                with open(full, encoding="utf-8") as f:
                    for line in f:
                        m = INCLUDE.match(line)
                        if m:
                            found.append(self._resolve(path, m.group(1), m.group(2)))
            self.edges[path] = found
        return self.edges[path]

    def jit_chain(self, path):
        """The include chain from `path` to a JIT header ([path, ..., header]), or None."""
        if path in self._reach:
            return self._reach[path]
        self._reach[path] = None  # cycles end here
        chain = None
        for name in self.includes(path):
            if is_jit(name):
                chain = [path, name]
                break
            sub = self.jit_chain(name) if os.path.exists(os.path.join(self.root, name)) else None
            if sub:
                chain = [path] + sub
                break
        self._reach[path] = chain
        return chain


def walk(root, top, suffixes):
    found = []
    for folder, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith(suffixes):
                found.append(os.path.relpath(os.path.join(folder, f), root))
    return sorted(found)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    graph = Graph(root)
    sources = walk(root, "src", (".cpp",)) + walk(root, "python/src", (".cpp",))
    by_folder = {}
    for path in sources:
        folder = os.path.dirname(path)
        reached = graph.jit_chain(path)
        total, jit = by_folder.get(folder, (0, []))
        by_folder[folder] = (total + 1, jit + ([(path, reached)] if reached else []))
    count = sum(len(jit) for _, jit in by_folder.values())
    print(f"{count} of {len(sources)} sources reach a JIT header ({', '.join(JIT_HEADERS)})")
    for folder in sorted(by_folder):
        total, jit = by_folder[folder]
        print(f"  {folder}: {len(jit)} of {total}")
        if "--chains" in sys.argv:
            for path, chain in jit:
                print(f"    {' -> '.join(chain)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
