"""Family-wise error of the study's comparisons (docs/method.md section 5.10), measured by simulation.

Independent of the code under test: nothing from src/ is used. Each simulated study has K arms trained on S seeds and
evaluated on the same n items; the comparisons are decided by the seed_item_t interval of section 5.8, written here
from its formula (numpy; the t quantile by Simpson quadrature of the t density and bisection), under three procedures:
Holm's step-down with intervals (the study's), Bonferroni, and no correction (each at alpha).

Population (the logit model of section 5.8's coverage script): item i has difficulty tau z_i, z_i ~ N(0, 1); arm a has
an item-by-arm effect gamma w_ai, w_ai ~ N(0, 1); the run of arm a with seed s an offset u_as ~ N(0, sigma_u^2); the run
gets item i right with probability expit(mu_a + tau z_i + gamma w_ai + u_as). mu_a is solved (bisection on a
Gauss-Hermite quadrature) so that arm a's population accuracy is p_a; the true difference of a comparison is then
exactly p_t - p_r (Delta = E_runs E_items [y_t - y_r]).

A false claim: "validated" when the true difference is <= the margin, or "failed" when it is >= the margin. The FWER is
P(at least one false claim in the study), with its Monte-Carlo error sqrt(f (1 - f) / R).

Run: /work/venv/bin/python validation/comparisons-fwer.py [--studies R] > validation/results/comparisons-fwer.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

ALPHA = 0.05
TAU, GAMMA = 1.5, 0.5


def t_cdf(x: float, df: int) -> float:
    """P(T <= x) for Student's t with df degrees of freedom, by Simpson's rule on the density from 0 to |x|."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    grid = np.linspace(0.0, abs(x), 20001)
    f = c * (1 + grid**2 / df) ** (-(df + 1) / 2)
    h = grid[1] - grid[0]
    half = h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())
    return 0.5 + math.copysign(half, x)


def t_quantile(p: float, df: int) -> float:
    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(200)


def accuracy(mu: float, sd: float) -> float:
    """E[expit(mu + sd Z)], Z ~ N(0, 1), by Gauss-Hermite quadrature."""
    return float((_GH_W * (1 / (1 + np.exp(-(mu + sd * _GH_X))))).sum() / _GH_W.sum())


def solve_mu(p: float, sd: float) -> float:
    lo, hi = -20.0, 20.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if accuracy(mid, sd) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def seed_item_t(d: np.ndarray, alpha: float, tq: dict) -> tuple[float, float]:
    """seed_item_t on d (S x n): dbar +- t_{S-1, alpha/2} sqrt((MS_seed + max(0, MS_item - MS_error)) / (S n)), clipped to [-1, 1]."""
    S, n = d.shape
    dbar = d.mean()
    ds = d.mean(axis=1)
    di = d.mean(axis=0)
    ms_seed = n * ((ds - dbar) ** 2).sum() / (S - 1)
    ms_item = S * ((di - dbar) ** 2).sum() / (n - 1)
    resid = d - ds[:, None] - di[None, :] + dbar
    ms_error = (resid**2).sum() / ((S - 1) * (n - 1))
    se = math.sqrt((ms_seed + max(0.0, ms_item - ms_error)) / (S * n))
    half = tq[(alpha, S - 1)] * se
    return max(-1.0, dbar - half), min(1.0, dbar + half)


def verdict(lo: float, hi: float, margin: float) -> str:
    return "validated" if lo > margin else "failed" if hi < margin else "inconclusive"


def holm(diffs: list[np.ndarray], margins: list[float], tq: dict) -> list[str]:
    K = len(diffs)
    out = ["inconclusive"] * K
    open_ = list(range(K))
    while open_:
        a = ALPHA / len(open_)
        still = []
        for c in open_:
            v = verdict(*seed_item_t(diffs[c], a, tq), margins[c])
            out[c] = v
            if v == "inconclusive":
                still.append(c)
        if len(still) == len(open_):
            break
        open_ = still
    return out


def single(diffs: list[np.ndarray], margins: list[float], tq: dict, a: float) -> list[str]:
    return [verdict(*seed_item_t(d, a, tq), m) for d, m in zip(diffs, margins)]


