"""The OpenRLHF adapter against a fake of OpenRLHF/OpenRLHF 3c3be623 (tests/integrations/fakes/openrlhf): the
``RemoteExperienceMaker.compute_advantages_and_returns(self, experiences)`` it replaces
(experience_maker.py:238-328, called at :95), ``compute_reward`` (models/utils.py:98-126) and the
``Experience`` fields (experience.py:41-69)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import rl_advantages  # noqa: E402
from adapter_support import QUESTIONS  # noqa: E402


def _args(estimator, n, kl=0.0):
    return SimpleNamespace(
        algo=SimpleNamespace(advantage=SimpleNamespace(estimator=estimator, gamma=1.0)),
        rollout=SimpleNamespace(n_samples_per_prompt=n),
        reward=SimpleNamespace(clip_range=None),
    )


def _experiences(rewards, prompts, micro=3, length=5, seed=0):
    """Micro-batches of experiences in a shuffled order (``index`` gives each sample's place, as the maker's
    split_rollout_samples does), with ragged action masks and a KL tensor."""
    from openrlhf.trainer.ppo_utils.experience import Experience

    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(rewards), generator=g).tolist()
    out = []
    for s in range(0, len(order), micro):
        idx = order[s : s + micro]
        mask = torch.ones(len(idx), length, dtype=torch.bool)
        for row, i in enumerate(idx):
            mask[row, length - 1 - (i % 3) :] = False
        out.append(
            Experience(
                action_mask=mask,
                kl=torch.full((len(idx), length), 0.01),
                rewards=torch.tensor([rewards[i] for i in idx]),
                index=list(idx),
                prompts=[prompts[i] for i in idx],
            )
        )
    return out


def _maker(estimator, n, kl_coef=0.0):
    from openrlhf.trainer.ppo_utils.experience_maker import RemoteExperienceMaker

    return RemoteExperienceMaker(SimpleNamespace(args=_args(estimator, n)), SimpleNamespace(value=kl_coef))


def _by_index(experiences):
    rows = {}
    for e in experiences:
        for row, i in enumerate(e.index):
            rows[i] = (e.advantages[row], e.returns[row])
    return rows


def test_group_mean_equals_dr_grpo(fakes_on_path, server):
    from rl_advantages.integrations import openrlhf as adapter

    rewards = [1.0, 0.0, 0.5, 0.25, 0.0, 0.0, 1.0, 0.75]
    stock = _by_index(_maker("dr_grpo", 4, kl_coef=0.1).make_experience_batch(_experiences(rewards, QUESTIONS)))
    adapter.install("group_mean", server=server)
    try:
        ours = _by_index(_maker("reinforce", 4, kl_coef=0.1).make_experience_batch(_experiences(rewards, QUESTIONS)))
    finally:
        adapter.uninstall()
    worst = max(float((stock[i][0] - ours[i][0]).abs().max()) for i in range(len(rewards)))
    assert worst <= 1e-6
    assert all(torch.equal(ours[i][0], ours[i][1]) for i in ours)


def test_gs1_tfidf_kernel_loo_in_prompt_order(fakes_on_path, server):
    from openrlhf.trainer.ppo_utils import length_penalty

    from rl_advantages.integrations import openrlhf as adapter

    rewards = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    adapter.install("tfidf_kernel_loo_T0.1", server=server)
    try:
        before = len(length_penalty.CALLS)
        experiences = _maker("reinforce", 1).make_experience_batch(_experiences(rewards, QUESTIONS))
        assert len(length_penalty.CALLS) == before + 1  # the stock length penalties still run
    finally:
        adapter.uninstall()
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS, server=server).advantages
    got = _by_index(experiences)
    for e in experiences:
        for row, i in enumerate(e.index):
            mask = e.action_mask[row]
            # no KL: the advantage is the estimator's on every action token (cumulative return of a last-token reward)
            assert torch.equal(got[i][0][mask], torch.full((int(mask.sum()),), np.float32(expected[i])))
            assert torch.all(got[i][0][~mask] == 0)


def test_refuses_gae_and_groups_at_one_sample(fakes_on_path, server):
    from rl_advantages.integrations import openrlhf as adapter

    adapter.install("group_mean", server=server)
    try:
        with pytest.raises(ValueError, match="needs groups"):
            _maker("reinforce", 1).make_experience_batch(_experiences([1.0, 0.0], QUESTIONS[:2]))
        with pytest.raises(ValueError, match="reinforce, not gae"):
            _maker("gae", 2).make_experience_batch(_experiences([1.0, 0.0], QUESTIONS[:2]))
    finally:
        adapter.uninstall()


def test_install_from_env(fakes_on_path, server, monkeypatch):
    from openrlhf.trainer.ppo_utils.experience_maker import RemoteExperienceMaker

    from rl_advantages.integrations import openrlhf as adapter

    stock = RemoteExperienceMaker.compute_advantages_and_returns
    monkeypatch.setenv("RL_ADV_ESTIMATOR", '{"name": "loo_batch_mean"}')
    adapter.install_from_env()
    try:
        assert RemoteExperienceMaker.compute_advantages_and_returns is not stock
    finally:
        adapter.uninstall()
    assert RemoteExperienceMaker.compute_advantages_and_returns is stock
