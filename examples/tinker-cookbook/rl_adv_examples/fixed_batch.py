"""The preflight's fixed batch and its importance-sampling loss, as the spec's ``correctness_preflight`` asks.

The batch is sampled once from the starting policy (4 tasks x G = 8 for the GRPO shape, 32 tasks x 1 for the
GS1 shape) and saved as JSON, so a re-run reads the very same tokens. Each part becomes cookbook
``TrajectoryGroup`` objects and ``ProblemGroupBuilder``s built as ``Gsm8kDataset`` builds them, so the
stock and the hooked ``prepare_minibatch`` see what training sees and ``assemble_training_data`` makes the
datums. :func:`is_loss_and_gradient` is the ``importance_sampling`` loss in float64 from ``forward()``'s
log-probabilities: ``L = -sum_t exp(lp_t - lp_old_t) A_t`` over the target tokens (prompt tokens carry
advantage 0), and ``dL/dlp_t = -exp(lp_t - lp_old_t) A_t``.

Standard library only; the cookbook and tinker modules are passed in.
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import partial
from typing import Any, Sequence

__all__ = [
    "GRPO_ROWS",
    "GS1_ROWS",
    "batch_sha256",
    "datum_advantages",
    "groups_from_batch",
    "is_loss_and_gradient",
    "read_sampled_batch",
    "sample_fixed_batch",
    "without_mask",
    "write_sampled_batch",
]

#: GSM8K train rows of the GRPO part (4 tasks x 8 rollouts) and the GS1 part (32 tasks x 1).
GRPO_ROWS = tuple(range(7100, 7104))
GS1_ROWS = tuple(range(7110, 7142))


async def sample_fixed_batch(items: Sequence[Any], sampling_client: Any, renderer: Any, mods: dict[str, Any], max_tokens: int = 512) -> dict[str, Any]:
    """Sample both parts from ``sampling_client`` through the cookbook's own rollout (temperature 1)."""
    completers, math_env, rollouts = mods["completers"], mods["math_env"], mods["rollouts"]
    policy = completers.TinkerTokenCompleter(sampling_client, max_tokens=max_tokens, temperature=1.0)

    async def part(rows: Sequence[int], group_size: int) -> list[dict[str, Any]]:
        out = []
        for row in rows:
            item = items[row]
            builder = make_builder(mods, item.question, math_env.extract_gsm8k_final_answer(item.answer), renderer, group_size)
            group = await rollouts.do_group_rollout(builder, policy)
            trajectories = []
            for traj, reward in zip(group.trajectories_G, group.get_total_rewards()):
                (tr,) = traj.transitions  # MathEnv is single-turn
                trajectories.append({"ob": tr.ob.to_ints(), "ac": list(tr.ac.tokens), "logprobs": [float(x) for x in tr.ac.logprobs], "reward": float(reward)})
            out.append({"row": row, "question": item.question, "answer": item.answer, "trajectories": trajectories})
        return out

    return {"grpo": await part(GRPO_ROWS, 8), "gs1": await part(GS1_ROWS, 1)}


def make_builder(mods: dict[str, Any], question: str, answer: str, renderer: Any, group_size: int) -> Any:
    """``ProblemGroupBuilder(env_thunk=partial(MathEnv, question, answer, renderer, convo_prefix=...))``, as
    ``Gsm8kDataset._make_env_group_builder`` builds it (recipes/math_rl/math_env.py at 9dfcc3a2)."""
    math_env = mods["math_env"]
    return mods["problem_env"].ProblemGroupBuilder(
        env_thunk=partial(math_env.MathEnv, question, answer, renderer, convo_prefix=math_env.MathEnv.standard_fewshot_prefix()),
        num_envs=group_size,
    )


def write_sampled_batch(path: str, batch: dict[str, Any]) -> str:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(batch, handle)
        handle.write("\n")
    return batch_sha256(path)


