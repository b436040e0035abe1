"""What the adapters share: the catalogue lookup, prompt text, and the batch call's checks."""

from __future__ import annotations

import numpy as np
import pytest

import rl_advantages
from adapter_support import QUESTIONS
from rl_advantages.integrations._common import RolloutBatch, describe_estimator, prompt_text, spec_from_env


def test_describe_by_name_short_form_and_wire_form(server):
    assert describe_estimator("group_mean", server)["name"] == "group_mean"
    assert describe_estimator("tfidf_kernel_loo_T0.1", server)["name"] == "tfidf_kernel_loo"
    assert describe_estimator({"name": "tfidf_kernel_loo", "temperature": 0.1}, server)["name"] == "tfidf_kernel_loo"
    for bad in ("no_such_estimator", "tfidf_kernel_loo_T", ""):
        with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
            describe_estimator(bad, server)
        assert caught.value.field == "estimator"


def test_prompt_text():
    assert prompt_text("plain") == "plain"
    chat = [{"role": "system", "content": "s"}, {"role": "user", "content": "first"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "last"}]
    assert prompt_text(chat) == "last"
    assert prompt_text([{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]) == "a\nb"
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        prompt_text([{"role": "system", "content": "no user turn"}], "row 3")
    assert caught.value.field == "prompts" and "row 3" in str(caught.value)


def test_spec_from_env(monkeypatch):
    monkeypatch.setenv("RL_ADV_X", ' {"name": "tfidf_kernel_loo", "temperature": 0.1} ')
    assert spec_from_env("RL_ADV_X") == {"name": "tfidf_kernel_loo", "temperature": 0.1}
    monkeypatch.setenv("RL_ADV_X", "group_mean")
    assert spec_from_env("RL_ADV_X") == "group_mean"
    monkeypatch.setenv("RL_ADV_X", "{broken")
    with pytest.raises(rl_advantages.RlAdvantagesError):
        spec_from_env("RL_ADV_X")


def test_batch_sends_only_what_the_estimator_reads_and_masks_nan(server):
    grouped = RolloutBatch("group_mean", server)
    assert grouped.needs_groups and not grouped.needs_prompts
    out = grouped.compute([1.0, 0.0, 0.0, 1.0], group_ids=[0, 0, 1, 1], prompts=QUESTIONS[:4])  # prompts not sent
    assert out.advantages.tolist() == [0.5, -0.5, -0.5, 0.5]
    kernel = RolloutBatch("tfidf_kernel_loo_T0.1", server)
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        kernel.compute([1.0, 0.0], group_ids=[0, 1])
    assert caught.value.field == "prompts"
    with pytest.raises(rl_advantages.RlAdvantagesError) as caught:
        grouped.compute([1.0, float("nan")], group_ids=[0, 0])
    assert (caught.value.field, caught.value.index) == ("rewards", 1)
    masked = grouped.compute(np.array([1.0, float("nan"), 0.0]), group_ids=[0, 0, 0], mask=[False, True, False])
    assert masked.advantages.tolist() == [0.5, 0.0, -0.5]


@pytest.mark.parametrize(
    ("module", "blocked", "call", "hint"),
    [
        ("rl_advantages.integrations.trl", "trl", "", "pip install trl"),
        ("rl_advantages.integrations.verl", "verl", "m.register(['group_mean'])", "pip install verl"),
        ("rl_advantages.integrations.openrlhf", "openrlhf", "m.install('group_mean')", "pip install openrlhf"),
        ("rl_advantages.integrations.skyrl", "skyrl", "m.register(['group_mean'])", "pip install skyrl"),
    ],
)
def test_a_missing_framework_says_how_to_install_it(module, blocked, call, hint):
    """Importing rl_advantages.integrations imports no framework; the adapter that needs one says what to install."""
    import subprocess
    import sys

    code = f"import sys\nsys.modules[{blocked!r}] = None\nimport rl_advantages.integrations\nimport importlib\nm = importlib.import_module({module!r})\n{call}\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "ImportError" in out.stderr and hint in out.stderr


def test_lazy_adapters_start_no_server_until_the_first_advantage_step(fakes_on_path, corpus_file, monkeypatch):
    """verl's environment route and OpenRLHF's setup hook run in every process of a run: no server (no TF-IDF fit)
    starts there until the process computes advantages."""
    import torch

    from rl_advantages.integrations import _common, openrlhf, verl

    monkeypatch.setenv("RL_ADV_CORPUS", corpus_file)
    monkeypatch.setenv("RL_ADV_ESTIMATOR", "tfidf_kernel_loo_T0.1")
    monkeypatch.setattr(_common, "_env_server", {})
    server = _common.server_from_env()
    verl.register(["loo_batch_mean"], server=server, lazy=True)
    openrlhf.install_from_env()
    try:
        assert not server.running
        from verl.trainer.ppo import core_algos

        fn = core_algos.get_adv_estimator_fn("rl_adv:loo_batch_mean")
        fn(token_level_rewards=torch.tensor([[1.0], [0.0], [1.0]]), response_mask=torch.ones(3, 1), index=["a", "b", "c"])
        assert server.running
    finally:
        openrlhf.uninstall()
        server.close()
