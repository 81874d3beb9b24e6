#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that src/ mirrors include/ and that sources stay small (docs/design.md).

- Every function declared in a public header include/neurobench/X/y.hpp and defined in src/
  is defined in src/X/y.cpp or src/X/y_*.cpp (a header split over several files). A header at
  the top, include/neurobench/y.hpp, is implemented in src/y.cpp, src/y_*.cpp, or the folder
  src/y/ when it is a layer of its own (device, distributed); the run's (benchmark.hpp,
  run_options.hpp) in src/runtime/, the run description's (config.hpp, prepared_run.hpp,
  run_keys.hpp, plugins.hpp) in src/run/ (ROOT_HEADER_FOLDERS);
- no file in src/ or python/src/ (neurobench_cpp's compiled core) is over 600 lines and no
  function over 120 lines;
- every public header declares its names between NEUROBENCH_API_BEGIN and NEUROBENCH_API_END
  (include/neurobench/export.hpp), so that the shared library exports them, after its includes;
- the command line (src/cli/) and the suite (src/suite/) include no private header of the
  library but those of neurobench_support (CMakeLists.txt), which they link themselves: the
  shared library exports only the public API.

Declarations and definitions come from Universal Ctags (`ctags`), which reads the code without
compiling it: names are matched with their enclosing class or namespace. Prints each mismatch
and exits 1 when there is any; exits 77 (skipped) without ctags.

Usage: check_layout.py [ROOT] [--list]  (--list: every header with the files that implement it)
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from include_graph import walk  # noqa: E402  (the one listing of the sources)

# Headers at the top of include/neurobench/ implemented in a folder not named after them.
ROOT_HEADER_FOLDERS = {
    "include/neurobench/benchmark.hpp": "src/runtime/",
    "include/neurobench/run_options.hpp": "src/runtime/",
    "include/neurobench/config.hpp": "src/run/",
    "include/neurobench/prepared_run.hpp": "src/run/",
    "include/neurobench/plugins.hpp": "src/run/",
    "include/neurobench/run_keys.hpp": "src/run/",
}
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 120
CTAGS = None
FUNCTION_KINDS = {"function"}
DECLARATION_KINDS = {"prototype", "function", "class", "struct", "enum", "member", "typedef",
                     "alias", "variable", "externvar"}


def ctags_program():
    """Universal Ctags (JSON output), under either of its Debian names; None without it."""
    for name in ("ctags-universal", "ctags"):
        path = shutil.which(name)
        if path and "Universal Ctags" in subprocess.run(
                [path, "--version"], capture_output=True, text=True).stdout:
            return path
    return None


def ctags(paths):
    """Every tag of `paths` as dicts (name, kind, scope, line, end, path)."""
    out = subprocess.run(
        [CTAGS, "--output-format=json", "--language-force=c++", "--c++-kinds=+p+x",
         "--fields=+neKsS", "-o", "-"] + paths,
        check=True, capture_output=True, text=True).stdout
    tags = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") == "tag":
            tags.append(tag)
    return tags


def qualified(tag):
    """`scope::name` without the leading `neurobench::` namespaces, for matching."""
    scope = tag.get("scope", "")
    name = tag["name"]
    full = f"{scope}::{name}" if scope else name
    full = re.sub(r"<[^<>]*>", "", full)
    return full[len("neurobench::"):] if full.startswith("neurobench::") else full


def expected_sources(header):
    """include/neurobench/X/y.hpp -> (src/X/y.cpp, src/X/y_), and the folders a header at the
    top may use instead."""
    rel = os.path.relpath(header, "include/neurobench")
    stem = os.path.splitext(rel)[0]
    folders = []
    if os.path.dirname(rel) == "":
        folders.append(os.path.join("src", stem) + "/")
        if header in ROOT_HEADER_FOLDERS:
            folders.append(ROOT_HEADER_FOLDERS[header])
    return os.path.join("src", stem + ".cpp"), os.path.join("src", stem + "_"), folders


def export_problems(header):
    """What is wrong with `header`'s NEUROBENCH_API_BEGIN / END block (empty list: nothing)."""
    with open(header, encoding="utf-8") as f:
        lines = f.read().splitlines()
    namespaces = [i for i, line in enumerate(lines) if line.startswith("namespace ")]
    if not namespaces:
        return []
    begin = [i for i, line in enumerate(lines) if line.strip() == "NEUROBENCH_API_BEGIN"]
    end = [i for i, line in enumerate(lines) if line.strip() == "NEUROBENCH_API_END"]
    if len(begin) != 1 or len(end) != 1:
        return [f"{header}: its declarations are not between one NEUROBENCH_API_BEGIN and one "
                "NEUROBENCH_API_END (include/neurobench/export.hpp): the library would not "
                "export them"]
    problems = []
    if not begin[0] < namespaces[0] or not end[0] > namespaces[-1]:
        problems.append(f"{header}: a namespace lies outside NEUROBENCH_API_BEGIN / END")
    if any(line.startswith("#include") for line in lines[begin[0]:end[0]]):
        problems.append(f"{header}: an #include between NEUROBENCH_API_BEGIN and END")
    return problems


def support_headers(root):
    """The private headers of neurobench_support (its sources in CMakeLists.txt, as .hpp)."""
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"add_library\(neurobench_support STATIC(.*?)\)", text, re.S)
    if block is None:
        return None
    return {os.path.splitext(os.path.relpath(src, "src"))[0] + ".hpp"
            for src in block.group(1).split()}


