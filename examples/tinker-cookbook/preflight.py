#!/usr/bin/env python3
"""Correctness preflight (docs/method.md section 8, step 1; the spec's ``correctness_preflight``) on a fixed batch.

The fixed batch: GSM8K train rows 7100-7103 with 8 rollouts each (the GRPO shape) and rows 7110-7141 with one
rollout each (the GS1 shape), sampled once from the starting policy (the base model, or ``--checkpoint``)
through the cookbook's own rollout and saved next to ``--out`` as ``preflight_fixed_batch.json`` (its sha256 is
in the report); ``--batch FILE`` re-uses a saved one. On it, with datums from the cookbook's
``assemble_training_data`` via ``rl.train.prepare_minibatch`` and log-probabilities from ``forward()`` on a
fresh LoRA client (the arm's seed, never updated):

1. Baseline path: the GRPO arm's hooked path (the hook ``run_arm.py`` installs for ``group_mean``) against
   the stock path (no hook): advantages in the datums, importance-sampling loss and per-token gradient.
2. Reference path: the GS1 arm's hooked path (questions and rewards through ``rl-adv serve``) against the
   float64 reference of the spec's code (``TfidfVectorizer().fit(train_questions)``, ``W = exp(S / T)``,
   ``w_ii = 0``, ``b = W r / W.sum(1)``; scikit-learn and numpy when importable, else pure Python, METHOD
   section 3) put in datums by the same ``assemble_training_data``; plus b itself and the self-weight.

Loss and gradient are float64 from ``forward()``'s log-probabilities: ``L = -sum_t exp(lp_t - lp_old_t) A_t``
and ``dL/dlp_t = -exp(lp_t - lp_old_t) A_t`` (rl_adv_examples/fixed_batch.py). Tolerances are the spec's.

Writes a JSON report (``--out``): ``checks`` (each with its tolerance and pass), the spec's ``errors`` block
(max abs error, reference max abs, relative L2 error, cosine per quantity), the installed tinker-cookbook
revision and the fixed input's sha256. ``--offline`` runs only the reference b/advantage checks through
``rl-adv serve`` on a synthetic batch (no Tinker; not the spec's preflight).
Exit codes: 0 every check passed; 1 a check failed; 2 bad input or a missing prerequisite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import sys
from typing import Any, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rl_adv_examples import fixed_batch as fb  # noqa: E402
from rl_adv_examples.arm_hook import make_hook_for_arm  # noqa: E402
from rl_adv_examples.common import DriverError, is_kernel_file, load_spec, main_wrapper, require_modules, require_tinker_api_key  # noqa: E402
from rl_adv_examples.provenance import check_cookbook_revision  # noqa: E402
from rl_adv_examples.kernel_reference import kernel_reference, kernel_reference_pure, temperature_of, tfidf_vectors_pure  # noqa: E402,F401
from rl_adv_examples.grading import GradingError, load_gsm8k, resolve_gsm8k_dir  # noqa: E402
from rl_adv_examples.serve_client import RlAdvServe, RlAdvServeError  # noqa: E402

PROG = "preflight.py"
REWARD_VALUES = (-0.1, 0.0, 0.9, 1.0)

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


def reference_baselines(estimator: str, corpus: Sequence[str], prompts: Sequence[str], rewards: Sequence[float], serve: RlAdvServe) -> tuple[list[float], str]:
    """The baselines the hooked path is compared with. For a TF-IDF arm, the independent float64 reference; for a
    kernel file (``kernel:PATH``, rl-adv study revise) there is no Python reimplementation of its families, so the
    reference is a separate ``rl-adv serve`` request: the check then covers the hook's plumbing (datums, loss,
    gradient), and the kernel's own invariants are the library preflight's ``kernel_file_*`` checks."""
    if is_kernel_file(estimator):
        return list(serve.compute(estimator, rewards, prompts=prompts).baselines), "rl-adv serve, a separate request (kernel file: no independent Python reference)"
    return kernel_reference(corpus, prompts, rewards, temperature_of(estimator))


def kernel_file_loo_check(estimator: str, question: str, serve: RlAdvServe, tol: dict[str, dict[str, float]]) -> dict[str, Any]:
    """A kernel file on 16 copies of one prompt gives the LOO batch mean (equal prompts, equal weights)."""
    rewards = [float(i % 3 == 0) for i in range(16)]
    loo = [(sum(rewards) - r) / 15 for r in rewards]
    result = serve.compute(estimator, rewards, prompts=[question] * 16)
    return compare(result.baselines, loo, 1e-12, 0.0)


def reference_check(groups_spec: list[dict[str, Any]], estimator: str, corpus: Sequence[str], serve: RlAdvServe, tol: dict[str, dict[str, float]]) -> tuple[dict[str, Any], str]:
    """The kernel through ``rl-adv serve`` vs the float64 reference of the spec's code."""
    prompts = [g["question"] for g in groups_spec for _ in g["rewards"]]
    rewards = [float(r) for g in groups_spec for r in g["rewards"]]
    tokens = [n for g in groups_spec for n in g["tokens"]]
    result = serve.compute(estimator, rewards, prompts=prompts)
    ref_b, source = reference_baselines(estimator, corpus, prompts, rewards, serve)
    ref_a = [r - b for r, b in zip(rewards, ref_b)]
    lt = tol["reference_loss"]
    checks = {
        "reference_baseline_b": compare(result.baselines, ref_b, lt["atol"], lt["rtol"]),
        "reference_advantages": compare(result.advantages, ref_a, lt["atol"], lt["rtol"]),
        "reference_self_weight": {"max_self_weight": result.max_self_weight, "passed": result.max_self_weight == 0.0},
    }
    checks.update(loss_and_gradient_checks("reference", result.advantages, ref_a, tokens, tol))
    if is_kernel_file(estimator):
        checks["kernel_file_identical_prompts_loo_mean"] = kernel_file_loo_check(estimator, prompts[0], serve, tol)
    return checks, source


