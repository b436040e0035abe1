"""The TRL study drivers: ``python -m rl_advantages.study COMMAND ...``, run by ``rl-adv study --backend trl``.

Commands (each writes its output file whole, then exits 0; exit 2 for a missing prerequisite or bad input, 1 for
a failed check; the last stdout line of ``train`` is its JSON result):

- ``probe``: what the spec needs that this machine lacks (prints one JSON object; exit 2 when anything is missing).
- ``preflight --tasks FILE --out FILE``: the correctness preflight (rl_advantages.study.preflight).
- ``sample --tasks FILE --rollouts N --seed S --out FILE``: the starting policy's rollouts, ``{task_id, prompt, reward}``.
- ``train --arm NAME --steps N --tasks FILE --out-dir DIR [--seed S] [--lr LR] [--curve-items FILE --curve-every K]
  [--checkpoint-dir DIR [--save-every N] [--resume]]``: one arm (rl_advantages.study.arms) with the RL seed S (default:
  the arm's) at the learning rate LR (default: the arm's; the study passes each of an ``lr_grid``'s), its learning
  curve (greedy accuracy on the curve items at step 0, every K steps and the last, in
  ``DIR/curve.jsonl``), and mid-arm checkpoints it can resume from (rl_advantages.study.checkpoints).
- ``eval --checkpoint init|ADAPTER --items FILE --out FILE``: greedy decoding graded by our grader.

Common options: ``--spec``, ``--run-dir``, ``--data-dir`` and ``--model PATH`` (a local starting policy instead of
the spec's). The small world's starting policy is pre-trained on first use into ``RUN/trl/init``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from .requirements import missing_requirements
from .settings import DriverError, Settings, deterministic, load_settings, read_items, with_run_kernels, write_json, write_jsonl

PROG = "python -m rl_advantages.study"


def ensure_init(settings: Settings, args: argparse.Namespace) -> str:
    """The starting policy's source; the small world's is built and pre-trained here once."""
    from .policy import init_dir, policy_source, pretrain

    source = policy_source(settings, args.run_dir, args.model)
    if settings.world and not args.model and not os.path.exists(os.path.join(init_dir(args.run_dir), "pretrain.json")):
        seed = int((settings.pretrain or {}).get("seed", 0))
        deterministic(seed, settings.threads)
        report = pretrain(settings, args.run_dir, read_items(os.path.join(args.data_dir, "sft.jsonl")), seed)
        print(f"{PROG}: pre-trained the starting policy: held-out accuracy {report['heldout_accuracy']:.3f} in {report['seconds']} s", file=sys.stderr)
    return source


def prepare(settings: Settings, args: argparse.Namespace) -> tuple[Settings, str]:
    """The starting policy's source (:func:`ensure_init`) and the settings with the renderer resolved against its
    tokenizer (``policy.with_renderer``)."""
    from .policy import with_renderer

    source = ensure_init(settings, args)
    return with_renderer(settings, source), source


def open_server(args: argparse.Namespace) -> Any:
    """The package's server with the TF-IDF corpus of the study (the train questions)."""
    from .. import Server

    return Server(corpus=os.path.join(args.data_dir, "train.jsonl"))


def make_trainer_factory(settings: Settings, source: str, server: Any, run_dir: str) -> Any:
    """For the preflight: an arm's trainer, stock TRL or the adapter, whose reward function keeps its rewards."""

    def make(arm: Any, stock: bool, data: Any) -> Any:
        import torch
        import trl

        from ..integrations.trl import GRPOTrainer
        from .arms import grpo_config, lora_config, question_text
        from .policy import load_base, load_tokenizer
        from .settings import reward

        tok = load_tokenizer(source)
        model = load_base(settings, source)
        kept: list[float] = []

        def reward_func(prompts: Any, completions: Any, completion_ids: Any, reference: Any, **_: Any) -> list[float]:
            texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
            stopped = [tok.eos_token_id in ids or len(ids) < settings.max_tokens for ids in completion_ids]
            values = [reward(t, r, s) for t, r, s in zip(texts, reference, stopped)]
            kept.extend(values)
            return values

        config = grpo_config(settings, arm, 1, os.path.join(run_dir, "trl", "preflight", arm.name))
        torch.manual_seed(arm.seed)
        common = dict(model=model, reward_funcs=reward_func, args=config, train_dataset=data, processing_class=tok, peft_config=lora_config(settings))
        if stock:
            trainer = trl.GRPOTrainer(**common)
        else:
            trainer = GRPOTrainer(**common, advantage_estimator=arm.server_name, advantage_server=server, advantage_prompt_text=question_text)
        trainer._preflight_rewards = kept
        return trainer

    return make


