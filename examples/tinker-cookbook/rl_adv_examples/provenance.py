"""What a run was made with: the LoRA seed actually passed to Tinker, the installed tinker-cookbook revision,
and the run's ``provenance.json``.

The math_rl recipe's ``seed`` only shuffles the data (``recipes/math_rl/train.py`` line 32 at tinker-cookbook
9dfcc3a2cf44432d621a01005073dc6d76a1e87a); ``rl/train.py`` line 1966 creates the LoRA client with
``create_lora_training_client_async(model_name, rank=..., user_metadata=...)`` and no seed, and the SDK's
``seed=None`` means a random initialisation. :class:`LoraSeed` makes every LoRA client created during a run
use the arm's seed, so the two arms start from the same weights as the spec says.

Standard library only.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import time
from importlib import metadata
from typing import Any, Callable
from urllib.parse import unquote, urlparse

from .common import COOKBOOK_PIN, COOKBOOK_REPO, DriverError

__all__ = [
    "COOKBOOK_REV_ENV",
    "LoraSeed",
    "check_cookbook_revision",
    "expected_cookbook_revision",
    "installed_cookbook_revision",
    "append_provenance",
]

#: The environment variable that selects the tinker-cookbook revision the drivers expect (``--cookbook-rev`` wins).
COOKBOOK_REV_ENV = "RL_ADV_COOKBOOK_REV"


class LoraSeed:
    """Passes ``seed`` to every ``create_lora_training_client[_async]`` call of ``service_client_cls`` while
    installed (the recipe calls it with no seed). A caller asking for another explicit seed is refused.

    ``calls`` records ``{"method", "base_model", "rank", "seed"}`` for each client created.
    """

    METHODS = ("create_lora_training_client_async", "create_lora_training_client")

    def __init__(self, service_client_cls: Any, seed: int):
        self.cls = service_client_cls
        self.seed = int(seed)
        self.calls: list[dict[str, Any]] = []
        self._saved: dict[str, Any] = {}

    def _seeded(self, name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def fill(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
            # Signature (self, base_model, rank=32, seed=None, ...): seed is the fourth positional argument.
            if len(args) >= 4:
                given = args[3]
                args = args[:3] + (self._check(given),) + args[4:]
            else:
                kwargs = {**kwargs, "seed": self._check(kwargs.get("seed"))}
            seed = args[3] if len(args) >= 4 else kwargs["seed"]
            rank = args[2] if len(args) >= 3 else kwargs.get("rank", 32)
            base_model = args[1] if len(args) >= 2 else kwargs.get("base_model")
            self.calls.append({"method": name, "base_model": base_model, "rank": rank, "seed": seed})
            return args, kwargs

        if name.endswith("_async"):

            @functools.wraps(original)
            async def wrapper_async(*args: Any, **kwargs: Any) -> Any:
                args, kwargs = fill(args, kwargs)
                return await original(*args, **kwargs)

            return wrapper_async

        @functools.wraps(original)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = fill(args, kwargs)
            return original(*args, **kwargs)

        return wrapper

    def _check(self, given: Any) -> int:
        if given is not None and given != self.seed:
            raise DriverError(f"a LoRA training client was requested with seed {given}, but the arm's seed is {self.seed}", 1)
        return self.seed

    def install(self) -> "LoraSeed":
        for name in self.METHODS:
            original = getattr(self.cls, name, None)
            if original is None:
                raise DriverError(f"tinker.ServiceClient has no {name}: this tinker version cannot be seeded by run_arm.py")
            self._saved[name] = original
            setattr(self.cls, name, self._seeded(name, original))
        return self

    def uninstall(self) -> None:
        for name, original in self._saved.items():
            setattr(self.cls, name, original)
        self._saved.clear()

    def __enter__(self) -> "LoraSeed":
        return self.install()

    def __exit__(self, *exc: Any) -> None:
        self.uninstall()


def expected_cookbook_revision(flag: str | None = None) -> str:
    """The revision the drivers expect: ``--cookbook-rev``, else ``$RL_ADV_COOKBOOK_REV``, else the pin."""
    return (flag or os.environ.get(COOKBOOK_REV_ENV) or COOKBOOK_PIN).strip()


def installed_cookbook_revision(distribution: Callable[[str], Any] = metadata.distribution) -> dict[str, Any]:
    """The installed tinker-cookbook: ``{"version", "commit", "source"}``.

    ``commit`` comes from pip's ``direct_url.json`` (``vcs_info.commit_id`` for a ``git+`` install), or from
    ``git rev-parse HEAD`` in the folder of a local (e.g. editable) install; None when neither tells it.
    """
    try:
        dist = distribution("tinker-cookbook")
    except metadata.PackageNotFoundError:
        return {"version": None, "commit": None, "source": "tinker-cookbook is not installed as a distribution"}
    info: dict[str, Any] = {"version": dist.version, "commit": None, "source": "no direct_url.json (installed from an index?)"}
    raw = dist.read_text("direct_url.json")
    if not raw:
        return info
    try:
        direct = json.loads(raw)
    except json.JSONDecodeError:
        info["source"] = "unreadable direct_url.json"
        return info
    url = str(direct.get("url", ""))
    info["source"] = url
    vcs = direct.get("vcs_info") or {}
    if vcs.get("commit_id"):
        info["commit"] = str(vcs["commit_id"])
        if vcs.get("requested_revision"):
            info["requested_revision"] = str(vcs["requested_revision"])
        return info
    if url.startswith("file://"):
        folder = unquote(urlparse(url).path)
        try:
            out = subprocess.run(["git", "-C", folder, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return info
        if out.returncode == 0 and out.stdout.strip():
            info["commit"] = out.stdout.strip()
            info["source"] = f"{url} (git rev-parse HEAD)"
    return info


def check_cookbook_revision(prog: str, flag: str | None = None, installed: dict[str, Any] | None = None) -> dict[str, Any]:
    """Print the installed tinker-cookbook revision on stderr and refuse one that differs from the expected.

    A revision that cannot be read (an index install, a plain folder) is printed as unverified, not refused.

    Raises:
        DriverError: (exit 2) the installed commit is known and is not the expected revision.
    """
    expected = expected_cookbook_revision(flag)
    info = dict(installed if installed is not None else installed_cookbook_revision())
    commit = info.get("commit")
    info["expected"] = expected
    if commit is None:
        info["verified"] = False
        print(f"{prog}: tinker-cookbook {info.get('version')} at an unknown revision ({info.get('source')}); expected {expected}, not verified", file=sys.stderr)
        return info
    matches = commit.startswith(expected) or expected.startswith(commit)
    if not matches:
        raise DriverError(
            f"the installed tinker-cookbook is at {commit}, but {expected} is expected (--cookbook-rev, ${COOKBOOK_REV_ENV}, "
            f"or the pin {COOKBOOK_PIN}); install it with: pip install "
            f"\"tinker-cookbook[math-rl] @ git+{COOKBOOK_REPO}@{expected}\""
        )
    info["verified"] = True
    print(f"{prog}: tinker-cookbook {info.get('version')} at {commit} (expected {expected})", file=sys.stderr)
    return info


def append_provenance(log_path: str, record: dict[str, Any]) -> str:
    """Append ``record`` (stamped with the UTC time) to ``LOG_PATH/provenance.json``'s ``runs`` list, keeping
    every earlier entry (a resumed run adds one); returns the file's path."""
    path = os.path.join(log_path, "provenance.json")
    runs: list[Any] = []
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as handle:
                runs = list(json.load(handle).get("runs", []))
        except (OSError, json.JSONDecodeError, AttributeError):
            raise DriverError(f"{path} exists but is not a provenance file written by run_arm.py; move it away", 2) from None
    runs.append({"written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **record})
    os.makedirs(log_path, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"runs": runs}, handle, indent=2)
        handle.write("\n")
    os.replace(tmp, path)
    return path
