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


# ---- the batches SkyRL trains on (fixtures/skyrl-real.json, made by fixtures/skyrl_real.py from SkyRL a9564572's own
# pad_training_input_batch and compute_grpo_outcome_advantage) ----------------------------------------------------

import json  # noqa: E402
import os  # noqa: E402

REAL = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "skyrl-real.json"), encoding="utf-8"))["cases"]


def _padded_step(case, estimator, prepare=True):
    """The trainer's advantage step on the fixture's padded batch, the prompts prepared by prepare_generator_input."""
    from skyrl.train import trainer as trainer_module

    n = case["n_samples_per_prompt"]
    real = len(case["uids"]) - case["pad_size"]
    trainer = trainer_module.RayPPOTrainer({"n_samples_per_prompt": n, "advantage_estimator": estimator, "grpo_norm_by_std": True})
    if prepare:
        rows, seen = [], set()
        for i in range(real):
            if case["uids"][i] not in seen:
                seen.add(case["uids"][i])
                rows.append({"prompt": [{"role": "user", "content": case["prompts"][i]}], "uid": case["uids"][i], "env_class": None, "env_extras": {}})
        trainer_module.prepare_generator_input(rows, n, {}, "env", "train", 0)
    data = trainer_module.TrainingInputBatch(rewards=torch.tensor(case["rewards"]), response_mask=torch.tensor(case["response_mask"], dtype=torch.float32))
    data.metadata = {"uids": list(case["uids"]), "pad_size": case["pad_size"]}
    out = trainer.compute_advantages_and_returns(data)
    return out["advantages"], real


@pytest.mark.parametrize("case", sorted(REAL))
def test_gs1_on_skyrls_padded_batch_equals_gs1_on_the_real_rows(fakes_on_path, server, case):
    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    c = REAL[case]
    advantages, real = _padded_step(c, "rl_adv:tfidf_kernel_loo_T0.1")
    rewards = [sum(r) for r in c["rewards"][:real]]
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=c["prompts"][:real], server=server).advantages
    first = advantages[torch.arange(len(c["uids"])), torch.tensor(c["response_mask"]).argmax(dim=1)].double()
    assert np.abs(first[:real].numpy() - expected).max() <= 1e-6  # float32 rounding
    assert torch.all(advantages[real:] == 0) and c["pad_size"] > 0


@pytest.mark.parametrize("case", sorted(REAL))
def test_verl_grpo_preset_equals_skyrls_grpo_on_the_real_rows(fakes_on_path, server, case):
    """SkyRL's GRPO and the catalogue's verl_grpo (same formula, ppo_utils.py:1343-1393) agree on the real rows;
    SkyRL gives its padding rows (groups of one copying row 0) A = r there, the adapter 0, both under a zero loss mask."""
    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["verl_grpo"], server=server)
    c = REAL[case]
    advantages, real = _padded_step(c, "rl_adv:verl_grpo", prepare=False)
    first = advantages[torch.arange(len(c["uids"])), torch.tensor(c["response_mask"]).argmax(dim=1)].double().numpy()
    assert np.abs(first[:real] - np.array(c["skyrl_grpo"][:real])).max() <= 2e-6
    assert all(sum(m) == 0 for m in c["loss_mask"][real:])


def test_pad_rows_without_the_step_are_found_by_their_uids(fakes_on_path, server):
    """The estimator called outside the trainer's step: trailing uids pad0..pad{k-1} with no prompt are padding."""
    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    c = REAL["n1_15_on_2"]
    rows = [{"prompt": p, "uid": u, "env_class": None, "env_extras": {}} for u, p in zip(c["uids"][:15], c["prompts"][:15])]
    from skyrl.train import trainer as trainer_module

    trainer_module.prepare_generator_input(rows, 1, {}, "env", "train", 0)
    ours, _ = adapter.SkyRLEstimator("tfidf_kernel_loo_T0.1")(torch.tensor(c["rewards"]), torch.tensor(c["response_mask"], dtype=torch.float32), index=c["uids"])
    assert torch.all(ours[15:] == 0) and torch.any(ours[:15] != 0)


def test_dynamic_sampling_rounds_and_the_async_trainer_keep_their_prompts(fakes_on_path, server):
    """Two prepare rounds before one advantage step (dynamic sampling) both keep their prompts; the fully async
    trainer's own prepare_generator_input binding (imported after register) records them too."""
    from skyrl.train import trainer as trainer_module

    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    adapter.uid_prompts.clear()
    first, second = _rows(QUESTIONS[:4]), [dict(r, uid=f"late-{i}") for i, r in enumerate(_rows(QUESTIONS[4:]))]
    trainer_module.prepare_generator_input(first, 1, {}, "env", "train", 0)
    from skyrl.train.fully_async_trainer import FullyAsyncRayPPOTrainer

    FullyAsyncRayPPOTrainer({"n_samples_per_prompt": 1}).prepare(second)
    uids = [r["uid"] for r in first + second]
    rewards = torch.tensor([float(i % 3 == 0) for i in range(8)]).unsqueeze(-1)
    ours, _ = adapter.SkyRLEstimator("tfidf_kernel_loo_T0.1")(rewards, torch.ones(8, 1), index=uids)
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards[:, 0].double().numpy(), prompts=QUESTIONS, server=server).advantages
    assert np.abs(ours[:, 0].double().numpy() - expected).max() <= 1e-6


def test_recorded_prompts_are_capped_latest_kept(fakes_on_path, server, monkeypatch):
    from skyrl.train import trainer as trainer_module

    from rl_advantages.integrations import skyrl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    adapter.uid_prompts.clear()
    monkeypatch.setattr(adapter, "MAX_PROMPTS", 3)
    trainer_module.prepare_generator_input(_rows(QUESTIONS[:5]), 1, {}, "env", "train", 0)
    assert list(adapter.uid_prompts) == ["uid-2", "uid-3", "uid-4"]
