# SPDX-License-Identifier: Apache-2.0
"""Files and signals. The output rules are neurobench's (docs/cli.md, "Output files"): a regular
file is replaced whole through a temporary file beside it and a rename, a symbolic link is
followed and the file it leads to replaced. The exporter writes regular files only: renaming
over a device, FIFO or socket replaces it with a regular file (run as root, /dev/null became
one), so those are refused by name, as are directories."""

import os
import shutil
import signal
import stat
import tempfile

from .errors import ExportArgumentError


_FILE_TYPES = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
               (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISLNK, "a symbolic link"))


def _file_type(mode):
    """What a stat() st_mode is, in words, with its article (as neurobench's messages say it)."""
    for test, words in _FILE_TYPES:
        if test(mode):
            return words
    return "a file of unknown type"


def _stat_output(path):
    """os.stat(path), or None where nothing is there; a test replaces it to see the refusal of
    a character device without touching one."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _cannot_write(path, why):
    raise ExportArgumentError(f"{path}: cannot open for writing: {why}")


def _check_output_folder(path, file):
    folder = os.path.dirname(file) or "."
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        _cannot_write(path, f"directory {folder} does not exist")
    except OSError as e:
        _cannot_write(path, f"directory {folder}: {e.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        _cannot_write(path, f"{folder} is not a directory")
    effective = os.access in os.supports_effective_ids
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=effective):
        _cannot_write(path, f"directory {folder} is not writable")
    return folder


def _output_target(path):
    """The regular file that writing `path` replaces, whether it exists, and its mode:
    (file, st_mode or None). Raises ExportArgumentError naming `path` for anything else."""
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ExportArgumentError(f"path must be a file name, got {type(path).__name__}")
    path = os.fsdecode(os.fspath(path))
    if path == "":
        raise ExportArgumentError("cannot write to an empty path")
    if "\0" in path:
        _cannot_write(repr(path), "the name holds a NUL character")
    if path.endswith(os.sep):
        _cannot_write(path, "it ends in '/', the name of a directory (give a file name)")
    try:
        link = os.lstat(path)
    except FileNotFoundError:
        _check_output_folder(path, path)
        return path, None
    except NotADirectoryError:
        _check_output_folder(path, path)  # names the folder that is not one
        _cannot_write(path, "a folder in it is not a directory")
    except OSError as e:
        _cannot_write(path, e.strerror)
    try:
        st = _stat_output(path)
    except OSError as e:
        _cannot_write(path, e.strerror)
    if st is None:
        _cannot_write(path, f"it is a symbolic link to {os.readlink(path)}, which does not "
                            "exist (create the file it names, or remove the link)")
    file = os.path.realpath(path) if stat.S_ISLNK(link.st_mode) else path
    if stat.S_ISDIR(st.st_mode):
        _cannot_write(path, "it is a directory (give a file name)")
    if not stat.S_ISREG(st.st_mode):
        _cannot_write(path, f"it is {_file_type(st.st_mode)}; the exporter writes only a regular "
                            "file, which it replaces whole")
    _check_output_folder(path, file)
    return file, st.st_mode


def _check_regular_input(path, what):
    """Raises ExportArgumentError unless `path` is a regular file (or a link to one): a FIFO
    would block the read, a device never end."""
    path = os.fsdecode(os.fspath(path))
    if path == "":
        raise ExportArgumentError(f"the {what} is an empty path")
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        if os.path.islink(path):
            raise ExportArgumentError(f"{path}: no such {what} (a symbolic link to "
                                      f"{os.readlink(path)}, which does not exist)") from None
        raise ExportArgumentError(f"{path}: no such {what}") from None
    except (OSError, ValueError) as e:
        raise ExportArgumentError(f"{path}: cannot read the {what}: "
                                  f"{getattr(e, 'strerror', None) or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ExportArgumentError(f"{path}: the {what} is {_file_type(st.st_mode)}, not a "
                                  "regular file")
    return st


class _Interrupted(BaseException):
    """SIGINT or SIGTERM arrived (command line only): unwinds to main(), which removes what the
    export left and exits 130 or 143. A BaseException, so that no `except Exception` in the
    exporter or the user's code swallows it."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.written = None  # the file, when the signal came after it was renamed into place


class _Signals:
    """SIGINT and SIGTERM as an exception (installed by main() only). Sections that must not be
    cut in two (creating and removing the temporary folder, the rename) defer the exception to
    their end; once one signal has been taken, further ones are ignored while the export
    unwinds and cleans up."""

    def __init__(self):
        self.installed = False
        self.depth = 0
        self.pending = None
        self.taken = False
        self.temporaries = set()  # folders to remove should an interruption skip their cleanup

    def install(self):
        self.depth, self.pending, self.taken = 0, None, False
        for signum in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue  # ignored when we started (nohup, a script's background job): stays so
            signal.signal(signum, self._handle)
        self.installed = True

    def _handle(self, signum, frame):
        if self.taken:
            return
        if self.depth:
            self.pending = signum
            return
        self.taken = True
        raise _Interrupted(signum)

    def deferred(self):
        signals = self

        class _Deferred:
            def __enter__(self):
                signals.depth += 1

            def __exit__(self, *exc):
                signals.depth -= 1
                if signals.depth == 0 and signals.pending is not None and not signals.taken:
                    signals.taken = True
                    raise _Interrupted(signals.pending)
                return False

        return _Deferred()

    def remove_temporaries(self):
        self.taken = True  # no more exceptions from here on
        for folder in list(self.temporaries):
            shutil.rmtree(folder, ignore_errors=True)
            self.temporaries.discard(folder)


_SIGNALS = _Signals()


class _TemporaryFolder:
    """A folder beside the output for the candidate file, removed on every way out."""

    def __init__(self, folder):
        self.folder = folder
        self.path = None

    def __enter__(self):
        with _SIGNALS.deferred():
            try:
                self.path = tempfile.mkdtemp(prefix="neurobench_export_", dir=self.folder)
            except OSError as e:
                raise ExportArgumentError(f"{self.folder}: cannot create a temporary folder "
                                          f"for the export: {e.strerror}") from None
            _SIGNALS.temporaries.add(self.path)
        return self.path

    def __exit__(self, *exc):
        with _SIGNALS.deferred():
            shutil.rmtree(self.path, ignore_errors=True)
            _SIGNALS.temporaries.discard(self.path)
        return False


def _commit(candidate, path, target):
    """Renames the checked candidate over the output, after checking the output again: a path
    that became a directory, device or FIFO meanwhile is refused, not replaced."""
    file, mode = _output_target(path)
    if file != target[0]:
        raise ExportArgumentError(f"{path}: it changed while the export was checked (it now "
                                  f"leads to {file}, not {target[0]}); nothing was written")
    os.chmod(candidate, stat.S_IMODE(mode) if mode is not None else 0o644)
    fd = os.open(candidate, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(candidate, file)
    try:
        fd = os.open(os.path.dirname(file) or ".", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
