#!/usr/bin/env python3
"""Train one arm of the GS1-vs-GRPO study with the stock tinker-cookbook math_rl recipe.

The recipe is ``tinker_cookbook.recipes.math_rl.train`` (``cli_main(CLIConfig(...))``), run with the spec's
settings: env gsm8k, the spec's model, LoRA rank, lr, group_size, groups_per_batch, seed, max_tokens 512,
KL 0. For a ``group_mean`` arm nothing in the recipe changes; the stock ``compute_advantages`` is wrapped
only to log its result. For a kernel arm, ``tinker_cookbook.rl.train.compute_advantages`` (the name the
training loop calls) is replaced by one request per step to ``rl-adv serve`` with the batch's GSM8K
questions and total rewards. Every step appends one line to ``LOG_PATH/advantages.jsonl``.

Example::

    python run_arm.py --arm gs1_tfidf_g1 --spec ../../specs/gs1-vs-grpo.json \\
        --log-path /tmp/rx-gs1/gs1_s0 --steps 3

The run's seed (``--seed``, else the arm's in the spec) is the recipe's own ``seed`` (the data order:
``Gsm8kDataset`` shuffles the train split with it) and the LoRA client's (the recipe passes none; see
``rl_adv_examples/provenance.py``); the rollouts' sampling is not seeded (the recipe's ``TinkerTokenCompleter`` sends
no ``SamplingParams.seed``). ``LOG_PATH/provenance.json`` records the seeds and the installed tinker-cookbook revision.
The cookbook's in-training test eval is off (``eval_every=0``) unless ``--curve-items K --curve-every N`` asks for the
learning curve: the recipe's evaluator on the first K test items every N steps and after the last, in
``LOG_PATH/curve.jsonl`` (``rl_adv_examples/curve.py``).
``--resume`` continues an interrupted run from the cookbook's last checkpoint in ``LOG_PATH`` (with the same seed).

At the end it prints one JSON line: ``{"arm", "steps_logged", "advantages_log", "final_sampler_path",
"seed", "lora_seed", "resumed_from_batch"}`` (and ``"curve"`` with a learning curve).
Exit codes: 0 done; 1 training failed; 2 bad input or a missing prerequisite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rl_adv_examples.arm_hook import hook_module, make_hook_for_arm, prepare_resumed_log  # noqa: E402
from rl_adv_examples.catalogue import served_estimator_problem, served_fields  # noqa: E402
from rl_adv_examples.common import (  # noqa: E402
    DriverError,
    final_sampler_path,
    load_spec,
    main_wrapper,
    require_modules,
    require_tinker_api_key,
)
from rl_adv_examples.curve import CurveRecorder  # noqa: E402
from rl_adv_examples.grading import GradingError, load_gsm8k, resolve_gsm8k_dir  # noqa: E402
from rl_adv_examples.provenance import LoraSeed, append_provenance, check_cookbook_revision  # noqa: E402
from rl_adv_examples.serve_client import RlAdvServe, RlAdvServeError  # noqa: E402

PROG = "run_arm.py"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--arm", required=True, help="the spec arm to run (e.g. grpo_g8, gs1_tfidf_g1)")
    p.add_argument("--spec", required=True, help="the study spec JSON (gs1-vs-grpo.spec.json)")
    p.add_argument("--log-path", required=True, help="the run folder: cookbook logs, checkpoints.jsonl, advantages.jsonl")
    p.add_argument("--steps", type=int, default=None, help="training steps (default: the arm's steps; 3 for the pilot)")
    p.add_argument("--data-dir", default=None, help="GSM8K folder with train.jsonl (default: $GSM8K_DIR, else the rl-adv cache filled by rl-adv data gsm8k)")
    p.add_argument("--corpus", default=None, help="TF-IDF fitting corpus for rl-adv serve (default: DATA_DIR/train.jsonl)")
    p.add_argument("--rl-adv", default=None, help="the rl-adv command (default: $RL_ADV, rl-adv on PATH, or this checkout's dist/cli.js)")
    p.add_argument("--renderer", default=None, help="renderer name (default: the spec's, qwen3_5_disable_thinking)")
    p.add_argument("--max-tokens", type=int, default=None, help="max tokens per rollout (default 512)")
    p.add_argument("--base-url", default=os.environ.get("TINKER_BASE_URL"), help="Tinker service URL (default: $TINKER_BASE_URL)")
    p.add_argument("--seed", type=int, default=None, help="the run's seed: the recipe's data-order seed and the LoRA initialisation's (default: the arm's seed in the spec)")
    p.add_argument("--curve-items", type=int, default=None, help="the learning curve: the recipe's test-set evaluator on the first K GSM8K test items (with --curve-every)")
    p.add_argument("--curve-every", type=int, default=None, help="steps between the learning curve's evals (also at step 0 and after the last step)")
    p.add_argument("--eval-every", type=int, default=0, help="the cookbook's in-training test eval cadence (default 0: off, the study evaluates in its own phase; the recipe's own default is 20)")
    p.add_argument("--save-every", type=int, default=None, help="checkpoint cadence, also what --resume can restart from (default: the recipe's, 20)")
    p.add_argument("--overwrite", action="store_true", help="delete LOG_PATH, its logs and its checkpoint list, if it exists (default: refuse)")
    p.add_argument("--resume", action="store_true", help="continue from the cookbook's last checkpoint in LOG_PATH (start fresh if LOG_PATH does not exist)")
    p.add_argument("--cookbook-rev", default=None, help="the tinker-cookbook commit expected to be installed (default: $RL_ADV_COOKBOOK_REV, else the requirements.txt pin)")
    return p


def recipe_config(recipe: object, spec: object, arm: object, args: argparse.Namespace) -> object:
    """The ``CLIConfig`` of the spec's command line for this arm (only fields the command sets, plus paths)."""
    fields = dict(
        model_name=spec.base_model,  # type: ignore[attr-defined]
        lora_rank=spec.lora_rank,  # type: ignore[attr-defined]
        renderer_name=args.renderer or spec.renderer,  # type: ignore[attr-defined]
        env="gsm8k",
        seed=run_seed(arm, args),
        group_size=arm.group_size,  # type: ignore[attr-defined]
        groups_per_batch=arm.groups_per_batch,  # type: ignore[attr-defined]
        learning_rate=arm.lr,  # type: ignore[attr-defined]
        max_tokens=args.max_tokens or spec.max_tokens,  # type: ignore[attr-defined]
        kl_penalty_coef=0.0,
        log_path=os.path.abspath(args.log_path),
        base_url=args.base_url,
        max_steps=args.steps if args.steps is not None else arm.steps,  # type: ignore[attr-defined]
        behavior_if_log_dir_exists="delete" if args.overwrite else ("resume" if args.resume else "raise"),
        eval_every=config_eval_every(args),
    )
    if args.save_every is not None:
        fields["save_every"] = args.save_every
    return recipe.CLIConfig(**fields)  # type: ignore[attr-defined]


