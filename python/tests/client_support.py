"""Seeded inputs shared by the client tests (a module of its own: tests/integrations has a conftest too)."""

from __future__ import annotations

from typing import Any

import numpy as np

WORDS = (
    "janet ducks lay eggs every day she eats three for breakfast bakes muffins sells the rest market price dollars "
    "robe takes bolts blue fiber white half much total how many does make josh decides flip house buys repairs "
    "increased value percent profit james sprints week meters runs"
).split()


def make_corpus(seed: int = 0, n: int = 40) -> list[str]:
    """Seeded word-salad questions: a vocabulary for the TF-IDF vectorizer, made in code."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(6, 14)))) + "?" for _ in range(n)]


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
