"""verl: catalogue estimators as verl advantage estimators named ``rl_adv:<name>``, under verl's v1 trainer (the
default) and its legacy trainer.

Written against verl-project/verl 1dda039b9c6311889a9c9a26040677e1254814f9 (2026-08-22):

- ``verl/trainer/ppo/core_algos.py:116-132`` ``register_adv_est(name)`` puts a function in
  ``ADV_ESTIMATOR_REGISTRY``; ``get_adv_estimator_fn(name)`` (:137-150) looks it up at call time.
- ``verl/trainer/ppo/ray_trainer.py:187-282`` ``compute_advantage(data, adv_estimator, ...)`` calls a registered
  estimator (any name but ``gae``/``grpo``) as ``fn(token_level_rewards=..., response_mask=..., config=...,
  index=data.non_tensor_batch["uid"], [reward_baselines=...])`` and stores the returned ``(advantages, returns)``.
- v1 trainer, the default (``trainer.use_v1: true``, ppo_trainer.yaml:222; main_ppo.py:183 runs
  ``TaskRunnerV1``): ``PPOTrainer._compute_advantage(batch, metrics)`` (v1/trainer_base.py:1638) reads ``uid``,
  ``response_mask``, ``rm_scores``, ... of ``batch.keys`` from the TransferQueue (``tq.kv_batch_get``), builds a
  ``DataProto`` whose ``non_tensor_batch`` holds only ``uid``, and calls
  ``compute_advantage_for_multi_trajectories`` (v1/utils.py), which calls ``compute_advantage`` (both names bound
  by ``from ... import`` when those modules load). The sync, colocate-async and separate-async v1 trainers
  subclass ``PPOTrainer`` and inherit that method. The TransferQueue also holds each rollout's ``raw_prompt``
  (trainer_base.py:1429 reads it).
- legacy trainer (``trainer.use_v1=false``, deprecated): ``RayPPOTrainer.fit`` calls ``compute_advantage`` by its
  module name (ray_trainer.py:1667) on a batch whose ``non_tensor_batch`` keeps ``raw_prompt``
  (``RLHFDataset.__getitem__``, rl_dataset.py:389).
- ``verl/__init__.py:49-52`` imports every module named in ``VERL_USE_EXTERNAL_MODULES`` (comma-separated).

A registered function gets no text, so :func:`register` also sets where the prompts of the batch being computed
come from, for the duration of verl's advantage step:

- v1: it wraps the method ``PPOTrainer._compute_advantage`` on the class (looked up at call time, so the
  by-name bindings of v1/utils.py and trainer_base.py do not matter). For an ``rl_adv:`` estimator that reads
  prompts, the estimator reads ``raw_prompt`` of ``batch.keys`` from the TransferQueue (``tq.kv_batch_get``), in
  the row order of the ``DataProto`` verl built from the same keys. When trainer_base is not imported yet, the
  class is wrapped the moment it is (an import hook), whatever order verl's modules load in.
- legacy: it wraps ``ray_trainer.compute_advantage`` (looked up by module name in ``fit``) and reads
  ``data.non_tensor_batch["raw_prompt"]``. Inside the v1 step (where the batch has only ``uid``) the v1 source
  stays in force.

The source is a ``contextvars.ContextVar``, so concurrent advantage steps (threads, asyncio tasks) do not mix.
Group ids are the batch's ``uid``. The outcome reward is ``token_level_rewards.sum(-1)`` as in verl's own outcome
estimators (core_algos.py:306); the per-rollout advantage is broadcast over ``response_mask``; returns = advantages.

Rollouts as verl counts them (v1, :func:`v1_rollouts`): rows tagged ``is_padding`` (``_balance_batch`` pads the
batch, trainer_base.py:1513-1516, padding_utils.py:123: the first sample's fields copied, reward 0, an all-zero
response mask) get advantage 0 and enter no estimator's statistics; an agent-loop session with several outputs
(rows ``{uid}_{session}_{index}``, agent_loop_tq.py:178-193) is one rollout, its final output, whose advantage goes
to all its outputs, as verl's GRPO does (v1/utils.py:178-216). The legacy trainer does not pad its training batch
(ray_trainer.py:1182-1250; only validation batches, :637-653, unpadded before scoring).

verl settings: ``norm_adv_by_std_in_grpo`` goes only to verl's ``grpo`` (ray_trainer.py:235-245) and ``gamma`` /
``lam`` only to GAE (:218-226); a registered estimator normalises as its own options say.

Group size 1 in verl today: ``grpo`` (and rloo, opo, gpg, reinforce_plus_plus_baseline) give a lone rollout
mean 0 and std 1 (core_algos.py:315-317), so A = r with no baseline.

Use (script; the process that runs the advantage step, i.e. verl's driver / trainer)::

    from rl_advantages.integrations import verl as rl_adv_verl
    rl_adv_verl.register(["tfidf_kernel_loo_T0.1"])
    # algorithm.adv_estimator='rl_adv:tfidf_kernel_loo_T0.1' actor_rollout_ref.rollout.n=1

Use (no code; reaches every process that imports verl, Ray actors included)::

    export VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl
    export RL_ADV_VERL_ESTIMATORS=tfidf_kernel_loo_T0.1      # comma-separated; RL_ADV_VERL_PROMPT_KEY optional
    export RL_ADV_CORPUS=train.jsonl                         # the TF-IDF vocabulary (or RL_ADV_VECTORIZER)
    python -m verl.trainer.main_ppo 'algorithm.adv_estimator="rl_adv:tfidf_kernel_loo_T0.1"' ...
"""

