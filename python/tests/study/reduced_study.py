"""What the reduced TRL study tests share (test_trl_ablation.py, test_trl_lr_grid.py, test_trl_kernels.py): the built
CLI, the skip when the drivers' packages are missing (a failure in CI instead), a shipped spec copied with its seeds
cut, and one reduced ``rl-adv study --backend trl`` run through ``node dist/cli.js`` (``npm run build`` first)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "dist" / "cli.js"
DRIVER_PACKAGES = ("torch", "trl", "transformers", "peft", "datasets")


def missing(*extra: str) -> list[str]:
    """The packages of the drivers (and ``extra``) this Python cannot import."""
    return [m for m in (*DRIVER_PACKAGES, *extra) if importlib.util.find_spec(m) is None]


def skip_without_drivers(what: str, *extra: str) -> None:
    """Skips the calling module when packages are missing, except in CI (``CI`` or ``RL_ADV_REQUIRE_TORCH`` set), where
    the test's fixture then fails naming them."""
    gone = missing(*extra)
    if gone and not (os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH")):
        pytest.skip(f"{what} needs {', '.join(gone)} (pip install -r python/requirements-test.txt)", allow_module_level=True)


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_spec(root: Path, shipped: str, seeds: tuple[int, ...], edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """``specs/<shipped>`` copied to ROOT/spec.json with its seeds set to ``seeds`` (and ``edit`` applied)."""
    gone = missing()
    assert not gone and CLI.exists(), f"needs {', '.join(gone) or 'nothing'} and {CLI} (npm run build)"
    spec = json.loads((REPO / "specs" / shipped).read_text(encoding="utf-8"))
    spec["decision_rule"]["seeds"] = list(seeds)
    if edit is not None:
        edit(spec)
    (root / "spec.json").write_text(json.dumps(spec, indent=2), encoding="utf-8")
    return root / "spec.json"


def study(root: Path, steps: int, eval_items: int, *extra: str, timeout: float = 2400) -> subprocess.CompletedProcess[str]:
    """``rl-adv study --backend trl`` on ROOT/spec.json into ROOT/run: ``steps`` steps per run, ``eval_items`` test items,
    1000 calibration batches, 2 jobs at a time, this Python's drivers."""
    args = ["node", str(CLI), "study", "--backend", "trl", "--spec", str(root / "spec.json"), "--out", str(root / "run"), "--python", sys.executable]
    args += ["--steps", str(steps), "--eval-limit", str(eval_items), "--calibration-batches", "1000", "--jobs", "2", *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout)
