# SPDX-License-Identifier: Apache-2.0
"""The exporter's errors: ExportError, and ExportArgumentError for a bad argument."""


class ExportError(RuntimeError):
    """The network cannot be exported with its exact behaviour; the message says why and where."""


class ExportArgumentError(ExportError):
    """An argument of export() is bad: an output path that cannot be written (a directory, a
    device, a FIFO, a missing folder), an example_input that is not one, steps out of range.
    The message names the argument or the file. The command line exits 2 for these."""


class EagerNetworkError(ExportError):
    """The eager network itself fails on the example input: `cause` is its own exception, the
    error the network raises wherever it is run (NeuroBench's Benchmark raises it too)."""

    def __init__(self, message, cause):
        super().__init__(message)
        self.cause = cause