def reach_problems(root, sources):
    """Private library headers included by the command line or the suite."""
    allowed = support_headers(root)
    if allowed is None:
        return ["CMakeLists.txt: no add_library(neurobench_support STATIC ...)"]
    problems = []
    for path in sources:
        if not path.startswith(("src/cli/", "src/suite/")):
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = re.match(r'#include "([^"]+)"', line)
                if not m or m.group(1).startswith(("cli/", "suite/")) or m.group(1) in allowed:
                    continue
                problems.append(f"{path}:{number}: includes the library's private header "
                                f"{m.group(1)}: the shared library does not export it (use the "
                                "public API, or move the helper into neurobench_support)")
    return problems


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    list_all = "--list" in sys.argv
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    global CTAGS
    CTAGS = ctags_program()
    if CTAGS is None:
        print("Universal Ctags not found (Debian: universal-ctags): skipped")
        return 77
    os.chdir(root)
    headers = walk(root, "include/neurobench", (".hpp",))
    sources = walk(root, "src", (".cpp", ".hpp"))
    # neurobench_cpp's compiled core keeps the same limits on its size.
    sized = sources + walk(root, "python/src", (".cpp", ".hpp"))
    problems = []

    # Which public header declares each qualified name (a name declared in several headers,
    # an overload set split over headers, is left out of the check).
    declared = {}
    for tag in ctags(headers):
        if tag["kind"] in DECLARATION_KINDS:
            declared.setdefault(qualified(tag), set()).add(tag["path"])

    implemented = {h: set() for h in headers}
    for tag in ctags([s for s in sources if s.endswith(".cpp")]):
        if tag["kind"] not in FUNCTION_KINDS:
            continue
        headers_of = declared.get(qualified(tag), set())
        if len(headers_of) != 1:
            continue
        header = next(iter(headers_of))
        implemented[header].add(tag["path"])
        exact, prefix, folders = expected_sources(header)
        if tag["path"] == exact or tag["path"].startswith(prefix):
            continue
        if any(tag["path"].startswith(folder) for folder in folders):
            continue
        problems.append(f"{tag['path']}:{tag['line']}: {qualified(tag)} is declared in "
                        f"{header}; expected in {exact} (or {prefix}*.cpp)")

    for header in headers:
        problems += export_problems(header)
    problems += reach_problems(root, sources)

    for path in sized:
        with open(path, encoding="utf-8") as f:
            lines = sum(1 for _ in f)
        if lines > MAX_FILE_LINES:
            problems.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
    for tag in ctags(sized):
        if tag["kind"] in FUNCTION_KINDS and "end" in tag:
            length = tag["end"] - tag["line"] + 1
            if length > MAX_FUNCTION_LINES:
                problems.append(f"{tag['path']}:{tag['line']}: {qualified(tag)} is {length} "
                                f"lines (at most {MAX_FUNCTION_LINES})")

    if list_all:
        for header in headers:
            print(f"{header}: {', '.join(sorted(implemented[header])) or '-'}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
