#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/gpu-check --debs: after unpacking, an absolute symbolic link of a package (zlib1g-dev's
libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13) points at its file inside the unpacked root, so
that the build links the shared library there and not a static one beside a dangling link; links
that are relative, or whose target is not in the root, stay as they were."""
import os
import sys
import tempfile
from importlib.machinery import SourceFileLoader

source = sys.argv[1]
gpu_check = SourceFileLoader("gpu_check", os.path.join(source, "scripts", "gpu-check")).load_module()

with tempfile.TemporaryDirectory() as root:
    lib = os.path.join(root, "lib", "x86_64-linux-gnu")
    usr_lib = os.path.join(root, "usr", "lib", "x86_64-linux-gnu")
    os.makedirs(lib)
    os.makedirs(usr_lib)
    open(os.path.join(lib, "libz.so.1.2.13"), "w").close()
    open(os.path.join(usr_lib, "libcrypto.so.3"), "w").close()
    os.symlink("/lib/x86_64-linux-gnu/libz.so.1.2.13", os.path.join(usr_lib, "libz.so"))
    os.symlink("libcrypto.so.3", os.path.join(usr_lib, "libcrypto.so"))
    os.symlink("/nowhere/libgone.so.1", os.path.join(usr_lib, "libgone.so"))
    gpu_check.keep_links_inside(root)
    failures = []
    z = os.path.join(usr_lib, "libz.so")
    if os.path.isabs(os.readlink(z)) or os.path.realpath(z) != os.path.realpath(
            os.path.join(lib, "libz.so.1.2.13")):
        failures.append(f"libz.so -> {os.readlink(z)}: not its file in the root")
    if os.readlink(os.path.join(usr_lib, "libcrypto.so")) != "libcrypto.so.3":
        failures.append("a relative link was changed")
    if os.readlink(os.path.join(usr_lib, "libgone.so")) != "/nowhere/libgone.so.1":
        failures.append("a link whose target is not in the root was changed")
    for f in failures:
        print("FAIL", f)
    if failures:
        sys.exit(1)
    print("PASS: absolute links point into the root; the others are kept")
