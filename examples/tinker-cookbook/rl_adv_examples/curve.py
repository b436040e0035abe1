"""The learning curve of one ``run_arm.py`` run, from the recipe's own evaluators.

The math_rl recipe evaluates with ``RLTestSetEvaluator`` over the GSM8K test split (built in ``rl/train.py``
``main``, line 1980 at tinker-cookbook 9dfcc3a2cf44432d621a01005073dc6d76a1e87a; its flat list of builders is
``env_group_builders_P``, ``rl/metric_util.py`` line 189), run by the training loop through
``run_evaluations_parallel(evaluators, sampling_client, config, i_batch, store=...)`` whenever
``eval_every > 0 and i_batch % eval_every == 0`` (``do_sync_training``, line 1746), before batch ``i_batch`` trains,
so on the policy after ``i_batch`` steps. :class:`CurveRecorder` keeps that machinery and only

- restricts the test-set evaluator to the first ``items`` test items (the order of the test split, unshuffled);
- records each evaluation's ``BenchmarkResult`` (``last_result``: ``num_correct`` of ``num_examples``, errors
  scored 0; ``rl/metric_util.py`` lines 358-369) as one row ``{"step", "accuracy", "correct", "n"}`` of
  ``LOG_PATH/curve.jsonl`` (the TRL driver's shape, ``python/rl_advantages/study/arms.py``), rewritten whole after
  each row;
- runs the same evaluators once more on the policy after the last step (the loop never evaluates it).

The evaluators sample from a sampling client and never touch the training client, so a run with a curve trains as
one without. On ``--resume`` the rows of the steps the resumed run evaluates again move to
``curve.superseded.jsonl``; the others are kept.

Standard library only.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Callable

from .common import DriverError, write_jsonl

__all__ = ["CurveRecorder", "read_curve_rows"]


def read_curve_rows(path: str) -> list[dict[str, Any]]:
    """The rows of a ``curve.jsonl`` (none when it does not exist)."""
    if not os.path.exists(path):
        return []
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                raise DriverError(f"{path} line {line_no} is not valid JSON; move the file away to start the curve again") from None
            if not isinstance(row, dict) or not isinstance(row.get("step"), int):
                raise DriverError(f"{path} line {line_no} is not a curve row (no integer step)")
            rows.append(row)
    return rows


def _is_test_set_evaluator(evaluator: Any) -> bool:
    return type(evaluator).__name__ == "RLTestSetEvaluator" and hasattr(evaluator, "env_group_builders_P")


class CurveRecorder:
    """Records the recipe's test-set evaluations on the first ``items`` test items into ``path`` while installed
    on ``rl_train`` (``tinker_cookbook.rl.train``); the recipe's ``eval_every`` must be the curve's cadence."""

    def __init__(self, rl_train: Any, path: str, items: int, every: int):
        self.rl_train = rl_train
        self.path = path
        self.items = int(items)
        self.every = int(every)
        self.rows: list[dict[str, Any]] = []
        self.superseded = 0
        self._evaluators: list[Any] = []
        self._last_client: Any = None
        self._saved: dict[str, Any] = {}

    # -- the rows ----------------------------------------------------------------------------------------------

    def _start(self, start_batch: int, end_batch: int) -> None:
        """Load the rows of an earlier run; those of steps this run evaluates again (>= start_batch, when it trains
        at all) move to curve.superseded.jsonl."""
        rows = read_curve_rows(self.path)
        if start_batch >= end_batch:
            self.rows = rows
            return
        keep = [r for r in rows if r["step"] < start_batch]
        moved = [r for r in rows if r["step"] >= start_batch]
        if moved:
            aside = os.path.join(os.path.dirname(self.path), "curve.superseded.jsonl")
            with open(aside, "a", encoding="utf-8") as handle:
                for row in moved:
                    handle.write(json.dumps(row) + "\n")
            write_jsonl(self.path, keep)
        self.rows = keep
        self.superseded = len(moved)

    def _record(self, step: int) -> None:
        for evaluator in self._evaluators:
            result = getattr(evaluator, "last_result", None)
            if result is None:
                raise DriverError("the recipe's test-set evaluator returned no result (last_result is None)", 1)
            n = int(result.num_examples)
            correct = int(result.num_correct)
            if n < 1:
                raise DriverError(f"the recipe's test-set evaluator scored no items at step {step}", 1)
            self.rows = [r for r in self.rows if r["step"] != step]
            self.rows.append({"step": int(step), "accuracy": correct / n, "correct": correct, "n": n})
            self.rows.sort(key=lambda r: r["step"])
            write_jsonl(self.path, self.rows)

    # -- the wrappers ------------------------------------------------------------------------------------------

    def _wrap_training(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        async def do_sync_training(*args: Any, **kwargs: Any) -> Any:
            # main() calls it with keywords only (rl/train.py line 2024 at 9dfcc3a2).
            evaluators = [e for e in kwargs.get("evaluators", []) if _is_test_set_evaluator(e)]
            if not evaluators:
                raise DriverError("the recipe built no RLTestSetEvaluator (a dataset builder without a test split?): no learning curve can be recorded")
            for evaluator in evaluators:
                builders = list(evaluator.env_group_builders_P)
                if len(builders) < self.items:
                    raise DriverError(f"--curve-items {self.items}: the recipe's test split has only {len(builders)} items")
                evaluator.env_group_builders_P = builders[: self.items]
            self._evaluators = evaluators
            start_batch, end_batch = int(kwargs["start_batch"]), int(kwargs["end_batch"])
            self._start(start_batch, end_batch)
            out = await original(*args, **kwargs)
            if self._last_client is not None and start_batch < end_batch:
                # The policy after the last step: the loop stops before evaluating it.
                logger = kwargs.get("ml_logger")
                await self.rl_train.run_evaluations_parallel(
                    kwargs["evaluators"], self._last_client, kwargs["config"], end_batch, store=getattr(logger, "store", None)
                )
            return out

        return do_sync_training

    def _wrap_evaluations(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        async def run_evaluations_parallel(*args: Any, **kwargs: Any) -> Any:
            metrics = await original(*args, **kwargs)
            step = args[3] if len(args) >= 4 else kwargs["i_batch"]
            self._record(int(step))
            return metrics

        return run_evaluations_parallel

    def _wrap_train_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        async def do_train_step_and_get_sampling_client(*args: Any, **kwargs: Any) -> Any:
            out = await original(*args, **kwargs)
            self._last_client = out[0]  # (sampling_client, metrics): the policy after this step
            return out

        return do_train_step_and_get_sampling_client

    def install(self) -> "CurveRecorder":
        wrappers = {
            "do_sync_training": self._wrap_training,
            "run_evaluations_parallel": self._wrap_evaluations,
            "do_train_step_and_get_sampling_client": self._wrap_train_step,
        }
        for name, wrap in wrappers.items():
            original = getattr(self.rl_train, name, None)
            if original is None:
                self.uninstall()
                raise DriverError(f"tinker_cookbook.rl.train has no {name}: this cookbook revision cannot record a learning curve")
            self._saved[name] = original
            setattr(self.rl_train, name, wrap(original))
        return self

    def uninstall(self) -> None:
        for name, original in self._saved.items():
            setattr(self.rl_train, name, original)
        self._saved.clear()