def batch_sha256(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def read_sampled_batch(path: str) -> dict[str, Any]:
    """A batch written by :func:`write_sampled_batch`; ValueError naming the first bad field."""
    with open(path, encoding="utf-8") as handle:
        batch = json.load(handle)
    for part in ("grpo", "gs1"):
        groups = batch.get(part) if isinstance(batch, dict) else None
        if not isinstance(groups, list) or not groups:
            raise ValueError(f"{part} must be a non-empty list of groups")
        for g, group in enumerate(groups):
            where = f"{part}[{g}]"
            if not isinstance(group, dict) or not isinstance(group.get("question"), str) or not isinstance(group.get("answer"), str):
                raise ValueError(f"{where}: question and answer must be strings")
            trajs = group.get("trajectories")
            if not isinstance(trajs, list) or not trajs:
                raise ValueError(f"{where}.trajectories must be a non-empty list")
            for k, t in enumerate(trajs):
                ok = isinstance(t, dict) and all(isinstance(t.get(f), list) for f in ("ob", "ac", "logprobs"))
                if not ok or len(t["ac"]) != len(t["logprobs"]) or not isinstance(t.get("reward"), (int, float)):
                    raise ValueError(f"{where}.trajectories[{k}] needs ob, ac, logprobs (one per ac token) and reward")
    return batch


def groups_from_batch(groups_spec: Sequence[dict[str, Any]], mods: dict[str, Any], renderer: Any) -> tuple[list[Any], list[Any]]:
    """Cookbook builders and ``TrajectoryGroup``s of one part (the reward sits on the single transition)."""
    tinker, types, completers, math_env = mods["tinker"], mods["types"], mods["completers"], mods["math_env"]
    builders, groups = [], []
    for g in groups_spec:
        trajectories = []
        for t in g["trajectories"]:
            transition = types.Transition(
                ob=tinker.ModelInput.from_ints(t["ob"]),
                ac=completers.TokensWithLogprobs(tokens=list(t["ac"]), maybe_logprobs=list(t["logprobs"])),
                reward=float(t["reward"]),
                episode_done=True,
            )
            trajectories.append(types.Trajectory(transitions=[transition], final_ob=tinker.ModelInput.empty()))
        groups.append(types.TrajectoryGroup(trajectories_G=trajectories, final_rewards_G=[0.0] * len(trajectories), metrics_G=[{} for _ in trajectories]))
        builders.append(make_builder(mods, g["question"], math_env.extract_gsm8k_final_answer(g["answer"]), renderer, len(trajectories)))
    return builders, groups


def without_mask(tinker: Any, datum: Any) -> Any:
    """The datum ``train_step`` sends: ``loss_fn_inputs`` without ``mask`` (rl/train.py ``_remove_mask``)."""
    return tinker.Datum(model_input=datum.model_input, loss_fn_inputs={k: v for k, v in datum.loss_fn_inputs.items() if k != "mask"})


def datum_advantages(data: Sequence[Any]) -> list[float]:
    """The advantage each datum carries on its action tokens (where ``mask`` is 1), one per trajectory."""
    out = []
    for d in data:
        adv = d.loss_fn_inputs["advantages"].tolist()
        mask = d.loss_fn_inputs["mask"].tolist()
        on = [float(a) for a, m in zip(adv, mask) if m > 0]
        out.append(on[0] if on else 0.0)
    return out


def is_loss_and_gradient(data: Sequence[Any], forward_logprobs: Sequence[Sequence[float]]) -> tuple[float, list[float]]:
    """The importance-sampling loss and its gradient with respect to every target token's log-probability,
    in float64, from the datums' sampled log-probabilities and advantages and ``forward()``'s log-probabilities."""
    if len(data) != len(forward_logprobs):
        raise ValueError(f"{len(forward_logprobs)} forward outputs for {len(data)} datums")
    terms: list[float] = []
    grad: list[float] = []
    for d, lps in zip(data, forward_logprobs):
        old = d.loss_fn_inputs["logprobs"].tolist()
        adv = d.loss_fn_inputs["advantages"].tolist()
        if not (len(old) == len(adv) == len(lps)):
            raise ValueError("a forward output's length differs from its datum's")
        for lp, lo, a in zip(lps, old, adv):
            g = -math.exp(float(lp) - float(lo)) * float(a)
            grad.append(g)
            terms.append(g)
    return math.fsum(terms), grad
