"""A stock TRL script changed in two lines (the import, ``advantage_estimator=``) plus ``num_generations=1``: GS1 in the
real ``trl.GRPOTrainer`` (trl 1.13.0) with no ``advantage_server`` (the TF-IDF vectorizer fitted on
``train_dataset``'s prompts), and what the adapter refuses at construction, naming the setting.

GS1's advantages are checked against ``rl_advantages.compute_advantages`` run again outside the trainer on the
prompts and rewards of the batch, with a server fitted on the same questions (equal after TRL's float32 cast).
Settings TRL's suite exercises are covered with GS1 too: several weighted rewards, LoRA, gradient accumulation, loss
types (cispo, sapo, luspo; vespo trains ``group_mean`` on TRL's placeholder rows), an ``environment_factory`` (the prompt from ``reset()``), resuming from a checkpoint.
"""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest

pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")
peft = pytest.importorskip("peft")

import rl_advantages  # noqa: E402
from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer  # noqa: E402

from trl_support import (  # noqa: E402
    PROMPTS, QuestionEnv, SilentEnv, config, length, make_chat_tokenizer, make_model, make_tokenizer, train, vowels,
)

GS1 = "tfidf_kernel_loo_T0.1"


def _dataset(n: int = 16):
    return datasets.Dataset.from_dict({"prompt": (PROMPTS * 4)[:n]})


def _check_gs1(steps, corpus: str) -> float:
    """Each step's advantages are GS1's on the step's prompts and rewards, recomputed with a server fitted on ``corpus``."""
    worst = 0.0
    with rl_advantages.Server(corpus=corpus) as server:
        for step in steps:
            inputs = step["inputs"]
            again = rl_advantages.compute_advantages(GS1, inputs["rewards"], prompts=inputs["prompts"], server=server)
            expected = again.advantages.astype(np.float32).astype(np.float64)
            worst = max(worst, float(np.max(np.abs(step["advantages"] - expected))))
    assert any(np.any(np.abs(step["advantages"]) > 1e-3) for step in steps)  # not a comparison of zeros
    return worst


def _corpus(tmp_path, texts) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps({"question": t}) + "\n" for t in texts))
    return str(path)


def test_two_lines_gs1_weighted_rewards_lora_accumulation_cispo(tmp_path, caplog):
    tokenizer = make_tokenizer()
    args = config(
        GRPOConfig, str(tmp_path / "out"), num_generations=1, per_device_train_batch_size=4, gradient_accumulation_steps=2,
        reward_weights=[1.0, 0.5], loss_type="cispo",
    )
    lora = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    with caplog.at_level(logging.INFO, logger="rl_advantages.integrations.trl"):
        trainer = GRPOTrainer(
            model=make_model(tokenizer), reward_funcs=[vowels, length], args=args, train_dataset=_dataset(),
            processing_class=tokenizer, peft_config=lora, advantage_estimator="rl_adv:" + GS1,
        )
    assert "fitted the TF-IDF vectorizer on the 16 prompts of train_dataset" in caplog.text
    assert "scale_rewards='group' (TRL's default) has no group to scale by at num_generations=1" in caplog.text
    steps = train(trainer)
    assert trainer.state.global_step == 2 and len(steps) == 2
    for step in steps:
        assert len(step["inputs"]["prompts"]) == 8 and set(step["inputs"]["prompts"]) <= set(PROMPTS)
    worst = _check_gs1(steps, _corpus(tmp_path, (PROMPTS * 4)[:16]))
    assert worst == 0.0
    logged = [h["rl_adv/groups_of_one"] for h in trainer.state.log_history if "rl_adv/groups_of_one" in h]
    assert logged == [8.0, 8.0]  # one completion per prompt: every TRL group is a group of one
    print(f"GS1 in two lines (vectorizer fitted on train_dataset), 2 weighted rewards, LoRA, accumulation 2, cispo: max |diff| {worst}")


