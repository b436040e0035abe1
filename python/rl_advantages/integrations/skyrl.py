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

The estimator gets no text, so :func:`register` also wraps ``prepare_generator_input`` where the trainers bind it
(``skyrl.train.trainer``, and ``skyrl.train.fully_async_trainer``, whose ``FullyAsyncRayPPOTrainer`` imports it by
name, fully_async_trainer.py:41 and calls it at :897; wrapped when that module loads) to remember each uid's prompt:
the row's ``"prompt"`` (generators/utils.py:533; chat messages give the last user turn). Prompts are kept across
rounds (dynamic sampling prepares several per step, trainer.py:347-377; the async trainer prepares ahead), the
latest ``MAX_PROMPTS`` uids. Group ids are the uids. The outcome reward is ``token_level_rewards.sum(-1)`` (SkyRL's own
outcome estimators, ppo_utils.py:1368); the advantage is broadcast over ``response_mask``; returns = advantages.
Response lengths (for ``opo``, ``reinforce_plus_plus_baseline``) are ``response_mask.sum(-1)``, which in step-wise
training is the all-ones mask SkyRL passes (trainer.py:1160-1170), not the true length.

Padding: before the advantage step the trainer pads the batch to a multiple of the data-parallel size
(trainer.py:974-978, ``pad_training_input_batch``, training_batch.py:504-570) with rows copying row 0 (its reward
and response mask included), a zero ``loss_mask``, uids ``pad0``, ``pad1``, ... and ``metadata["pad_size"]``. The
adapter wraps ``RayPPOTrainer.compute_advantages_and_returns`` (trainer.py:1124; the async trainers inherit it) to
read ``pad_size``: the last ``pad_size`` rows get advantage 0 and enter no estimator's statistics. Called outside
that method, the trailing rows named ``pad0``, ``pad1``, ... with no recorded prompt are taken as the padding.

SkyRL settings that reach the estimator (checked): ``gamma`` and ``lambd`` are GAE's and REINFORCE++'s and
``grpo_norm_by_std`` is SkyRL's ``grpo``'s (ppo_utils.py:1343-1393, :1436-1460); SkyRL's other outcome estimators
ignore them as a catalogue estimator does (its own ``normalize`` option, given in ``options``, decides).
``advantage_batch_normalize`` is applied by SkyRL after the estimator, as for its own. ``zero_variance_filter``
zeroes the loss mask of zero-variance groups of more than one rollout (trainer_utils.py:629-669) before this step:
those rows still reach the estimator, as they reach SkyRL's GRPO; groups of one are never filtered.

Group size 1 in SkyRL today: ``grpo`` gives a lone rollout mean 0 and std 1 (ppo_utils.py:1378-1380): A = r.

Use: call :func:`register` in the driver (before ``validate_cfg``) and again inside the Ray entrypoint that
runs the trainer (before ``exp.run()``), so the prompt capture is installed in the trainer's process::

    from rl_advantages.integrations import skyrl as rl_adv_skyrl
    rl_adv_skyrl.register(["tfidf_kernel_loo_T0.1"])
    # trainer.algorithm.advantage_estimator="rl_adv:tfidf_kernel_loo_T0.1" generator.n_samples_per_prompt=1
