"""The slime adapter against a fake of THUDM/slime 624b824a (tests/integrations/fakes/slime): the
``--custom-reward-post-process-path`` function is loaded and called as ``func(args, samples)`` returning
``(raw_rewards, rewards)`` (slime/ray/rollout.py:388-390, :608-630) over ``Sample`` objects (utils/types.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
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


# ---- against slime 624b824a's own _post_process_rewards (fixtures/slime-real.json, made by fixtures/slime_real.py) --

import json  # noqa: E402
import os  # noqa: E402

REAL = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "slime-real.json"), encoding="utf-8"))
#: The ChatML template fixtures/openrlhf_real.py templated with (a Qwen-style chat template).
REAL_CHATML = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "openrlhf-real.json"), encoding="utf-8"))["chat_template"]


def test_stock_slime_at_one_sample_gives_zero_not_nan_and_group_std_matches_at_four(server):
    """slime turns std normalisation off at --n-samples-per-prompt 1 (arguments.py:1981-1983), so stock advantages
    are all 0 there (no NaN); at n = 4 with its default std normalisation the catalogue's verl_grpo equals slime's."""
    from rl_advantages.integrations import slime as adapter

    assert REAL["cases"]["n1_default"]["rewards"] == [0.0] * 8
    assert REAL["cases"]["n1_std_forced"]["rewards"] == [None] * 8  # NaN only if std normalisation is forced on
    post = adapter.make_post_process_rewards("verl_grpo", server=server)
    args = SimpleNamespace(advantage_estimator="grpo", custom_advantage_function_path=None, normalize_advantages=False)
    samples = [SimpleNamespace(get_reward_value=lambda a, r=r: r, group_index=i // 4, index=i, prompt="q") for i, r in enumerate(REAL["rewards"])]
    _, ours = post(args, samples)
    assert max(abs(a - b) for a, b in zip(ours, REAL["cases"]["n4_default"]["rewards"])) <= 2e-6  # slime computes in float32


@pytest.mark.parametrize(
    "setting,flag",
    [({"advantage_estimator": "ppo"}, "--advantage-estimator"), ({"advantage_estimator": "reinforce_plus_plus"}, "--advantage-estimator"),
     ({"custom_advantage_function_path": "my.adv"}, "--custom-advantage-function-path"), ({"normalize_advantages": True}, "--normalize-advantages")],
)
def test_settings_that_would_change_the_advantages_are_refused(server, setting, flag):
    from rl_advantages.integrations import slime as adapter

    args = SimpleNamespace(**{"advantage_estimator": "grpo", "custom_advantage_function_path": None, "normalize_advantages": False, **setting})
    post = adapter.make_post_process_rewards("group_mean", server=server)
    with pytest.raises(ValueError, match=flag):
        post(args, [SimpleNamespace(get_reward_value=lambda a: 1.0, group_index=0, index=0, prompt="q")])


def test_gs1_reads_the_questions_behind_slimes_chat_template(fakes_on_path, tmp_path):
    """--apply-chat-template: sample.prompt is the templated string (data.py:248-258); the adapter redoes slime's
    templating of --prompt-data (a tiny tokenizer with a ChatML template, transformers' apply_chat_template) and
    GS1 runs on the questions, not on the template text."""
    transformers = pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models

    from slime.utils import processing_utils
    from slime.utils.data import _build_messages

    from adapter_support import cli_advantages
    from rl_advantages.integrations import slime as adapter

    chatml = REAL_CHATML
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"<unk>": 0}, unk_token="<unk>")), unk_token="<unk>")
    tok.chat_template = chatml
    processing_utils.TOKENIZERS["tiny"] = tok
    rows = [{"question": q} if i % 2 else {"question": [{"role": "system", "content": "Reason step by step."}, {"role": "user", "content": q}]}
            for i, q in enumerate(QUESTIONS)]
    data = tmp_path / "train.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"question": q}) + "\n" for q in QUESTIONS + ["reason step by step", "im_start user im_end assistant system"]))
    prompts = [tok.apply_chat_template(_build_messages(r, "question", True), tokenize=False, add_generation_prompt=True) for r in rows]
    rewards = [1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    args = SimpleNamespace(advantage_estimator="grpo", custom_advantage_function_path=None, normalize_advantages=False, apply_chat_template=True,
                           prompt_data=str(data), hf_checkpoint="tiny", input_key="question", tool_key=None, apply_chat_template_kwargs=None)
    samples = [SimpleNamespace(get_reward_value=lambda a, r=r: r, group_index=i, index=i, prompt=p) for i, (r, p) in enumerate(zip(rewards, prompts))]
    with rl_advantages.Server(corpus=str(corpus)) as server:
        _, ours = adapter.make_post_process_rewards("tfidf_kernel_loo_T0.1", server=server)(args, samples)
    want = cli_advantages("tfidf_kernel_loo_T0.1", rewards, QUESTIONS, str(corpus))
    assert max(abs(a - b) for a, b in zip(ours, want)) <= 1e-12
    assert np.abs(cli_advantages("tfidf_kernel_loo_T0.1", rewards, prompts, str(corpus)) - want).max() > 1e-3
    samples[0].prompt = "<|im_start|>user\nnot in the data<|im_end|>\n"
    with pytest.raises(ValueError, match="--apply-chat-template"):
        adapter.make_post_process_rewards("tfidf_kernel_loo_T0.1", server=server)(args, samples)