def cmd_probe(settings: Settings, args: argparse.Namespace) -> int:
    missing = missing_requirements(settings, args.model)
    print(json.dumps({"missing": missing}))
    return 2 if missing else 0


def cmd_preflight(settings: Settings, args: argparse.Namespace) -> int:
    from ..grading import load_gsm8k
    from .policy import init_dir
    from .preflight import report_passed, run_preflight

    settings, source = prepare(settings, args)
    deterministic(settings.grpo_arm().seed, settings.threads)
    corpus = [item.question for item in load_gsm8k(args.data_dir, "train")]
    with open_server(args) as server:
        report = run_preflight(settings, source, read_items(args.tasks), corpus, server, make_trainer_factory(settings, source, server, args.run_dir))
    # The small world's pre-training report: RUN/trl/init's, or that of a --model folder pre-trained by an earlier run.
    pre = os.path.join(source if args.model else init_dir(args.run_dir), "pretrain.json")
    if settings.world and os.path.exists(pre):
        with open(pre, encoding="utf-8") as handle:
            report["pretrain"] = json.load(handle)
    failed = report_passed(report)
    write_json(args.out, report)
    for name, check in sorted(report["checks"].items()):
        detail = f"max_abs_error {check['max_abs_error']:.3g}" if "max_abs_error" in check else ""
        print(f"{PROG} preflight: {name}: {'passed' if check['passed'] else 'FAILED'} {detail}", file=sys.stderr)
    if failed:
        raise DriverError(f"{len(failed)} check(s) failed: {', '.join(failed)}; see {args.out}", 1)
    return 0


def cmd_sample(settings: Settings, args: argparse.Namespace) -> int:
    from .policy import generate, grade, load_policy, load_tokenizer

    settings, source = prepare(settings, args)
    deterministic(args.seed, settings.threads)
    tasks = read_items(args.tasks)
    model, tok = load_policy(settings, source), load_tokenizer(source)
    repeated = [t for t in tasks for _ in range(args.rollouts)]
    graded = grade(repeated, generate(settings, model, tok, [t.question for t in repeated], greedy=False))
    write_jsonl(args.out, [{"task_id": t.task_id, "prompt": t.question, "reward": g["reward"]} for t, g in zip(repeated, graded)])
    return 0


def cmd_train(settings: Settings, args: argparse.Namespace) -> int:
    import dataclasses

    from .arms import Checkpointing, Curve, train_arm
    from .checkpoints import fingerprint

    if args.lr is not None and not (math.isfinite(args.lr) and args.lr > 0):
        raise DriverError(f"--lr must be a finite number > 0, got {args.lr}")
    settings, source = prepare(settings, args)
    arm = settings.arm(args.arm)
    if args.seed is not None:
        if args.seed < 0:
            raise DriverError(f"--seed must be an integer >= 0, got {args.seed}")
        arm = dataclasses.replace(arm, seed=args.seed)
    if args.lr is not None:
        arm = dataclasses.replace(arm, lr=args.lr)
    if (args.curve_items is None) != (args.curve_every is None):
        raise DriverError("--curve-items and --curve-every go together (the learning curve's items and steps between its evals)")
    curve = None
    if args.curve_items is not None:
        if args.curve_every < 1:
            raise DriverError(f"--curve-every must be an integer >= 1, got {args.curve_every}")
        items = read_items(args.curve_items)
        if not items:
            raise DriverError(f"--curve-items {args.curve_items}: no items")
        curve = Curve(items=items, every=args.curve_every, path=os.path.join(args.out_dir, "curve.jsonl"))
    if args.save_every is not None and args.save_every < 1:
        raise DriverError(f"--save-every must be an integer >= 1, got {args.save_every}")
    if args.checkpoint_dir is None and (args.resume or args.save_every is not None):
        raise DriverError(f"{'--resume' if args.resume else '--save-every'} needs --checkpoint-dir (where the arm's checkpoints are kept)")
    saving = None
    if args.checkpoint_dir is not None:
        corpus = os.path.join(args.data_dir, "train.jsonl")
        mark = fingerprint(args.spec, arm, args.steps, args.tasks, corpus, source)
        saving = Checkpointing(args.checkpoint_dir, args.save_every or settings.save_every, args.resume, mark)
    deterministic(arm.seed, settings.threads)
    with open_server(args) as server:
        result = train_arm(settings, source, arm, args.steps, read_items(args.tasks), args.out_dir, server, saving, curve)
    print(json.dumps(result))
    return 0