from __future__ import annotations

import contextvars
import functools
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import rl_advantages

from ._common import RolloutBatch, describe_estimator, estimator_name, prompt_text, reads_field, server_from_env, supplied_by_adapters
from ._verl_hooks import V1_MODULE, after_import

__all__ = ["PREFIX", "register", "registered_name"]

#: The prefix of every name this module registers.
PREFIX = "rl_adv:"

_state: dict[str, Any] = {"prompt_key": "raw_prompt"}


@dataclass(frozen=True)
class _Rollouts:
    """Which rows of verl's batch are rollouts: ``keep`` the rows the estimator sees (one per agent-loop session:
    its final output), ``owner[i]`` the position in ``keep`` of row ``i``'s session, None for a padding row."""

    keep: list[int]
    owner: list[int | None]

    @property
    def identity(self) -> bool:
        return self.keep == list(range(len(self.owner))) and all(o == i for i, o in enumerate(self.owner))


def v1_rollouts(keys: list[str], tags: list[Mapping[str, Any]] | None) -> _Rollouts:
    """The rollouts of a v1 batch as verl counts them.

    Padding rows (``tag["is_padding"]``, set by padding_utils.py:123 when ``_balance_batch`` pads the batch,
    trainer_base.py:1513-1516; verl itself skips them by that flag, trainer_base.py:529, :1765) are no rollout.
    A session that wrote several outputs (keys ``{uid}_{session}_{index}``) is one rollout, its final output (the
    largest index), as verl's GRPO counts it (v1/utils.py:178-196); its advantage goes to every output.
    """
    padding = [bool(t.get("is_padding", False)) if isinstance(t, Mapping) else False for t in (tags or [{}] * len(keys))]
    final: dict[str, tuple[int, int]] = {}
    session_of: list[str | None] = []
    for i, key in enumerate(keys):
        parts = str(key).rsplit("_", 2)
        if padding[i]:
            session_of.append(None)
            continue
        if len(parts) != 3 or not parts[2].isdigit():
            session, index = str(key), 0  # not the agent loop's key form: each row its own rollout
        else:
            session, index = f"{parts[0]}_{parts[1]}", int(parts[2])
        session_of.append(session)
        if session not in final or final[session][0] < index:
            final[session] = (index, i)
    keep = sorted(row for _, row in final.values())
    position = {session: keep.index(row) for session, (_, row) in final.items()}
    return _Rollouts(keep, [None if s is None else position[s] for s in session_of])


