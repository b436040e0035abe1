"""The verl adapter under verl's default v1 trainer, against a faithful fake of verl-project/verl 1dda039b
(tests/integrations/fakes/verl/trainer/ppo/v1 and fakes/transfer_queue, each citing file and line):

- ``PPOTrainer._compute_advantage`` (v1/trainer_base.py:1638) reads ``uid``, ``response_mask``, ``rm_scores``,
  ``rollout_log_probs``, ``old_log_probs``, ``ref_log_prob``, ``values`` of ``batch.keys`` from the TransferQueue
  (no ``raw_prompt``), builds a ``DataProto`` whose ``non_tensor_batch`` holds only ``uid``, and calls
  ``compute_advantage_for_multi_trajectories`` (v1/utils.py), which calls ``compute_advantage``; trainer_base
  binds the first and v1/utils the second by name when they load.
- the queue holds each rollout's ``raw_prompt`` (trainer_base.py:1429 reads it) and its prompt token ids
  (``prompts``), as the tests put them there.

The GS1 advantages read back from the queue equal the ``rl-adv advantages`` command's on the user messages' text,
broadcast over the response mask, whichever order the adapter and verl's trainer modules load in."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import rl_advantages  # noqa: E402

from adapter_support import FAKES, QUESTIONS, cli_advantages  # noqa: E402

REWARDS = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
LENGTH = 6
SYSTEM = "Reason step by step and put the answer last."


class _Config(dict):
    """verl's OmegaConf config: attribute access and ``get``."""

    def __getattr__(self, name):
        return self[name]


def _config(estimator, n):
    return _Config(
        algorithm=_Config(adv_estimator=estimator, gamma=1.0, lam=1.0, norm_adv_by_std_in_grpo=False, use_kl_in_reward=False),
        actor_rollout_ref=_Config(rollout=_Config(n=n)),
    )


def _mask(n):
    mask = torch.ones(n, LENGTH)
    for i in range(n):
        mask[i, LENGTH - 1 - (i % 3) :] = 0  # ragged responses
    return mask


def _fill_queue(partition, rewards, uids, prompts, with_raw_prompt=True):
    """The rows verl's agent loop leaves in the TransferQueue: keys ``{uid}_{session_id}_{index}`` (one output per
    session here); ``rm_scores``
    with the outcome reward on the last response token; the chat ``raw_prompt`` (system + user); ``prompts``."""
    import transfer_queue as tq

    n = len(rewards)
    mask = _mask(n)
    scores = torch.zeros(n, LENGTH)
    for i, r in enumerate(rewards):
        scores[i, int(mask[i].sum().item()) - 1] = r
    seen: dict = {}
    keys = []
    for u in uids:  # agent_loop_tq.py:178-193: session_id is the rollout.n sample, index the output within it
        keys.append(f"{u}_{seen.setdefault(u, 0)}_0")
        seen[u] += 1
    fields = {
        "uid": tq.NonTensorStack(list(uids)),
        "response_mask": mask,
        "rm_scores": scores,
        "prompts": torch.arange(n * 4).reshape(n, 4),
        "rollout_log_probs": torch.zeros(n, LENGTH),
        "old_log_probs": torch.zeros(n, LENGTH),
        "ref_log_prob": torch.zeros(n, LENGTH),
        "values": torch.zeros(n, LENGTH),
    }
    if with_raw_prompt:
        fields["raw_prompt"] = tq.NonTensorStack([[{"role": "system", "content": SYSTEM}, {"role": "user", "content": p}] for p in prompts])
    tq.kv_batch_put(keys=keys, partition_id=partition, fields=fields)
    return tq.KVBatchMeta(keys, partition)


