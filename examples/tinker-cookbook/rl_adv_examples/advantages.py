"""The advantage path of ``run_arm.py``: what replaces ``tinker_cookbook.rl.train.compute_advantages``.

The cookbook's training loop (``tinker_cookbook/rl/train.py``) imports ``compute_advantages`` from
``rl.data_processing`` into its own namespace and calls it twice per step: once per displayed group from
``print_group`` (one group, possibly a re-built subset of it) and once on the whole batch from
``prepare_minibatch(env_group_builders_P, trajectory_groups_P, tokenizer, ...)``. :class:`AdvantageHook`
replaces both module names and wraps ``prepare_minibatch`` so it knows the step's builders (which carry
the GSM8K question) and tokenizer:

- ``group_mean`` arm: the stock function computes the advantages, unchanged; the hook only logs them.
- kernel arm (``tfidf_kernel_loo_T0.1``, ...): the hook sends the batch's GSM8K question texts and total
  rewards to ``rl-adv serve`` once per step and returns one tensor per group (``torch.tensor`` of the
  advantages, the dtype the stock function returns). The display calls get the same numbers, looked up
  by trajectory.

Every full-batch call appends one line to ``advantages.jsonl`` (format: docs/method.md section 9, read by
``rl-adv gate-metrics``).

The kernel's text is the task's GSM8K ``question``, never the rendered chat prompt. :class:`QuestionResolver`
takes it from the group's builder (``ProblemGroupBuilder.env_thunk`` is ``partial(MathEnv, question,
answer, renderer, ...)``) and checks it against the trajectory's decoded first observation; when the
builder does not give it, it finds the known GSM8K question that the observation ends with.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .catalogue import served_estimator_problem, served_fields
from .serve_client import RlAdvServe

__all__ = [
    "NONZERO_ADVANTAGE_EPS",
    "QUESTION_SUFFIX",
    "AdvantageHook",
    "BatchAdvantages",
    "QuestionRecoveryError",
    "QuestionResolver",
    "group_mean_diagnostics",
    "loo_batch_means",
    "make_hook_for_arm",
    "prepare_resumed_log",
    "step_log_line",
]

#: |A| above this counts as a non-zero advantage (docs/method.md section 9, the gate's nonzero_advantage_fraction).
NONZERO_ADVANTAGE_EPS = 1e-6

#: ``MathEnv.question_suffix()`` in tinker-cookbook: the user turn is question + this suffix.
QUESTION_SUFFIX = " Write your answer in \\boxed{} format."

#: Estimators whose baseline is defined by group ids (the others use only rewards and prompts).


class QuestionRecoveryError(RuntimeError):
    """The GSM8K question of a trajectory could not be recovered, or two sources disagree."""


def _norm(text: str) -> str:
    return " ".join(text.split())


class QuestionResolver:
    """Recovers the GSM8K question of each trajectory.

    Args:
        known_questions: the GSM8K train questions (the rows the cookbook samples from). When empty,
            the builder is the only source and nothing is cross-checked against the data set.
        suffix: the text the environment appends to the question in the user turn.
    """

    def __init__(self, known_questions: Sequence[str] = (), suffix: str = QUESTION_SUFFIX):
        self.suffix = suffix
        self._norm_suffix = _norm(suffix)
        self._known: dict[str, str] = {}
        self._by_tail: dict[str, list[str]] = {}
        for q in known_questions:
            n = _norm(q)
            self._known.setdefault(n, q)
            self._by_tail.setdefault(n[-8:], []).append(n)

    @staticmethod
    def from_builder(builder: Any) -> str | None:
        """The question a cookbook ``ProblemGroupBuilder`` will put in its envs, or None.

        ``env_thunk`` is ``functools.partial(MathEnv, problem, answer, renderer, convo_prefix=...)`` in the
        cookbook's GSM8K dataset; any other thunk is called once and its env's ``problem`` read.
        """
        thunk = getattr(builder, "env_thunk", None)
        if thunk is None:
            return None
        if isinstance(thunk, functools.partial):
            if thunk.args and isinstance(thunk.args[0], str):
                return thunk.args[0]
            problem = thunk.keywords.get("problem") if thunk.keywords else None
            if isinstance(problem, str):
                return problem
        try:
            env = thunk()
        except Exception:  # a thunk that cannot be called here gives no answer, not a crash
            return None
        problem = getattr(env, "problem", None)
        return problem if isinstance(problem, str) else None

    def from_observation(self, text: str) -> str | None:
        """The known question whose ``question + suffix`` is the last user turn in ``text``, or None."""
        n = _norm(text)
        at = n.rfind(self._norm_suffix)
        if at < 0:
            return None
        head = n[:at].rstrip()
        candidates = self._by_tail.get(head[-8:], [])
        best = None
        for q in candidates:
            if head.endswith(q) and (best is None or len(q) > len(best)):
                best = q
        if best is None:  # questions shorter than the bucket key
            for q in self._known:
                if len(q) < 8 and head.endswith(q) and (best is None or len(q) > len(best)):
                    best = q
        return None if best is None else self._known[best]

    def decode_first_observation(self, trajectory: Any, tokenizer: Any) -> str | None:
        """The text of the trajectory's first observation, or None when it cannot be decoded."""
        if tokenizer is None:
            return None
        transitions = getattr(trajectory, "transitions", None)
        if not transitions:
            return None
        try:
            tokens = transitions[0].ob.to_ints()
        except Exception:  # non-text chunks, or an empty synthetic transition
            return None
        if not tokens:
            return None
        # No tokenization-space clean-up: it would turn " ," into "," (23 GSM8K train questions contain " ,",
        # " ." or " 's"), so the decoded prompt would no longer contain the question verbatim.
        return tokenizer.decode(tokens, clean_up_tokenization_spaces=False)

    def resolve(self, builder: Any, trajectories: Sequence[Any], tokenizer: Any, where: str = "") -> str:
        """The GSM8K question of a group: from its builder, checked against every decoded observation.

        Raises:
            QuestionRecoveryError: no source gives it, the builder's question is not a known GSM8K
                question, or an observation does not end with ``question + suffix``.
        """
        from_builder = self.from_builder(builder)
        texts = [self.decode_first_observation(t, tokenizer) for t in trajectories]
        if from_builder is not None:
            question = from_builder
            if self._known and _norm(question) not in self._known:
                raise QuestionRecoveryError(f"{where}the builder's question is not a GSM8K train question: {question[:120]!r}")
            expected = _norm(question + self.suffix)
            for i, text in enumerate(texts):
                if text is not None and expected not in _norm(text):
                    raise QuestionRecoveryError(
                        f"{where}trajectory {i}'s prompt does not contain its builder's question + suffix: "
                        f"question {question[:80]!r}, prompt ends {_norm(text)[-160:]!r}"
                    )
            return question
        found = [self.from_observation(t) for t in texts if t is not None]
        if not found or any(q is None for q in found):
            raise QuestionRecoveryError(
                f"{where}cannot recover the GSM8K question: the builder does not carry it "
                + ("and no trajectory could be decoded" if not found else "and a decoded prompt matches no known question")
            )
        if len(set(found)) != 1:
            raise QuestionRecoveryError(f"{where}the trajectories of one group show different questions")
        return found[0]  # type: ignore[return-value]


