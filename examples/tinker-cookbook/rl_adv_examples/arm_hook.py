"""The advantage hook of one spec arm: ``rl_advantages.integrations.tinker_cookbook.AdvantageHook`` set up for the
study. The hook lives in the ``rl-advantages`` Python package; a driver without it stops with how to install it."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Sequence

from .catalogue import estimator_entry, served_estimator_problem
from .common import DriverError

__all__ = ["hook_module", "make_hook_for_arm", "prepare_resumed_log"]

_PACKAGE_HINT = "install the rl-advantages Python package: from the repository root, npm ci && npm run build, then pip install ./python"


def hook_module() -> Any:
    """``rl_advantages.integrations.tinker_cookbook``, or a DriverError (exit 2) saying how to install it."""
    try:
        return importlib.import_module("rl_advantages.integrations.tinker_cookbook")
    except ImportError as error:
        raise DriverError(f"cannot import rl_advantages ({error}); {_PACKAGE_HINT}") from None


def prepare_resumed_log(log_file: str, start_batch: int) -> int:
    """The package's ``prepare_resumed_log``: lines of batches >= ``start_batch`` move to advantages.superseded.jsonl."""
    return int(hook_module().prepare_resumed_log(log_file, start_batch))


def make_hook_for_arm(arm: str, estimator: str, log_file: str, stock_compute: Callable[..., Any], serve: Any, known_questions: Sequence[str], torch_module: Any = None) -> Any:
    """The hook for one spec arm: stock path for ``group_mean``; for every other one-step estimator the drivers can
    send (the catalogue, ``rl-adv estimators --json``, says which: it reads rewards and prompts or group ids only) the
    rewards and the question texts, or the group ids when the estimator requires them, go to ``serve`` (an
    ``RlAdvServe`` over ``rl-adv serve --corpus``), one request a step."""
    package = hook_module()
    if estimator == "group_mean":
        return package.AdvantageHook(arm, estimator, log_file, stock_compute, torch_module=torch_module)
    command = getattr(serve, "command", None)
    problem = served_estimator_problem(estimator, command)
    if problem is not None:
        raise ValueError(f"advantage {estimator!r}: run_arm.py runs group_mean (stock) or an estimator through rl-adv serve: {problem}")
    if serve is None:
        raise ValueError(f"estimator {estimator} needs an rl-adv serve client")
    entry = estimator_entry(estimator, command)
    grouped = entry is not None and "group_ids" in entry["fields"]["required"]
    resolver = package.QuestionResolver(known_questions)
    return package.AdvantageHook(arm, estimator, log_file, stock_compute, client=serve, resolver=resolver, torch_module=torch_module, send_group_ids=grouped)
