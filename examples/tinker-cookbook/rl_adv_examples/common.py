"""Shared pieces of the drivers: the study spec, preconditions with clear messages, JSONL output.

Standard library only, so the tests run without tinker, torch or tinker-cookbook.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = [
    "COOKBOOK_PIN",
    "COOKBOOK_RECORD_REV",
    "COOKBOOK_REPO",
    "DEFAULT_RENDERER",
    "DriverError",
    "SpecArm",
    "StudySpec",
    "is_kernel_estimator",
    "is_kernel_file",
    "resolve_kernel_advantage",
    "load_spec",
    "main_wrapper",
    "final_sampler_path",
    "require_modules",
    "require_tinker_api_key",
    "write_jsonl",
]

#: The tinker-cookbook commit ``requirements.txt`` pins: HEAD of 2026-08-19, publicly installable. Every hook
#: point the drivers use was added on 2025-09-30 and is unchanged through it (issue 13).
COOKBOOK_PIN = "9dfcc3a2cf44432d621a01005073dc6d76a1e87a"

#: The commit the record's GRPO baseline ran; not in the public history up to 2026-08-21, so not installable
#: unless it becomes public (select it with ``--cookbook-rev`` or ``RL_ADV_COOKBOOK_REV``).
COOKBOOK_RECORD_REV = "f79fdb2ba4cd967ef2807ba43097c52985f9f17f"

COOKBOOK_REPO = "https://github.com/thinking-machines-lab/tinker-cookbook.git"

#: The renderer of the record's effective config for Qwen/Qwen3.5-2B (the spec has no renderer field).
DEFAULT_RENDERER = "qwen3_5_disable_thinking"

_INSTALL_HINT = (
    "install the Tinker stack in a Python >= 3.11 environment: "
    "pip install -r examples/tinker-cookbook/requirements.txt "
    f"(tinker and tinker-cookbook pinned at {COOKBOOK_PIN}, which brings torch)"
)


class DriverError(Exception):
    """A precondition or input problem: the script prints ``<script>: <message>`` and exits with ``exit_code``."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class SpecArm:
    name: str
    advantage: str
    group_size: int
    groups_per_batch: int
    lr: float
    seed: int
    steps: int


@dataclass(frozen=True)
class StudySpec:
    base_model: str
    lora_rank: int
    max_tokens: int
    renderer: str
    arms: list[SpecArm]
    raw: dict[str, Any]

    def arm(self, name: str) -> SpecArm:
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise DriverError(f"--arm {name!r} is not an arm of the spec; its arms are {[a.name for a in self.arms]}")

    def kernel_arm(self) -> SpecArm:
        """The arm whose advantage is a kernel estimator (the GS1 arm)."""
        for arm in self.arms:
            if is_kernel_estimator(arm.advantage):
                return arm
        raise DriverError("the spec has no arm with a kernel advantage (e.g. tfidf_kernel_loo_T0.1)")


def is_kernel_estimator(name: str) -> bool:
    """True for the estimators whose baseline weighs the whole batch's prompts (computed by ``rl-adv serve``): the
    catalogue's ``kernel`` family (``rl-adv estimators --json``: the TF-IDF, length and feature kernels, and a tuned
    kernel file named ``kernel:PATH``, ``rl-adv tune-kernel``, docs/kernel-lab.md)."""
    from .catalogue import is_kernel_estimator as in_catalogue

    return in_catalogue(name)


#: The prefix of an advantage that names a kernel file (``kernel:PATH``; in a spec, PATH is relative to the spec file).
KERNEL_PREFIX = "kernel:"


def is_kernel_file(name: str) -> bool:
    """True for ``kernel:PATH`` with a non-empty PATH."""
    return name.startswith(KERNEL_PREFIX) and name[len(KERNEL_PREFIX) :].strip() != ""


def resolve_kernel_advantage(name: str, spec_path: str) -> str:
    """``kernel:PATH`` with PATH made absolute against the spec file's folder (rl-adv serve resolves a relative
    PATH against its own working directory, which is not the spec's); any other name unchanged."""
    if not is_kernel_file(name):
        return name
    target = name[len(KERNEL_PREFIX) :]
    if not os.path.isabs(target):
        target = os.path.join(os.path.dirname(os.path.abspath(spec_path)), target)
    return KERNEL_PREFIX + os.path.normpath(target)


