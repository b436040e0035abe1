"""The package version: ``_version.py`` (written by the wheel build from package.json), or, in a source checkout
that has not built a wheel yet (the Tinker drivers' tests put ``python/`` on the path), package.json itself, the
one source of the version."""

from __future__ import annotations

try:
    from ._version import __version__
except ImportError:
    import json as _json
    import os as _os

    _PACKAGE_JSON = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "..", "..", "package.json")
    with open(_PACKAGE_JSON, encoding="utf-8") as _file:
        __version__: str = _json.load(_file)["version"]

__all__ = ["__version__"]