def test_gs1_environment_prompts_from_reset_sapo(tmp_path):
    tokenizer = make_chat_tokenizer()
    rows = datasets.Dataset.from_dict({"question": PROMPTS * 2})  # no "prompt": the environment gives it
    args = config(GRPOConfig, str(tmp_path / "out"), num_generations=1, loss_type="sapo")
    common = dict(reward_funcs=vowels, args=args, train_dataset=rows, processing_class=tokenizer, environment_factory=QuestionEnv, advantage_estimator=GS1)
    with pytest.raises(rl_advantages.RlAdvantagesError, match='no "prompt" column') as caught:
        GRPOTrainer(model=make_model(tokenizer), **common)
    assert caught.value.field == "advantage_server"
    corpus = _corpus(tmp_path, PROMPTS)
    with rl_advantages.Server(corpus=corpus) as server:
        trainer = GRPOTrainer(model=make_model(tokenizer), advantage_server=server, **common)
        steps = train(trainer)
    assert trainer.state.global_step == 2
    for step in steps:
        assert set(step["inputs"]["prompts"]) <= set(PROMPTS)  # the question reset() returned, as TRL prompted with it
    assert _check_gs1(steps, corpus) == 0.0


def test_gs1_resume_from_checkpoint_luspo(tmp_path):
    tokenizer = make_tokenizer()
    out = str(tmp_path / "out")
    common = dict(num_generations=1, save_strategy="steps", save_steps=1, loss_type="luspo", importance_sampling_level="sequence")
    first = GRPOTrainer(model=make_model(tokenizer), reward_funcs=vowels, args=config(GRPOConfig, out, max_steps=1, **common), train_dataset=_dataset(), processing_class=tokenizer, advantage_estimator=GS1)
    train(first)
    trainer = GRPOTrainer(model=make_model(tokenizer), reward_funcs=vowels, args=config(GRPOConfig, out, **common), train_dataset=_dataset(), processing_class=tokenizer, advantage_estimator=GS1)
    steps = train(trainer, resume=f"{out}/checkpoint-1")
    assert trainer.state.global_step == 2 and len(steps) == 1
    assert _check_gs1(steps, _corpus(tmp_path, _dataset()["prompt"])) == 0.0


def test_gs1_refuses_the_empty_prompts_of_placeholder_rows(tmp_path):
    # no train_dataset: TRL builds rows with an empty user message (grpo_trainer.py:872-873); this environment adds nothing
    tokenizer = make_chat_tokenizer()
    args = config(GRPOConfig, str(tmp_path / "out"), num_generations=1, max_steps=1)
    common = dict(reward_funcs=vowels, args=args, processing_class=tokenizer, environment_factory=SilentEnv, advantage_estimator=GS1)
    with pytest.raises(rl_advantages.RlAdvantagesError, match="prompt is empty") as caught:
        GRPOTrainer(model=make_model(tokenizer), **common)
    assert caught.value.field == "advantage_server" and caught.value.index == 0
    with rl_advantages.Server(corpus=_corpus(tmp_path, PROMPTS)) as server:
        trainer = GRPOTrainer(model=make_model(tokenizer), advantage_server=server, **common)
        with pytest.raises(rl_advantages.RlAdvantagesError, match=r'"prompts"\[0\] is empty') as caught:
            trainer.train()
    assert caught.value.field == "prompts" and caught.value.index == 0
    # group_mean reads no prompts: the same rows train (at num_generations=2; with TRL's vespo loss)
    args2 = config(GRPOConfig, str(tmp_path / "out2"), num_generations=2, max_steps=1, loss_type="vespo")
    trainer = GRPOTrainer(model=make_model(tokenizer), reward_funcs=vowels, args=args2, processing_class=tokenizer, environment_factory=SilentEnv, advantage_estimator="group_mean")
    train(trainer)
    assert trainer.state.global_step == 1


def _build(tmp_path, estimator, num_generations=1, dataset=None, **overrides):
    tokenizer = make_tokenizer()
    args = config(GRPOConfig, str(tmp_path / "out"), num_generations=num_generations, **overrides)
    return GRPOTrainer(
        model=make_model(tokenizer), reward_funcs=vowels, args=args, train_dataset=dataset if dataset is not None else _dataset(),
        processing_class=tokenizer, advantage_estimator=estimator, advantage_server=None,
    )


