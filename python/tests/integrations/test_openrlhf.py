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


# ---- what real runs produce (fixtures/openrlhf-real.json, made by fixtures/openrlhf_real.py from OpenRLHF 3c3be623's
# own preprocess_data with a ChatML template, and its reinforce returns at gamma 0.9) -------------------------------

import json  # noqa: E402
import os  # noqa: E402

from adapter_support import cli_advantages  # noqa: E402

REAL = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "openrlhf-real.json"), encoding="utf-8"))
REAL_REWARDS = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]


def _question(row):
    q = row["question"]
    return q if isinstance(q, str) else [m for m in q if m["role"] == "user"][-1]["content"]


def _build_dataset(template):
    """The fake PromptDataset over the fixture's rows: chat-templated to exactly the strings OpenRLHF made."""
    from openrlhf.datasets.prompts_dataset import PromptDataset

    made = {json.dumps([{"role": "user", "content": r["question"]}] if isinstance(r["question"], str) else r["question"]): t
            for r, t in zip(REAL["rows"], REAL["chat_templated"])}
    if template == "chat":
        return PromptDataset(REAL["rows"], apply_chat_template=lambda chat, tokenize, add_generation_prompt: made[json.dumps(chat)]).prompts
    return PromptDataset([r for r in REAL["rows"] if isinstance(r["question"], str)], input_template=REAL["input_template"]).prompts


@pytest.fixture(scope="module")
def template_corpus(tmp_path_factory):
    """The questions and lines with the templates' words (a vocabulary in which template text moves GS1)."""
    path = tmp_path_factory.mktemp("tcorpus") / "corpus.jsonl"
    lines = QUESTIONS + ["reason step by step", "question answer", "im_start user im_end", "im_start assistant system"]
    path.write_text("".join(json.dumps({"question": q}) + "\n" for q in lines))
    return str(path)


@pytest.mark.parametrize("template", ["chat", "input_template"])
def test_gs1_reads_the_questions_behind_templated_prompts(fakes_on_path, template_corpus, template):
    from rl_advantages.integrations import openrlhf as adapter

    corpus_file = template_corpus
    server = rl_advantages.Server(corpus=corpus_file)
    adapter.install("tfidf_kernel_loo_T0.1", server=server)
    try:
        prompts = _build_dataset(template)
        assert prompts == (REAL["chat_templated"] if template == "chat" else REAL["input_templated"])  # OpenRLHF's own strings
        questions = [_question(r) for r in REAL["rows"] if template == "chat" or isinstance(r["question"], str)]
        rewards = REAL_REWARDS[: len(prompts)]
        maker = _maker("reinforce", 1)
        maker.strategy.args.data = SimpleNamespace(apply_chat_template=template == "chat", input_template=None if template == "chat" else REAL["input_template"])
        got = _by_index(maker.make_experience_batch(_experiences(rewards, prompts)))
    finally:
        adapter.uninstall()
        server.close()
    want = cli_advantages("tfidf_kernel_loo_T0.1", rewards, questions, corpus_file)
    on_template = cli_advantages("tfidf_kernel_loo_T0.1", rewards, prompts, corpus_file)
    assert np.abs(np.array([float(got[i][0][0]) for i in range(len(rewards))]) - want).max() <= 1e-6
    assert np.abs(on_template - want).max() > 1e-3  # the template text would have moved GS1


def test_a_templated_prompt_without_its_question_is_refused(fakes_on_path, server):
    from rl_advantages.integrations import openrlhf as adapter

    prompts = REAL["chat_templated"]
    adapter.install("tfidf_kernel_loo_T0.1", server=server)
    adapter._questions.clear()  # the dataset was built before install()
    try:
        maker = _maker("reinforce", 1)
        maker.strategy.args.data = SimpleNamespace(apply_chat_template=True, input_template=None)
        with pytest.raises(ValueError, match="before OpenRLHF builds its PromptDataset"):
            maker.make_experience_batch(_experiences(REAL_REWARDS, prompts))
    finally:
        adapter.uninstall()


def test_gamma_is_honoured_as_stock_reinforce_honours_it(fakes_on_path, server):
    """An estimator with A = r (``normalized`` without centre or scale) gives exactly stock ``reinforce``'s returns
    at ``--algo.advantage.gamma 0.9`` with a KL penalty (OpenRLHF's own code, before its whitening)."""
    from openrlhf.trainer.ppo_utils.experience import Experience

    from rl_advantages.integrations import openrlhf as adapter

    case = REAL["reinforce_gamma"]
    experiences = []
    for idx, kl, mask in zip(case["order"], case["kl"], case["action_mask"]):
        experiences.append(Experience(action_mask=torch.tensor(mask), kl=torch.tensor(kl), rewards=torch.tensor([case["rewards"][i] for i in idx]),
                                      index=list(idx), prompts=["q"] * len(idx)))
    adapter.install({"name": "normalized", "centre": "none", "scale": "none"}, server=server)
    try:
        maker = _maker("reinforce", 1, kl_coef=case["kl_coef"])
        maker.strategy.args.algo.advantage.gamma = case["gamma"]
        out = maker.make_experience_batch(experiences)
    finally:
        adapter.uninstall()
    for e, want in zip(out, case["returns"]):
        assert (e.returns - torch.tensor(want)).abs().max().item() <= 1e-6
    assert len({round(v, 6) for v in case["returns"][1][2][:2]}) == 2  # gamma 0.9 really discounts along the tokens
