"""tinker-cookbook: the hook that replaces ``tinker_cookbook.rl.train.compute_advantages`` with a catalogue estimator.

Written against thinking-machines-lab/tinker-cookbook 9dfcc3a2 (``tinker_cookbook/rl/train.py``,
``rl/data_processing.py``). The cookbook's training loop imports ``compute_advantages`` from
``rl.data_processing`` into its own namespace and calls it twice per step: once per displayed group from
``print_group`` (one group, possibly a re-built subset of it) and once on the whole batch from
``prepare_minibatch(env_group_builders_P, trajectory_groups_P, tokenizer, ...)``. :class:`AdvantageHook`
replaces both module names and wraps ``prepare_minibatch`` so it knows the step's builders (which carry
the GSM8K question) and tokenizer:

- ``group_mean``: the stock function computes the advantages, unchanged; the hook only logs them.
- any other estimator (``tfidf_kernel_loo_T0.1``, ...): the hook sends the batch's question texts (or group ids)
  and total rewards once per step (``rl_advantages.compute_advantages``, or the ``client`` given) and returns
  one tensor per group (``torch.tensor`` of the advantages, the dtype the stock function returns). The
  display calls get the same numbers, looked up by trajectory.

Group size 1 in the cookbook today: ``compute_advantages`` centres each group on its own mean
(rl/data_processing.py:39), so a group of one gets A = r - r = 0, and ``remove_constant_reward_groups``
(rl/train.py:496, off by default) drops every group of one.

Every full-batch call appends one line to ``advantages.jsonl`` (format: docs/method.md section 9, read by
``rl-adv gate-metrics``). The question texts come from :class:`QuestionResolver`.

Example::

    import tinker_cookbook.rl.data_processing as data_processing
    import tinker_cookbook.rl.train as train
    from rl_advantages import Server
    from rl_advantages.integrations.tinker_cookbook import AdvantageHook, QuestionResolver

    hook = AdvantageHook("gs1", "tfidf_kernel_loo_T0.1", "logs/advantages.jsonl", data_processing.compute_advantages,
                         resolver=QuestionResolver(train_questions), server=Server(corpus="train.jsonl"))
    hook.install(train, data_processing)   # then run the recipe (group_size=1)
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ._common import describe_estimator, requires_field
from ._tinker_log import NONZERO_ADVANTAGE_EPS, group_mean_diagnostics, loo_batch_means, prepare_resumed_log, step_log_line
from ._tinker_questions import QUESTION_SUFFIX, QuestionRecoveryError, QuestionResolver

__all__ = [
    "NONZERO_ADVANTAGE_EPS",
    "QUESTION_SUFFIX",
    "AdvantageHook",
    "BatchAdvantages",
    "PackageClient",
    "QuestionRecoveryError",
    "QuestionResolver",
    "ServedBatch",
    "group_mean_diagnostics",
    "loo_batch_means",
    "prepare_resumed_log",
    "step_log_line",
]


@dataclass(frozen=True)
class ServedBatch:
    """One computed batch as the hook logs it: per-rollout floats and the largest normalised self-weight."""

    advantages: list[float]
    baselines: list[float]
    loo_mean: list[float]
    max_self_weight: float


class PackageClient:
    """The hook's default client: ``rl_advantages.compute_advantages`` on ``server`` (the default server if None)."""

    def __init__(self, server: Any = None):
        self.server = server

    def compute(self, estimator: str, rewards: Sequence[float], prompts: Sequence[str] | None = None, group_ids: Sequence[int] | None = None) -> ServedBatch:
        import rl_advantages

        kwargs: dict[str, Any] = {}
        if prompts is not None:
            kwargs["prompts"] = list(prompts)
        if group_ids is not None:
            kwargs["group_ids"] = list(group_ids)
        if self.server is not None:
            kwargs["server"] = self.server
        result = rl_advantages.compute_advantages(estimator, [float(r) for r in rewards], **kwargs)
        return ServedBatch(
            [float(a) for a in result.advantages],
            [float(b) for b in result.baselines],
            [float(m) for m in _served(result, "loo_mean")],
            float(_served(result, "max_self_weight")),
        )


def _served(result: Any, name: str) -> Any:
    """A response field the package's Result carries as an attribute or in its diagnostics."""
    if hasattr(result, name):
        return getattr(result, name)
    diagnostics = getattr(result, "diagnostics", None) or {}
    if name in diagnostics:
        return diagnostics[name]
    raise RuntimeError(f"rl_advantages.compute_advantages gave no {name!r}: this rl_advantages version is not supported by the tinker-cookbook hook")


@dataclass
class BatchAdvantages:
    """One step's result: per-rollout float64 advantages and where each group starts."""

    advantages: list[float]
    offsets: list[int]
    by_trajectory: dict[int, float]


class _StepContext:
    def __init__(self, builders: Sequence[Any], groups: Sequence[Any], tokenizer: Any):
        self.builders = list(builders)
        self.groups = list(groups)
        self.tokenizer = tokenizer
        self.result: BatchAdvantages | None = None

    def is_full_batch(self, groups: Sequence[Any]) -> bool:
        return len(groups) == len(self.groups) and all(a is b for a, b in zip(groups, self.groups))


