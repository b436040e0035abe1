"""verl: catalogue estimators as verl advantage estimators named ``rl_adv:<name>``.

Written against verl-project/verl 1dda039b9c6311889a9c9a26040677e1254814f9 (2026-08-22):

- ``verl/trainer/ppo/core_algos.py:116-132`` ``register_adv_est(name)`` puts a function in
  ``ADV_ESTIMATOR_REGISTRY``; ``get_adv_estimator_fn(name)`` (:137-150) looks it up.
- ``verl/trainer/ppo/ray_trainer.py:187-282`` ``compute_advantage(data, adv_estimator, ...)``, on the driver,
  calls a registered estimator (any name but ``gae``/``grpo``) as ``fn(token_level_rewards=..., response_mask=...,
  config=..., index=data.non_tensor_batch["uid"], [reward_baselines=...])`` and stores the returned
  ``(advantages, returns)``, both ``(bs, response_length)``. The trainer calls it by its module name
  (ray_trainer.py:1667).
- ``verl/__init__.py:49-52`` imports every module named in ``VERL_USE_EXTERNAL_MODULES`` (comma-separated).

The registered function gets no text, so :func:`register` also wraps ``ray_trainer.compute_advantage``: for an
``rl_adv:`` estimator it reads the prompt of each rollout from ``data.non_tensor_batch[prompt_key]``
(``raw_prompt``, the chat messages verl's ``RLHFDataset`` keeps, rl_dataset.py:389) and hands it to the
estimator. Group ids are the batch's ``uid`` (one per prompt; verl repeats a prompt ``rollout.n`` times with
the same uid). The outcome reward is ``token_level_rewards.sum(-1)`` as in verl's own outcome estimators
(core_algos.py:306); the per-rollout advantage is broadcast over ``response_mask``; returns = advantages.

Group size 1 in verl today: ``grpo`` (and rloo, opo, gpg, reinforce_plus_plus_baseline) give a lone rollout
mean 0 and std 1 (core_algos.py:315-317), so A = r with no baseline.

Use (script)::

    from rl_advantages.integrations import verl as rl_adv_verl
    rl_adv_verl.register(["tfidf_kernel_loo_T0.1"])        # in the driver process, before training
    # algorithm.adv_estimator='rl_adv:tfidf_kernel_loo_T0.1' actor_rollout_ref.rollout.n=1

Use (no code)::

    export VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl
    export RL_ADV_VERL_ESTIMATORS=tfidf_kernel_loo_T0.1      # comma-separated; RL_ADV_VERL_PROMPT_KEY optional
    export RL_ADV_CORPUS=train.jsonl                         # the TF-IDF vocabulary (or RL_ADV_VECTORIZER)
    python -m verl.trainer.main_ppo 'algorithm.adv_estimator="rl_adv:tfidf_kernel_loo_T0.1"' ...
"""

from __future__ import annotations

import functools
import os
from typing import Any, Iterable, Mapping

from ._common import RolloutBatch, describe_estimator, estimator_name, prompt_text, reads_field, server_from_env, supplied_by_adapters

__all__ = ["PREFIX", "register", "registered_name"]

#: The prefix of every name this module registers.
PREFIX = "rl_adv:"

_state: dict[str, Any] = {"prompts": None, "prompt_key": "raw_prompt"}


def _verl_modules() -> tuple[Any, Any]:
    try:
        from verl.trainer.ppo import core_algos, ray_trainer
    except ImportError as error:
        raise ImportError(f"rl_advantages.integrations.verl needs verl ({error}): pip install verl") from error
    return core_algos, ray_trainer


def registered_name(spec: Any) -> str:
    """``rl_adv:<name>``: the name a spec is registered under (a string spec as written, a wire form by its
    ``rl_advantages.canonical_name`` when the package has it, else its ``name``)."""
    if isinstance(spec, Mapping):
        import rl_advantages

        canonical = getattr(rl_advantages, "canonical_name", None)
        return PREFIX + (canonical(dict(spec)) if canonical is not None else estimator_name(spec))
    return PREFIX + estimator_name(spec)


def _default_specs(server: Any) -> list[str]:
    import rl_advantages

    entries = rl_advantages.catalogue() if server is None else rl_advantages.catalogue(server=server)
    return [str(e["name"]) for e in entries if supplied_by_adapters(e) and not any(p.get("required") for p in e.get("parameters") or [])]


