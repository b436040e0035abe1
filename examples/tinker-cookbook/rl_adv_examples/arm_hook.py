"""The advantage hook of one spec arm: ``rl_advantages.integrations.tinker_cookbook.AdvantageHook`` set up for the
study (the hook itself lives in the ``rl-advantages`` Python package: ``pip install ./python``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from rl_advantages.integrations.tinker_cookbook import AdvantageHook, QuestionResolver

from .catalogue import estimator_entry, served_estimator_problem

__all__ = ["make_hook_for_arm"]


def make_hook_for_arm(arm: str, estimator: str, log_file: str, stock_compute: Callable[..., Any], serve: Any, known_questions: Sequence[str], torch_module: Any = None) -> AdvantageHook:
    """The hook for one spec arm: stock path for ``group_mean``; for every other one-step estimator the drivers can
    send (the catalogue, ``rl-adv estimators --json``, says which: it reads rewards and prompts or group ids only) the
    rewards and the question texts, or the group ids when the estimator requires them, go to ``serve`` (an
    ``RlAdvServe`` over ``rl-adv serve --corpus``), one request a step."""
    if estimator == "group_mean":
        return AdvantageHook(arm, estimator, log_file, stock_compute, torch_module=torch_module)
    command = getattr(serve, "command", None)
    problem = served_estimator_problem(estimator, command)
    if problem is not None:
        raise ValueError(f"advantage {estimator!r}: run_arm.py runs group_mean (stock) or an estimator through rl-adv serve: {problem}")
    if serve is None:
        raise ValueError(f"estimator {estimator} needs an rl-adv serve client")
    entry = estimator_entry(estimator, command)
    grouped = entry is not None and "group_ids" in entry["fields"]["required"]
    return AdvantageHook(arm, estimator, log_file, stock_compute, client=serve, resolver=QuestionResolver(known_questions), torch_module=torch_module, send_group_ids=grouped)
