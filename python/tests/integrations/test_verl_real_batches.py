"""The verl adapter on the batches a real v1 run builds: padded by ``_balance_batch`` and with multi-output agent-loop
sessions, as verl's own code at 1dda039b writes them (fixtures/verl-real.json, made by fixtures/verl_real.py, which
runs verl's padding_utils, compute_advantage and compute_advantage_for_multi_trajectories from a fetched copy).

- ``rl_adv:verl_grpo`` / ``rl_adv:verl_dr_grpo`` through the adapter equal verl's own GRPO on those rows (float32).
- GS1 on the real rows is what it is on the unpadded one-row-per-session batch: padding rows get 0, a session's
  outputs share its final output's advantage, and neither enters any baseline.
"""

from __future__ import annotations

import importlib
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from adapter_support import cli_advantages  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "verl-real.json")
CASES = json.load(open(FIXTURE, encoding="utf-8"))["cases"]


class _Config(dict):
    def __getattr__(self, name):
        return self[name]


def _run(case, estimator, partition):
    """Put the fixture's rows in the (fake) TransferQueue and run the v1 advantage step; per-row advantage at the
    first response token, and the advantages tensor."""
    import transfer_queue as tq

    rows = case["rows"]
    width = max(len(r["response_mask"]) for r in rows)
    pad = lambda v: torch.nn.functional.pad(torch.tensor(v, dtype=torch.float32), (0, width - len(v)))  # noqa: E731
    keys = [r["key"] for r in rows]
    fields = {
        "uid": tq.NonTensorStack([r["uid"] for r in rows]),
        "response_mask": torch.stack([pad(r["response_mask"]) for r in rows]),
        "rm_scores": torch.stack([pad(r["rm_scores"]) for r in rows]),
        "raw_prompt": tq.NonTensorStack([r["raw_prompt"] for r in rows]),
    }
    for name in ("rollout_log_probs", "old_log_probs", "ref_log_prob", "values"):
        fields[name] = torch.zeros(len(rows), width)
    tq.kv_batch_put(keys=keys, partition_id=partition, fields=fields)
    batch = tq.KVBatchMeta(keys, partition, tags=[{"is_padding": True} if r["is_padding"] else {} for r in rows])
    trainer = importlib.import_module("verl.trainer.ppo.v1.trainer_sync").PPOTrainerSync
    config = _Config(
        algorithm=_Config(adv_estimator=estimator, gamma=1.0, lam=1.0, norm_adv_by_std_in_grpo=True, use_kl_in_reward=False),
        actor_rollout_ref=_Config(rollout=_Config(n=case["rollout_n"])),
    )
    trainer(config)._compute_advantage(batch, {})
    out = tq.kv_batch_get(keys=keys, partition_id=partition, select_fields=["advantages", "response_mask"])
    adv, mask = out["advantages"], out["response_mask"]
    first = adv[torch.arange(len(rows)), mask.argmax(dim=1)]
    return first.double().numpy(), adv, mask


def _sessions(rows):
    """The rows verl's GRPO keeps (each session's final output) and each row's session (None: padding)."""
    final, session_of = {}, []
    for i, r in enumerate(rows):
        if r["is_padding"]:
            session_of.append(None)
            continue
        uid, session, index = r["key"].rsplit("_", 2)
        key = f"{uid}_{session}"
        session_of.append(key)
        if key not in final or final[key][0] < int(index):
            final[key] = (int(index), i)
    return final, session_of


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("estimator,field", [("verl_grpo", "verl_grpo"), ("verl_dr_grpo", "verl_grpo_no_std")])
def test_verl_presets_equal_verls_own_grpo_on_padded_multi_output_batches(fakes_on_path, server, case, estimator, field):
    import transfer_queue as tq

    from rl_advantages.integrations import verl as adapter

    tq.clear()
    adapter.register([estimator], server=server)
    got, adv, mask = _run(CASES[case], "rl_adv:" + estimator, "p")
    want = np.array(CASES[case][field])
    assert np.abs(got - want).max() <= 2e-6  # verl computes in float32
    assert torch.all(adv[mask == 0] == 0)
    assert any(r["is_padding"] for r in CASES[case]["rows"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_gs1_on_the_real_rows_is_unchanged_by_padding_and_sessions(fakes_on_path, server, corpus_file, case):
    import transfer_queue as tq

    from rl_advantages.integrations import verl as adapter

    tq.clear()
    adapter.register(["tfidf_kernel_loo_T0.1"], server=server)
    rows = CASES[case]["rows"]
    got, _, _ = _run(CASES[case], "rl_adv:tfidf_kernel_loo_T0.1", "p")
    final, session_of = _sessions(rows)
    keep = sorted(i for _, i in final.values())
    rewards = [sum(rows[i]["rm_scores"]) for i in keep]
    prompts = [rows[i]["raw_prompt"][-1]["content"] for i in keep]
    reference = cli_advantages("tfidf_kernel_loo_T0.1", rewards, prompts, corpus_file)  # one rollout per session, no padding
    by_session = {session_of[i]: reference[j] for j, i in enumerate(keep)}
    want = np.array([0.0 if s is None else by_session[s] for s in session_of])
    assert np.abs(got - want).max() <= 1e-6  # float32 rounding
    # the adapter's unpadded, single-output batch gives the same numbers on its rows
    tq.clear()
    clean = dict(CASES[case], rows=[dict(rows[i], key=rows[i]["key"].rsplit("_", 1)[0] + "_0") for i in keep])
    alone, _, _ = _run(clean, "rl_adv:tfidf_kernel_loo_T0.1", "q")
    assert np.abs(alone - np.array([by_session[session_of[i]] for i in keep])).max() <= 1e-6


def test_v1_rollouts_reads_the_padding_flag_and_the_session_keys():
    from rl_advantages.integrations.verl import v1_rollouts

    keys = ["a_0_0", "a_0_1", "b_x_0_0", "b_x_1_0", "pad7_0_0", "weird"]
    tags = [{}, {}, {}, {}, {"is_padding": True}, {}]
    r = v1_rollouts(keys, tags)
    assert r.keep == [1, 2, 3, 5]
    assert r.owner == [0, 0, 1, 2, None, 3]
    assert v1_rollouts(["u_0_0", "v_0_0"], None).identity