def run_seed(arm: object, args: argparse.Namespace) -> int:
    """The run's seed: ``--seed``, else the arm's."""
    return int(args.seed if args.seed is not None else arm.seed)  # type: ignore[attr-defined]


def check_arguments(args: argparse.Namespace) -> None:
    """Refuse contradictory or out-of-range flags (exit 2)."""
    if args.steps is not None and args.steps < 1:
        raise DriverError(f"--steps must be a positive integer, got {args.steps}")
    if args.eval_every < 0:
        raise DriverError(f"--eval-every must be 0 (off) or a positive integer, got {args.eval_every}")
    if args.seed is not None and args.seed < 0:
        raise DriverError(f"--seed must be an integer >= 0 (the data shuffle's numpy seed), got {args.seed}")
    if (args.curve_items is None) != (args.curve_every is None):
        raise DriverError("--curve-items and --curve-every go together (the learning curve's test items and steps between its evals)")
    if args.curve_items is not None:
        if args.curve_items < 1 or args.curve_every < 1:
            raise DriverError(f"--curve-items and --curve-every must be integers >= 1, got {args.curve_items} and {args.curve_every}")
        if args.eval_every != 0:
            raise DriverError("--eval-every and --curve-every both set the recipe's eval cadence: choose one")
    if args.resume and args.overwrite:
        raise DriverError("--resume and --overwrite contradict each other: choose one")