@dataclass(frozen=True)
class _PromptSource:
    """Where the prompts of the batch in the current advantage step come from, and which rows are rollouts."""

    trainer: str  # "v1" or "legacy"
    fetch: Callable[[], Any]  # the raw prompts, one per row, or None when the field is absent
    remedy: str
    rollouts: _Rollouts | None = None  # None: every row is a rollout


_source: contextvars.ContextVar[_PromptSource | None] = contextvars.ContextVar("rl_adv_verl_prompt_source", default=None)


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
        canonical = getattr(rl_advantages, "canonical_name", None)
        return PREFIX + (canonical(dict(spec)) if canonical is not None else estimator_name(spec))
    return PREFIX + estimator_name(spec)


def _default_specs(server: Any) -> list[str]:
    entries = rl_advantages.catalogue() if server is None else rl_advantages.catalogue(server=server)
    return [str(e["name"]) for e in entries if supplied_by_adapters(e) and not any(p.get("required") for p in e.get("parameters") or [])]


def _missing_prompts(label: str, source: _PromptSource | None) -> Exception:
    key = _state["prompt_key"]
    if source is None:
        how = (
            "no verl advantage step set a prompt source in this process: call rl_advantages.integrations.verl.register() "
            "(or set VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl) in the process that runs the advantage "
            "step (verl's trainer)"
        )
    else:
        how = source.remedy
    return rl_advantages.RlAdvantagesError("missing_field", f"{label} needs each rollout's prompt text: {how}", field=key)


def _batch_prompts(batch: RolloutBatch, label: str, rows: int) -> list[str] | None:
    if not reads_field(batch.entry, "prompts"):
        return None
    source = _source.get()
    raw = source.fetch() if source is not None else None
    if raw is None:
        if batch.needs_prompts:
            raise _missing_prompts(label, source)
        return None
    raw = raw.tolist() if hasattr(raw, "tolist") else list(raw)
    where = "TransferQueue" if source is not None and source.trainer == "v1" else "non_tensor_batch"
    prompts = [prompt_text(p, f"{where}[{_state['prompt_key']!r}][{i}]") for i, p in enumerate(raw)]
    if len(prompts) != rows:
        raise rl_advantages.RlAdvantagesError(
            "length_mismatch", f"{label}: {len(prompts)} prompts in {where}[{_state['prompt_key']!r}] for {rows} rollouts", field="prompts"
        )
    return prompts


