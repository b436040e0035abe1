"""The verl adapter against a fake of verl-project/verl 1dda039b (tests/integrations/fakes/verl, each part citing
the file and line it mirrors): ``register_adv_est`` / ``get_adv_estimator_fn`` (core_algos.py:116-150), the call
of a registered estimator inside ``ray_trainer.compute_advantage`` (ray_trainer.py:249-279), the trainer's call
of that module name (ray_trainer.py:1667) and ``VERL_USE_EXTERNAL_MODULES`` (verl/__init__.py:49-52)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import rl_advantages  # noqa: E402

from adapter_support import FAKES, QUESTIONS  # noqa: E402


def _batch(rewards, uids, prompts, length=5):
    from verl import DataProto

    n = len(rewards)
    mask = torch.ones(n, length)
    for i in range(n):
        mask[i, length - 1 - (i % 3) :] = 0  # ragged responses
    token_level = torch.zeros(n, length)
    for i, r in enumerate(rewards):
        last = int(mask[i].sum().item()) - 1
        token_level[i, last] = r  # the outcome reward on the last response token
    return DataProto(
        batch={"token_level_rewards": token_level, "response_mask": mask},
        non_tensor_batch={"uid": np.array(uids, dtype=object), "raw_prompt": np.array([[{"role": "user", "content": p}] for p in prompts] + [None], dtype=object)[:-1]},
    )


def _trainer(name, n):
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer

    return RayPPOTrainer({"algorithm": {"adv_estimator": name, "norm_adv_by_std_in_grpo": False}, "rollout_n": n})


def test_group_mean_equals_verl_grpo_without_std(fakes_on_path, server):
    from rl_advantages.integrations import verl as adapter

    names = adapter.register(["group_mean"], server=server)
    assert names == ["rl_adv:group_mean"]
    rewards = [1.0, 0.0, 0.5, 0.25, 0.0, 0.0, 1.0, 0.75]
    uids = ["a"] * 4 + ["b"] * 4
    ours = _trainer("rl_adv:group_mean", 4).advantage_step(_batch(rewards, uids, QUESTIONS))
    stock = _trainer("grpo", 4).advantage_step(_batch(rewards, uids, QUESTIONS))
    diff = (ours.batch["advantages"] - stock.batch["advantages"]).abs().max().item()
    assert diff <= 1e-6
    assert torch.equal(ours.batch["returns"], ours.batch["advantages"])
    assert torch.all(ours.batch["advantages"][ours.batch["response_mask"] == 0] == 0)


def test_gs1_tfidf_kernel_loo_uses_the_prompts(fakes_on_path, server):
    from rl_advantages.integrations import verl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    rewards = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    uids = [f"u{i}" for i in range(8)]  # rollout.n = 1: every uid once
    data = _trainer("rl_adv:tfidf_kernel_loo_T0.1", 1).advantage_step(_batch(rewards, uids, QUESTIONS))
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS, server=server).advantages
    mask = data.batch["response_mask"]
    got = data.batch["advantages"]
    want = torch.as_tensor(expected, dtype=torch.float32).unsqueeze(-1) * mask
    assert torch.equal(got, want)
    # verl's grpo at group size 1: mean 0, std 1, so A = r, no baseline (core_algos.py:315-317)
    stock = _trainer("grpo", 1).advantage_step(_batch(rewards, uids, QUESTIONS))
    assert torch.equal(stock.batch["advantages"][:, 0], torch.tensor(rewards))
    assert not torch.equal(got[:, 0], torch.tensor(rewards))


def test_lengths_and_sessions_reach_the_estimator(fakes_on_path, server):
    """opo reads each rollout's response length (response_mask.sum(-1)); prompt_value keeps state in a session."""
    from rl_advantages.integrations import verl as adapter

    names = adapter.register(server=server)  # the default: every estimator verl's batch can feed without parameters
    assert "rl_adv:opo" in names and "rl_adv:group_mean" in names
    assert "rl_adv:remax" not in names and "rl_adv:kernel_file" not in names  # greedy rewards, a kernel file: not in verl's batch
    rewards = [1.0, 0.0, 0.5, 0.25, 0.0, 0.0, 1.0, 0.75]
    uids = ["a"] * 4 + ["b"] * 4
    data = _trainer("rl_adv:opo", 4).advantage_step(_batch(rewards, uids, QUESTIONS))
    lengths = data.batch["response_mask"].sum(-1).tolist()
    expected = rl_advantages.compute_advantages("opo", rewards, group_ids=uids, lengths=lengths, server=server).advantages
    assert torch.equal(data.batch["advantages"][:, 0], torch.as_tensor(expected, dtype=torch.float32))
    name = "prompt_value_tfidf_kernel_loo_T0.1"
    adapter.register([name], server=server)
    for _ in range(2):
        _trainer("rl_adv:" + name, 1).advantage_step(_batch(rewards, [f"u{i}" for i in range(8)], QUESTIONS))
    state = rl_advantages.state_dict("rl_adv:" + name, server=server)
    assert state["estimator"].startswith("prompt_value")