def _run_v1(trainer_module, trainer_class, estimator, n, rewards, uids, prompts, **fill):
    import transfer_queue as tq

    cls = getattr(importlib.import_module(trainer_module), trainer_class)
    batch = _fill_queue("train", rewards, uids, prompts, **fill)
    cls(_config(estimator, n))._compute_advantage(batch, {})
    out = tq.kv_batch_get(keys=batch.keys, partition_id="train", select_fields=["advantages", "returns", "response_mask"])
    return out["advantages"], out["returns"], out["response_mask"]


ORDERS = ["register_then_import", "import_then_register"]
TRAINERS = [("verl.trainer.ppo.v1.trainer_sync", "PPOTrainerSync"), ("verl.trainer.ppo.v1.trainer_separate_async", "PPOTrainerSeparateAsync")]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("trainer", TRAINERS, ids=["sync", "separate_async"])
def test_gs1_through_v1_equals_the_cli(fakes_on_path, server, corpus_file, order, trainer):
    import transfer_queue as tq

    tq.clear()
    if order == "import_then_register":  # v1/utils and trainer_base bind the unwrapped functions by name first
        importlib.import_module(trainer[0])
        assert "verl.trainer.ppo.v1.utils" in sys.modules
    from rl_advantages.integrations import verl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    uids = [f"p{i}" for i in range(8)]  # rollout.n = 1: every uid once
    advantages, returns, mask = _run_v1(*trainer, "rl_adv:tfidf_kernel_loo_T0.1", 1, REWARDS, uids, QUESTIONS)
    expected = cli_advantages("tfidf_kernel_loo_T0.1", REWARDS, QUESTIONS, corpus_file)
    want = torch.as_tensor(expected, dtype=torch.float64).unsqueeze(-1) * mask.double()
    assert (advantages.double() - want).abs().max().item() <= 1e-6
    assert torch.equal(returns, advantages)
    assert torch.all(advantages[mask == 0] == 0)
    assert np.abs(expected - np.asarray(REWARDS)).max() > 0.1  # a baseline, not verl's grpo A = r at group size 1