# ---------------------------------------------------------------------------------------------------
# The spec's preflight: stock vs hooked datums, forward() on a never-updated client

_COOKBOOK_MODULES = {
    "tinker": "tinker",
    "torch": "torch",
    "renderers": "tinker_cookbook.renderers",
    "tokenizer_utils": "tinker_cookbook.tokenizer_utils",
    "math_env": "tinker_cookbook.recipes.math_rl.math_env",
    "problem_env": "tinker_cookbook.rl.problem_env",
    "rollouts": "tinker_cookbook.rl.rollouts",
    "completers": "tinker_cookbook.completers",
    "types": "tinker_cookbook.rl.types",
    "data_processing": "tinker_cookbook.rl.data_processing",
    "train": "tinker_cookbook.rl.train",
}


class ForwardPath:
    """Datums through ``rl.train.prepare_minibatch`` (stock, or with an arm's hook installed) and their
    float64 importance-sampling loss and gradient from ``forward()`` on one never-updated client."""

    def __init__(self, mods: dict[str, Any], client: Any, tokenizer: Any):
        self.mods, self.client, self.tokenizer = mods, client, tokenizer

    async def datums(self, builders: list[Any], groups: list[Any], hook: Any = None) -> list[Any]:
        train, dp = self.mods["train"], self.mods["data_processing"]
        if hook is not None:
            hook.install(train, dp)
        try:
            data, _metrics = await train.prepare_minibatch(builders, groups, self.tokenizer, None, 0.0, 0.0)
        finally:
            if hook is not None:
                hook.uninstall()
        return list(data)

    async def loss(self, data: list[Any]) -> tuple[float, list[float]]:
        tinker = self.mods["tinker"]
        future = await self.client.forward_async([fb.without_mask(tinker, d) for d in data], "importance_sampling")
        out = await future.result_async()
        return fb.is_loss_and_gradient(data, [o["logprobs"].tolist() for o in out.loss_fn_outputs])