def load_spec(path: str) -> StudySpec:
    """Read the study spec JSON (``gs1-vs-grpo.spec.json``): model, LoRA rank, arms.

    ``max_tokens`` is 512 (the spec's command line and eval section); a top-level ``max_tokens`` or
    ``renderer`` field, if present, wins.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
    except OSError as error:
        raise DriverError(f"cannot read --spec {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise DriverError(f"--spec {path} is not valid JSON: {error}") from None
    if not isinstance(raw, dict):
        raise DriverError(f"--spec {path} must hold a JSON object")

    def need(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, kind):
            raise DriverError(f"--spec {path}: {where}{key} is missing or not a {getattr(kind, '__name__', kind)}")
        return value

    arms_raw = need(raw, "arms", list, "")
    arms = []
    for i, a in enumerate(arms_raw):
        if not isinstance(a, dict):
            raise DriverError(f"--spec {path}: arms[{i}] must be an object")
        where = f"arms[{i}]."
        arms.append(
            SpecArm(
                name=need(a, "name", str, where),
                # kernel:PATH is relative to the spec file; the drivers hand rl-adv serve the absolute path.
                advantage=resolve_kernel_advantage(need(a, "advantage", str, where), path),
                group_size=need(a, "group_size", int, where),
                groups_per_batch=need(a, "groups_per_batch", int, where),
                lr=float(need(a, "lr", (int, float), where)),
                seed=need(a, "seed", int, where),
                steps=need(a, "steps", int, where),
            )
        )
    return StudySpec(
        base_model=need(raw, "base_model", str, ""),
        lora_rank=need(raw, "lora_rank", int, ""),
        max_tokens=int(raw.get("max_tokens", 512)),
        renderer=str(raw.get("renderer", DEFAULT_RENDERER)),
        arms=arms,
        raw=raw,
    )


def require_tinker_api_key() -> None:
    if not os.environ.get("TINKER_API_KEY"):
        raise DriverError(
            "TINKER_API_KEY is not set: export your Tinker API key (https://tinker-console.thinkingmachines.ai) "
            "before running this script"
        )


def require_modules(*names: str) -> list[Any]:
    """Import each module or fail with how to install it."""
    modules = []
    for name in names:
        try:
            modules.append(importlib.import_module(name))
        except ImportError as error:
            raise DriverError(f"cannot import {name} ({error}); {_INSTALL_HINT}") from None
    return modules


def final_sampler_path(log_path: str) -> str | None:
    """The last ``sampler_path`` in the cookbook's ``LOG_PATH/checkpoints.jsonl``, or None."""
    path = os.path.join(log_path, "checkpoints.jsonl")
    last = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    raise DriverError(f"{path} line {line_no} is not valid JSON") from None
                if isinstance(record, dict) and record.get("sampler_path"):
                    last = str(record["sampler_path"])
    return last


def write_jsonl(path: str, rows: Iterable[dict[str, Any]]) -> int:
    """Write rows (finite numbers only) to ``path``, creating its folder; returns the row count."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    count = 0
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, allow_nan=False, ensure_ascii=False) + "\n")
            count += 1
    os.replace(tmp, path)
    return count


def finite(values: Iterable[float], what: str) -> list[float]:
    out = []
    for i, v in enumerate(values):
        f = float(v)
        if not math.isfinite(f):
            raise DriverError(f"{what}[{i}] is not finite: {v!r}", 1)
        out.append(f)
    return out


def main_wrapper(prog: str, run: Any, argv: list[str] | None = None) -> int:
    """Run ``run(argv)``; a DriverError becomes ``prog: message`` on stderr and its exit code."""
    try:
        return int(run(argv) or 0)
    except DriverError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # a failure inside Tinker or the cookbook: keep its traceback
        traceback.print_exc()
        print(f"{prog}: failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