def check_resume_matches(log_path: str, seed: int, curve: dict | None) -> None:
    """A resumed run continues the same seed and the same curve as the run it resumes (its provenance.json)."""
    path = os.path.join(log_path, "provenance.json")
    if not os.path.exists(path):
        return
    try:
        with open(path, encoding="utf-8") as handle:
            runs = json.load(handle).get("runs", [])
    except (OSError, json.JSONDecodeError, AttributeError):
        raise DriverError(f"{path} exists but is not a provenance file written by run_arm.py; move it away") from None
    if not runs:
        return
    last = runs[-1]
    if "data_seed" in last and last["data_seed"] != seed:
        raise DriverError(f"--resume: {log_path} was trained with seed {last['data_seed']}, not {seed}; resume it with --seed {last['data_seed']} or choose another --log-path")
    if "curve" in last and last["curve"] != curve:
        raise DriverError(f"--resume: {log_path} was trained with curve {json.dumps(last['curve'])}, not {json.dumps(curve)}; resume it with the same --curve-items/--curve-every")


def guard_main(original_main: object) -> object:
    """The recipe's ``main(config)``, refusing settings that would break the comparison."""

    async def main(config: object, *args: object, **kwargs: object) -> object:
        problems = []
        if getattr(config, "remove_constant_reward_groups", False):
            problems.append("remove_constant_reward_groups is on (it drops every group of one)")
        if getattr(config, "kl_penalty_coef", 0.0) != 0.0:
            problems.append("kl_penalty_coef is not 0")
        if getattr(config, "async_config", None) is not None or getattr(config, "stream_minibatch_config", None) is not None:
            problems.append("async or streaming training is on (the advantage hook expects one full batch per step)")
        if problems:
            raise DriverError("refusing to train: " + "; ".join(problems))
        return await original_main(config, *args, **kwargs)  # type: ignore[operator]

    return main