def errors_block(checks: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The spec's ``errors``: max abs error, reference max abs, relative L2 error and cosine per quantity."""
    keys = ("max_abs_error", "reference_max_abs", "relative_l2_error", "cosine_similarity")
    return {name: {k: c[k] for k in keys} for name, c in checks.items() if all(k in c for k in keys)}


def pair_checks(prefix: str, measured: tuple[float, list[float]], reference: tuple[float, list[float]], tol: dict[str, dict[str, float]]) -> dict[str, Any]:
    lt, gt = tol[f"{prefix}_loss"], tol[f"{prefix}_gradient"]
    return {
        f"{prefix}_loss": compare([measured[0]], [reference[0]], lt["atol"], lt["rtol"]),
        f"{prefix}_gradient": compare(measured[1], reference[1], gt["atol"], gt["rtol"], gt.get("min_cosine")),
    }


async def spec_preflight(args: argparse.Namespace, spec: Any, tol: dict[str, dict[str, float]], items: Sequence[Any], serve: RlAdvServe, report: dict[str, Any]) -> dict[str, Any]:
    names = list(_COOKBOOK_MODULES)
    mods = dict(zip(names, require_modules(*(_COOKBOOK_MODULES[n] for n in names))))
    tinker, torch = mods["tinker"], mods["torch"]
    grpo = next((a for a in spec.arms if a.advantage == "group_mean"), None)
    if grpo is None:
        raise DriverError("the spec has no arm with advantage group_mean (the stock GRPO baseline)")
    gs1 = spec.kernel_arm()
    tokenizer = mods["tokenizer_utils"].get_tokenizer(spec.base_model)
    renderer = mods["renderers"].get_renderer(args.renderer or spec.renderer, tokenizer=tokenizer)
    service = tinker.ServiceClient(base_url=args.base_url)
    if args.batch:
        try:
            batch = fb.read_sampled_batch(args.batch)
        except (OSError, ValueError) as error:
            raise DriverError(f"--batch {args.batch}: {error}") from None
        batch_path = os.path.abspath(args.batch)
        sha = fb.batch_sha256(batch_path)
    else:
        if args.checkpoint:
            sampler = await service.create_sampling_client_async(model_path=args.checkpoint)
        else:
            sampler = await service.create_sampling_client_async(base_model=spec.base_model)
        batch = await fb.sample_fixed_batch(items, sampler, renderer, mods, max_tokens=spec.max_tokens)
        batch_path = os.path.join(os.path.dirname(os.path.abspath(args.out)), "preflight_fixed_batch.json")
        os.makedirs(os.path.dirname(batch_path), exist_ok=True)
        sha = fb.write_sampled_batch(batch_path, batch)
    report["fixed_input"] = {
        "path": batch_path,
        "sha256": sha,
        "description": f"{len(batch['grpo'])} tasks x G=8 (train rows {[g.get('row') for g in batch['grpo']]}) and {len(batch['gs1'])} tasks x G=1, "
        "sampled from the starting policy; datums from the cookbook's assemble_training_data; loss from forward() on a never-updated LoRA client",
    }
    client = await service.create_lora_training_client_async(spec.base_model, rank=spec.lora_rank, seed=grpo.seed)
    path = ForwardPath(mods, client, tokenizer)
    train_questions = [item.question for item in items]
    checks: dict[str, Any] = {}

    builders, groups = fb.groups_from_batch(batch["grpo"], mods, renderer)
    stock = await path.datums(builders, groups)
    hook = make_hook_for_arm(grpo.name, "group_mean", os.devnull, mods["data_processing"].compute_advantages, None, [], torch_module=torch)
    hooked = await path.datums(builders, groups, hook)
    lt = tol["baseline_loss"]
    checks["baseline_advantages"] = compare(fb.datum_advantages(hooked), fb.datum_advantages(stock), lt["atol"], lt["rtol"])
    checks.update(pair_checks("baseline", await path.loss(hooked), await path.loss(stock), tol))

    builders, groups = fb.groups_from_batch(batch["gs1"], mods, renderer)
    hook = make_hook_for_arm(gs1.name, gs1.advantage, os.devnull, mods["data_processing"].compute_advantages, serve, train_questions, torch_module=torch)
    hooked = await path.datums(builders, groups, hook)
    prompts = [g["question"] for g in batch["gs1"] for _ in g["trajectories"]]
    rewards = [float(r) for g in groups for r in g.get_total_rewards()]
    ref_b, source = reference_baselines(gs1.advantage, train_questions, prompts, rewards, serve)
    ref_a = [r - b for r, b in zip(rewards, ref_b)]
    offsets = [0]
    for g in groups:
        offsets.append(offsets[-1] + len(g.trajectories_G))
    ref_tensors = [torch.tensor(ref_a[offsets[i] : offsets[i + 1]]) for i in range(len(groups))]
    reference, _meta = mods["data_processing"].assemble_training_data(groups, ref_tensors)
    served = serve.compute(gs1.advantage, rewards, prompts=prompts)
    lt = tol["reference_loss"]
    checks["reference_baseline_b"] = compare(served.baselines, ref_b, lt["atol"], lt["rtol"])
    checks["reference_advantages"] = compare(fb.datum_advantages(hooked), ref_a, lt["atol"], lt["rtol"])
    checks["reference_self_weight"] = {"max_self_weight": served.max_self_weight, "passed": served.max_self_weight == 0.0}
    checks.update(pair_checks("reference", await path.loss(hooked), await path.loss(list(reference)), tol))
    if is_kernel_file(gs1.advantage):
        checks["kernel_file_identical_prompts_loo_mean"] = kernel_file_loo_check(gs1.advantage, prompts[0], serve, tol)
    report["reference"] = source
    report["forward_client"] = {"base_model": spec.base_model, "lora_rank": spec.lora_rank, "seed": grpo.seed, "updated": False}
    return checks


# ---------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--spec", required=True, help="the study spec JSON (tolerances, the arms)")
    p.add_argument("--out", required=True, help="the JSON report to write (the sampled batch goes beside it)")
    p.add_argument("--batch", default=None, help="a preflight_fixed_batch.json saved by an earlier run (default: sample one)")
    p.add_argument("--checkpoint", default=None, help="tinker:// sampler path of the starting policy (default: the base model)")
    p.add_argument("--data-dir", default=None, help="GSM8K folder with train.jsonl (default: $GSM8K_DIR, else the rl-adv cache filled by rl-adv data gsm8k)")
    p.add_argument("--corpus", default=None, help="TF-IDF fitting corpus for rl-adv serve (default: DATA_DIR/train.jsonl)")
    p.add_argument("--rl-adv", default=None, help="the rl-adv command (default: $RL_ADV, rl-adv on PATH, or this checkout's dist/cli.js)")
    p.add_argument("--renderer", default=None, help="renderer name (default: the spec's, qwen3_5_disable_thinking)")
    p.add_argument("--base-url", default=os.environ.get("TINKER_BASE_URL"), help="Tinker service URL (default: $TINKER_BASE_URL)")
    p.add_argument("--cookbook-rev", default=None, help="the tinker-cookbook commit expected to be installed (default: $RL_ADV_COOKBOOK_REV, else the pin)")
    p.add_argument("--offline", action="store_true", help="only the reference b/advantage checks on a synthetic batch through rl-adv serve (no Tinker)")
    return p


def run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    spec = load_spec(args.spec)
    tol = spec_tolerances(spec.raw)
    estimator = spec.kernel_arm().advantage
    if not is_kernel_file(estimator):
        temperature_of(estimator)
    try:
        data_dir = resolve_gsm8k_dir(args.data_dir)
        items = load_gsm8k(data_dir, "train")
    except GradingError as error:
        raise DriverError(str(error)) from None
    train_questions = [item.question for item in items]
    report: dict[str, Any] = {"estimator": estimator, "mode": "offline" if args.offline else "spec", "checks": {}}
    if not args.offline:
        require_tinker_api_key()
        require_modules("tinker")
        report["cookbook"] = check_cookbook_revision(PROG, args.cookbook_rev)
    try:
        with RlAdvServe(corpus=args.corpus or os.path.join(data_dir, "train.jsonl"), command=args.rl_adv) as serve:
            if args.offline:
                batch = default_fixed_batch(train_questions)
                report["fixed_input"] = {"description": "synthetic: rows 7110-7141, rewards and token counts from random.Random(0)", "batch": batch["gs1"]}
                checks, source = reference_check(batch["gs1"], estimator, train_questions, serve, tol)
                report["checks"].update(checks)
                report["reference"] = source
            else:
                report["checks"].update(asyncio.run(spec_preflight(args, spec, tol, items, serve, report)))
    except RlAdvServeError as error:
        raise DriverError(f"rl-adv serve: {error}", 1) from None
    report["errors"] = errors_block(report["checks"])
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