def test_every_prompt_estimator_through_v1(fakes_on_path, server):
    """Each stateless estimator of the default registration that reads prompts, and GS1, at 4 prompts x 2
    rollouts, equals the library on the same user texts, uids and response lengths (the stateful ones' sessions:
    test_verl.py)."""
    import transfer_queue as tq

    from rl_advantages.integrations import verl as adapter
    from rl_advantages.integrations._common import describe_estimator, reads_field

    names = adapter.register(server=server) + adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    entries = {n: describe_estimator(n[len(adapter.PREFIX) :], server) for n in names}
    prompt_names = [n for n, e in entries.items() if reads_field(e, "prompts") and not e.get("stateful")]
    assert "rl_adv:tfidf_kernel_loo_T0.1" in prompt_names and len(prompt_names) >= 3
    uids = [f"q{i // 2}" for i in range(8)]
    prompts = [QUESTIONS[i // 2] for i in range(8)]
    for name in prompt_names:
        tq.clear()
        advantages, _, mask = _run_v1(*TRAINERS[0], name, 2, REWARDS, uids, prompts)
        spec = name[len(adapter.PREFIX) :]
        lengths = mask.sum(-1).tolist()
        expected = rl_advantages.compute_advantages(spec, REWARDS, prompts=prompts, group_ids=uids, lengths=lengths, server=server).advantages
        diff = (advantages[:, 0].double() - torch.as_tensor(expected)).abs().max().item()
        assert diff <= 1e-6, name


def test_stock_grpo_through_the_fake_v1(fakes_on_path, server):
    """The fake's own GRPO path (v1/utils.py's session logic): A = r at group size 1, untouched by the adapter."""
    import transfer_queue as tq

    from rl_advantages.integrations import verl as adapter

    adapter.register(["group_mean"], server=server)
    tq.clear()
    advantages, _, mask = _run_v1(*TRAINERS[0], "grpo", 1, REWARDS, [f"p{i}" for i in range(8)], QUESTIONS)
    assert torch.equal(advantages, torch.tensor(REWARDS).unsqueeze(-1) * mask)


def test_missing_raw_prompt_in_the_queue_is_reported(fakes_on_path, server):
    import transfer_queue as tq

    from rl_advantages.integrations import verl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    tq.clear()
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        _run_v1(*TRAINERS[0], "rl_adv:tfidf_kernel_loo_T0.1", 1, REWARDS, [f"p{i}" for i in range(8)], QUESTIONS, with_raw_prompt=False)
    assert caught.value.field == "raw_prompt"
    assert "v1 trainer" in str(caught.value) and "TransferQueue" in str(caught.value) and "RL_ADV_VERL_PROMPT_KEY" in str(caught.value)


def test_v1_and_legacy_through_verl_use_external_modules(corpus_file):
    """``VERL_USE_EXTERNAL_MODULES``: the adapter loads inside ``import verl``, before any trainer module; then the
    v1 trainer (its modules binding the wrapped ``compute_advantage``) and the legacy trainer run GS1."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(rl_advantages.__file__)))
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([FAKES, tests_dir, package_parent, env.get("PYTHONPATH", "")])
    env["VERL_USE_EXTERNAL_MODULES"] = "rl_advantages.integrations.verl"
    env["RL_ADV_VERL_ESTIMATORS"] = "tfidf_kernel_loo_T0.1"
    env["RL_ADV_CORPUS"] = corpus_file
    code = (
        "import json, sys\n"
        "import verl\n"
        "assert 'verl.trainer.ppo.v1.trainer_base' not in sys.modules\n"
        "import test_verl_v1 as t\n"
        "adv, _, _ = t._run_v1(*t.TRAINERS[0], 'rl_adv:tfidf_kernel_loo_T0.1', 1, t.REWARDS, [f'p{i}' for i in range(8)], t.QUESTIONS)\n"
        "print(json.dumps(adv[:, 0].tolist()))\n"
        "import numpy as np\n"
        "from verl import DataProto\n"
        "from verl.trainer.ppo import ray_trainer\n"
        "raw = np.empty(8, dtype=object)\n"
        "raw[:] = [[{'role': 'user', 'content': q}] for q in t.QUESTIONS]\n"
        "data = DataProto({'token_level_rewards': t.torch.tensor(t.REWARDS).unsqueeze(-1), 'response_mask': t.torch.ones(8, 1)},\n"
        "                 {'uid': np.array([f'p{i}' for i in range(8)], dtype=object), 'raw_prompt': raw})\n"
        "print(json.dumps(ray_trainer.compute_advantage(data, 'rl_adv:tfidf_kernel_loo_T0.1').batch['advantages'][:, 0].tolist()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    v1, legacy = (np.array(json.loads(line)) for line in out.stdout.strip().split("\n")[-2:])
    expected = cli_advantages("tfidf_kernel_loo_T0.1", REWARDS, QUESTIONS, corpus_file)
    assert np.abs(v1 - expected).max() <= 1e-6
    assert np.abs(legacy - expected).max() <= 1e-6


def test_a_queue_failure_names_the_field_and_the_step(fakes_on_path, server, monkeypatch):
    import transfer_queue as tq

    from rl_advantages.integrations import verl as adapter

    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    tq.clear()
    stock = tq.kv_batch_get

    def flaky(keys, partition_id, select_fields):
        if "raw_prompt" in select_fields:
            raise ConnectionError("controller unreachable")
        return stock(keys=keys, partition_id=partition_id, select_fields=select_fields)

    monkeypatch.setattr(tq, "kv_batch_get", flaky)
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        _run_v1(*TRAINERS[0], "rl_adv:tfidf_kernel_loo_T0.1", 1, REWARDS, [f"p{i}" for i in range(8)], QUESTIONS)
    assert caught.value.field == "raw_prompt"
    assert "PPOTrainer._compute_advantage" in str(caught.value) and "ConnectionError: controller unreachable" in str(caught.value)