class AdvantageHook:
    """The replacement ``compute_advantages`` (and ``prepare_minibatch`` wrapper) of one arm.

    Args:
        arm: the spec arm's name (written on every log line).
        estimator: the arm's ``advantage`` (``group_mean`` or a kernel estimator name).
        log_file: the ``advantages.jsonl`` to append to (its folder is created).
        stock_compute: the cookbook's ``data_processing.compute_advantages``.
        client: what computes a served batch: ``client.compute(estimator, rewards, prompts=..., group_ids=...)``
            returning ``advantages``, ``baselines``, ``loo_mean`` and ``max_self_weight``; default
            :class:`PackageClient` over ``rl_advantages.compute_advantages`` (with ``server``).
        resolver: recovers each group's question (required for the served path).
        torch_module: the ``torch`` module (the tensors the cookbook expects); imported if None.
        force_served: send ``group_mean`` through the client too (the preflight's replaced path).
        server: the ``rl_advantages.Server`` of the default client (e.g. started with the GSM8K train corpus).
        send_group_ids: whether a request carries the group ids (True) or the question texts (False); None: the
            estimator's catalogue entry decides (group ids when it requires them).
    """

    def __init__(
        self,
        arm: str,
        estimator: str,
        log_file: str,
        stock_compute: Callable[[list[Any]], list[Any]],
        client: Any = None,
        resolver: QuestionResolver | None = None,
        torch_module: Any = None,
        force_served: bool = False,
        server: Any = None,
        send_group_ids: bool | None = None,
    ):
        self.arm = arm
        self.estimator = estimator
        self.log_file = log_file
        self.stock_compute = stock_compute
        self.served = force_served or estimator != "group_mean"
        if self.served and resolver is None:
            raise ValueError(f"estimator {estimator} needs a question resolver (the GSM8K question of each group)")
        self.client = client if client is not None else PackageClient(server)
        self.send_group_ids = send_group_ids
        self.resolver = resolver
        self._torch = torch_module
        #: lines this hook has written
        self.logged = 0
        #: the cookbook's batch index of the step in progress (set by the wrapped train step), else None
        self.batch_index: int | None = None
        self._context: _StepContext | None = None
        self._restore: list[tuple[Any, str, Any]] = []

    # -- the two functions installed in the cookbook ------------------------------------------------
    def compute_advantages(self, trajectory_groups_P: list[Any]) -> list[Any]:
        """Same signature and result type as ``tinker_cookbook.rl.data_processing.compute_advantages``."""
        ctx = self._context
        full = ctx is not None and ctx.is_full_batch(trajectory_groups_P)
        if not self.served:
            out = self.stock_compute(trajectory_groups_P)
            if full:
                self._log_group_mean(trajectory_groups_P, out)
            return out
        if ctx is None:
            raise RuntimeError(
                f"compute_advantages was called outside prepare_minibatch; the {self.estimator} baseline needs the "
                "whole batch and its questions (this cookbook version calls it from another place: update run_arm.py)"
            )
        if ctx.result is None:
            ctx.result = self.compute_served(ctx.builders, ctx.groups, ctx.tokenizer)
        if full:
            return self._tensors(ctx.result.advantages, ctx.result.offsets, trajectory_groups_P)
        # print_group's display call: the same numbers, found by trajectory identity.
        values = []
        for group in trajectory_groups_P:
            for traj in group.trajectories_G:
                if id(traj) not in ctx.result.by_trajectory:
                    raise RuntimeError("compute_advantages got a trajectory that is not in the current batch")
                values.append(ctx.result.by_trajectory[id(traj)])
        offsets = []
        at = 0
        for group in trajectory_groups_P:
            offsets.append(at)
            at += len(group.trajectories_G)
        return self._tensors(values, offsets, trajectory_groups_P)

    def wrap_prepare_minibatch(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """``prepare_minibatch(env_group_builders_P, trajectory_groups_P, tokenizer, ...)`` with the step's
        builders and tokenizer made visible to :meth:`compute_advantages`."""

        @functools.wraps(original)
        async def prepare_minibatch(env_group_builders_P: Any, trajectory_groups_P: Any, tokenizer: Any, *args: Any, **kwargs: Any) -> Any:
            self._context = _StepContext(env_group_builders_P, trajectory_groups_P, tokenizer)
            try:
                return await original(env_group_builders_P, trajectory_groups_P, tokenizer, *args, **kwargs)
            finally:
                self._context = None

        return prepare_minibatch

    def wrap_train_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """``do_train_step_and_get_sampling_client(config, i_batch, ...)`` (rl/train.py:1616 at 9dfcc3a2) with
        ``i_batch`` recorded, so each log line's ``step`` is the cookbook's own batch index."""

        @functools.wraps(original)
        async def do_train_step(*args: Any, **kwargs: Any) -> Any:
            self.batch_index = int(kwargs["i_batch"] if "i_batch" in kwargs else args[1])
            try:
                return await original(*args, **kwargs)
            finally:
                self.batch_index = None

        return do_train_step

    def install(self, train_module: Any, data_processing_module: Any = None) -> None:
        """Replace ``train.compute_advantages``, wrap ``train.prepare_minibatch`` and (when the module has it)
        ``train.do_train_step_and_get_sampling_client``; for a served estimator also replace
        ``data_processing.compute_advantages``, so no other path silently centres by group."""
        targets: list[tuple[Any, str, Any]] = [
            (train_module, "compute_advantages", self.compute_advantages),
            (train_module, "prepare_minibatch", self.wrap_prepare_minibatch(train_module.prepare_minibatch)),
        ]
        if hasattr(train_module, "do_train_step_and_get_sampling_client"):
            targets.append((train_module, "do_train_step_and_get_sampling_client", self.wrap_train_step(train_module.do_train_step_and_get_sampling_client)))
        if self.served and data_processing_module is not None:
            targets.append((data_processing_module, "compute_advantages", self.compute_advantages))
        for module, name, value in targets:
            self._restore.append((module, name, getattr(module, name)))
            setattr(module, name, value)

    def uninstall(self) -> None:
        while self._restore:
            module, name, value = self._restore.pop()
            setattr(module, name, value)

    # -- the served path ---------------------------------------------------------------------------
    def compute_served(self, builders: Sequence[Any], groups: Sequence[Any], tokenizer: Any) -> BatchAdvantages:
        """Send the step's questions and total rewards to the client, log the line, return the result."""
        if len(builders) != len(groups):
            raise RuntimeError(f"{len(builders)} builders for {len(groups)} trajectory groups")
        assert self.resolver is not None
        questions: list[str] = []
        rewards: list[float] = []
        group_ids: list[int] = []
        sizes: list[int] = []
        for g, (builder, group) in enumerate(zip(builders, groups)):
            question = self.resolver.resolve(builder, group.trajectories_G, tokenizer, where=f"step {self.current_step} group {g}: ")
            group_rewards = [float(r) for r in group.get_total_rewards()]
            sizes.append(len(group_rewards))
            for r in group_rewards:
                questions.append(question)
                rewards.append(r)
                group_ids.append(g)
        result = self.compute_for(questions, rewards, group_ids)
        self._append(step_log_line(self.arm, self.current_step, self.estimator, sizes, rewards, result.baselines, result.loo_mean, result.advantages, result.max_self_weight))
        by_traj: dict[int, float] = {}
        offsets: list[int] = []
        at = 0
        for group in groups:
            offsets.append(at)
            for traj in group.trajectories_G:
                by_traj[id(traj)] = result.advantages[at]
                at += 1
        return BatchAdvantages(result.advantages, offsets, by_traj)

    def compute_for(self, questions: Sequence[str], rewards: Sequence[float], group_ids: Sequence[int]) -> Any:
        """One request for this arm's estimator: group ids when they define b, else the question texts."""
        if self.send_group_ids is None:
            self.send_group_ids = requires_field(describe_estimator(self.estimator), "group_ids")
        grouped = self.send_group_ids
        return self.client.compute(
            self.estimator,
            rewards,
            prompts=None if grouped else list(questions),
            group_ids=list(group_ids) if grouped else None,
        )

    def _tensors(self, values: Sequence[float], offsets: Sequence[int], groups: Sequence[Any]) -> list[Any]:
        torch = self._torch
        if torch is None:
            import torch  # type: ignore[no-redef]

            self._torch = torch
        out = []
        for start, group in zip(offsets, groups):
            n = len(group.trajectories_G)
            # torch.tensor of Python floats: the dtype the stock function returns (float32).
            out.append(torch.tensor([float(v) for v in values[start : start + n]]))
        return out

    # -- the stock path ------------------------------------------------------------------------------
    def _log_group_mean(self, groups: Sequence[Any], tensors: Sequence[Any]) -> None:
        group_rewards = [[float(r) for r in g.get_total_rewards()] for g in groups]
        baselines, loo, msw = group_mean_diagnostics(group_rewards)
        advantages = [float(a) for t in tensors for a in t.tolist()]
        flat = [r for rs in group_rewards for r in rs]
        self._append(step_log_line(self.arm, self.current_step, self.estimator, [len(r) for r in group_rewards], flat, baselines, loo, advantages, msw))

    def _append(self, line: dict[str, Any]) -> None:
        folder = os.path.dirname(os.path.abspath(self.log_file))
        os.makedirs(folder, exist_ok=True)
        with open(self.log_file, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, allow_nan=False) + "\n")
        self.logged += 1

    @property
    def current_step(self) -> int:
        """The ``step`` of the next log line: the cookbook's batch index ``i_batch`` (right after a resume or a
        skipped batch), or the count of lines written when no training step is in progress (tests, preflight)."""
        return self.batch_index if self.batch_index is not None else self.logged

