"""Installs the graft package and records where libgraft.so is.

The package is pure Python over libgraft.so (ctypes).  At build time this
writes graft/_where.py with the two places to look for the library: the
build tree the package comes from (the repository after the README's
build, or $GRAFT_BUILDDIR) and the configured install libdir (after
``make install``), read from the build tree's Makefile.  Nothing has to
be set when the package is used.
"""
import os
import re
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _build_dir():
    """The graft build tree: $GRAFT_BUILDDIR, else the repository above."""
    env = os.environ.get("GRAFT_BUILDDIR")
    return Path(env).resolve() if env else HERE.parent


def _make_vars(makefile):
    """prefix, exec_prefix and libdir of the configured Makefile, expanded."""
    values = {}
    if not makefile.is_file():
        return values
    for line in makefile.read_text(errors="replace").splitlines():
        m = re.match(r"^(prefix|exec_prefix|libdir) = (.*)$", line)
        if m:
            values[m.group(1)] = m.group(2).strip()
    for _ in range(3):
        for key, val in values.items():
            values[key] = re.sub(r"\$\{(\w+)\}|\$\((\w+)\)",
                                 lambda v: values.get(v.group(1) or v.group(2), ""), val)
    return values


class build_py_where(build_py):
    """build_py that also writes graft/_where.py."""

    def run(self):
        super().run()
        build = _build_dir()
        libdir = _make_vars(build / "Makefile").get("libdir", "")
        target = Path(self.build_lib) / "graft" / "_where.py"
        target.write_text('"""Where setup.py found libgraft (generated)."""\n'
                          f"BUILD_DIR = {str(build)!r}\nLIB_DIR = {libdir!r}\n")


setup(cmdclass={"build_py": build_py_where})
