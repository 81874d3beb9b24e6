#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_layers.py fails where it should: a small tree with an upward include, a folder cycle,
a file in no layer and a plain header reaching the JIT, each fixed in turn (ctest
source_layers_selftest)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = """# Design

## The layers

| layer | public headers | sources | its job |
|---|---|---|---|
| low | `low/` | `src/low/` | below |
| high | `high/`, `results.hpp` | `src/high/` | above |

{exceptions}
"""


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def check(root):
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_layers.py"), root],
                       capture_output=True, text=True)
    return r.returncode, r.stdout


def main():
    failures = []
    with tempfile.TemporaryDirectory() as root:
        write(root, "docs/design.md", TABLE.format(exceptions=""))
        write(root, "include/neurobench/low/a.hpp", "#pragma once\n")
        write(root, "include/neurobench/high/b.hpp",
              "#pragma once\n#include <neurobench/low/a.hpp>\n")
        write(root, "include/neurobench/results.hpp", "#pragma once\n#include <string>\n")
        write(root, "src/low/a.cpp", "#include <neurobench/low/a.hpp>\n")
        write(root, "src/high/b.cpp", "#include <neurobench/high/b.hpp>\n")
        status, out = check(root)
        if status != 0:
            failures.append(f"a clean tree fails:\n{out}")

        # An upward include (and with it a cycle between the two folders).
        write(root, "src/low/a.cpp", "#include <neurobench/low/a.hpp>\n#include \"high/b.hpp\"\n"
              "#include <neurobench/high/b.hpp>\n")
        status, out = check(root)
        if status != 1 or "upward import" not in out or "folders include each other" not in out:
            failures.append(f"an upward include passes:\n{out}")
        # Named as an exception: accepted.
        write(root, "docs/design.md", TABLE.format(exceptions=(
            "### Exceptions to the layers\n\n"
            "- `src/low/a.cpp` -> `include/neurobench/high/b.hpp`: a test\n")))
        status, out = check(root)
        if "upward import" in out:
            failures.append(f"a named exception is refused:\n{out}")
        write(root, "docs/design.md", TABLE.format(exceptions=""))
        write(root, "src/low/a.cpp", "#include <neurobench/low/a.hpp>\n")

        # A file in no layer.
        write(root, "src/elsewhere/c.cpp", "int c;\n")
        status, out = check(root)
        if status != 1 or "in no layer" not in out:
            failures.append(f"a file in no layer passes:\n{out}")
        os.remove(os.path.join(root, "src/elsewhere/c.cpp"))

        # A plain data header reaching the JIT through another header.
        write(root, "include/neurobench/results.hpp",
              "#pragma once\n#include <neurobench/high/b.hpp>\n")
        write(root, "include/neurobench/high/b.hpp", "#pragma once\n#include <torch/script.h>\n")
        status, out = check(root)
        if status != 1 or "reaches a JIT header" not in out:
            failures.append(f"a plain header reaching torch/script.h passes:\n{out}")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