"""

from __future__ import annotations

import contextvars
import functools
import re
from collections import OrderedDict
from typing import Any, Iterable, Mapping

from ._common import RolloutBatch, describe_estimator, estimator_name, prompt_text
from ._verl_hooks import after_import

__all__ = ["MAX_PROMPTS", "PREFIX", "SkyRLEstimator", "register", "uid_prompts"]

PREFIX = "rl_adv:"

#: The most uids whose prompts are kept (the least recently prepared go first).
MAX_PROMPTS = 1 << 16

#: uid -> prompt (text or chat messages) of the prompts the trainer prepared, the latest last.
uid_prompts: "OrderedDict[str, Any]" = OrderedDict()

#: The server the estimators of this process call (set by :func:`register`; None: the default server).
_process: dict[str, Any] = {"server": None}

#: ``metadata["pad_size"]`` of the batch in the current advantage step (None outside it).
_pad_size: contextvars.ContextVar[int | None] = contextvars.ContextVar("rl_adv_skyrl_pad_size", default=None)

_PAD_UID = re.compile(r"pad(\d+)\Z")

#: The module that binds ``prepare_generator_input`` for SkyRL's fully async trainer.
ASYNC_MODULE = "skyrl.train.fully_async_trainer"


def _padding_rows(uids: list[str] | None, rows: int) -> int:
    """How many trailing rows are SkyRL's padding: ``pad_size`` of the step, else the trailing ``pad0..pad{k-1}``
    uids that have no recorded prompt (training_batch.py:560)."""
    size = _pad_size.get()
    if size is None:
        size = 0
        if uids:
            k = 0
            while k < len(uids) and _PAD_UID.match(uids[len(uids) - 1 - k]) and uids[len(uids) - 1 - k] not in uid_prompts:
                k += 1
            if k and [uids[len(uids) - k + j] for j in range(k)] == [f"pad{j}" for j in range(k)]:
                size = k
    if size < 0 or size > rows:
        raise RuntimeError(f"SkyRL's metadata pad_size is {size} for a batch of {rows} rows")
    return size


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
        import numpy as np
        import torch

        if self._batch is None:
            self._batch = RolloutBatch(self.spec, _process["server"], **self.options)
        batch = self._batch
        with torch.no_grad():
            rows = int(token_level_rewards.shape[0])
            uids = None if index is None else [str(u) for u in list(index)]
            real = rows - _padding_rows(uids, rows)
            scores = token_level_rewards.sum(dim=-1).double().cpu().numpy()[:real]
            group_ids = None if uids is None else uids[:real]
            prompts = None
            if batch.needs_prompts:
                missing = [u for u in (group_ids or []) if u not in uid_prompts]
                if group_ids is None or missing:
                    raise RuntimeError(
                        f"{PREFIX}{estimator_name(self.spec)} needs each rollout's prompt text, and uid {missing[:1] or [None]} has none "
                        f"({len(uid_prompts)} prompts recorded): call rl_advantages.integrations.skyrl.register() in the process that runs "
                        "the trainer, before it prepares its first batch (the prompts are recorded by the wrapped prepare_generator_input)"
                    )
                prompts = [prompt_text(uid_prompts[u], f"the prompt of uid {u!r}") for u in group_ids]
            lengths = response_mask.sum(dim=-1).double().cpu().numpy()[:real]
            result = batch.compute(scores, group_ids=group_ids, prompts=prompts, lengths=lengths)
            values = np.zeros(rows, dtype=np.float64)
            values[:real] = result.advantages
            advantages = torch.as_tensor(values, dtype=token_level_rewards.dtype, device=token_level_rewards.device)
            advantages = advantages.unsqueeze(-1) * response_mask
        return advantages, advantages


def _wrap_prepare_generator_input(module: Any) -> None:
    """Record each prepared prompt by uid where ``module`` (a trainer module) binds ``prepare_generator_input``."""
    original = getattr(module, "prepare_generator_input", None)
    if original is None or getattr(original, "_rl_adv_wrapped", False):
        return

    @functools.wraps(original)
    def prepare_generator_input(prompts: list[Any], *args: Any, **kwargs: Any) -> Any:
        out = original(prompts, *args, **kwargs)
        for row in prompts:
            uid = str(row["uid"])
            uid_prompts.pop(uid, None)
            uid_prompts[uid] = row["prompt"]
        while len(uid_prompts) > MAX_PROMPTS:
            uid_prompts.popitem(last=False)
        return out

    prepare_generator_input._rl_adv_wrapped = True  # type: ignore[attr-defined]
    module.prepare_generator_input = prepare_generator_input


def _wrap_advantage_step(trainer_module: Any) -> None:
    """``RayPPOTrainer.compute_advantages_and_returns(self, data)`` (trainer.py:1124): the step's ``pad_size``."""
    cls = getattr(trainer_module, "RayPPOTrainer", None)
    original = getattr(cls, "compute_advantages_and_returns", None)
    if original is None or getattr(original, "_rl_adv_wrapped", False):
        return

    @functools.wraps(original)
    def compute_advantages_and_returns(self: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
        metadata = getattr(data, "metadata", None) or {}
        token = _pad_size.set(int(metadata.get("pad_size", 0) or 0))
        try:
            return original(self, data, *args, **kwargs)
        finally:
            _pad_size.reset(token)

    compute_advantages_and_returns._rl_adv_wrapped = True  # type: ignore[attr-defined]
    cls.compute_advantages_and_returns = compute_advantages_and_returns


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
    _wrap_advantage_step(trainer_module)
    after_import(ASYNC_MODULE, _wrap_prepare_generator_input)  # the fully async trainer's own binding
    return names
