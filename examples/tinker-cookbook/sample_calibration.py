#!/usr/bin/env python3
"""Sample the starting policy's rollouts for the B_eff calibration (docs/method.md section 4, and section 8 step 3).

Tasks: the last 64 GSM8K train questions of the seed-0 shuffled train order, the order the cookbook's
``Gsm8kDataset`` trains in (``datasets.Dataset.shuffle(seed=0)``, i.e. ``numpy.random.default_rng(0)
.permutation(7473)``), so no arm reaches them in 60 steps of 32 tasks or fewer. Each task gets 8 rollouts
at temperature 1 and max_tokens 512 in the cookbook's own math environment (``MathEnv`` with the standard
few-shot prefix, its reward ``correct + 0.1 * (format_ok - 1)``), all within a 10-minute cap.

Tuning mode (``--first F``, ``rl-adv study --tune-kernel``): the tasks are the ``--tasks`` first of the order from
position ``F`` on (after the tasks the arms train on), skipping the rows of ``--exclude-rows`` and the last 64
(the calibration set), one rollout each by default: the study's tuning rows for ``rl-adv tune-kernel``.

Writes ``calibration.jsonl``: one ``{"task_id": "gsm8k_train_<row>", "prompt": <question>, "reward": r}``
line per rollout (``<row>`` is the row of train.jsonl), for ``rl-adv calibrate``.

Example::

    python sample_calibration.py --spec ../../specs/gs1-vs-grpo.json --out /tmp/rx-gs1/calibration.jsonl
    python sample_calibration.py --spec ../../specs/gs1-vs-grpo.json --out /tmp/rx-gs1/tuning.jsonl --first 1920 --tasks 1000 --rollouts 1

Exit codes: 0 done; 1 sampling failed or the cap left tasks unsampled (the finished ones are written);
2 bad input or a missing prerequisite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from functools import partial
from typing import Any, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rl_adv_examples.common import DriverError, load_spec, main_wrapper, require_modules, require_tinker_api_key, write_jsonl  # noqa: E402
from rl_adv_examples.grading import GradingError, Gsm8kItem, load_gsm8k, resolve_gsm8k_dir  # noqa: E402

PROG = "sample_calibration.py"


def shuffled_order(n: int, seed: int) -> list[int]:
    """The row order of ``datasets.Dataset.shuffle(seed=seed)`` on ``n`` rows.

    ``Dataset.shuffle`` draws ``np.random.default_rng(seed).permutation(len(self))`` and selects rows in
    that order (Hugging Face datasets, ``arrow_dataset.py``), which is what the cookbook's
    ``Gsm8kDataset(split="train")`` does with ``seed=0``.
    """
    try:
        import numpy as np
    except ImportError:
        raise DriverError("numpy is needed to reproduce the cookbook's shuffle (pip install numpy)") from None
    return [int(i) for i in np.random.default_rng(seed).permutation(n)]


def calibration_tasks(items: Sequence[Gsm8kItem], order: Sequence[int], n_tasks: int) -> list[Gsm8kItem]:
    """The last ``n_tasks`` items of ``order`` (a permutation of the rows), in shuffled order."""
    if sorted(order) != list(range(len(items))):
        raise DriverError(f"the shuffle order is not a permutation of the {len(items)} train rows")
    if not 1 <= n_tasks <= len(items):
        raise DriverError(f"--tasks must be between 1 and {len(items)}, got {n_tasks}")
    return [items[i] for i in order[len(order) - n_tasks :]]


def range_tasks(
    items: Sequence[Gsm8kItem], order: Sequence[int], first: int, n_tasks: int, exclude: Sequence[int] = (), calibration: int = 64
) -> list[Gsm8kItem]:
    """The first ``n_tasks`` items of ``order[first:]`` that are neither in ``exclude`` (train rows) nor among the
    last ``calibration`` of the order (the calibration set), in shuffled order."""
    if sorted(order) != list(range(len(items))):
        raise DriverError(f"the shuffle order is not a permutation of the {len(items)} train rows")
    end = len(order) - calibration
    if not 0 <= first < end:
        raise DriverError(f"--first must be between 0 and {end - 1} (before the last {calibration} tasks, the calibration set), got {first}")
    skip = set(exclude)
    rows = [row for row in order[first:end] if row not in skip][:n_tasks]
    if n_tasks < 1 or len(rows) < n_tasks:
        raise DriverError(f"--tasks must be between 1 and {len(rows)} from --first {first}, got {n_tasks}")
    return [items[i] for i in rows]


def parse_rows(text: str | None) -> list[int]:
    """``--exclude-rows``: comma-separated train rows (empty for none)."""
    if not text:
        return []
    try:
        return [int(x) for x in text.split(",") if x.strip() != ""]
    except ValueError:
        raise DriverError(f"--exclude-rows must be comma-separated train rows, got {text[:80]!r}") from None


def calibration_rows(tasks: Sequence[Gsm8kItem], rewards_by_task: Sequence[Sequence[float] | None]) -> list[dict[str, Any]]:
    """One row per rollout of every finished task (``None`` marks a task the cap cut off)."""
    rows = []
    for task, rewards in zip(tasks, rewards_by_task):
        if rewards is None:
            continue
        for r in rewards:
            rows.append({"task_id": task.id, "prompt": task.question, "reward": float(r)})
    return rows


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", required=True, help="the study spec JSON (model; renderer)")
    p.add_argument("--out", required=True, help="the calibration.jsonl to write")
    p.add_argument("--data-dir", default=None, help="GSM8K folder with train.jsonl (default: $GSM8K_DIR, else the rl-adv cache filled by rl-adv data gsm8k)")
    p.add_argument("--checkpoint", default=None, help="tinker:// sampler path of the starting policy (default: the base model)")
    p.add_argument("--tasks", type=int, default=64)
    p.add_argument("--rollouts", type=int, default=None, help="rollouts per task (default 8; 1 with --first)")
    p.add_argument("--first", type=int, default=None, help="tuning mode: take the tasks from this position of the order on (default: the last --tasks)")
    p.add_argument("--exclude-rows", default=None, help="tuning mode: comma-separated train rows to skip")
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument("--seed", type=int, default=0, help="the shuffle seed of the training order (the arms' seed)")
    p.add_argument("--time-cap", type=float, default=600.0, help="seconds for all sampling (default 600)")
    p.add_argument("--renderer", default=None, help="renderer name (default: the spec's, qwen3_5_disable_thinking)")
    p.add_argument("--base-url", default=os.environ.get("TINKER_BASE_URL"))
    return p


async def sample_rewards(args: argparse.Namespace, spec: Any, tasks: Sequence[Gsm8kItem]) -> list[list[float] | None]:
    """Run ``rollouts`` cookbook rollouts per task; None for the tasks unfinished at the cap."""
    tinker, renderers, math_env, problem_env, rollouts, completers, tokenizer_utils = require_modules(
        "tinker",
        "tinker_cookbook.renderers",
        "tinker_cookbook.recipes.math_rl.math_env",
        "tinker_cookbook.rl.problem_env",
        "tinker_cookbook.rl.rollouts",
        "tinker_cookbook.completers",
        "tinker_cookbook.tokenizer_utils",
    )
    renderer = renderers.get_renderer(args.renderer or spec.renderer, tokenizer=tokenizer_utils.get_tokenizer(spec.base_model))
    service = tinker.ServiceClient(base_url=args.base_url)
    # The async constructor: the sync one logs a @sync_only warning with a stack trace inside an event loop.
    if args.checkpoint:
        sampling_client = await service.create_sampling_client_async(model_path=args.checkpoint)
    else:
        sampling_client = await service.create_sampling_client_async(base_model=spec.base_model)
    policy = completers.TinkerTokenCompleter(sampling_client, max_tokens=args.max_tokens, temperature=args.temperature)
    prefix = math_env.MathEnv.standard_fewshot_prefix()

    async def one(task: Gsm8kItem) -> list[float]:
        # Built as the cookbook's Gsm8kDataset builds a training group.
        builder = problem_env.ProblemGroupBuilder(
            env_thunk=partial(
                math_env.MathEnv, task.question, math_env.extract_gsm8k_final_answer(task.answer), renderer, convo_prefix=prefix
            ),
            num_envs=args.rollouts,
        )
        group = await rollouts.do_group_rollout(builder, policy)
        return [float(r) for r in group.get_total_rewards()]

    jobs = [asyncio.ensure_future(one(task)) for task in tasks]
    done, pending = await asyncio.wait(jobs, timeout=args.time_cap)
    for job in pending:
        job.cancel()
    out: list[list[float] | None] = []
    for job in jobs:
        if job in done:
            error = job.exception()
            if error is not None:
                raise error
            out.append(job.result())
        else:
            out.append(None)
    return out


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    spec = load_spec(args.spec)
    tuning = args.first is not None
    if args.rollouts is None:
        args.rollouts = 1 if tuning else 8
    if args.rollouts < (1 if tuning else 2):
        need = "at least 1" if tuning else "at least 2 (calibration needs G >= 2; --first samples tuning rows with 1)"
        raise DriverError(f"--rollouts must be {need}, got {args.rollouts}")
    if args.exclude_rows is not None and not tuning:
        raise DriverError("--exclude-rows applies with --first only")
    try:
        items = load_gsm8k(resolve_gsm8k_dir(args.data_dir), "train")
    except GradingError as error:
        raise DriverError(str(error)) from None
    order = shuffled_order(len(items), args.seed)
    if tuning:
        tasks = range_tasks(items, order, args.first, args.tasks, parse_rows(args.exclude_rows))
    else:
        tasks = calibration_tasks(items, order, args.tasks)
    require_tinker_api_key()
    started = time.monotonic()
    rewards = asyncio.run(sample_rewards(args, spec, tasks))
    rows = calibration_rows(tasks, rewards)
    write_jsonl(args.out, rows)
    finished = sum(1 for r in rewards if r is not None)
    print(f"{PROG}: {finished}/{len(tasks)} tasks x {args.rollouts} rollouts in {time.monotonic() - started:.0f} s -> {args.out}", file=sys.stderr)
    if finished < len(tasks):
        raise DriverError(f"the {args.time_cap:g} s cap left {len(tasks) - finished} tasks unsampled; {args.out} holds the {finished} finished", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main_wrapper(PROG, run))
