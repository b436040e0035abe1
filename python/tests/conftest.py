"""Shared fixtures: a small corpus, a server fitted on it, seeded batches, and `rl-adv advantages` on the same rows."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rl_advantages as r
from rl_advantages._node import find_node
from rl_advantages._server import BUNDLE

WORDS = (
    "janet ducks lay eggs every day she eats three for breakfast bakes muffins sells the rest market price dollars "
    "robe takes bolts blue fiber white half much total how many does make josh decides flip house buys repairs "
    "increased value percent profit james sprints week meters runs"
).split()


def make_corpus(seed: int = 0, n: int = 40) -> list[str]:
    """Seeded word-salad questions: a vocabulary for the TF-IDF vectorizer, made in code."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(6, 14)))) + "?" for _ in range(n)]


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    path.write_text("\n".join(make_corpus()) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def server(corpus_file: Path):
    with r.Server(corpus=corpus_file) as s:
        yield s


def make_batch(seed: int = 1, groups: int = 6, size: int = 4, masked: bool = False) -> dict[str, Any]:
    """A batch whose every number is exact in float32 (multiples of 1/8), so float32 inputs give the same float64."""
    rng = np.random.default_rng(seed)
    corpus = make_corpus()
    b = groups * size
    batch: dict[str, Any] = {
        "rewards": rng.integers(0, 9, size=b) / 8.0,
        "group_ids": np.repeat(np.arange(groups), size),
        "prompts": [corpus[g] for g in np.repeat(rng.choice(len(corpus), size=groups, replace=False), size)],
        "lengths": rng.integers(5, 200, size=b).astype(np.float64),
        "greedy_rewards": np.repeat(rng.integers(0, 2, size=groups), size).astype(np.float64),
        "features": rng.integers(-8, 9, size=(b, 3)) / 8.0,
        "reward_components": rng.integers(0, 9, size=(b, 2)) / 8.0,
    }
    batch["features"][:, 0] += 2.0  # no zero vector (cosine needs a norm)
    if masked:
        mask = np.zeros(b, dtype=bool)
        mask[[1, 6, 13]] = True
        batch["mask"] = mask
    return batch


_ROW_FIELDS = {"rewards": "reward", "group_ids": "group", "prompts": "prompt", "lengths": "length", "greedy_rewards": "greedy_reward", "features": "features", "reward_components": "reward_components", "mask": "masked"}


def cli_advantages(tmp_path: Path, estimator: str, batch: dict[str, Any], fields: list[str], corpus: Path, flags: list[str] = ()) -> np.ndarray:
    """`rl-adv advantages` (the bundled CLI) on the rows of ``batch``: its advantages, parsed as JSON (float64)."""
    rows = []
    for i in range(len(batch["rewards"])):
        row: dict[str, Any] = {}
        for name in ["rewards", *fields, *(["mask"] if "mask" in batch else [])]:
            value = batch[name][i]
            row[_ROW_FIELDS[name]] = value.tolist() if isinstance(value, np.ndarray) else (value.item() if isinstance(value, np.generic) else value)
        rows.append(row)
    path = tmp_path / f"rows-{len(list(tmp_path.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    argv = [find_node(), BUNDLE, "advantages", "--estimator", estimator, "--input", str(path), "--corpus", str(corpus), *flags]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return np.array([json.loads(line)["advantage"] for line in done.stdout.splitlines()], dtype=np.float64)


@pytest.fixture()
def require_torch():
    """torch, or a skip; RL_ADV_REQUIRE_TORCH=1 (CI) makes a missing torch a failure instead."""
    if os.environ.get("RL_ADV_REQUIRE_TORCH") == "1":
        import torch  # noqa: F401

    return pytest.importorskip("torch")
