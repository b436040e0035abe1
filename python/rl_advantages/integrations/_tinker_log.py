"""tinker-cookbook: the ``advantages.jsonl`` line of one step (docs/method.md section 9) and resuming that log.

Part of :mod:`rl_advantages.integrations.tinker_cookbook` (re-exported there).
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

__all__ = ["NONZERO_ADVANTAGE_EPS", "group_mean_diagnostics", "loo_batch_means", "prepare_resumed_log", "step_log_line"]

#: |A| above this counts as a non-zero advantage (docs/method.md section 9, the gate's nonzero_advantage_fraction).
NONZERO_ADVANTAGE_EPS = 1e-6

def loo_batch_means(rewards: Sequence[float]) -> list[float]:
    """(sum_j r_j - r_i) / (B - 1) for every i, in float64 (docs/method.md section 2, ``loo_batch_mean``)."""
    n = len(rewards)
    if n < 2:
        return [0.0] * n  # no other rollout: nothing to compare with
    total = sum(rewards)
    return [(total - r) / (n - 1) for r in rewards]


def group_mean_diagnostics(group_rewards: Sequence[Sequence[float]]) -> tuple[list[float], list[float], float]:
    """Baselines b_i = mean of i's group (i included), the LOO batch means, and max 1/n_g (docs/method.md section 2)."""
    baselines: list[float] = []
    for rewards in group_rewards:
        mean = sum(rewards) / len(rewards)
        baselines.extend([mean] * len(rewards))
    flat = [r for rewards in group_rewards for r in rewards]
    msw = max((1.0 / len(g) for g in group_rewards if len(g) > 0), default=0.0)
    return baselines, loo_batch_means(flat), msw


def _executed_group_size(sizes: Sequence[int]) -> int:
    """The step's common group size; if groups differ, the first size that differs from the first group's."""
    first = sizes[0]
    for s in sizes:
        if s != first:
            return s
    return first


def step_log_line(
    arm: str,
    step: int,
    estimator: str,
    group_sizes: Sequence[int],
    rewards: Sequence[float],
    baselines: Sequence[float],
    loo_mean: Sequence[float],
    advantages: Sequence[float],
    max_self_weight: float,
) -> dict[str, Any]:
    """One ``advantages.jsonl`` line: the docs/method.md section 9 fields, and ``diagnostics`` (section 2.1).

    Groups are the consecutive runs of ``group_sizes``; the diagnostics count them, the groups of one,
    the zero-variance groups (>= 2 rollouts, all rewards equal) and the fraction of advantages exactly 0
    (the same keys ``rl-adv serve`` answers with; nothing is masked here).
    """
    n = len(rewards)
    for name, values in (("baselines", baselines), ("loo_mean", loo_mean), ("advantages", advantages)):
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} values for {n} rollouts")
    if sum(group_sizes) != n:
        raise ValueError(f"group sizes {list(group_sizes)} do not add up to {n} rollouts")
    nonzero = sum(1 for a in advantages if abs(a) > NONZERO_ADVANTAGE_EPS)
    gap = sum(abs(b - m) for b, m in zip(baselines, loo_mean))
    starts = [sum(group_sizes[:g]) for g in range(len(group_sizes))]
    groups = [list(rewards[s:s + size]) for s, size in zip(starts, group_sizes)]
    diagnostics = {
        "groups": len(groups),
        "groups_of_one": sum(1 for g in groups if len(g) == 1),
        "zero_variance_groups": sum(1 for g in groups if len(g) >= 2 and all(r == g[0] for r in g)),
        "zero_advantage_fraction": sum(1 for a in advantages if a == 0) / n if n else 0.0,
        "masked": 0,
    }
    return {
        "arm": arm,
        "step": step,
        "estimator": estimator,
        "rollouts": n,
        "group_size": _executed_group_size(group_sizes) if group_sizes else 0,
        "groups": len(group_sizes),
        "rewards": [float(r) for r in rewards],
        "baselines": [float(b) for b in baselines],
        "loo_mean": [float(m) for m in loo_mean],
        "advantages": [float(a) for a in advantages],
        "max_self_weight": float(max_self_weight),
        "nonzero_advantage_fraction": nonzero / n if n else 0.0,
        "mean_abs_baseline_minus_loo_mean": gap / n if n else 0.0,
        "diagnostics": diagnostics,
    }


def prepare_resumed_log(log_file: str, start_batch: int) -> int:
    """Before a resume at ``start_batch``: keep the lines of earlier batches in ``log_file`` and move the
    others (batches the cookbook will run again) to ``advantages.superseded.jsonl`` beside it, appended, so
    nothing is lost. Returns the number of lines moved."""
    if not os.path.exists(log_file):
        return 0
    keep: list[str] = []
    moved: list[str] = []
    with open(log_file, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                step = json.loads(line)["step"]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ValueError(f"{log_file} line {line_no} is not an advantages.jsonl line") from None
            (keep if step < start_batch else moved).append(line if line.endswith("\n") else line + "\n")
    if moved:
        with open(os.path.join(os.path.dirname(log_file), "advantages.superseded.jsonl"), "a", encoding="utf-8") as handle:
            handle.writelines(moved)
        tmp = log_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.writelines(keep)
        os.replace(tmp, log_file)
    return len(moved)

