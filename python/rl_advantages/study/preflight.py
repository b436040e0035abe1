"""The correctness preflight of the TRL backend (docs/method.md section 8.1, the spec's ``correctness_preflight``).

On one fixed batch, sampled once from the starting policy by TRL itself (the same seed in every path, so every path
sees the same completions, which is checked):

1. Baseline path (GRPO, G = 8 x 4 prompts): stock ``trl.GRPOTrainer`` (``scale_rewards="none"``: A = r - group mean)
   against the adapter's ``GRPOTrainer(advantage_estimator="group_mean")``: the advantages TRL's
   ``_generate_and_score_completions`` hands the loss, the loss from ``compute_loss`` and its gradient over the LoRA
   parameters, within the spec's ``baseline_*`` tolerances.
2. Reference path (GS1, G = 1 x 32 prompts): the adapter with the kernel arm's estimator against the float64
   reference of the spec's code (``rl_advantages.kernel_reference``: TF-IDF fitted on the train questions,
   ``W = exp(S / T)``, ``w_ii = 0``, ``b = W r / W 1``): baselines and advantages, and the loss and gradient with
   the reference advantages put in the same batch, within the ``reference_*`` tolerances; the self-weight is 0.
3. Both arms' LoRA weights are identical at step 0 (same starting weights, same LoRA seed).

The report (``checks``, the ``errors`` block: max abs error, reference max abs, relative L2 error and cosine per
quantity, as examples/tinker-cookbook/preflight.py writes it) goes to ``--out``.
"""

from __future__ import annotations

import hashlib
import math
import os
from typing import Any, Sequence

from ..kernel_reference import kernel_reference
from .settings import DriverError, Item, Settings, render

#: Tasks of the fixed batch, from the front of the calibration tasks file (the starting policy's own tasks).
GRPO_TASKS, GS1_TASKS = 4, 32


def compare(measured: Sequence[float], reference: Sequence[float], atol: float, rtol: float, min_cosine: float | None = None) -> dict[str, Any]:
    """Errors of ``measured`` against ``reference``: passes iff every |m - r| <= atol + rtol |r| (numpy allclose)
    and, when given, the cosine is at least ``min_cosine`` (two zero vectors have cosine 1)."""
    if len(measured) != len(reference):
        raise DriverError(f"{len(measured)} measured values for {len(reference)} reference values", 1)
    m = [float(x) for x in measured]
    r = [float(x) for x in reference]
    diffs = [abs(a - b) for a, b in zip(m, r)]
    rn, mn, dn = (math.sqrt(math.fsum(v * v for v in xs)) for xs in (r, m, diffs))
    cosine = 1.0 if rn == 0 and mn == 0 else 0.0 if rn == 0 or mn == 0 else math.fsum(a * b for a, b in zip(m, r)) / (rn * mn)
    passed = all(d <= atol + rtol * abs(b) for d, b in zip(diffs, r)) and (min_cosine is None or cosine >= min_cosine)
    return {
        "max_abs_error": max(diffs, default=0.0),
        "reference_max_abs": max((abs(b) for b in r), default=0.0),
        "relative_l2_error": dn / rn if rn > 0 else (0.0 if dn == 0 else math.inf),
        "cosine_similarity": cosine,
        "bit_identical": all(d == 0.0 for d in diffs),
        "tolerance": {"atol": atol, "rtol": rtol, **({"min_cosine": min_cosine} if min_cosine is not None else {})},
        "passed": passed,
    }


def spec_tolerances(raw: dict[str, Any]) -> dict[str, dict[str, float]]:
    try:
        paths = raw["correctness_preflight"]["paths"]
        tol = next(p for p in paths if p.get("id") == "gs1_advantage_estimator")["tolerances"]
        return {k: dict(tol[k]) for k in ("baseline_loss", "baseline_gradient", "reference_loss", "reference_gradient")}
    except (KeyError, TypeError, StopIteration):
        raise DriverError("the spec has no correctness_preflight path gs1_advantage_estimator with four tolerances") from None


