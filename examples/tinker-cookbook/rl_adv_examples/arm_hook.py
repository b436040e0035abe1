"""The advantage hook of one spec arm: ``rl_advantages.integrations.tinker_cookbook.AdvantageHook`` set up for the
study (the hook itself lives in the ``rl-advantages`` Python package: ``pip install ./python``)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from rl_advantages.integrations.tinker_cookbook import AdvantageHook, QuestionResolver

from .common import is_kernel_estimator

__all__ = ["make_hook_for_arm"]


def make_hook_for_arm(arm: str, estimator: str, log_file: str, stock_compute: Callable[..., Any], serve: Any, known_questions: Sequence[str], torch_module: Any = None) -> AdvantageHook:
    """The hook for one spec arm: stock path for ``group_mean``; for a kernel estimator (``tfidf_kernel_loo_T0.1``,
    ``kernel:PATH``) the question texts and rewards go to ``serve`` (an ``RlAdvServe`` over ``rl-adv serve
    --corpus``), one request a step."""
    if estimator != "group_mean" and not is_kernel_estimator(estimator):
        raise ValueError(f"advantage {estimator!r}: run_arm.py runs group_mean (stock) or a kernel estimator")
    if estimator == "group_mean":
        return AdvantageHook(arm, estimator, log_file, stock_compute, torch_module=torch_module)
    if serve is None:
        raise ValueError(f"estimator {estimator} needs an rl-adv serve client")
    return AdvantageHook(arm, estimator, log_file, stock_compute, client=serve, resolver=QuestionResolver(known_questions), torch_module=torch_module, send_group_ids=False)
