"""One arm of the study trained by TRL's ``GRPOTrainer`` through the package's adapter
(``rl_advantages.integrations.trl.GRPOTrainer`` with ``advantage_estimator``), writing the per-step advantage
log the study's gate reads (``advantages.jsonl``, the format of src/study/gate-metrics.ts ``AdvantageLogRow``).

Both arms start from the same weights with the same LoRA seed (peft's initialisation draws from torch's
generator, seeded by the arm's seed just before the trainer is built), and share lr, max tokens, generation
settings, optimiser and data order (the study's task order, never shuffled); they differ only in
``num_generations`` x prompts per step (8 x 4 for GRPO, 1 x 32 for GS1) and the advantage estimator.
The learning rate is constant, so a pilot's 3 steps are the full arm's first 3.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any, Sequence

from .checkpoints import complete_checkpoint, kill_point, open_folder, remove_folder
from .settings import Arm, DriverError, Item, Settings, render, reward, write_jsonl

#: |A| above this counts as non-zero (docs/method.md section 9).
NONZERO = 1e-6


def grpo_config(settings: Settings, arm: Arm, steps: int, out_dir: str, save_every: int | None = None) -> Any:
    """The arm's ``GRPOConfig`` (the adapter's, which accepts ``num_generations=1``): one generation batch of
    group_size x groups_per_batch rollouts per optimiser step; with ``save_every``, TRL's checkpoint every that many
    steps (and at the last step) into ``out_dir`` (checkpoints.py), else none."""
    import torch

    from ..integrations.trl import GRPOConfig

    opt = settings.raw.get("optimizer") or {}
    rollouts = arm.group_size * arm.groups_per_batch
    config = GRPOConfig(
        output_dir=out_dir,
        per_device_train_batch_size=rollouts,
        gradient_accumulation_steps=1,
        num_generations=arm.group_size,
        max_completion_length=settings.max_tokens,
        max_steps=steps,
        learning_rate=arm.lr,
        lr_scheduler_type="constant",
        warmup_steps=0,
        adam_beta1=float(opt.get("beta1", 0.9)),
        adam_beta2=float(opt.get("beta2", 0.999)),
        adam_epsilon=float(opt.get("eps", 1e-8)),
        weight_decay=0.0,
        max_grad_norm=1.0,
        optim="adamw_torch",
        scale_rewards="none",
        beta=0.0,
        num_iterations=1,
        temperature=settings.temperature,
        top_p=1.0,
        top_k=0,
        shuffle_dataset=False,
        disable_dropout=settings.lora is None or settings.lora.dropout == 0,  # TRL's switch also zeroes LoRA's dropout
        seed=arm.seed,
        use_cpu=not torch.cuda.is_available(),
        bf16=settings.dtype == "bfloat16",
        fp16=settings.dtype == "float16",
        report_to="none",
        logging_steps=1,
        **({"save_strategy": "steps", "save_steps": save_every, "save_only_model": False} if save_every else {"save_strategy": "no"}),
        chat_template_kwargs=None if settings.renderer == "plain" else {"enable_thinking": False},
    )
    return config


def lora_config(settings: Settings) -> Any:
    """peft's LoRA as the spec gives it (``lora``: rank, alpha, dropout, target_modules; or ``lora_rank``: every
    linear layer), or None for full fine-tuning (``lora_rank`` 0, ``"lora": null``)."""
    if settings.lora is None:
        return None
    from peft import LoraConfig

    lora = settings.lora
    return LoraConfig(r=lora.rank, lora_alpha=lora.alpha, lora_dropout=lora.dropout, target_modules=lora.target_modules, task_type="CAUSAL_LM")


class StepLog:
    """Collects each step's rollouts from the reward function and writes the advantage log row after the step."""

    def __init__(self, arm: Arm, path: str):
        self.arm, self.path, self.rows, self.pending = arm, path, [], None

    def reward_func(self, prompts: list[Any], completions: list[Any], completion_ids: list[list[int]], reference: list[str], task_id: list[str], **_: Any) -> list[float]:
        texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
        stopped = [self.eos in ids or len(ids) < self.max_tokens for ids in completion_ids]
        rewards = [reward(t, ref, s) for t, ref, s in zip(texts, reference, stopped)]
        self.pending = {"task_ids": list(task_id), "rewards": rewards}
        return rewards

    def bind(self, eos: int, max_tokens: int) -> None:
        self.eos, self.max_tokens = eos, max_tokens

    def end_step(self, step: int, trained: Sequence[float], result: Any, inputs: dict[str, Any]) -> None:
        """The step's row from the adapter's own result (``last_advantage_result``, float64) on the step's batch:
        rewards, A, b, the LOO batch mean and the self-weight. ``trained`` is what TRL logged for the loss (the
        same advantages cast to its dtype), checked against them."""
        if self.pending is None:
            raise DriverError(f"step {step}: the reward function was not called")
        r = [float(x) for x in self.pending["rewards"]]
        # TRL keeps rewards in float32 (rewards_per_func), so the adapter sees them rounded: 0.9 -> 0.899999976.
        off = max(abs(x - float(y)) for x, y in zip(r, inputs["rewards"]))
        if off > 1e-6:
            raise DriverError(f"step {step}: the adapter's rewards are {off:.3g} away from the reward function's", 1)
        a = [float(x) for x in result.advantages]
        worst = max(abs(x - float(y)) for x, y in zip(a, trained))
        if worst > 1e-5:
            raise DriverError(f"step {step}: TRL trained on advantages {worst:.3g} away from the estimator's", 1)
        n = len(r)
        baselines = [float(x) for x in result.baselines]
        loo = [float(x) for x in result.loo_mean]
        self.rows.append(
            {
                "arm": self.arm.name,
                "step": step,
                # a kernel arm's file (arm.estimator, an absolute path) is logged under the spec's name
                "estimator": self.arm.advantage if self.arm.estimator else result.estimator,
                "rollouts": n,
                "group_size": self.arm.group_size,
                "groups": n // self.arm.group_size,
                "task_ids": self.pending["task_ids"],
                "rewards": r,
                "baselines": baselines,
                "loo_mean": loo,
                "advantages": a,
                "max_self_weight": float(result.max_self_weight),
                "nonzero_advantage_fraction": sum(abs(x) > NONZERO for x in a) / n,
                "mean_abs_baseline_minus_loo_mean": sum(abs(b - m) for b, m in zip(baselines, loo)) / n,
            }
        )
        self.pending = None