def start_batch_of(checkpoint_utils: Any, log_path: str) -> tuple[int, str | None]:
    """The batch the cookbook's ``main`` will resume at, from its own ``get_last_checkpoint`` (0 if none)."""
    if not os.path.isdir(log_path):
        return 0, None
    record = checkpoint_utils.get_last_checkpoint(log_path)
    if record is None:
        return 0, None
    return int(record.batch or 0), getattr(record, "state_path", None)


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    spec = load_spec(args.spec)
    arm = spec.arm(args.arm)
    try:
        problem = None if arm.advantage == "group_mean" else served_estimator_problem(arm.advantage, args.rl_adv)
    except RlAdvServeError as error:
        raise DriverError(f"rl-adv (the catalogue rl-adv serve computes from): {error}", 1) from None
    if problem is not None:
        raise DriverError(f"arm {arm.name}: advantage {arm.advantage!r} cannot run: {problem}")
    check_arguments(args)
    seed = run_seed(arm, args)
    curve_settings = None if args.curve_items is None else {"items": args.curve_items, "every": args.curve_every}
    log_path = os.path.abspath(args.log_path)
    log_file = os.path.join(log_path, "advantages.jsonl")
    if os.path.exists(log_path) and not (args.overwrite or args.resume):
        raise DriverError(f"--log-path {log_path} exists; pass --resume to continue it, --overwrite to delete it, or choose another folder")
    if args.resume:
        check_resume_matches(log_path, seed, curve_settings)

    try:
        data_dir = resolve_gsm8k_dir(args.data_dir)
        train_items = load_gsm8k(data_dir, "train")
    except GradingError as error:
        raise DriverError(str(error)) from None

    require_tinker_api_key()
    tinker, torch, recipe, rl_train, data_processing, checkpoint_utils = require_modules(
        "tinker", "torch", "tinker_cookbook.recipes.math_rl.train", "tinker_cookbook.rl.train", "tinker_cookbook.rl.data_processing", "tinker_cookbook.checkpoint_utils"
    )
    cookbook = check_cookbook_revision(PROG, args.cookbook_rev)
    hook_module()  # the rl-advantages package (the advantage hook), before any Tinker cost
    start_batch, resumed_state = start_batch_of(checkpoint_utils, log_path) if args.resume else (0, None)
    if args.resume:
        try:
            moved = prepare_resumed_log(log_file, start_batch)
        except ValueError as error:
            raise DriverError(str(error)) from None
        if moved:
            print(f"{PROG}: resuming at batch {start_batch}; {moved} log line(s) of later batches moved to advantages.superseded.jsonl", file=sys.stderr)

    serve = None
    seeder = LoraSeed(tinker.ServiceClient, seed)
    curve_file = os.path.join(log_path, "curve.jsonl")
    recorder = None if curve_settings is None else CurveRecorder(rl_train, curve_file, args.curve_items, args.curve_every)
    status = "failed"
    try:
        if arm.advantage != "group_mean":
            serve = RlAdvServe(corpus=args.corpus or os.path.join(data_dir, "train.jsonl"), command=args.rl_adv)
            # Fail before any Tinker cost if the server, its corpus or the estimator name is wrong.
            fields = served_fields(arm.advantage, serve.command)
            serve.compute(
                arm.advantage,
                [1.0, 0.0],
                prompts=[train_items[0].question, train_items[1].question] if "prompts" in fields else None,
                group_ids=[0, 0] if "group_ids" in fields else None,
            )
        hook = make_hook_for_arm(
            arm.name,
            arm.advantage,
            log_file,
            stock_compute=data_processing.compute_advantages,
            serve=serve,
            known_questions=[item.question for item in train_items],
            torch_module=torch,
        )
        config = recipe_config(recipe, spec, arm, args)
        hook.install(rl_train, data_processing)
        if recorder is not None:
            recorder.install()  # after the hook: its wrappers wrap the hook's
        original_main = recipe.main
        recipe.main = guard_main(original_main)
        seeder.install()
        try:
            asyncio.run(recipe.cli_main(config))
            status = "finished"
        finally:
            seeder.uninstall()
            recipe.main = original_main
            if recorder is not None:
                recorder.uninstall()
            hook.uninstall()
    except RlAdvServeError as error:
        raise DriverError(f"rl-adv serve: {error}", 1) from None
    finally:
        if serve is not None:
            serve.close()
        if os.path.isdir(log_path):
            append_provenance(
                log_path,
                {
                    "arm": arm.name,
                    "estimator": arm.advantage,
                    "status": status,
                    "seed": seed,
                    "seed_source": "--seed" if args.seed is not None else "the spec's arms[].seed",
                    "lora_seed": seed,
                    "data_seed": seed,
                    "sampling_seed": None,  # the recipe's TinkerTokenCompleter sends no SamplingParams.seed
                    "lora_clients": seeder.calls,
                    "resumed_from_batch": start_batch if resumed_state else None,
                    "resumed_from_state": resumed_state,
                    "cookbook": cookbook,
                    "tinker_version": getattr(tinker, "__version__", None),
                    "eval_every": config_eval_every(args),
                    "curve": curve_settings,
                    "curve_rows_superseded": recorder.superseded if recorder is not None else 0,
                },
            )

    print(
        json.dumps(
            {
                "arm": arm.name,
                "steps_logged": count_lines(log_file),
                "advantages_log": log_file,
                "final_sampler_path": final_sampler_path(log_path),
                "seed": seed,
                "lora_seed": seed,
                "resumed_from_batch": start_batch if resumed_state else None,
                **({"curve": curve_file} if recorder is not None else {}),
            }
        )
    )
    return 0


def config_eval_every(args: argparse.Namespace) -> int:
    """The recipe's eval_every of this run: the curve's cadence, else --eval-every."""
    return int(args.curve_every if args.curve_every is not None else args.eval_every)


def count_lines(path: str) -> int:
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line.strip())


if __name__ == "__main__":
    sys.exit(main_wrapper(PROG, run))
