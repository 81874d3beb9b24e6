# SPDX-License-Identifier: Apache-2.0
"""`python3 -m neurobench_export ARGS`: the command line (neurobench_export.cli)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main(prog="python3 -m neurobench_export"))