def cmd_eval(settings: Settings, args: argparse.Namespace) -> int:
    from .policy import generate, grade, load_policy, load_tokenizer

    settings, source = prepare(settings, args)
    deterministic(0, settings.threads)
    items = read_items(args.items)
    model = load_policy(settings, source, None if args.checkpoint == "init" else args.checkpoint)
    rows = grade(items, generate(settings, model, load_tokenizer(source), [i.question for i in items], greedy=True))
    write_jsonl(args.out, rows)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--spec", required=True, help="the study spec (JSON)")
    common.add_argument("--run-dir", required=True, help="the study's run folder (the drivers keep their files in RUN/trl)")
    common.add_argument("--data-dir", required=True, help="folder with train.jsonl and test.jsonl (GSM8K's format; sft.jsonl for the small world)")
    common.add_argument("--model", default=None, help="a local starting policy (a transformers model folder) instead of the spec's")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("probe", parents=[common], help="what this machine lacks for the spec")
    s = sub.add_parser("preflight", parents=[common], help="the correctness preflight")
    s.add_argument("--tasks", required=True)
    s.add_argument("--out", required=True)
    s = sub.add_parser("sample", parents=[common], help="the starting policy's rollouts")
    s.add_argument("--tasks", required=True)
    s.add_argument("--rollouts", type=int, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True)
    s = sub.add_parser("train", parents=[common], help="train one arm")
    s.add_argument("--arm", required=True)
    s.add_argument("--steps", type=int, required=True)
    s.add_argument("--tasks", required=True)
    s.add_argument("--out-dir", required=True)
    s.add_argument("--seed", type=int, default=None, help="the RL seed (initialisation, sampling; default: the arm's seed in the spec)")
    s.add_argument("--lr", type=float, default=None, help="the learning rate (default: the arm's lr in the spec; the study passes each of an lr_grid's)")
    s.add_argument("--curve-items", default=None, help="items file of the learning curve's greedy evals (with --curve-every)")
    s.add_argument("--curve-every", type=int, default=None, help="steps between the learning curve's evals (and at step 0 and the last step)")
    s.add_argument("--checkpoint-dir", default=None, help="keep mid-arm checkpoints here (default: none; the study passes RUN/trl/checkpoints/PHASE/ARM)")
    s.add_argument("--save-every", type=int, default=None, help="steps between checkpoints (default: the spec's trl.save_every, else 10)")
    s.add_argument("--resume", action="store_true", help="continue from the latest complete checkpoint in --checkpoint-dir, if any (default: refuse one)")
    s = sub.add_parser("eval", parents=[common], help="greedy eval graded by our grader")
    s.add_argument("--checkpoint", required=True)
    s.add_argument("--items", required=True)
    s.add_argument("--out", required=True)
    return p


COMMANDS = {"probe": cmd_probe, "preflight": cmd_preflight, "sample": cmd_sample, "train": cmd_train, "eval": cmd_eval}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](with_run_kernels(load_settings(args.spec), args.spec, args.run_dir), args)
    except DriverError as error:
        print(f"{PROG} {args.command}: {error}", file=sys.stderr)
        return error.exit_code


if __name__ == "__main__":
    sys.exit(main())
