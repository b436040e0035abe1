"""SkyRL: catalogue estimators as SkyRL advantage estimators named ``rl_adv:<name>``.

Written against NovaSky-AI/SkyRL a9564572eb8e91076be43c1bd5e4615e3de17265 (2026-08-21):

- ``skyrl/backends/skyrl_train/utils/ppo_utils.py:518-529`` ``register_advantage_estimator(name)`` /
  ``AdvantageEstimatorRegistry.register(name, func)`` (:286-321; a name registered twice is an error; with Ray
  up the function is cloudpickled to a named registry actor, so it must pickle).
- ``ppo_utils.py:1436-1460`` ``compute_advantages_and_returns`` calls the estimator as ``func(token_level_rewards=,
  response_mask=, index=, values=, grpo_norm_by_std=, gamma=, lambd=, config=)`` and expects
  ``(advantages, returns)``; ``index`` is the batch's ``metadata["uids"]`` (skyrl/train/trainer.py:1182-1192).
- ``skyrl/train/generators/utils.py:511-560`` ``prepare_generator_input(prompts, n_samples_per_prompt, ...)`` gives
  each prompt row's ``"uid"`` to its ``n`` samples; ``skyrl/train/trainer.py:347`` calls it by its module name.
- ``skyrl/train/utils/utils.py:347-351`` ``validate_cfg`` refuses an estimator name that is not registered.

The estimator gets no text, so :func:`register` also wraps ``skyrl.train.trainer.prepare_generator_input`` to
remember each uid's prompt (the row's ``"prompt"``: chat messages, the last user turn is used). Group ids are
the uids. The outcome reward is ``token_level_rewards.sum(-1)`` (SkyRL's own outcome estimators,
ppo_utils.py:1368); the advantage is broadcast over ``response_mask``; returns = advantages. Response lengths
(for ``opo``, ``reinforce_plus_plus_baseline``) are ``response_mask.sum(-1)``, which in step-wise training is the
all-ones mask SkyRL passes (trainer.py:1160-1170), not the true length.

Group size 1 in SkyRL today: ``grpo`` gives a lone rollout mean 0 and std 1 (ppo_utils.py:1378-1380): A = r.

Use: call :func:`register` in the driver (before ``validate_cfg``) and again inside the Ray entrypoint that
runs the trainer (before ``exp.run()``), so the prompt capture is installed in the trainer's process::

    from rl_advantages.integrations import skyrl as rl_adv_skyrl
    rl_adv_skyrl.register(["tfidf_kernel_loo_T0.1"])
    # trainer.algorithm.advantage_estimator="rl_adv:tfidf_kernel_loo_T0.1" generator.n_samples_per_prompt=1
"""

from __future__ import annotations

import functools
from typing import Any, Iterable, Mapping

from ._common import RolloutBatch, describe_estimator, estimator_name, prompt_text

__all__ = ["PREFIX", "SkyRLEstimator", "register", "uid_prompts"]

PREFIX = "rl_adv:"

#: uid -> prompt (text or chat messages) of the prompts the trainer prepared last (this process).
uid_prompts: dict[str, Any] = {}

#: The server the estimators of this process call (set by :func:`register`; None: the default server).
_process: dict[str, Any] = {"server": None}


def _modules() -> tuple[Any, Any]:
    try:
        from skyrl.backends.skyrl_train.utils import ppo_utils
        from skyrl.train import trainer as trainer_module
    except ImportError as error:
        raise ImportError(f"rl_advantages.integrations.skyrl needs SkyRL ({error}): pip install skyrl") from error
    return ppo_utils, trainer_module


class SkyRLEstimator:
    """A registered estimator: picklable (spec and options only); the server is the one :func:`register` was
    given in this process, else the process's default server.

    Call signature: SkyRL's (``token_level_rewards, response_mask, index, **kwargs``) -> ``(advantages, returns)``.
    """

    def __init__(self, spec: Any, options: Mapping[str, Any] | None = None):
        self.spec = spec
        self.options = dict(options or {})
        self._batch: RolloutBatch | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "options": self.options, "_batch": None}

    def __call__(self, token_level_rewards: Any, response_mask: Any, index: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        import torch

        if self._batch is None:
            self._batch = RolloutBatch(self.spec, _process["server"], **self.options)
        batch = self._batch
        with torch.no_grad():
            scores = token_level_rewards.sum(dim=-1)
            uids = None if index is None else [str(u) for u in list(index)]
            prompts = None
            if batch.needs_prompts:
                missing = [u for u in (uids or []) if u not in uid_prompts]
                if uids is None or missing:
                    raise RuntimeError(
                        f"{PREFIX}{estimator_name(self.spec)} needs each rollout's prompt text, and uid {missing[:1] or [None]} has none: "
                        "call rl_advantages.integrations.skyrl.register() in the process that runs the trainer"
                    )
                prompts = [prompt_text(uid_prompts[u], f"the prompt of uid {u!r}") for u in uids]
            lengths = response_mask.sum(dim=-1).double().cpu().numpy()
            result = batch.compute(scores.double().cpu().numpy(), group_ids=uids, prompts=prompts, lengths=lengths)
            advantages = torch.as_tensor(result.advantages, dtype=token_level_rewards.dtype, device=token_level_rewards.device)
            advantages = advantages.unsqueeze(-1) * response_mask
        return advantages, advantages


def _wrap_prepare_generator_input(trainer_module: Any) -> None:
    original = trainer_module.prepare_generator_input
    if getattr(original, "_rl_adv_wrapped", False):
        return

    @functools.wraps(original)
    def prepare_generator_input(prompts: list[Any], *args: Any, **kwargs: Any) -> Any:
        out = original(prompts, *args, **kwargs)
        uid_prompts.clear()
        for row in prompts:
            uid_prompts[str(row["uid"])] = row["prompt"]
        return out

    prepare_generator_input._rl_adv_wrapped = True  # type: ignore[attr-defined]
    trainer_module.prepare_generator_input = prepare_generator_input


def register(estimators: Iterable[Any], *, server: Any = None, options: Mapping[str, Any] | None = None) -> list[str]:
    """Register catalogue estimators with SkyRL as ``rl_adv:<name>`` and capture prompt text by uid.

    Args:
        estimators: specs (catalogue names such as ``tfidf_kernel_loo_T0.1``, or wire forms).
        server: the ``rl_advantages.Server`` the estimators call in this process (e.g. one started with a
            TF-IDF corpus); the process's default server if None.
        options: request options for every estimator.

    Returns:
        The registered names. A name already registered is left as it is.

    Raises:
        ImportError: SkyRL is not installed. RlAdvantagesError: a spec is not in the catalogue.
    """
    ppo_utils, trainer_module = _modules()
    _process["server"] = server
    registry = ppo_utils.AdvantageEstimatorRegistry
    available = set(registry.list_available())
    names = []
    for spec in estimators:
        describe_estimator(spec, server)
        name = PREFIX + estimator_name(spec)
        if name not in available:
            ppo_utils.register_advantage_estimator(name)(SkyRLEstimator(spec, options))
        names.append(name)
    _wrap_prepare_generator_input(trainer_module)
    return names
