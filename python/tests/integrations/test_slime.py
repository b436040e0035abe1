"""The slime adapter against a fake of THUDM/slime 624b824a (tests/integrations/fakes/slime): the
``--custom-reward-post-process-path`` function is loaded and called as ``func(args, samples)`` returning
``(raw_rewards, rewards)`` (slime/ray/rollout.py:388-390, :608-630) over ``Sample`` objects (utils/types.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")

import rl_advantages  # noqa: E402
from adapter_support import QUESTIONS  # noqa: E402


def _args(path, n, estimator="grpo", std=False):
    return SimpleNamespace(
        custom_reward_post_process_path=path, advantage_estimator=estimator, rewards_normalization=True,
        grpo_std_normalization=std, n_samples_per_prompt=n, rollout_batch_size=8 // n, reward_key=None,
    )


def _samples(rewards, n):
    from slime.utils.types import Sample

    return [Sample(group_index=i // n, index=i, prompt=[{"role": "user", "content": QUESTIONS[i // n]}], reward=r) for i, r in enumerate(rewards)]


def test_group_mean_equals_slime_group_normalisation(fakes_on_path, server, monkeypatch):
    from slime.ray.rollout import RolloutManager

    from rl_advantages.integrations import slime as adapter

    rewards = [1.0, 0.0, 0.5, 0.25, 0.0, 0.0, 1.0, 0.75]
    _, stock = RolloutManager(_args(None, 4))._post_process_rewards(_samples(rewards, 4))
    monkeypatch.setattr(adapter, "_cache", {repr("group_mean"): adapter.make_post_process_rewards("group_mean", server=server)})
    monkeypatch.setenv("RL_ADV_ESTIMATOR", "group_mean")
    raw, ours = RolloutManager(_args("rl_advantages.integrations.slime.post_process_rewards", 4))._post_process_rewards(_samples(rewards, 4))
    assert raw == rewards
    assert max(abs(a - b) for a, b in zip(stock, ours)) <= 1e-6


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch: std() of one value
def test_gs1_tfidf_kernel_loo(fakes_on_path, server):
    from slime.ray.rollout import RolloutManager

    from rl_advantages.integrations import slime as adapter

    rewards = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    manager = RolloutManager(_args(None, 1))
    manager.custom_reward_post_process_func = adapter.make_post_process_rewards("tfidf_kernel_loo_T0.1", server=server)
    raw, ours = manager._post_process_rewards(_samples(rewards, 1))
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS, server=server).advantages
    assert raw == rewards and ours == [float(a) for a in expected]
    # slime's own at n = 1: r - mean of one = 0; with std normalisation 0 / (NaN + 1e-6) = NaN
    _, stock = RolloutManager(_args(None, 1))._post_process_rewards(_samples(rewards, 1))
    assert stock == [0.0] * 8
    _, stock_std = RolloutManager(_args(None, 1, std=True))._post_process_rewards(_samples(rewards, 1))
    assert all(math.isnan(a) for a in stock_std)


def test_unset_estimator_is_reported(fakes_on_path, monkeypatch):
    from rl_advantages.integrations import slime as adapter

    monkeypatch.delenv("RL_ADV_ESTIMATOR", raising=False)
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        adapter.post_process_rewards(_args(None, 1), _samples([1.0], 1))
    assert caught.value.field == "RL_ADV_ESTIMATOR"
