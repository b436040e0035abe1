"""``group_mean`` through the adapter equals stock ``trl.GRPOTrainer`` (trl 1.13.0) run side by side, in the settings
TRL's own GRPO suite exercises: its default ``scale_rewards="group"`` and ``"batch"`` (grpo_trainer.py:2793-2813:
A = (r - group mean) / (std + 1e-4), Bessel std of the group or of the batch), several weighted reward functions (one
of which returns None), loss types, gradient accumulation, a LoRA adapter (PEFT), an ``environment_factory`` whose
dataset rows have no ``"prompt"`` (:2355-2361), and resuming from a checkpoint; and ``gdpo`` (flavour ``"trl"``)
against stock ``multi_objective_aggregation="normalize_then_sum"`` (:2816-2826).

Each case trains stock TRL and the adapter from the same seed: the same completions and rewards, so the advantages
TRL trains on (and its logged losses) must agree up to TRL's float32 (max |diff| <= 1e-6; losses to 1e-5 relative).
The tiny model and tokenizers are built in code (test_trl.py, trl_support.py); TRL's test code is not used.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")
peft = pytest.importorskip("peft")

import trl  # noqa: E402

from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer  # noqa: E402

from trl_support import (  # noqa: E402
    PROMPTS, QuestionEnv, config, length, losses, make_chat_tokenizer, make_model, make_tokenizer, max_diff, train, vowels, vowels_or_none,
)

TOLERANCE = 1e-6


def side_by_side(
    tmp_path, *, chat: bool = False, dataset=None, peft_config=None, resume: bool = False, estimator="group_mean",
    tolerance: float = TOLERANCE, loss_atol: float = 1e-7, **overrides,
):
    """Stock TRL and the adapter (``estimator``) on the same run; returns both runs' steps, checked equal (advantages
    to ``tolerance``, losses to 1e-5 relative or ``loss_atol``)."""
    runs = []
    for cls, extra in ((trl.GRPOTrainer, {}), (GRPOTrainer, {"advantage_estimator": estimator})):
        out = str(tmp_path / cls.__module__.replace(".", "_"))
        kwargs = dict(overrides)
        funcs = kwargs.pop("funcs", [vowels_or_none])
        env = kwargs.pop("environment_factory", None)
        tokenizer = make_chat_tokenizer() if chat else make_tokenizer()
        data = dataset if dataset is not None else datasets.Dataset.from_dict({"prompt": PROMPTS * 2})
        trainer_kwargs = dict(reward_funcs=funcs, train_dataset=data, processing_class=tokenizer, peft_config=peft_config, **extra)
        if env is not None:
            trainer_kwargs["environment_factory"] = env
        if resume:  # one step with a checkpoint, then a new trainer resumes from it for the second
            first = cls(model=make_model(tokenizer), args=config(trl.GRPOConfig, out, max_steps=1, save_strategy="steps", save_steps=1, **kwargs), **trainer_kwargs)
            train(first)
            trainer = cls(model=make_model(tokenizer), args=config(trl.GRPOConfig, out, save_strategy="steps", save_steps=1, **kwargs), **trainer_kwargs)
            steps = train(trainer, resume=f"{out}/checkpoint-1")
        else:
            trainer = cls(model=make_model(tokenizer), args=config(trl.GRPOConfig, out, **kwargs), **trainer_kwargs)
            steps = train(trainer)
        runs.append((trainer, steps))
    (stock, stock_steps), (ours, our_steps) = runs
    diff = max_diff(stock_steps, our_steps)
    assert diff <= tolerance, diff
    assert any(np.any(np.abs(s["advantages"]) > 1e-3) for s in stock_steps)  # not a comparison of zeros
    np.testing.assert_allclose(losses(ours), losses(stock), rtol=1e-5, atol=loss_atol)
    assert ours.state.global_step == stock.state.global_step == 2
    return stock_steps, our_steps, diff


def test_default_scale_weighted_rewards_dapo_gradient_accumulation(tmp_path):
    # TRL's defaults: scale_rewards="group", loss_type="dapo"; two reward functions weighted 1 and 0.5, one of which
    # returns None for some completions (TRL's nansum leaves it out of their sum); 2 micro-batches of 4 accumulated into each step
    _, ours, diff = side_by_side(
        tmp_path, funcs=[vowels_or_none, length], reward_weights=[1.0, 0.5], per_device_train_batch_size=4, gradient_accumulation_steps=2,
    )
    assert len(ours) == 2  # one generation per optimizer step (steps_per_generation = gradient_accumulation_steps)
    print(f"group_mean vs stock TRL, scale_rewards='group', 2 weighted rewards, dapo, grad accumulation 2: max |diff| {diff:.3g}")


def test_batch_scale_lora_grpo_loss(tmp_path):
    lora = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    _, _, diff = side_by_side(tmp_path, peft_config=lora, scale_rewards="batch", loss_type="grpo", funcs=[vowels])
    print(f"group_mean vs stock TRL, scale_rewards='batch', LoRA, grpo loss: max |diff| {diff:.3g}")


def test_environment_rows_without_prompt_dr_grpo_loss(tmp_path):
    # the rows carry only "question"; the environment's reset() gives the prompt (grpo_trainer.py:2355-2361, :2406-2420)
    dataset = datasets.Dataset.from_dict({"question": PROMPTS * 2})
    _, _, diff = side_by_side(
        tmp_path, chat=True, dataset=dataset, environment_factory=QuestionEnv, num_generations=2, loss_type="dr_grpo", funcs=[vowels],
    )
    print(f"group_mean vs stock TRL, environment_factory rows without prompt, dr_grpo: max |diff| {diff:.3g}")


def test_resume_from_checkpoint_bnpo_loss(tmp_path):
    _, ours, diff = side_by_side(tmp_path, resume=True, loss_type="bnpo", funcs=[vowels])
    assert len(ours) == 1  # the resumed trainer generated once: step 2
    print(f"group_mean vs stock TRL, resumed at step 1, bnpo: max |diff| {diff:.3g}")


def test_normalize_then_sum_is_gdpo_trl(tmp_path):
    # multi_objective_aggregation="normalize_then_sum" (grpo_trainer.py:2816-2826): each reward function normalised in
    # its group, weighted, summed, then whitened over the batch; the adapter gives it only to gdpo (flavour "trl"),
    # with TRL's reward_weights as its component weights
    _, _, diff = side_by_side(
        tmp_path, estimator={"name": "gdpo", "flavour": "trl"}, multi_objective_aggregation="normalize_then_sum",
        funcs=[vowels, length], reward_weights=[1.0, 0.5],
    )
    print(f"gdpo flavour trl vs stock TRL normalize_then_sum, 2 weighted rewards: max |diff| {diff:.3g}")


def test_gs1_config_is_ours_only_for_one_generation(tmp_path):
    # the adapter's GRPOConfig is stock TRL's for num_generations >= 2 (the side-by-side runs use trl.GRPOConfig)
    ours = config(GRPOConfig, str(tmp_path), num_generations=4)
    stock = config(trl.GRPOConfig, str(tmp_path), num_generations=4)
    assert ours.to_dict() == stock.to_dict()