def false_claims(verdicts: list[str], truth: list[float], margins: list[float]) -> tuple[bool, bool]:
    """(any false claim, any false 'validated')."""
    bad_valid = any(v == "validated" and t <= m + 1e-12 for v, t, m in zip(verdicts, truth, margins))
    bad_fail = any(v == "failed" and t >= m - 1e-12 for v, t, m in zip(verdicts, truth, margins))
    return bad_valid or bad_fail, bad_valid


# The designs: arm accuracies and comparisons (treatment, reference, margin; margin 0 = superiority).
DESIGNS = {
    # The ablation's shape, every null at its boundary: the G = 1 arms exactly 5 points below GRPO, equal to each other.
    "K3_all_null_boundary": {"p": [0.5, 0.45, 0.45], "comparisons": [(1, 0, -0.05), (2, 0, -0.05), (1, 2, 0.0)]},
    # One non-inferiority true (arm 1 equal to GRPO), one at its boundary, superiority false by 5 points.
    "K3_mixed": {"p": [0.5, 0.5, 0.45], "comparisons": [(1, 0, -0.05), (2, 0, -0.05), (1, 2, 0.0)]},
    # Four arms: three non-inferiority comparisons against arm 0 and two superiority ones, all nulls at the boundary.
    "K4_all_null_boundary": {"p": [0.5, 0.45, 0.45, 0.45], "comparisons": [(1, 0, -0.05), (2, 0, -0.05), (3, 0, -0.05), (1, 2, 0.0), (1, 3, 0.0)]},
}


def run_cell(design: dict, S: int, n: int, sigma_u: float, studies: int, rng: np.random.Generator, tq: dict) -> dict:
    p = design["p"]
    comps = design["comparisons"]
    K = len(p)
    sd_total = math.sqrt(TAU**2 + GAMMA**2 + sigma_u**2)
    mu = [solve_mu(pa, sd_total) for pa in p]
    truth = [p[t] - p[r] for t, r, _ in comps]
    margins = [m for _, _, m in comps]
    counts = {k: [0, 0] for k in ("holm", "bonferroni", "uncorrected")}
    for _ in range(studies):
        z = rng.standard_normal(n)
        w = rng.standard_normal((K, n))
        u = rng.standard_normal((K, S)) * sigma_u
        logits = np.array(mu)[:, None, None] + TAU * z[None, None, :] + GAMMA * w[:, None, :] + u[:, :, None]
        y = (rng.random((K, S, n)) < 1 / (1 + np.exp(-logits))).astype(np.float64)
        diffs = [y[t] - y[r] for t, r, _ in comps]
        for name, verdicts in (
            ("holm", holm(diffs, margins, tq)),
            ("bonferroni", single(diffs, margins, tq, ALPHA / len(comps))),
            ("uncorrected", single(diffs, margins, tq, ALPHA)),
        ):
            any_false, any_false_valid = false_claims(verdicts, truth, margins)
            counts[name][0] += any_false
            counts[name][1] += any_false_valid
    out = {"S": S, "n": n, "sigma_u": sigma_u, "studies": studies, "truth": truth, "margins": margins}
    for name, (f, fv) in counts.items():
        fw, fwv = f / studies, fv / studies
        out[name] = {"fwer": fw, "mc_error": math.sqrt(fw * (1 - fw) / studies), "fwer_validated": fwv, "mc_error_validated": math.sqrt(fwv * (1 - fwv) / studies)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--studies", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261204)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    cells = []
    started = time.time()
    grid = [(S, n, su) for S in (3, 5, 10) for n in (200, 1000) for su in (0.0, 0.15)]
    tq: dict = {}
    for name, design in DESIGNS.items():
        K = len(design["comparisons"])
        for S in (3, 5, 10):
            for m in range(1, K + 1):
                tq[(ALPHA / m, S - 1)] = t_quantile(1 - ALPHA / m / 2, S - 1)
        for S, n, su in grid:
            cell = run_cell(design, S, n, su, args.studies, rng, tq)
            cell["design"] = name
            cells.append(cell)
            print(f"{name} S={S} n={n} sigma_u={su}: holm {cell['holm']['fwer']:.4f} bonferroni {cell['bonferroni']['fwer']:.4f} uncorrected {cell['uncorrected']['fwer']:.4f}", file=sys.stderr)
    json.dump({"alpha": ALPHA, "tau": TAU, "gamma": GAMMA, "seed": args.seed, "studies": args.studies, "seconds": round(time.time() - started, 1), "designs": DESIGNS, "cells": cells}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
