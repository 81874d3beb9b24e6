# SPDX-License-Identifier: Apache-2.0
"""The exporter's errors: ExportError, and ExportArgumentError for a bad argument."""


class ExportError(RuntimeError):
    """The network cannot be exported with its exact behaviour; the message says why and where."""


class ExportArgumentError(ExportError):
    """An argument of export() is bad: an output path that cannot be written (a directory, a
    device, a FIFO, a missing folder), an example_input that is not one, steps out of range.
    The message names the argument or the file. The command line exits 2 for these."""