def question_text(row: Any) -> str:
    """The text the estimator sees: the question itself, whatever the renderer wraps around it (the study's TF-IDF
    is fitted on the questions)."""
    return str(row["question"])


@dataclass(frozen=True)
class Curve:
    """The learning curve's evals: greedy accuracy on ``items`` at step 0, every ``every`` steps and at the last
    step, written to ``path`` (``curve.jsonl``: ``{"step", "accuracy", "correct", "n"}`` rows, whole after each)."""

    items: Sequence[Item]
    every: int
    path: str


def curve_row(settings: Settings, model: Any, tok: Any, curve: Curve, step: int) -> dict[str, Any]:
    """One greedy eval of the policy being trained. Greedy decoding draws no random numbers and the model goes back
    to train mode, so an arm with curve evals trains exactly as one without (tested)."""
    from .policy import generate, grade

    was_training = model.training
    model.eval()
    rows = grade(curve.items, generate(settings, model, tok, [i.question for i in curve.items], greedy=True))
    if was_training:
        model.train()
    correct = sum(1 for r in rows if r["correct"])
    return {"step": step, "accuracy": correct / len(rows), "correct": correct, "n": len(rows)}


def read_curve(path: str, up_to: int) -> list[dict[str, Any]]:
    """A resumed arm's curve rows of the steps it keeps (those up to its checkpoint's step)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [r for r in rows if r["step"] <= up_to]


@dataclass(frozen=True)
class Checkpointing:
    """Where and how often an arm keeps its mid-arm checkpoints (checkpoints.py), and what they must belong to."""

    folder: str
    save_every: int
    resume: bool
    fingerprint: dict[str, Any]


def train_arm(
    settings: Settings, source: str, arm: Arm, steps: int, tasks: Sequence[Item], out_dir: str, server: Any, saving: Checkpointing | None = None, curve: Curve | None = None
) -> dict[str, Any]:
    """Trains ``arm`` for ``steps`` steps on the front of ``tasks``; writes ``out_dir/advantages.jsonl`` and the
    final LoRA adapter ``out_dir/adapter``; returns ``{"checkpoint", "advantages_log", "seconds", "resumed_from_step"}``.
    With ``saving``, TRL's checkpoint and the log rows so far are kept every ``save_every`` steps, and a resume
    continues from the latest complete one (``trainer.train(resume_from_checkpoint=...)``), giving the same log and
    adapter, bit for bit, as an uninterrupted run (docs/trl.md, "Determinism"). With ``curve``, the learning curve's
    greedy evals (:class:`Curve`); a resumed arm keeps the rows up to its checkpoint and recomputes the rest. With the
    spec's ``lora_rank`` 0 the whole model is trained and ``out_dir/adapter`` holds the whole model."""
    import torch
    from datasets import Dataset
    from transformers import TrainerCallback

    from ..integrations.trl import GRPOTrainer

    needed = steps * arm.groups_per_batch
    if len(tasks) < needed:
        raise DriverError(f"arm {arm.name}: {steps} steps x {arm.groups_per_batch} prompts need {needed} tasks, got {len(tasks)}")
    chosen = tasks[:needed]
    data = Dataset.from_dict(
        {
            "prompt": [render(settings, t.question) for t in chosen],
            "question": [t.question for t in chosen],
            "reference": [t.reference for t in chosen],
            "task_id": [t.task_id for t in chosen],
        }
    )
    from .policy import load_base, load_tokenizer

    resume_from = open_folder(saving.folder, saving.fingerprint, saving.resume) if saving else None
    tok = load_tokenizer(source)
    model = load_base(settings, source)
    log = StepLog(arm, os.path.join(out_dir, "advantages.jsonl"))
    log.bind(tok.eos_token_id, settings.max_tokens)
    if resume_from is not None:
        log.rows = resume_from[1]
    resumed = int(os.path.basename(resume_from[0]).split("-")[-1]) if resume_from else None
    curve_rows = read_curve(curve.path, resumed) if curve and resumed is not None else []
    torch.manual_seed(arm.seed)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=log.reward_func,
        args=grpo_config(settings, arm, steps, saving.folder if saving else os.path.join(out_dir, "trainer"), saving.save_every if saving else None),
        train_dataset=data,
        processing_class=tok,
        peft_config=lora_config(settings),
        advantage_estimator=arm.server_name,
        advantage_server=server,
        advantage_prompt_text=question_text,
    )

    class AfterStep(TrainerCallback):
        def on_step_end(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            n = arm.group_size * arm.groups_per_batch
            trained = list(trainer._logs["advantages"])[-n:]
            log.end_step(state.global_step - 1, trained, trainer.last_advantage_result, trainer.last_advantage_inputs)
            if curve and (state.global_step % curve.every == 0 or state.global_step == steps):
                curve_rows.append(curve_row(settings, trainer.model, tok, curve, state.global_step))
                write_jsonl(curve.path, curve_rows)

        def on_save(self, args: Any, state: Any, control: Any, **_: Any) -> None:
            # Trainer._save_checkpoint has written checkpoint-N whole; the rows make it complete (transformers 5.18.0).
            complete_checkpoint(os.path.join(args.output_dir, f"checkpoint-{state.global_step}"), state.global_step, log.rows)
            # The arm's log holds the checkpoint's steps too (where `rl-adv study --resume` says the arm continues).
            write_jsonl(log.path, log.rows)
            kill_point(arm.name, state.global_step)

    trainer.add_callback(AfterStep())
    if curve and resume_from is None:
        curve_rows.append(curve_row(settings, trainer.model, tok, curve, 0))
        write_jsonl(curve.path, curve_rows)
    started = time.perf_counter()
    trainer.train(resume_from_checkpoint=resume_from[0] if resume_from else None)
    seconds = time.perf_counter() - started
    adapter = os.path.join(out_dir, "adapter")
    trainer.model.save_pretrained(adapter)
    write_jsonl(log.path, log.rows)
    if saving:
        remove_folder(saving.folder)
    result = {"checkpoint": adapter, "advantages_log": log.path, "seconds": round(seconds, 3), "resumed_from_step": resumed}
    return {**result, "curve": curve.path} if curve else result


def dump_result(result: dict[str, Any]) -> str:
    return json.dumps(result)
