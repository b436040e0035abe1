"""The SkyRL adapter against a fake of NovaSky-AI/SkyRL a9564572 (tests/integrations/fakes/skyrl): the registry and
``register_advantage_estimator`` (ppo_utils.py:286-351, :518-529), the dispatcher's call of a registered
estimator (ppo_utils.py:1436-1460), and the trainer's ``prepare_generator_input`` / advantage step
(trainer.py:347, :1182-1192)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import rl_advantages  # noqa: E402
from adapter_support import QUESTIONS  # noqa: E402


def _rows(questions):
    return [{"prompt": [{"role": "system", "content": "be brief"}, {"role": "user", "content": q}], "uid": f"uid-{i}", "env_class": None, "env_extras": {}} for i, q in enumerate(questions)]


def _reward(prompt, k):
    return float((len(prompt[-1]["content"]) + k) % 3 == 0)


def test_group_mean_equals_skyrl_grpo_without_std(fakes_on_path, server):
    from skyrl.train.trainer import RayPPOTrainer

    from rl_advantages.integrations import skyrl as adapter

    assert adapter.register(["group_mean"], server=server) == ["rl_adv:group_mean"]
    assert adapter.register(["group_mean"], server=server) == ["rl_adv:group_mean"]  # twice: no "already registered" error
    rows = _rows(QUESTIONS[:2])
    _, _, stock, _ = RayPPOTrainer({"n_samples_per_prompt": 4, "advantage_estimator": "grpo", "grpo_norm_by_std": False}).step(rows, _reward)
    _, mask, ours, returns = RayPPOTrainer({"n_samples_per_prompt": 4, "advantage_estimator": "rl_adv:group_mean"}).step(rows, _reward)
    assert (ours - stock).abs().max().item() <= 1e-6
    assert torch.any(ours != 0)
    assert torch.equal(returns, ours) and torch.all(ours[mask == 0] == 0)


def test_gs1_tfidf_kernel_loo_reads_prompts_by_uid(fakes_on_path, server):
    from skyrl.train.trainer import RayPPOTrainer

    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    estimator = adapter.SkyRLEstimator("tfidf_kernel_loo_T0.1")
    assert pickle.loads(pickle.dumps(estimator)).spec == "tfidf_kernel_loo_T0.1"  # SkyRL pickles it to its registry actor
    rows = _rows(QUESTIONS)
    rewards, mask, ours, _ = RayPPOTrainer({"n_samples_per_prompt": 1, "advantage_estimator": "rl_adv:tfidf_kernel_loo_T0.1"}).step(rows, _reward)
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS, server=server).advantages
    assert torch.equal(ours[:, 0], torch.as_tensor(expected, dtype=torch.float32))
    # SkyRL's grpo at n = 1: mean 0, std 1 (ppo_utils.py:1378-1380)
    _, _, stock, _ = RayPPOTrainer({"n_samples_per_prompt": 1, "advantage_estimator": "grpo"}).step(rows, _reward)
    assert torch.allclose(stock[:, 0], torch.as_tensor(rewards, dtype=torch.float32) / (1 + 1e-6))
    assert np.any(np.abs(expected - rewards) > 1e-3)


def test_unknown_uid_is_reported(fakes_on_path, server):
    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    adapter.uid_prompts.clear()
    with pytest.raises(RuntimeError, match="prompt text"):
        adapter.SkyRLEstimator("tfidf_kernel_loo_T0.1")(torch.ones(2, 3), torch.ones(2, 3), index=["x", "y"])