def loo_batch_means(rewards: Sequence[float]) -> list[float]:
    """(sum_j r_j - r_i) / (B - 1) for every i, in float64 (docs/method.md section 2, ``loo_batch_mean``)."""
    n = len(rewards)
    if n < 2:
        return [0.0] * n  # no other rollout: nothing to compare with
    total = sum(rewards)
    return [(total - r) / (n - 1) for r in rewards]


def group_mean_diagnostics(group_rewards: Sequence[Sequence[float]]) -> tuple[list[float], list[float], float]:
    """Baselines b_i = mean of i's group (i included), the LOO batch means, and max 1/n_g (docs/method.md section 2)."""
    baselines: list[float] = []
    for rewards in group_rewards:
        mean = sum(rewards) / len(rewards)
        baselines.extend([mean] * len(rewards))
    flat = [r for rewards in group_rewards for r in rewards]
    msw = max((1.0 / len(g) for g in group_rewards if len(g) > 0), default=0.0)
    return baselines, loo_batch_means(flat), msw


def _executed_group_size(sizes: Sequence[int]) -> int:
    """The step's common group size; if groups differ, the first size that differs from the first group's."""
    first = sizes[0]
    for s in sizes:
        if s != first:
            return s
    return first


def step_log_line(
    arm: str,
    step: int,
    estimator: str,
    group_sizes: Sequence[int],
    rewards: Sequence[float],
    baselines: Sequence[float],
    loo_mean: Sequence[float],
    advantages: Sequence[float],
    max_self_weight: float,
) -> dict[str, Any]:
    """One ``advantages.jsonl`` line: the docs/method.md section 9 fields, and ``diagnostics`` (section 2.1).

    Groups are the consecutive runs of ``group_sizes``; the diagnostics count them, the groups of one,
    the zero-variance groups (>= 2 rollouts, all rewards equal) and the fraction of advantages exactly 0
    (the same keys ``rl-adv serve`` answers with; nothing is masked here).
    """
    n = len(rewards)
    for name, values in (("baselines", baselines), ("loo_mean", loo_mean), ("advantages", advantages)):
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} values for {n} rollouts")
    if sum(group_sizes) != n:
        raise ValueError(f"group sizes {list(group_sizes)} do not add up to {n} rollouts")
    nonzero = sum(1 for a in advantages if abs(a) > NONZERO_ADVANTAGE_EPS)
    gap = sum(abs(b - m) for b, m in zip(baselines, loo_mean))
    starts = [sum(group_sizes[:g]) for g in range(len(group_sizes))]
    groups = [list(rewards[s:s + size]) for s, size in zip(starts, group_sizes)]
    diagnostics = {
        "groups": len(groups),
        "groups_of_one": sum(1 for g in groups if len(g) == 1),
        "zero_variance_groups": sum(1 for g in groups if len(g) >= 2 and all(r == g[0] for r in g)),
        "zero_advantage_fraction": sum(1 for a in advantages if a == 0) / n if n else 0.0,
        "masked": 0,
    }
    return {
        "arm": arm,
        "step": step,
        "estimator": estimator,
        "rollouts": n,
        "group_size": _executed_group_size(group_sizes) if group_sizes else 0,
        "groups": len(group_sizes),
        "rewards": [float(r) for r in rewards],
        "baselines": [float(b) for b in baselines],
        "loo_mean": [float(m) for m in loo_mean],
        "advantages": [float(a) for a in advantages],
        "max_self_weight": float(max_self_weight),
        "nonzero_advantage_fraction": nonzero / n if n else 0.0,
        "mean_abs_baseline_minus_loo_mean": gap / n if n else 0.0,
        "diagnostics": diagnostics,
    }


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
        serve: the ``rl-adv serve`` client (required unless ``estimator`` is ``group_mean``).
        resolver: recovers each group's question (required for the served path).
        torch_module: the ``torch`` module (the tensors the cookbook expects); imported if None.
        force_served: send ``group_mean`` through ``rl-adv serve`` too (the preflight's replaced path).
    """

    def __init__(
        self,
        arm: str,
        estimator: str,
        log_file: str,
        stock_compute: Callable[[list[Any]], list[Any]],
        serve: RlAdvServe | None = None,
        resolver: QuestionResolver | None = None,
        torch_module: Any = None,
        force_served: bool = False,
    ):
        self.arm = arm
        self.estimator = estimator
        self.log_file = log_file
        self.stock_compute = stock_compute
        self.served = force_served or estimator != "group_mean"
        if self.served and (serve is None or resolver is None):
            raise ValueError(f"estimator {estimator} needs an rl-adv serve client and a question resolver")
        self.serve = serve
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
        """Send the step's questions and total rewards to ``rl-adv serve``, log the line, return the result."""
        if len(builders) != len(groups):
            raise RuntimeError(f"{len(builders)} builders for {len(groups)} trajectory groups")
        assert self.resolver is not None and self.serve is not None
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
        """One ``rl-adv serve`` request for this arm's estimator, with the fields it reads (``rl-adv estimators``)."""
        assert self.serve is not None
        fields = served_fields(self.estimator, getattr(self.serve, "command", None))
        return self.serve.compute(
            self.estimator,
            rewards,
            prompts=list(questions) if "prompts" in fields else None,
            group_ids=list(group_ids) if "group_ids" in fields else None,
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


def prepare_resumed_log(log_file: str, start_batch: int) -> int:
    """Before a resume at ``start_batch``: keep the lines of earlier batches in ``log_file`` and move the
    others (batches the cookbook will run again) to ``advantages.superseded.jsonl`` beside it, appended, so
    nothing is lost. Returns the number of lines moved."""
    if not os.path.exists(log_file):
        return 0
    keep: list[str] = []
    moved: list[str] = []
    with open(log_file, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                step = json.loads(line)["step"]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise ValueError(f"{log_file} line {line_no} is not an advantages.jsonl line") from None
            (keep if step < start_batch else moved).append(line if line.endswith("\n") else line + "\n")
    if moved:
        with open(os.path.join(os.path.dirname(log_file), "advantages.superseded.jsonl"), "a", encoding="utf-8") as handle:
            handle.writelines(moved)
        tmp = log_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.writelines(keep)
        os.replace(tmp, log_file)
    return len(moved)


def make_hook_for_arm(arm: str, estimator: str, log_file: str, stock_compute: Callable[..., Any], serve: RlAdvServe | None, known_questions: Sequence[str], torch_module: Any = None) -> AdvantageHook:
    """The hook for one spec arm: stock path for ``group_mean``, served path for every other one-step estimator the
    drivers can send (``rl-adv estimators``: it reads rewards, prompts and group ids only)."""
    problem = None if estimator == "group_mean" else served_estimator_problem(estimator, getattr(serve, "command", None))
    if problem is not None:
        raise ValueError(f"advantage {estimator!r}: run_arm.py runs group_mean (stock) or an estimator through rl-adv serve: {problem}")
    resolver = QuestionResolver(known_questions) if estimator != "group_mean" else None
    return AdvantageHook(arm, estimator, log_file, stock_compute, serve=serve, resolver=resolver, torch_module=torch_module)
