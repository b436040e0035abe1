"""What the TRL adapter cannot compute as stock TRL does is refused at construction, and what it can is stock TRL's
(issue 39 item 6): ``trl_grpo`` under every ``scale_rewards`` side by side with stock ``trl.GRPOTrainer`` (before,
``"none"`` still divided by the group's std, 6.8 away from stock, and TRL's default ``"group"`` was refused with a
message suggesting ``"none"``); ``gdpo`` in the verl or NeMo flavour under ``normalize_then_sum`` (before, accepted and
trained on other advantages); and each refusal's suggested setting, once applied, constructs (never a setting that is
then ignored). ``group_mean`` at rewards near 130: the float64 advantage cast to float32 against stock's float32
arithmetic. The model and tokenizer are test_trl.py's (built in code, CPU).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")

import rl_advantages  # noqa: E402
from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer  # noqa: E402

from test_trl_stock_modes import side_by_side  # noqa: E402
from trl_support import config, length, make_model, make_tokenizer, PROMPTS, vowels, vowels_or_none  # noqa: E402


@pytest.mark.parametrize("scale_rewards", ["none", "group", "batch"])
def test_trl_grpo_is_stock_trl_under_every_scale_rewards(tmp_path, scale_rewards):
    # rewards with None for some completions: masked rows, groups with fewer scorable completions
    _, _, diff = side_by_side(tmp_path, estimator="trl_grpo", scale_rewards=scale_rewards, funcs=[vowels_or_none])
    print(f"trl_grpo vs stock TRL, scale_rewards={scale_rewards!r}: max |diff| {diff:.3g}")


def _build(tmp_path, estimator, num_generations=4, funcs=(vowels,), **overrides):
    tokenizer = make_tokenizer()
    args = config(GRPOConfig, str(tmp_path / "out"), num_generations=num_generations, **overrides)
    return GRPOTrainer(
        model=make_model(tokenizer), reward_funcs=list(funcs), args=args, processing_class=tokenizer,
        train_dataset=datasets.Dataset.from_dict({"prompt": PROMPTS * 2}), advantage_estimator=estimator,
    )


TWO = {"funcs": (vowels, length), "reward_weights": [1.0, 0.5]}
NTS = {"multi_objective_aggregation": "normalize_then_sum"}

# (estimator, settings, field, what the message says, the setting it suggests, a text of the message naming it)
CASES = [
    ("gdpo", {**TWO, **NTS}, "multi_objective_aggregation", "flavour 'verl'", ({"name": "gdpo", "flavour": "trl"}, {**TWO, **NTS}), "{'name': 'gdpo', 'flavour': 'trl'}"),
    ({"name": "gdpo", "flavour": "nemo"}, {**TWO, **NTS}, "multi_objective_aggregation", "flavour 'nemo'", ({"name": "gdpo", "flavour": "trl"}, {**TWO, **NTS}), "{'name': 'gdpo', 'flavour': 'trl'}"),
    ({"name": "gdpo", "flavour": "verl"}, {**TWO, **NTS}, "multi_objective_aggregation", "other advantages", ({"name": "gdpo", "flavour": "verl"}, {**TWO, "scale_rewards": "none"}), "multi_objective_aggregation='sum_then_normalize' and scale_rewards='none'"),
    ({"name": "gdpo", "flavour": "trl", "component_weights": [1.0, 2.0]}, {**TWO, **NTS}, "component_weights", "weighs by reward_weights", ({"name": "gdpo", "flavour": "trl"}, {**NTS, "funcs": (vowels, length), "reward_weights": [1.0, 2.0]}), "reward_weights=[1.0, 2.0]"),
    ("trl_grpo_none", {}, "scale_rewards", "divides by nothing", ("trl_grpo_none", {"scale_rewards": "none"}), "set scale_rewards='none'"),
    ("verl_grpo", {"scale_rewards": "none"}, "scale_rewards", "std of the group", ("verl_grpo", {}), "set scale_rewards='group'"),
    ("verl_grpo", {"scale_rewards": "none"}, "scale_rewards", "std of the group", ({"name": "verl_grpo", "scale": "none"}, {"scale_rewards": "none"}), "{'name': 'verl_grpo', 'scale': 'none'}"),
    ({"name": "trl_grpo", "scale": "group"}, {"scale_rewards": "batch"}, "scale_rewards", "asks for 'batch'", ("trl_grpo", {"scale_rewards": "batch"}), "use 'trl_grpo'"),
    ("nemo_grpo", {}, "scale_rewards", "other rollouts", ({"name": "nemo_grpo", "scale": "group"}, {}), "{'name': 'nemo_grpo', 'scale': 'group'}"),
    ("tfidf_kernel_loo_T0.1", {"scale_rewards": "batch"}, "scale_rewards", "no normalize option", ("tfidf_kernel_loo_T0.1", {"scale_rewards": "none"}), "set scale_rewards='none'"),
    ("group_mean", NTS, "multi_objective_aggregation", "one summed reward", ("group_mean", {}), "multi_objective_aggregation='sum_then_normalize'"),
    ({"name": "group_mean", "normalize": "none"}, {}, "scale_rewards", "normalize='none'", ({"name": "group_mean", "normalize": "none"}, {"scale_rewards": "none"}), "set scale_rewards='none'"),
    # num_generations=1 reads "group" as "none": the message used to suggest scale_rewards='group' again
    ({"name": "loo_batch_mean", "normalize": "group"}, {"num_generations": 1}, "scale_rewards", "at num_generations=1", ({"name": "loo_batch_mean", "normalize": "batch"}, {"num_generations": 1, "scale_rewards": "batch"}), "set normalize to 'batch' or 'none'"),
]


@pytest.mark.parametrize("estimator, settings, field, says, suggestion, names", CASES)
def test_each_refusal_names_a_setting_that_then_constructs(tmp_path, estimator, settings, field, says, suggestion, names):
    settings = dict(settings)
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        _build(tmp_path, estimator, **settings)
    assert caught.value.field == field
    assert says in str(caught.value) and names in str(caught.value), str(caught.value)
    fixed_estimator, fixed = suggestion
    trainer = _build(tmp_path, fixed_estimator, **dict(fixed))  # the suggestion is accepted
    assert trainer._rl_adv.entry["name"] == rl_advantages.integrations._common.describe_estimator(fixed_estimator)["name"]


def test_trl_grpo_takes_scale_rewards_as_its_scale(tmp_path):
    assert _build(tmp_path, "trl_grpo", scale_rewards="none")._rl_adv.options == {"scale": "none"}
    assert _build(tmp_path, "trl_grpo")._rl_adv.options == {}  # TRL's default "group" is trl_grpo's own
    assert _build(tmp_path, "trl_grpo", scale_rewards="batch")._rl_adv.options == {"scale": "batch", "epsilon": 1e-4}


def near_130(prompts, completions, **kwargs):
    """Rewards near 130 (TRL's float32 keeps about 7 digits of them)."""
    return [130.0 + r for r in vowels(prompts, completions)]


def test_group_mean_at_rewards_near_130_differs_from_stock_by_stocks_float32_rounding(tmp_path):
    # scale_rewards="none": A = r - group mean. Stock TRL computes the mean in float32, the adapter in float64 and
    # casts A to float32: they differ by stock's rounding of the mean of 4 float32 values near 130 (a float32 ulp
    # there is 2^-16 = 1.5e-5; summing 4 and dividing rounds at most 4 times, half an ulp of at most 4 * 130 < 2^9
    # each: 4 * 2^-15 in the sum, / 4) plus the cast of A itself (half an ulp of |A|).
    # The losses: stock's float32 advantages of a group do not sum to exactly 0 (its first-step loss is 1.9e-6,
    # ours 0), so they are compared to 1e-5 absolute.
    _, ours, diff = side_by_side(tmp_path, estimator="group_mean", scale_rewards="none", funcs=[near_130], tolerance=1.0, loss_atol=1e-5)
    largest = max(float(np.max(np.abs(s["advantages"]))) for s in ours)
    bound = 2.0 ** -15 + 2.0 ** -24 * largest
    print(f"group_mean vs stock TRL at rewards near 130, scale_rewards='none': max |diff| {diff:.3g} (bound {bound:.3g})")
    assert 0 < diff <= bound
