#!/usr/bin/env python3
"""Correctness preflight (METHOD section 8.1, the spec's ``correctness_preflight``) on a fixed batch.

1. Baseline path: the replaced advantage path of ``run_arm.py`` (questions and total rewards sent to
   ``rl-adv serve``, per-group tensors back) run with ``group_mean`` reproduces the stock
   ``tinker_cookbook.rl.data_processing.compute_advantages`` on cookbook ``TrajectoryGroup`` objects.
2. Reference path: the kernel arm's estimator through ``rl-adv serve`` matches a float64 reference of the
   spec's code (``TfidfVectorizer().fit(train_questions)``, ``W = exp(S / T)``, ``w_ii = 0``,
   ``b = W r / W.sum(1)``): scikit-learn and numpy when importable, else a pure-Python float64 version
   of the same definitions (METHOD section 3).

Loss and gradient: the importance-sampling loss on the fixed batch at the sampling policy (ratio 1) is
``L = -sum_i n_i A_i`` (n_i action tokens of rollout i) and its gradient with respect to each action
token's log-probability is ``-A_i``, so the spec's loss and gradient tolerances are checked on these
float64 quantities; a server-side ``forward()`` adds nothing to a check of the advantage path.

The fixed batch (default): GSM8K train rows 7100-7103 with 8 rollouts each (the GRPO shape) and rows
7110-7141 with one rollout each (the GS1 shape), rewards in {-0.1, 0, 0.9, 1} and action-token counts
drawn from ``random.Random(0)``; ``--batch FILE`` gives another (e.g. one sampled from the starting policy).

Writes a JSON report (``--out``) with every check's measured errors and tolerance.
Exit codes: 0 every check passed; 1 a check failed; 2 bad input or a missing prerequisite.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
from functools import partial
from typing import Any, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rl_adv_examples.advantages import AdvantageHook, QuestionResolver  # noqa: E402
from rl_adv_examples.common import DriverError, load_spec, main_wrapper, require_modules  # noqa: E402
from rl_adv_examples.grading import GradingError, load_gsm8k, resolve_gsm8k_dir  # noqa: E402
from rl_adv_examples.serve_client import RlAdvServe, RlAdvServeError  # noqa: E402

PROG = "preflight.py"
REWARD_VALUES = (-0.1, 0.0, 0.9, 1.0)
_TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")

# ---------------------------------------------------------------------------------------------------
# The fixed batch


def default_fixed_batch(train_questions: Sequence[str], seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """4 x 8 rollouts (rows 7100-7103) and 32 x 1 (rows 7110-7141), rewards and token counts from ``seed``."""
    if len(train_questions) < 7142:
        raise DriverError(f"the default fixed batch needs GSM8K train (7473 rows), got {len(train_questions)} rows")
    rng = random.Random(seed)

    def group(row: int, size: int) -> dict[str, Any]:
        return {
            "question": train_questions[row],
            "rewards": [rng.choice(REWARD_VALUES) for _ in range(size)],
            "tokens": [rng.randint(20, 512) for _ in range(size)],
        }

    return {"grpo": [group(r, 8) for r in range(7100, 7104)], "gs1": [group(r, 1) for r in range(7110, 7142)]}


def read_fixed_batch(path: str) -> dict[str, list[dict[str, Any]]]:
    """``{"grpo": [groups], "gs1": [groups]}``, a group ``{"question", "rewards": [...], "tokens"?: [...]}``."""
    try:
        with open(path, encoding="utf-8") as handle:
            batch = json.load(handle)
    except (OSError, json.JSONDecodeError) as error:
        raise DriverError(f"cannot read --batch {path}: {error}") from None
    for part in ("grpo", "gs1"):
        groups = batch.get(part) if isinstance(batch, dict) else None
        if not isinstance(groups, list) or not groups:
            raise DriverError(f"--batch {path}: {part} must be a non-empty list of groups")
        for g, group in enumerate(groups):
            where = f"--batch {path}: {part}[{g}]"
            if not isinstance(group, dict) or not isinstance(group.get("question"), str):
                raise DriverError(f"{where}.question must be a string")
            rewards = group.get("rewards")
            if not isinstance(rewards, list) or not rewards or not all(_is_finite(r) for r in rewards):
                raise DriverError(f"{where}.rewards must be a non-empty list of finite numbers")
            tokens = group.setdefault("tokens", [1] * len(rewards))
            if not isinstance(tokens, list) or len(tokens) != len(rewards) or not all(isinstance(t, int) and t >= 0 for t in tokens):
                raise DriverError(f"{where}.tokens must list one non-negative integer per reward")
    return batch


def _is_finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# ---------------------------------------------------------------------------------------------------
# The float64 reference of the spec's kernel


def tfidf_vectors_pure(corpus: Sequence[str], docs: Sequence[str]) -> list[dict[str, float]]:
    """scikit-learn ``TfidfVectorizer()`` defaults in pure Python: lowercase, ``(?u)\\b\\w\\w+\\b`` tokens,
    smooth idf ``ln((1 + n) / (1 + df)) + 1``, raw tf, L2-normalised rows (METHOD section 3)."""
    df: dict[str, int] = {}
    for doc in corpus:
        for term in set(_TOKEN_RE.findall(doc.lower())):
            df[term] = df.get(term, 0) + 1
    n = len(corpus)
    idf = {t: math.log((1 + n) / (1 + d)) + 1.0 for t, d in df.items()}
    out = []
    for doc in docs:
        counts: dict[str, int] = {}
        for term in _TOKEN_RE.findall(doc.lower()):
            if term in idf:
                counts[term] = counts.get(term, 0) + 1
        vec = {t: c * idf[t] for t, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        out.append({t: v / norm for t, v in vec.items()} if norm > 0 else {})
    return out


def kernel_reference_pure(corpus: Sequence[str], prompts: Sequence[str], rewards: Sequence[float], temperature: float) -> list[float]:
    """The spec's ``gs1_adv`` baselines b in pure-Python float64: ``W = exp(S / T)``, ``w_ii = 0``."""
    vecs = tfidf_vectors_pure(corpus, prompts)
    n = len(prompts)
    b = []
    for i in range(n):
        num = den = 0.0
        for j in range(n):
            if j == i:
                continue
            a, c = vecs[i], vecs[j]
            if len(a) > len(c):
                a, c = c, a
            s = sum(v * c.get(t, 0.0) for t, v in a.items())
            w = math.exp(s / temperature)
            num += w * rewards[j]
            den += w
        b.append(num / den)
    return b