def _make_estimator(spec: Any, server: Any, options: Mapping[str, Any]) -> Any:
    batch = RolloutBatch(spec, server, **dict(options))
    label = registered_name(spec)

    def rl_adv_estimator(token_level_rewards: Any, response_mask: Any, index: Any = None, config: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        """verl's estimator signature (core_algos.py outcome estimators): returns (advantages, returns)."""
        import torch

        with torch.no_grad():
            scores = token_level_rewards.sum(dim=-1)
            raw, key = _state["prompts"], _state["prompt_key"]
            prompts = None
            if reads_field(batch.entry, "prompts") and raw is not None:
                prompts = [prompt_text(p, f"non_tensor_batch[{key!r}][{i}]") for i, p in enumerate(raw)]
            if batch.needs_prompts and prompts is None:
                raise RuntimeError(
                    f"{label} needs each rollout's prompt text: call rl_advantages.integrations.verl.register() in the process "
                    f"that runs ray_trainer.compute_advantage (the driver), and keep non_tensor_batch[{_state['prompt_key']!r}]"
                )
            if prompts is not None and len(prompts) != scores.shape[0]:
                raise RuntimeError(f"{label}: {len(prompts)} prompts for {scores.shape[0]} rollouts")
            group_ids = None if index is None else [str(u) for u in list(index)]
            lengths = response_mask.sum(dim=-1).double().cpu().numpy()
            result = batch.compute(scores.double().cpu().numpy(), group_ids=group_ids, prompts=prompts, lengths=lengths)
            advantages = torch.as_tensor(result.advantages, dtype=token_level_rewards.dtype, device=token_level_rewards.device)
            advantages = advantages.unsqueeze(-1) * response_mask
        return advantages, advantages

    rl_adv_estimator.__name__ = f"rl_adv_{estimator_name(spec)}"
    return rl_adv_estimator


def _wrap_compute_advantage(ray_trainer: Any) -> None:
    original = ray_trainer.compute_advantage
    if getattr(original, "_rl_adv_wrapped", False):
        return

    @functools.wraps(original)
    def compute_advantage(data: Any, adv_estimator: Any, *args: Any, **kwargs: Any) -> Any:
        name = getattr(adv_estimator, "value", adv_estimator)
        if not (isinstance(name, str) and name.startswith(PREFIX)):
            return original(data, adv_estimator, *args, **kwargs)
        _state["prompts"] = data.non_tensor_batch.get(_state["prompt_key"]) if hasattr(data.non_tensor_batch, "get") else None
        try:
            return original(data, adv_estimator, *args, **kwargs)
        finally:
            _state["prompts"] = None

    compute_advantage._rl_adv_wrapped = True  # type: ignore[attr-defined]
    ray_trainer.compute_advantage = compute_advantage


def register(
    estimators: Iterable[Any] | None = None,
    *,
    prompt_key: str = "raw_prompt",
    server: Any = None,
    options: Mapping[str, Any] | None = None,
) -> list[str]:
    """Register catalogue estimators with verl as ``rl_adv:<name>`` and route prompt text to them.

    Args:
        estimators: specs (catalogue names such as ``tfidf_kernel_loo_T0.1`` or wire forms); default: every
            catalogue estimator that needs no parameter and no field verl's batch lacks (``features``,
            ``greedy_rewards``, a kernel file).
        prompt_key: the ``non_tensor_batch`` field holding each rollout's prompt (a string or chat messages).
        server: the ``rl_advantages.Server`` to call; the process's default server if None.
        options: request options for every estimator (``normalize``, ...).

    Returns:
        The registered names, e.g. ``["rl_adv:tfidf_kernel_loo_T0.1"]``. Registering a name again is a no-op.

    Raises:
        ImportError: verl is not installed. RlAdvantagesError: a spec is not in the catalogue.
    """
    core_algos, ray_trainer = _verl_modules()
    specs = list(estimators) if estimators is not None else _default_specs(server)
    names = []
    for spec in specs:
        describe_estimator(spec, server)  # an unknown name fails here, not at the first step
        name = registered_name(spec)
        if name not in core_algos.ADV_ESTIMATOR_REGISTRY:
            core_algos.register_adv_est(name)(_make_estimator(spec, server, options or {}))
        names.append(name)
    _state["prompt_key"] = prompt_key
    _wrap_compute_advantage(ray_trainer)
    return names


def _register_from_env() -> None:
    """``VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl``: register what ``RL_ADV_VERL_ESTIMATORS`` names."""
    wanted = os.environ.get("RL_ADV_VERL_ESTIMATORS", "").strip()
    if wanted:
        register(
            [w.strip() for w in wanted.split(",") if w.strip()],
            prompt_key=os.environ.get("RL_ADV_VERL_PROMPT_KEY", "raw_prompt"),
            server=server_from_env(),
        )


_register_from_env()
