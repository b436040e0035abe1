"""OpenRLHF: a replacement for ``RemoteExperienceMaker.compute_advantages_and_returns`` using a catalogue estimator.

Written against OpenRLHF/OpenRLHF 3c3be6234e0cb353e76bb8019947db9dfe99fca7 (2026-08-13):

- ``openrlhf/trainer/ppo_utils/experience_maker.py:238-328`` ``compute_advantages_and_returns(self, experiences)``
  is called once per rollout batch by ``make_experience_batch`` (:95). It applies the length penalties, puts the
  rewards back in prompt order (``experience.index``), subtracts a per-prompt baseline (rows of
  ``rollout.n_samples_per_prompt``), then per experience shapes the token rewards with ``compute_reward``
  (KL, clipping) and, for the REINFORCE family, ``returns = get_cumulative_returns(...)``, ``advantages =
  returns``. The maker lives inside the ``PPOTrainer`` Ray actor (ppo_trainer.py:178, :445-446).
- ``openrlhf/trainer/ppo_utils/experience.py:57-65`` each ``Experience`` carries ``rewards`` (B,), ``index`` and
  ``prompts`` (the prompt text of each sample).

The replacement keeps every step but the baseline: the per-prompt baseline is replaced by the estimator's
advantage on the whole batch (group ids ``position // n_samples_per_prompt``), and the batch-wide whitening of
``reinforce``/``reinforce_baseline`` is not applied (the estimator's advantages are final). Run with
``--algo.advantage.estimator reinforce`` (no critic).

Prompts: the question as the dataset gives it. ``experience.prompts`` holds the string ``PromptDataset`` made
(samples_generator.py:304): with ``--data.apply_chat_template`` the chat-templated text, with
``--data.input_template`` the formatted one (prompts_dataset.py:26-45, applied at :85). :func:`install` wraps
``openrlhf.datasets.prompts_dataset.preprocess_data`` (looked up by name at :85) to remember, for each string it
makes, the row's ``data[input_key]``: a string as is, a chat its last user message. Without a template the prompt
is that field already. A templated prompt the wrap did not see (the dataset built before :func:`install`) is an
error naming the remedy.

``--algo.advantage.gamma`` is honoured as stock ``reinforce`` honours it (experience_maker.py:302-306): the
returns discount the shaped token rewards (the estimator's advantage on the last token, the KL penalty on every
token) by ``gamma``. (Stock OpenRLHF resets it to 1.0 only for ``rloo``/``reinforce_baseline``/``group_norm``/
``dr_grpo``, :293-300.) ``gae`` is refused.

Group size 1 in OpenRLHF today: ``rloo``, ``reinforce_baseline``, ``group_norm`` and ``dr_grpo`` are refused
with ``n_samples_per_prompt == 1`` (cli/train_ppo_ray.py:612-615); ``rloo``'s baseline divides by ``n - 1``
(experience_maker.py:265); ``reinforce`` has no baseline at all.

Installing it inside the Ray actor: the actor is another process, so the patch must run there. Ray runs
``runtime_env["worker_process_setup_hook"]`` in every worker at start-up; :func:`install_from_env` is such a
hook::

    import ray
    ray.init(runtime_env={
        "worker_process_setup_hook": "rl_advantages.integrations.openrlhf.install_from_env",
        "env_vars": {"RL_ADV_ESTIMATOR": "tfidf_kernel_loo_T0.1", "RL_ADV_CORPUS": "/data/train.jsonl"},
    })
    from openrlhf.cli.train_ppo_ray import train   # train() keeps an initialised Ray (train_ppo_ray.py:21)
    train(args)   # args with --algo.advantage.estimator reinforce --rollout.n_samples_per_prompt 1
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping

from ._common import RolloutBatch, prompt_text, reads_field, server_from_env, spec_from_env

__all__ = ["install", "install_from_env", "make_compute_advantages_and_returns", "question_of", "uninstall"]

_ORIGINAL: dict[str, Any] = {}

#: templated prompt string -> the question it was made from (see :func:`question_of`).
_questions: dict[str, str] = {}


def _wrap_preprocess_data() -> None:
    """Remember the question behind every prompt string ``PromptDataset`` makes (prompts_dataset.py:26-45, :85)."""
    try:
        from openrlhf.datasets import prompts_dataset
    except ImportError:
        return
    original = prompts_dataset.preprocess_data
    if getattr(original, "_rl_adv_wrapped", False):
        return

    def preprocess_data(data: Any, input_template: Any = None, input_key: str = "input", label_key: Any = None, apply_chat_template: Any = None) -> Any:
        out = original(data, input_template, input_key, label_key, apply_chat_template)
        prompt = out[0] if isinstance(out, tuple) else out
        if isinstance(prompt, str):
            try:
                _questions[prompt] = prompt_text(data[input_key], f"dataset field {input_key!r}")
            except Exception:  # a row our text reader cannot read: an estimator that needs it says so later
                pass
        return out

    preprocess_data._rl_adv_wrapped = True  # type: ignore[attr-defined]
    _ORIGINAL.setdefault("preprocess_data", original)
    prompts_dataset.preprocess_data = preprocess_data


def question_of(prompt: Any, args: Any, i: int) -> str:
    """The question behind ``experience.prompts`` entry ``prompt``: the dataset field it was templated from, or the
    prompt itself when no template is on (``--data.apply_chat_template`` / ``--data.input_template`` unset).

    Raises:
        ValueError: a template is on and the prompt was not made by the wrapped ``preprocess_data``.
    """
    if isinstance(prompt, str) and prompt in _questions:
        return _questions[prompt]
    data = getattr(args, "data", None)
    if getattr(data, "apply_chat_template", False) or getattr(data, "input_template", None):
        raise ValueError(
            f"experience prompt {i} was templated by OpenRLHF (--data.apply_chat_template / --data.input_template) and its question "
            "is unknown: call rl_advantages.integrations.openrlhf.install() (or its Ray setup hook install_from_env) before "
            "OpenRLHF builds its PromptDataset, so the dataset's questions are recorded"
        )
    return prompt_text(prompt, f"experience prompt {i}")


def _modules() -> tuple[Any, Any, Any]:
    try:
        from openrlhf.models.utils import compute_reward
        from openrlhf.trainer.ppo_utils import experience_maker
        from openrlhf.trainer.ppo_utils.length_penalty import apply_length_penalties
    except ImportError as error:
        raise ImportError(f"rl_advantages.integrations.openrlhf needs OpenRLHF ({error}): pip install openrlhf") from error
    return experience_maker, compute_reward, apply_length_penalties


def make_compute_advantages_and_returns(estimator: Any, server: Any = None, lazy: bool = False, **options: Any) -> Any:
    """The replacement method: ``compute_advantages_and_returns(self, experiences) -> experiences``.

    ``lazy``: look the estimator up (and start the server) at the first call, not now.

    Raises:
        RlAdvantagesError: the estimator is not in the catalogue, or needs groups at ``n_samples_per_prompt == 1``.
    """
    batch = RolloutBatch(estimator, server, lazy=lazy, **options)
    _, compute_reward, apply_length_penalties = _modules()

    def compute_advantages_and_returns(self: Any, experiences: list[Any]) -> list[Any]:
        import torch

        with torch.no_grad():
            args = self.strategy.args
            if args.algo.advantage.estimator == "gae":
                raise ValueError("rl_advantages replaces the REINFORCE-family path: run with --algo.advantage.estimator reinforce, not gae")
            apply_length_penalties(experiences, args)
            n = int(args.rollout.n_samples_per_prompt)
            if n == 1 and batch.needs_groups:
                raise ValueError(f"{batch.entry['name']} needs groups: with --rollout.n_samples_per_prompt 1 use an estimator that does not")
            exp_len = [len(e.index) for e in experiences]
            indices = torch.tensor(list(itertools.chain.from_iterable(e.index for e in experiences)))
            raw = torch.cat([e.rewards for e in experiences], dim=0)
            rewards = torch.empty_like(raw)
            rewards[indices] = raw  # prompt order, as the stock method
            prompts: list[Any] | None = None
            if reads_field(batch.entry, "prompts"):
                prompts = [None] * len(raw)
                texts = list(itertools.chain.from_iterable(e.prompts for e in experiences))
                if len(texts) != len(raw):
                    raise ValueError(f"{batch.entry['name']} needs each sample's prompt: the experiences carry {len(texts)} prompts for {len(raw)} samples")
                for i, p in zip(indices.tolist(), texts):
                    prompts[i] = question_of(p, args, i)
            if n > 1:
                stds = rewards.reshape(-1, n).std(-1, keepdim=True).repeat(1, n).reshape(-1)[indices].split(exp_len)
                for e, s in zip(experiences, stds):
                    e.info["group_reward_std"] = s
            lengths = torch.empty_like(raw, dtype=torch.float64)
            lengths[indices] = torch.cat([e.action_mask.sum(dim=-1) for e in experiences]).double()
            result = batch.compute(rewards.double().cpu().numpy(), group_ids=[i // n for i in range(len(raw))], prompts=prompts, lengths=lengths.cpu().numpy())
            shaped = torch.as_tensor(result.advantages, dtype=raw.dtype, device=raw.device)[indices].split(exp_len)
            for e, a in zip(experiences, shaped):
                reward = compute_reward(a, self.kl_ctl.value, e.kl, action_mask=e.action_mask, reward_clip_range=args.reward.clip_range)
                e.returns = self.get_cumulative_returns(reward, e.action_mask, float(args.algo.advantage.gamma))
                e.advantages = e.returns.clone()
                e.info["return"] = reward.sum(dim=-1)
                e.kl = None
            self.last_advantage_result = result
        return experiences

    return compute_advantages_and_returns


def install(estimator: Any, server: Any = None, lazy: bool = False, **options: Any) -> None:
    """Replace ``RemoteExperienceMaker.compute_advantages_and_returns`` in this process (call it in the actor, before
    OpenRLHF builds its datasets) and record the questions behind templated prompts."""
    experience_maker, _, _ = _modules()
    cls = experience_maker.RemoteExperienceMaker
    _ORIGINAL.setdefault("method", cls.compute_advantages_and_returns)
    cls.compute_advantages_and_returns = make_compute_advantages_and_returns(estimator, server, lazy=lazy, **options)
    _wrap_preprocess_data()


def uninstall() -> None:
    """Put OpenRLHF's own method (and ``preprocess_data``) back."""
    if "method" in _ORIGINAL:
        experience_maker, _, _ = _modules()
        experience_maker.RemoteExperienceMaker.compute_advantages_and_returns = _ORIGINAL.pop("method")
    if "preprocess_data" in _ORIGINAL:
        from openrlhf.datasets import prompts_dataset

        prompts_dataset.preprocess_data = _ORIGINAL.pop("preprocess_data")


def install_from_env(options: Mapping[str, Any] | None = None) -> None:
    """A Ray ``worker_process_setup_hook``: :func:`install` with the estimator in ``RL_ADV_ESTIMATOR`` (a name or
    its JSON form) and the server of ``RL_ADV_CORPUS`` / ``RL_ADV_VECTORIZER``, started at the first advantage step
    (Ray runs the hook in every worker; only the ``PPOTrainer`` actor computes advantages). Workers without OpenRLHF
    (none in a normal run) are left alone."""
    try:
        _modules()
    except ImportError:
        return
    install(spec_from_env("RL_ADV_ESTIMATOR"), server_from_env(), lazy=True, **dict(options or {}))  # no server until the first step