def kernel_reference(corpus: Sequence[str], prompts: Sequence[str], rewards: Sequence[float], temperature: float) -> tuple[list[float], str]:
    """The reference baselines and what computed them (scikit-learn + numpy when importable)."""
    try:
        import numpy as np
        from sklearn.feature_extraction.text import TfidfVectorizer
    except ImportError:
        return kernel_reference_pure(corpus, prompts, rewards, temperature), "pure-Python float64 (scikit-learn/numpy not importable)"
    vec = TfidfVectorizer().fit(list(corpus))
    x = vec.transform(list(prompts))
    s = (x @ x.T).toarray().astype(np.float64)
    w = np.exp(s / temperature)
    np.fill_diagonal(w, 0.0)
    r = np.asarray(rewards, dtype=np.float64)
    b = (w @ r) / w.sum(1)
    return [float(v) for v in b], "scikit-learn TfidfVectorizer + numpy float64"


def temperature_of(estimator: str) -> float:
    match = re.fullmatch(r"tfidf_kernel_loo_T(.+)", estimator)
    if not match:
        raise DriverError(f"the reference check covers tfidf_kernel_loo_T<T> estimators, got {estimator!r}")
    try:
        t = float(match.group(1))
    except ValueError:
        raise DriverError(f"cannot read the temperature of {estimator!r}") from None
    if not (t > 0 and math.isfinite(t)):
        raise DriverError(f"the temperature of {estimator!r} must be positive")
    return t


# ---------------------------------------------------------------------------------------------------
# Comparisons


def is_loss(advantages: Sequence[float], tokens: Sequence[int]) -> float:
    """Importance-sampling loss at ratio 1: ``-sum_i n_i A_i`` (float64)."""
    return -math.fsum(n * a for a, n in zip(advantages, tokens))


def is_gradient(advantages: Sequence[float], tokens: Sequence[int]) -> list[float]:
    """d loss / d logprob of every action token at ratio 1: ``-A_i``, repeated ``n_i`` times."""
    return [-float(a) for a, n in zip(advantages, tokens) for _ in range(n)]


