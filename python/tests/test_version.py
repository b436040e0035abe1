"""The npm package and the Python package carry one version, and the bundled server says the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rl_advantages as r

PACKAGE_JSON = Path(__file__).resolve().parents[2] / "package.json"


def test_the_python_version_is_package_json_s():
    version = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["version"]
    assert r.__version__ == version
    from importlib.metadata import version as installed

    assert installed("rl-advantages") == version


def test_the_bundled_server_has_the_same_version(server):
    assert server.describe()["version"] == r.__version__


def test_ci_tests_the_installed_wheel():
    """In CI (.ci/run sets RL_ADV_WHEEL_TEST=1) the package under test is the installed wheel, not python/."""
    import os

    if os.environ.get("RL_ADV_WHEEL_TEST") != "1":
        pytest.skip("outside CI the package may be an editable install")
    assert "site-packages" in r.__file__, r.__file__
