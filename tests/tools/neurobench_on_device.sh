#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The neurobench command line on a device: `NEUROBENCH_CLI run ... --device NEUROBENCH_DEVICE`.
# For scripts that run the command line as they find it, such as the shared conformance
# check.sh (the conformance_cli_lazy test; scripts/gpu-check writes its own for cuda).
exec "${NEUROBENCH_CLI:?}" "$@" --device "${NEUROBENCH_DEVICE:?}"