def compare(measured: Sequence[float], reference: Sequence[float], atol: float, rtol: float, min_cosine: float | None = None) -> dict[str, Any]:
    """Errors of ``measured`` against ``reference`` and whether they are within tolerance.

    Passes iff every ``|m - r| <= atol + rtol * |r|`` (numpy ``allclose``) and, when ``min_cosine`` is
    given, the cosine similarity is at least ``min_cosine`` (two zero vectors have cosine 1).
    """
    if len(measured) != len(reference):
        raise ValueError(f"{len(measured)} measured values for {len(reference)} reference values")
    diffs = [abs(float(m) - float(r)) for m, r in zip(measured, reference)]
    ref_norm = math.sqrt(math.fsum(float(r) ** 2 for r in reference))
    mea_norm = math.sqrt(math.fsum(float(m) ** 2 for m in measured))
    diff_norm = math.sqrt(math.fsum(d * d for d in diffs))
    if ref_norm == 0 and mea_norm == 0:
        cosine = 1.0
    elif ref_norm == 0 or mea_norm == 0:
        cosine = 0.0
    else:
        cosine = math.fsum(float(m) * float(r) for m, r in zip(measured, reference)) / (ref_norm * mea_norm)
    within = all(d <= atol + rtol * abs(float(r)) for d, r in zip(diffs, reference))
    passed = within and (min_cosine is None or cosine >= min_cosine)
    return {
        "max_abs_error": max(diffs, default=0.0),
        "reference_max_abs": max((abs(float(r)) for r in reference), default=0.0),
        "relative_l2_error": diff_norm / ref_norm if ref_norm > 0 else (0.0 if diff_norm == 0 else math.inf),
        "cosine_similarity": cosine,
        "bit_identical": all(d == 0.0 for d in diffs),
        "tolerance": {"atol": atol, "rtol": rtol, **({"min_cosine": min_cosine} if min_cosine is not None else {})},
        "passed": passed,
    }


def spec_tolerances(raw_spec: dict[str, Any]) -> dict[str, dict[str, float]]:
    try:
        paths = raw_spec["correctness_preflight"]["paths"]
        tol = next(p for p in paths if p.get("id") == "gs1_advantage_estimator")["tolerances"]
        return {k: dict(tol[k]) for k in ("baseline_loss", "baseline_gradient", "reference_loss", "reference_gradient")}
    except (KeyError, TypeError, StopIteration):
        raise DriverError("the spec has no correctness_preflight path gs1_advantage_estimator with four tolerances") from None


def loss_and_gradient_checks(prefix: str, measured: Sequence[float], reference: Sequence[float], tokens: Sequence[int], tol: dict[str, dict[str, float]]) -> dict[str, Any]:
    lt, gt = tol[f"{prefix}_loss"], tol[f"{prefix}_gradient"]
    return {
        f"{prefix}_loss": compare([is_loss(measured, tokens)], [is_loss(reference, tokens)], lt["atol"], lt["rtol"]),
        f"{prefix}_gradient": compare(is_gradient(measured, tokens), is_gradient(reference, tokens), gt["atol"], gt["rtol"], gt.get("min_cosine")),
    }


# ---------------------------------------------------------------------------------------------------
# The two paths


def baseline_check(groups_spec: list[dict[str, Any]], serve: RlAdvServe, tol: dict[str, dict[str, float]]) -> dict[str, Any]:
    """Stock ``compute_advantages`` vs the replaced path with ``group_mean``, on cookbook types."""
    torch, tinker, types, completers, data_processing, problem_env = require_modules(
        "torch", "tinker", "tinker_cookbook.rl.types", "tinker_cookbook.completers", "tinker_cookbook.rl.data_processing", "tinker_cookbook.rl.problem_env"
    )
    groups = []
    builders = []
    for g in groups_spec:
        trajectories = []
        for r, n in zip(g["rewards"], g["tokens"]):
            transition = types.Transition(
                ob=tinker.ModelInput.from_ints([1, 2, 3]),
                ac=completers.TokensWithLogprobs(tokens=[7] * n, maybe_logprobs=[-1.0] * n),
                reward=float(r),
                episode_done=True,
            )
            trajectories.append(types.Trajectory(transitions=[transition], final_ob=tinker.ModelInput.empty()))
        groups.append(types.TrajectoryGroup(trajectories_G=trajectories, final_rewards_G=[0.0] * len(trajectories), metrics_G=[{} for _ in trajectories]))
        # The question rides on the builder exactly as in the cookbook's Gsm8kDataset (the env is never built here).
        builders.append(problem_env.ProblemGroupBuilder(env_thunk=partial(_never_built, g["question"]), num_envs=len(trajectories)))
    stock = [float(a) for t in data_processing.compute_advantages(groups) for a in t.tolist()]
    hook = AdvantageHook("preflight_group_mean", "group_mean", os.devnull, data_processing.compute_advantages, serve=serve, resolver=QuestionResolver(), torch_module=torch, force_served=True)
    result = hook.compute_served(builders, groups, tokenizer=None)
    replaced = [float(a) for t in hook._tensors(result.advantages, result.offsets, groups) for a in t.tolist()]
    tokens = [n for g in groups_spec for n in g["tokens"]]
    lt = tol["baseline_loss"]
    checks = {"baseline_advantages": compare(replaced, stock, lt["atol"], lt["rtol"])}
    checks.update(loss_and_gradient_checks("baseline", replaced, stock, tokens, tol))
    return checks


