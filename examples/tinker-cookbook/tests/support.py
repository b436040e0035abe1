"""Paths and helpers shared by the tests."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Any, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE_DIR = os.path.dirname(HERE)
REPO_ROOT = os.path.abspath(os.path.join(EXAMPLE_DIR, "..", ".."))
SPEC_PATH = os.path.join(REPO_ROOT, "specs", "gs1-vs-grpo.json")
CLI_JS = os.path.join(REPO_ROOT, "dist", "cli.js")

if EXAMPLE_DIR not in sys.path:
    sys.path.insert(0, EXAMPLE_DIR)

from rl_adv_examples.grading import resolve_gsm8k_dir  # noqa: E402
from rl_adv_examples.serve_client import ServeResult  # noqa: E402

#: GSM8K as every rl-adv command finds it: GSM8K_DIR, else the cache (``rl-adv data gsm8k``).
GSM8K_DIR = resolve_gsm8k_dir()


def rl_adv_command() -> list[str] | None:
    """``node dist/cli.js`` when node and the build exist (build with ``npx tsup`` in the repo root)."""
    node = shutil.which("node")
    if node is None or not os.path.exists(CLI_JS):
        return None
    return [node, CLI_JS]


SKIP_SERVE = "rl-adv serve needs node and dist/cli.js (cd the repo root && npx tsup --silent)"


def train_questions() -> list[str]:
    from rl_adv_examples.grading import load_gsm8k

    return [item.question for item in load_gsm8k(GSM8K_DIR, "train")]


class StubServe:
    """In-process stand-in for ``RlAdvServe``: b = LOO batch mean (or group mean with group ids);
    records every request."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def compute(self, estimator: str, rewards: Sequence[float], prompts: Sequence[str] | None = None, group_ids: Sequence[int] | None = None) -> ServeResult:
        self.requests.append({"estimator": estimator, "rewards": list(rewards), "prompts": prompts, "group_ids": group_ids})
        n = len(rewards)
        total = sum(rewards)
        loo = [(total - r) / (n - 1) for r in rewards]
        if group_ids is not None:
            sums: dict[Any, list[float]] = {}
            for g, r in zip(group_ids, rewards):
                sums.setdefault(g, []).append(r)
            b = [sum(sums[g]) / len(sums[g]) for g in group_ids]
            msw = max(1.0 / len(v) for v in sums.values())
        else:
            b, msw = loo, 0.0
        return ServeResult([r - x for r, x in zip(rewards, b)], b, loo, msw)

    def close(self) -> None:
        pass
