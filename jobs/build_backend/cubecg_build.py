"""PEP 517 build backend of the analysis package: setuptools' build_meta, run on a copy of the
package in a temporary folder, so that `pip install ./jobs` writes nothing into the source tree
(setuptools itself leaves build/ and cubecg_analysis.egg-info/ beside pyproject.toml, and pip builds
in the tree since 21.3). Editable installs (`pip install -e ./jobs`) point at the tree by design and
run in it."""
import contextlib
import os
import shutil
import tempfile

from setuptools import build_meta as _setuptools

COPIED = ("pyproject.toml", "README.md", "cubecg_ab.py")
PACKAGE = "cubecg_analysis"


@contextlib.contextmanager
def _in_copy():
    """Run the block in a temporary copy of pyproject.toml, README.md, cubecg_ab.py and the package."""
    source = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="cubecg-analysis-build-") as tmp:
        for name in COPIED:
            shutil.copy2(os.path.join(source, name), tmp)
        shutil.copytree(os.path.join(source, PACKAGE), os.path.join(tmp, PACKAGE),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        os.chdir(tmp)
        try:
            yield
        finally:
            os.chdir(source)


def get_requires_for_build_wheel(config_settings=None):
    with _in_copy():
        return _setuptools.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    with _in_copy():
        return _setuptools.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    metadata_directory = os.path.abspath(metadata_directory)
    with _in_copy():
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_directory = os.path.abspath(wheel_directory)
    with _in_copy():
        # the metadata prepared in another copy is rebuilt here (same pyproject.toml, same result)
        return _setuptools.build_wheel(wheel_directory, config_settings)


def build_sdist(sdist_directory, config_settings=None):
    sdist_directory = os.path.abspath(sdist_directory)
    with _in_copy():
        return _setuptools.build_sdist(sdist_directory, config_settings)


# editable installs: in the tree (the installed package is the tree)
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
build_editable = _setuptools.build_editable