def test_missing_prompt_field_is_reported(fakes_on_path, server):
    from rl_advantages.integrations import verl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], prompt_key="question", server=server)
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        _trainer("rl_adv:tfidf_kernel_loo_T0.1", 1).advantage_step(_batch([1.0, 0.0], ["a", "b"], QUESTIONS[:2]))
    assert caught.value.field == "question"
    message = str(caught.value)
    assert "legacy trainer" in message and "non_tensor_batch has no 'question'" in message and "prompt_key" in message


def test_unknown_estimator_fails_at_registration(fakes_on_path, server):
    from rl_advantages.integrations import verl as adapter

    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        adapter.register(["no_such_estimator"], server=server)
    assert caught.value.field == "estimator"


def test_loaded_through_verl_use_external_modules(corpus_file, server):
    """verl imports the adapter at its own import; RL_ADV_CORPUS gives the estimators their TF-IDF vocabulary."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(rl_advantages.__file__)))  # the rl_advantages under test
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([FAKES, package_parent, env.get("PYTHONPATH", "")])
    env["VERL_USE_EXTERNAL_MODULES"] = "rl_advantages.integrations.verl"
    env["RL_ADV_VERL_ESTIMATORS"] = "group_mean,tfidf_kernel_loo_T0.1"
    env["RL_ADV_CORPUS"] = corpus_file
    rewards = [1.0, 0.0, 1.0, 1.0]
    code = (
        "import json, numpy as np, torch\n"
        "import verl\n"
        "from verl import DataProto\n"
        "from verl.trainer.ppo import core_algos, ray_trainer\n"
        "print(sorted(k for k in core_algos.ADV_ESTIMATOR_REGISTRY if k.startswith('rl_adv:')))\n"
        f"questions = {QUESTIONS[:4]!r}\n"
        "raw = np.empty(4, dtype=object)\n"
        "raw[:] = [[{'role': 'user', 'content': q}] for q in questions]\n"
        f"data = DataProto({{'token_level_rewards': torch.tensor({rewards!r}).unsqueeze(-1), 'response_mask': torch.ones(4, 1)}},\n"
        "                 {'uid': np.array(['a', 'b', 'c', 'd'], dtype=object), 'raw_prompt': raw})\n"
        "out = ray_trainer.compute_advantage(data, 'rl_adv:tfidf_kernel_loo_T0.1')\n"
        "print(json.dumps(out.batch['advantages'][:, 0].tolist()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().split("\n")
    assert lines[0] == "['rl_adv:group_mean', 'rl_adv:tfidf_kernel_loo_T0.1']"
    expected = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS[:4], server=server).advantages
    assert json.loads(lines[1]) == [float(np.float32(a)) for a in expected]