def _make_estimator(spec: Any, server: Any, options: Mapping[str, Any], lazy: bool = False) -> Any:
    batch = RolloutBatch(spec, server, lazy=lazy, **dict(options))
    label = registered_name(spec)

    def rl_adv_estimator(token_level_rewards: Any, response_mask: Any, index: Any = None, config: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        """verl's estimator signature (core_algos.py outcome estimators): returns (advantages, returns). Padding rows
        get 0 and a multi-output session one advantage (see :func:`v1_rollouts`)."""
        import numpy as np
        import torch

        with torch.no_grad():
            rows = int(token_level_rewards.shape[0])
            source = _source.get()
            rollouts = source.rollouts if source is not None and source.rollouts is not None and len(source.rollouts.owner) == rows else None
            keep = list(range(rows)) if rollouts is None else rollouts.keep
            scores = token_level_rewards.sum(dim=-1).double().cpu().numpy()[keep]
            prompts = _batch_prompts(batch, label, rows)
            prompts = None if prompts is None else [prompts[i] for i in keep]
            group_ids = None if index is None else [str(u) for u in list(index)]
            group_ids = None if group_ids is None else [group_ids[i] for i in keep]
            lengths = response_mask.sum(dim=-1).double().cpu().numpy()[keep]
            result = batch.compute(scores, group_ids=group_ids, prompts=prompts, lengths=lengths)
            values = np.asarray(result.advantages, dtype=np.float64)
            if rollouts is not None and not rollouts.identity:
                values = np.array([0.0 if o is None else values[o] for o in rollouts.owner], dtype=np.float64)
            advantages = torch.as_tensor(values, dtype=token_level_rewards.dtype, device=token_level_rewards.device)
            advantages = advantages.unsqueeze(-1) * response_mask
        return advantages, advantages

    rl_adv_estimator.__name__ = f"rl_adv_{estimator_name(spec)}"
    return rl_adv_estimator


def _is_ours(adv_estimator: Any) -> bool:
    name = getattr(adv_estimator, "value", adv_estimator)
    return isinstance(name, str) and name.startswith(PREFIX)


def _wrap_compute_advantage(ray_trainer: Any) -> None:
    """Legacy trainer: ``RayPPOTrainer.fit`` calls ``compute_advantage`` by module name (ray_trainer.py:1667)."""
    original = ray_trainer.compute_advantage
    if getattr(original, "_rl_adv_wrapped", False):
        return

    @functools.wraps(original)
    def compute_advantage(data: Any, adv_estimator: Any, *args: Any, **kwargs: Any) -> Any:
        key = _state["prompt_key"]
        non_tensor = data.non_tensor_batch
        present = hasattr(non_tensor, "get") and non_tensor.get(key) is not None
        if not _is_ours(adv_estimator) or (not present and _source.get() is not None):
            return original(data, adv_estimator, *args, **kwargs)  # inside v1's step its TransferQueue source stays
        source = _PromptSource(
            "legacy",
            lambda: non_tensor.get(key) if present else None,
            f"verl's legacy trainer (trainer.use_v1=false, ray_trainer.compute_advantage): the batch's non_tensor_batch has no "
            f"{key!r}; keep the dataset's prompt there (verl's RLHFDataset returns raw_prompt) or name the field that holds "
            "it with register(prompt_key=...) / RL_ADV_VERL_PROMPT_KEY",
        )
        token = _source.set(source)
        try:
            return original(data, adv_estimator, *args, **kwargs)
        finally:
            _source.reset(token)

    compute_advantage._rl_adv_wrapped = True  # type: ignore[attr-defined]
    ray_trainer.compute_advantage = compute_advantage


def _v1_fetch(module: Any, batch: Any, key: str) -> Any:
    """``raw_prompt`` of ``batch.keys`` from the TransferQueue, as trainer_base.py reads its fields (``tq`` is the
    ``transfer_queue`` module trainer_base imports); None when the queue holds no such field."""
    tq = getattr(module, "tq", None)
    if tq is None:
        import transfer_queue as tq
    try:
        data = tq.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id, select_fields=[key])
        return data[key]
    except KeyError:
        return None
    except Exception as error:  # the queue's own failure: name the field and the step it was read for
        raise rl_advantages.RlAdvantagesError(
            "missing_field",
            f"verl's v1 trainer (PPOTrainer._compute_advantage): reading {key!r} of {len(batch.keys)} rows from the "
            f"TransferQueue failed ({type(error).__name__}: {error}); name the queue field that holds each rollout's prompt "
            "with register(prompt_key=...) / RL_ADV_VERL_PROMPT_KEY",
            field=key,
        ) from error


