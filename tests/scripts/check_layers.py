#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Holds the layering of docs/design.md: its layer table is the rule.

The table "The layers" lists, from the bottom up, each layer's public headers (relative to
include/neurobench/: a file, or a folder ending in `/`) and its sources (`src/...`: a file, a
glob such as `src/metrics/platform*.cpp`, or a folder). A file belongs to the layer of the most
specific entry that matches it (a file before a glob before the longest folder). Checked:

- every header of include/neurobench/ and every source of src/ and python/src/ belongs to a
  layer;
- no file includes a file of a higher layer (an upward import), except the includes the
  section "Exceptions" below the table names, each as `FROM` -> `TO`;
- no cycle between folders: a folder of src/ stands for itself and for the headers it
  implements (include/neurobench/X/ for src/X/; a header at the top for the folder named in
  the table's sources or src/);
- the plain data headers (PLAIN_HEADERS) and the sources of the command line, the suite and
  the reporters (PLAIN_SOURCES, but for PLAIN_SOURCE_EXCEPTIONS) reach none of LibTorch's JIT
  headers (include_graph.JIT_HEADERS).

Prints each problem and exits 1 when there is any. `--count` prints the number of upward
imports and folder cycles without failing (to measure a restructuring).

Usage: check_layers.py [ROOT] [--count]
"""
import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import include_graph  # noqa: E402

PLAIN_HEADERS = [
    "include/neurobench/results.hpp",
    "include/neurobench/run_options.hpp",
    "include/neurobench/config.hpp",
    "include/neurobench/prepared_run.hpp",
    "include/neurobench/run_keys.hpp",
]
PLAIN_SOURCES = ["src/cli/", "src/suite/", "src/reporters/"]
# Sources there that do need the JIT: `neurobench list` describes the built-in metrics and
# processors, the models' too; `fscil` runs prototypes through the model's own methods.
PLAIN_SOURCE_EXCEPTIONS = {"src/cli/list.cpp", "src/cli/fscil.cpp",
                           "src/reporters/metric_info_legacy.cpp"}


def table_rows(design):
    """[(layer, header entries, source entries)] from the table under "## The layers"."""
    rows = []
    in_section = False
    for line in design.splitlines():
        if line.startswith("## "):
            in_section = line.strip() == "## The layers"
            continue
        if not in_section or not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] == "layer":
            continue
        headers = [c for c in re.findall(r"`([^`]+)`", cells[1]) if c.endswith((".hpp", "/"))]
        sources = [c for c in re.findall(r"`([^`]+)`", cells[2])
                   if c.startswith(("src/", "python/"))]
        rows.append((cells[0], headers, sources))
    return rows


def exceptions(design):
    """{(from, to)} named in the section "Exceptions" under the layers (`A` -> `B`)."""
    found = set()
    in_section = False
    for line in design.splitlines():
        if line.startswith("#"):
            in_section = line.strip().endswith("Exceptions to the layers")
            continue
        if in_section:
            m = re.match(r"\s*-\s*`([^`]+)`\s*->\s*`([^`]+)`", line)
            if m:
                found.add((m.group(1), m.group(2)))
    return found


class Layers:
    def __init__(self, rows):
        self.names = [name for name, _, _ in rows]
        self.entries = []  # (pattern, layer index)
        for index, (_, headers, sources) in enumerate(rows):
            for h in headers:
                self.entries.append(("include/neurobench/" + h, index))
            for s in sources:
                self.entries.append((s, index))

    def of(self, path):
        """(layer index, matching entry) of `path`, or (None, None)."""
        best = None
        for pattern, index in self.entries:
            if pattern == path:
                rank = (3, len(pattern))
            elif any(c in pattern for c in "*?[") and fnmatch.fnmatch(path, pattern):
                rank = (2, len(pattern))
            elif pattern.endswith("/") and path.startswith(pattern):
                rank = (1, len(pattern))
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, index, pattern)
        return (best[1], best[2]) if best else (None, None)


def folder_of(path, layers):
    """The folder `path` stands for in the cycle check: its own folder below src/ (a header
    include/neurobench/X/y.hpp: src/X); a file at the top of src/ or include/neurobench/: the
    layer's one folder when its sources name a single folder, else the layer itself,
    `(layer name)`."""
    if path.startswith(("src/", "python/")) and path.count("/") > 1:
        return os.path.dirname(path)
    if path.startswith("include/neurobench/"):
        rel = os.path.relpath(path, "include/neurobench")
        if os.path.dirname(rel):
            return os.path.join("src", os.path.dirname(rel))
    index, _ = layers.of(path)
    folders = [p for p, i in layers.entries if i == index and p.startswith(("src/", "python/"))
               and p.endswith("/")]
    if len(folders) == 1:
        return folders[0].rstrip("/")
    return f"({layers.names[index]})"


def cycles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    count_only = "--count" in sys.argv
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    with open(os.path.join(root, "docs/design.md"), encoding="utf-8") as f:
        design = f.read()
    layers = Layers(table_rows(design))
    allowed = exceptions(design)
    graph = include_graph.Graph(root)
    files = (include_graph.walk(root, "include/neurobench", (".hpp",))
             + include_graph.walk(root, "src", (".cpp", ".hpp"))
             + include_graph.walk(root, "python/src", (".cpp", ".hpp")))
    problems, upward, folder_edges = [], [], {}
    for path in files:
        index, _ = layers.of(path)
        if index is None:
            problems.append(f"{path}: in no layer of docs/design.md's table")
            continue
        for target in graph.includes(path):
            if not os.path.exists(os.path.join(root, target)):
                continue
            target_index, _ = layers.of(target)
            if target_index is None:
                continue
            if target_index > index and (path, target) not in allowed:
                upward.append(f"{path} ({layers.names[index]}) includes {target} "
                              f"({layers.names[target_index]}): an upward import")
            a, b = folder_of(path, layers), folder_of(target, layers)
            if a != b:
                folder_edges.setdefault(a, set()).add(b)
    loops = cycles(folder_edges)
    problems += upward
    problems += [f"folders include each other: {' <-> '.join(c)}" for c in loops]

    for path in PLAIN_HEADERS + [f for f in files if f.startswith(tuple(PLAIN_SOURCES))
                                 and f not in PLAIN_SOURCE_EXCEPTIONS]:
        if not os.path.exists(os.path.join(root, path)):
            continue
        chain = graph.jit_chain(path)
        if chain:
            problems.append(f"{path} reaches a JIT header: {' -> '.join(chain)}")

    if count_only:
        print(f"{len(upward)} upward imports, {len(loops)} folder cycles")
        for p in problems:
            print(p)
        return 0
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
