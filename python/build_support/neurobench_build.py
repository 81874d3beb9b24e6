# SPDX-License-Identifier: Apache-2.0
"""The build backend of `pip install --no-build-isolation ./python` (pyproject.toml): setuptools'
own, with a clear message when the Python installing lacks setuptools or wheel. With
--no-build-isolation pip installs neither; without them pip would only say that it cannot import
`setuptools.build_meta`, or setuptools `invalid command 'bdist_wheel'`."""
import sys


def _missing(module, debian, why):
    return (f"neurobench_cpp: installing needs the Python package '{module}' for {sys.executable} "
            f"({why}), and it is not there. Add it: Debian's python3 `apt-get install {debian}`; "
            f"a virtual environment made with --system-site-packages sees it then, or run "
            f"`{sys.executable} -m pip install {module}` where an index is reachable.")


try:
    from setuptools import build_meta as _setuptools
except ImportError:
    raise SystemExit(_missing("setuptools", "python3-setuptools", "it builds the packages"))


def _wheel():
    try:
        import wheel  # noqa: F401  (setuptools' bdist_wheel comes from it before setuptools 70)
    except ImportError:
        import setuptools
        if int(setuptools.__version__.split(".")[0]) < 70:
            raise SystemExit(_missing("wheel", "python3-wheel", "pip installs a wheel"))


def get_requires_for_build_wheel(config_settings=None):
    _wheel()
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _wheel()
    return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _wheel()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    return _setuptools.build_sdist(sdist_directory, config_settings)


def get_requires_for_build_editable(config_settings=None):
    _wheel()
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _wheel()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