def _never_built(question: str) -> None:
    raise AssertionError(f"the preflight never builds an env ({question[:30]!r})")


def reference_check(groups_spec: list[dict[str, Any]], estimator: str, corpus: Sequence[str], serve: RlAdvServe, tol: dict[str, dict[str, float]]) -> tuple[dict[str, Any], str]:
    """The kernel through ``rl-adv serve`` vs the float64 reference of the spec's code."""
    prompts = [g["question"] for g in groups_spec for _ in g["rewards"]]
    rewards = [float(r) for g in groups_spec for r in g["rewards"]]
    tokens = [n for g in groups_spec for n in g["tokens"]]
    result = serve.compute(estimator, rewards, prompts=prompts)
    ref_b, source = kernel_reference(corpus, prompts, rewards, temperature_of(estimator))
    ref_a = [r - b for r, b in zip(rewards, ref_b)]
    lt = tol["reference_loss"]
    checks = {
        "reference_baseline_b": compare(result.baselines, ref_b, lt["atol"], lt["rtol"]),
        "reference_advantages": compare(result.advantages, ref_a, lt["atol"], lt["rtol"]),
        "reference_self_weight": {"max_self_weight": result.max_self_weight, "passed": result.max_self_weight == 0.0},
    }
    checks.update(loss_and_gradient_checks("reference", result.advantages, ref_a, tokens, tol))
    return checks, source


# ---------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", required=True, help="the study spec JSON (tolerances, the kernel arm)")
    p.add_argument("--out", required=True, help="the JSON report to write")
    p.add_argument("--batch", default=None, help="a fixed batch JSON (default: the built-in one, see --help text)")
    p.add_argument("--data-dir", default=None, help="GSM8K folder with train.jsonl (default: $GSM8K_DIR, else the rl-adv cache filled by rl-adv data gsm8k)")
    p.add_argument("--corpus", default=None, help="TF-IDF fitting corpus for rl-adv serve (default: DATA_DIR/train.jsonl)")
    p.add_argument("--rl-adv", default=None, help="the rl-adv command (default: $RL_ADV, rl-adv on PATH, or this checkout's dist/cli.js)")
    p.add_argument("--skip-baseline", action="store_true", help="run only the reference check (no torch/tinker-cookbook needed)")
    return p


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    spec = load_spec(args.spec)
    tol = spec_tolerances(spec.raw)
    estimator = spec.kernel_arm().advantage
    temperature_of(estimator)
    try:
        data_dir = resolve_gsm8k_dir(args.data_dir)
        train_questions = [item.question for item in load_gsm8k(data_dir, "train")]
    except GradingError as error:
        raise DriverError(str(error)) from None
    batch = read_fixed_batch(args.batch) if args.batch else default_fixed_batch(train_questions)
    report: dict[str, Any] = {"estimator": estimator, "fixed_batch": batch, "checks": {}}
    try:
        with RlAdvServe(corpus=args.corpus or os.path.join(data_dir, "train.jsonl"), command=args.rl_adv) as serve:
            if args.skip_baseline:
                report["baseline"] = "skipped (--skip-baseline)"
            else:
                report["checks"].update(baseline_check(batch["grpo"], serve, tol))
            checks, source = reference_check(batch["gs1"], estimator, train_questions, serve, tol)
            report["checks"].update(checks)
            report["reference"] = source
    except RlAdvServeError as error:
        raise DriverError(f"rl-adv serve: {error}", 1) from None
    failed = sorted(name for name, check in report["checks"].items() if not check["passed"])
    report["passed"] = not failed
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=2, allow_nan=True)
        handle.write("\n")
    for name, check in sorted(report["checks"].items()):
        status = "passed" if check["passed"] else "FAILED"
        detail = f"max_abs_error {check['max_abs_error']:.3g}" if "max_abs_error" in check else f"max_self_weight {check['max_self_weight']}"
        print(f"{PROG}: {name}: {status} ({detail})", file=sys.stderr)
    if failed:
        raise DriverError(f"{len(failed)} check(s) failed: {', '.join(failed)}; see {args.out}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main_wrapper(PROG, run))