def errors_block(checks: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The spec's ``errors``: max abs error, reference max abs, relative L2 error and cosine per quantity."""
    keys = ("max_abs_error", "reference_max_abs", "relative_l2_error", "cosine_similarity")
    return {name: {k: c[k] for k in keys} for name, c in checks.items() if all(k in c for k in keys)}


def temperature_of(estimator: str) -> float:
    prefix = "tfidf_kernel_loo_T"
    if not estimator.startswith(prefix):
        raise DriverError(f"the reference path covers tfidf_kernel_loo_T<T> estimators, got {estimator!r}")
    return float(estimator[len(prefix) :])


class Path:
    """One trainer on the fixed batch: its advantages, completions, loss and LoRA gradient."""

    def __init__(self, trainer: Any, inputs: list[dict[str, Any]], seed: int):
        import torch

        self.trainer = trainer
        trainer.model.train()  # TRL's train mode: num_generations, not num_generations_eval
        torch.manual_seed(seed)
        self.output = trainer._generate_and_score_completions(inputs)
        self.advantages = [float(a) for a in self.output["advantages"].tolist()]
        self.completions = self.output["completion_ids"].tolist()

    def loss_and_gradient(self, advantages: Sequence[float] | None = None) -> tuple[float, list[float]]:
        import torch

        model = self.trainer.model
        batch = dict(self.output)
        if advantages is not None:
            batch["advantages"] = torch.tensor(list(advantages), dtype=self.output["advantages"].dtype)
        model.zero_grad()
        self.trainer.current_gradient_accumulation_steps = 1  # set by Trainer.train per step; one batch here
        loss = self.trainer.compute_loss(model, batch)
        loss.backward()
        grads = [p.grad.detach().reshape(-1).double() for _, p in sorted(model.named_parameters()) if p.requires_grad and p.grad is not None]
        gradient = torch.cat(grads).tolist()
        model.zero_grad()
        return float(loss.detach().double()), gradient


def lora_digest(model: Any) -> str:
    """sha256 of the trainable (LoRA) parameters, in name order."""
    h = hashlib.sha256()
    for name, p in sorted(model.named_parameters()):
        if p.requires_grad:
            h.update(name.encode())
            h.update(p.detach().cpu().numpy().tobytes())
    return h.hexdigest()


def pair(prefix: str, measured: tuple[float, list[float]], reference: tuple[float, list[float]], tol: dict[str, dict[str, float]]) -> dict[str, Any]:
    lt, gt = tol[f"{prefix}_loss"], tol[f"{prefix}_gradient"]
    return {
        f"{prefix}_loss": compare([measured[0]], [reference[0]], lt["atol"], lt["rtol"]),
        f"{prefix}_gradient": compare(measured[1], reference[1], gt["atol"], gt["rtol"], gt.get("min_cosine")),
    }


def run_preflight(settings: Settings, source: str, tasks: Sequence[Item], corpus: Sequence[str], server: Any, make_trainer: Any) -> dict[str, Any]:
    """The checks and the report; ``make_trainer(arm, stock, data)`` builds an arm's trainer (stock TRL or the adapter)."""
    from datasets import Dataset

    tol = spec_tolerances(settings.raw)
    grpo, gs1 = settings.grpo_arm(), settings.kernel_arm()
    if len(tasks) < GS1_TASKS:
        raise DriverError(f"the preflight needs {GS1_TASKS} tasks, got {len(tasks)}")

    def rows(items: Sequence[Item], repeat: int) -> tuple[Any, list[dict[str, Any]]]:
        data = [{"prompt": render(settings, t.question), "question": t.question, "reference": t.reference, "task_id": t.task_id} for t in items]
        return Dataset.from_list(data), [row for row in data for _ in range(repeat)]

    checks: dict[str, Any] = {}
    data, inputs = rows(tasks[:GRPO_TASKS], grpo.group_size)
    stock = Path(make_trainer(grpo, True, data), inputs, grpo.seed)
    hooked = Path(make_trainer(grpo, False, data), inputs, grpo.seed)
    checks["fixed_batch_same_completions"] = {"passed": stock.completions == hooked.completions, "rollouts": len(inputs)}
    lt = tol["baseline_loss"]
    checks["baseline_advantages"] = compare(hooked.advantages, stock.advantages, lt["atol"], lt["rtol"])
    checks.update(pair("baseline", hooked.loss_and_gradient(), stock.loss_and_gradient(), tol))

    data, inputs = rows(tasks[:GS1_TASKS], gs1.group_size)
    kernel = Path(make_trainer(gs1, False, data), inputs, gs1.seed)
    checks["lora_init_identical_across_arms"] = {"passed": lora_digest(kernel.trainer.model) == lora_digest(hooked.trainer.model)}
    rewards = [float(r) for r in kernel.trainer._preflight_rewards]
    prompts = [t.question for t in tasks[:GS1_TASKS] for _ in range(gs1.group_size)]
    if gs1.server_name.startswith("kernel:"):
        from .. import compute_advantages

        separate = compute_advantages(gs1.server_name, rewards, prompts=prompts, server=server)
        ref_b, source_name = separate.baselines.tolist(), "rl-adv serve, a separate request (kernel file: no independent Python reference)"
    else:
        ref_b, source_name = kernel_reference(corpus, prompts, rewards, temperature_of(gs1.advantage))
    ref_a = [r - b for r, b in zip(rewards, ref_b)]
    from .. import compute_advantages

    served = compute_advantages(gs1.server_name, rewards, prompts=prompts, server=server)
    lt = tol["reference_loss"]
    checks["reference_baseline_b"] = compare(served.baselines.tolist(), ref_b, lt["atol"], lt["rtol"])
    checks["reference_advantages"] = compare(kernel.advantages, ref_a, max(lt["atol"], 1e-6), lt["rtol"])
    msw = float(served.max_self_weight)
    checks["reference_self_weight"] = {"max_self_weight": msw, "passed": msw == 0.0}
    checks.update(pair("reference", kernel.loss_and_gradient(), kernel.loss_and_gradient(ref_a), tol))
    return {
        "estimator": gs1.advantage,
        "mode": "trl",
        "reference": source_name,
        "fixed_input": {
            "description": f"{GRPO_TASKS} tasks x G={grpo.group_size} and {GS1_TASKS} tasks x G={gs1.group_size} (the first calibration tasks), "
            "completions sampled by TRL from the starting policy with the arms' settings and seed; loss and gradient from compute_loss over the LoRA parameters",
            "task_ids": [t.task_id for t in tasks[:GS1_TASKS]],
        },
        "policy": source,
        "checks": checks,
    }


def report_passed(report: dict[str, Any]) -> list[str]:
    report["errors"] = errors_block(report["checks"])
    failed = sorted(name for name, check in report["checks"].items() if not check["passed"])
    report["passed"] = not failed
    return failed


def out_dir(run_dir: str) -> str:
    return os.path.join(run_dir, "trl", "preflight")