def _wrap_v1(module: Any) -> None:
    """v1 trainer: wrap ``PPOTrainer._compute_advantage`` (v1/trainer_base.py:1638) on the class."""
    cls = getattr(module, "PPOTrainer", None)
    original = getattr(cls, "_compute_advantage", None)
    if original is None or getattr(original, "_rl_adv_wrapped", False):
        return

    @functools.wraps(original)
    def _compute_advantage(self: Any, batch: Any, *args: Any, **kwargs: Any) -> Any:
        if not _is_ours(self.config.algorithm.adv_estimator):
            return original(self, batch, *args, **kwargs)
        key = _state["prompt_key"]
        source = _PromptSource(
            "v1",
            lambda: _v1_fetch(module, batch, key),
            f"verl's v1 trainer (PPOTrainer._compute_advantage): the TransferQueue holds no field {key!r} for this batch; "
            "keep the dataset's prompt in the rollout (verl's RLHFDataset returns raw_prompt, which the agent loop puts in "
            "the queue) or name the queue field that holds it with register(prompt_key=...) / RL_ADV_VERL_PROMPT_KEY",
            v1_rollouts(list(batch.keys), list(getattr(batch, "tags", None) or []) or None),
        )
        token = _source.set(source)
        try:
            return original(self, batch, *args, **kwargs)
        finally:
            _source.reset(token)

    _compute_advantage._rl_adv_wrapped = True  # type: ignore[attr-defined]
    cls._compute_advantage = _compute_advantage


def register(
    estimators: Iterable[Any] | None = None,
    *,
    prompt_key: str = "raw_prompt",
    server: Any = None,
    options: Mapping[str, Any] | None = None,
    lazy: bool = False,
) -> list[str]:
    """Register catalogue estimators with verl as ``rl_adv:<name>`` and route prompt text to them (v1 trainer
    from the TransferQueue, legacy trainer from ``non_tensor_batch``).

    Args:
        estimators: specs (catalogue names such as ``tfidf_kernel_loo_T0.1`` or wire forms); default: every
            catalogue estimator that needs no parameter and no field verl's batch lacks (``features``,
            ``greedy_rewards``, a kernel file).
        prompt_key: the field holding each rollout's prompt (a string or chat messages): in the TransferQueue
            (v1) and in ``non_tensor_batch`` (legacy).
        server: the ``rl_advantages.Server`` to call; the process's default server if None.
        options: request options for every estimator (``normalize``, ...).
        lazy: check the names against the catalogue at the first advantage step, not now, so that no server (and no
            TF-IDF fit) starts in a process that never computes advantages (the environment route uses it: verl
            imports this module in every process, Ray workers included).

    Returns:
        The registered names, e.g. ``["rl_adv:tfidf_kernel_loo_T0.1"]``. Registering a name again is a no-op.

    Raises:
        ImportError: verl is not installed. RlAdvantagesError: a spec is not in the catalogue; at the first step,
            an estimator that needs prompts finds no ``prompt_key`` field (naming the trainer and the remedy).
    """
    core_algos, ray_trainer = _verl_modules()
    specs = list(estimators) if estimators is not None else _default_specs(server)
    names = []
    for spec in specs:
        if not lazy:
            describe_estimator(spec, server)  # an unknown name fails here, not at the first step
        name = registered_name(spec)
        if name not in core_algos.ADV_ESTIMATOR_REGISTRY:
            core_algos.register_adv_est(name)(_make_estimator(spec, server, options or {}, lazy=lazy))
        names.append(name)
    _state["prompt_key"] = prompt_key
    _wrap_compute_advantage(ray_trainer)
    after_import(V1_MODULE, _wrap_v1)
    return names


def _register_from_env() -> None:
    """``VERL_USE_EXTERNAL_MODULES=rl_advantages.integrations.verl``: register what ``RL_ADV_VERL_ESTIMATORS`` names."""
    wanted = os.environ.get("RL_ADV_VERL_ESTIMATORS", "").strip()
    if wanted:
        register(
            [w.strip() for w in wanted.split(",") if w.strip()],
            prompt_key=os.environ.get("RL_ADV_VERL_PROMPT_KEY", "raw_prompt"),
            server=server_from_env(),
            lazy=True,
        )


_register_from_env()
