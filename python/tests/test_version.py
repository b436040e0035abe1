"""The npm package and the Python package carry one version, and the bundled server says the same."""

from __future__ import annotations

import json
from pathlib import Path

import rl_advantages as r

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "package.json"


def test_the_python_version_is_package_json_s():
    version = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["version"]
    assert r.__version__ == version
    from importlib.metadata import version as installed

    assert installed("rl-advantages") == version


def test_the_bundled_server_has_the_same_version(server):
    assert server.describe()["version"] == r.__version__
