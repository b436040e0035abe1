"""The tinker-cookbook hook's package side: its default client (``rl_advantages.compute_advantages``) and the
catalogue deciding what a request carries. The hook inside a fake cookbook is tested by the drivers' suite
(examples/tinker-cookbook/tests/test_advantages.py)."""

from __future__ import annotations

import json

import numpy as np

import rl_advantages
from adapter_support import QUESTIONS
from rl_advantages.integrations.tinker_cookbook import AdvantageHook, PackageClient, QuestionResolver, step_log_line


class Recorder:
    def __init__(self, inner):
        self.inner = inner
        self.calls = []

    def compute(self, estimator, rewards, prompts=None, group_ids=None):
        self.calls.append({"prompts": prompts, "group_ids": group_ids})
        return self.inner.compute(estimator, rewards, prompts=prompts, group_ids=group_ids)


def _stock(groups):
    raise AssertionError("the served path never calls the stock function")


def test_package_client_returns_what_compute_advantages_gives(server):
    rewards = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    served = PackageClient(server).compute("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS)
    direct = rl_advantages.compute_advantages("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS, server=server)
    assert served.advantages == direct.advantages.tolist()
    assert served.baselines == direct.baselines.tolist()
    assert served.loo_mean == direct.loo_mean.tolist()
    assert served.max_self_weight == direct.max_self_weight == 0.0


def test_the_catalogue_decides_group_ids_or_prompts(server, tmp_path):
    rewards = [1.0, 0.0, 0.0, 1.0]
    groups = [0, 0, 1, 1]
    for estimator, expect_groups in (("group_mean", True), ("tfidf_kernel_loo_T0.1", False)):
        client = Recorder(PackageClient(server))
        hook = AdvantageHook("arm", estimator, str(tmp_path / "a.jsonl"), _stock, client=client, resolver=QuestionResolver(), force_served=True)
        out = hook.compute_for(QUESTIONS[:4], rewards, groups)
        call = client.calls[0]
        assert (call["group_ids"] is not None) == expect_groups
        assert (call["prompts"] is not None) == (not expect_groups)
        if estimator == "group_mean":
            assert out.advantages == [0.5, -0.5, -0.5, 0.5]


def test_the_log_line_of_a_served_batch(server):
    rewards = [1.0, 0.0, 1.0, 0.0]
    served = PackageClient(server).compute("tfidf_kernel_loo_T0.1", rewards, prompts=QUESTIONS[:4])
    line = step_log_line("gs1", 0, "tfidf_kernel_loo_T0.1", [1, 1, 1, 1], rewards, served.baselines, served.loo_mean, served.advantages, served.max_self_weight)
    json.dumps(line, allow_nan=False)
    assert line["group_size"] == 1 and line["diagnostics"]["groups_of_one"] == 4
    assert np.allclose(line["advantages"], np.array(rewards) - np.array(served.baselines), atol=0, rtol=0)