@pytest.mark.parametrize(
    "estimator, num_generations, overrides, field, message",
    [
        (GS1, 1, {"scale_rewards": "batch"}, "scale_rewards", "has no normalize option"),
        ("group_mean", 4, {"multi_objective_aggregation": "normalize_then_sum"}, "multi_objective_aggregation", "sees one summed reward"),
        ({"name": "group_mean", "normalize": "none"}, 4, {}, "scale_rewards", "has normalize='none' but GRPOConfig\\(scale_rewards='group'\\)"),
        ("group_mean", 1, {}, "num_generations", "needs groups of completions"),
        ("no_such_estimator", 4, {}, "advantage_estimator", "not in the catalogue"),
    ],
)
def test_refused_at_construction_naming_the_setting(tmp_path, estimator, num_generations, overrides, field, message):
    with pytest.raises(rl_advantages.RlAdvantagesError, match=message) as caught:
        _build(tmp_path, estimator, num_generations, **overrides)
    assert caught.value.field == field


def test_a_dataset_smaller_than_one_generation_batch_is_refused_with_the_numbers(tmp_path):
    with pytest.raises(rl_advantages.RlAdvantagesError, match="train_dataset has 5 prompts, but one generation step takes 8 distinct prompts") as caught:
        _build(tmp_path, GS1, dataset=_dataset(5))
    assert caught.value.field == "train_dataset"
    _build(tmp_path, GS1, dataset=_dataset(8))  # exactly one batch trains


@pytest.mark.parametrize("spelling", ["rl_adv:group_mean", {"name": "rl_adv:group_mean"}, "group_mean"])
def test_the_rl_adv_prefix_is_accepted(tmp_path, spelling):
    trainer = _build(tmp_path, spelling, num_generations=4)
    assert trainer._rl_adv.entry["name"] == "group_mean"
    assert trainer._rl_adv.options == {"normalize": "group", "epsilon": 1e-4}  # TRL's scale_rewards="group"


def test_a_server_without_vectorizer_is_refused_naming_the_argument(tmp_path):
    tokenizer = make_tokenizer()
    with rl_advantages.Server() as bare:
        with pytest.raises(rl_advantages.RlAdvantagesError, match="advantage_server has no TF-IDF vectorizer") as caught:
            GRPOTrainer(
                model=make_model(tokenizer), reward_funcs=vowels, args=config(GRPOConfig, str(tmp_path / "out"), num_generations=1),
                train_dataset=_dataset(), processing_class=tokenizer, advantage_estimator=GS1, advantage_server=bare,
            )
    assert caught.value.field == "advantage_server" and "rl-adv serve" not in str(caught.value)


def test_group_scaling_of_a_baseline_that_is_not_the_group_mean_is_warned(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="rl_advantages.integrations.trl"):
        trainer = _build(tmp_path, "loo_batch_mean", num_generations=4)  # TRL's default scale_rewards="group"
    assert "its baseline is not the group's mean" in caplog.text
    assert trainer._rl_adv.options == {"normalize": "group", "epsilon": 1e-4}
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="rl_advantages.integrations.trl"):
        _build(tmp_path, "group_mean", num_generations=4)
    assert "baseline is not" not in caplog.text


def test_no_estimator_names_the_argument(tmp_path):
    with pytest.raises(TypeError, match="advantage_estimator"):
        _build(tmp_path, None, num_generations=4)


def test_the_example_runs_with_no_arguments(tmp_path, monkeypatch, capsys):
    import importlib.util
    import os
    import sys
    import tempfile

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "trl_gs1.py")  # python/examples
    spec = importlib.util.spec_from_file_location("trl_gs1_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(sys, "argv", ["trl_gs1.py"])
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # its default output directory goes under tmp_path
    module.main()
    out = capsys.readouterr().out
    assert "tfidf_kernel_loo_T0.1: advantages of the last step [" in out and str(tmp_path) in out
