"""``rl-adv study --backend trl`` on the shipped ablation (specs/arith-ablation.json: GRPO G = 8, GS1 G = 1, the
leave-one-out batch mean G = 1, three comparisons) at a reduced size, end to end through the built CLI
(``node dist/cli.js``, so ``npm run build`` first): every arm x seed trained and evaluated by the TRL drivers, every
comparison decided across seeds under Holm, the report's answer first. Run by CI's Python step; outside CI it skips
when TRL is not installed (in CI a missing package fails, as in test_trl_study.py).

Reduced size: 2 seeds (0 and 1), 2 steps per arm, 100 eval items, 1000 calibration batches; the pre-training is the
spec's own. The kill and resume of a TRL run are tested by test_trl_study.py; the resume of a three-arm study by
test/study/ablation.test.ts (sim).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from reduced_study import jsonl, skip_without_drivers, study, write_spec

STEPS, EVAL_ITEMS, SEEDS = 2, 100, (0, 1)
ARMS = {"grpo_g8": 8, "gs1_tfidf_g1": 1, "batchmean_g1": 1}

skip_without_drivers("TRL ablation test")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("trl-ablation")
    write_spec(root, "arith-ablation.json", SEEDS)
    r = study(root, STEPS, EVAL_ITEMS)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-3000:]}"
    return root / "run", r


def test_every_arm_x_seed_is_trained_and_evaluated(run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, _ = run
    summary = json.loads((out / "summary.json").read_text())
    assert [p for p, v in summary["phases"].items() if v["status"] == "done"] == ["preflight", "calibration", "pilot", "gate", "arms", "eval", "decision"]
    for arm, group in ARMS.items():
        for folder in (out / "pilot", *(out / "seeds" / str(s) / "arms" for s in SEEDS)):
            rows = jsonl(folder / arm / "advantages.jsonl")
            assert all(r["rollouts"] == 32 and r["group_size"] == group and r["estimator"] == summary["replicates"][0]["arms"][arm]["advantage"] for r in rows)
        for seed in SEEDS:
            assert len(jsonl(out / "seeds" / str(seed) / "eval" / f"{arm}.jsonl")) == EVAL_ITEMS
    # The batch-mean arm's baseline is the mean of the other 31 rewards of its step, exactly.
    step = jsonl(out / "seeds" / "1" / "arms" / "batchmean_g1" / "advantages.jsonl")[0]
    r = step["rewards"]
    assert max(abs(b - (sum(r) - x) / (len(r) - 1)) for b, x in zip(step["baselines"], r)) < 1e-12


def test_every_comparison_is_decided_across_seeds_under_holm(run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, r = run
    summary = json.loads((out / "summary.json").read_text())
    assert "decision" not in summary
    assert summary["multiplicity"]["procedure"] == "holm" and summary["multiplicity"]["comparisons"] == 3
    comparisons = summary["comparisons"]
    assert [(c["id"], c["kind"], c["margin"]) for c in comparisons] == [
        ("gs1_vs_grpo", "non_inferiority", -0.05),
        ("batchmean_vs_grpo", "non_inferiority", -0.05),
        ("gs1_vs_batchmean", "superiority", 0),
    ]
    for c in comparisons:
        assert c["method"] == "seed_item_t" and c["seeds"] == 2 and c["n"] == EVAL_ITEMS
        assert c["alpha"] in (0.05 / 3, 0.05 / 2, 0.05) and c["verdict"] in ("validated", "failed", "inconclusive")
        # The estimate is the mean over seeds of each seed's difference in accuracy, from the eval files.
        diffs = []
        for seed in SEEDS:
            t = jsonl(out / "seeds" / str(seed) / "eval" / f"{c['treatment']}.jsonl")
            b = jsonl(out / "seeds" / str(seed) / "eval" / f"{c['reference']}.jsonl")
            diffs.append(sum(x["correct"] for x in t) / len(t) - sum(x["correct"] for x in b) / len(b))
        assert c["estimate"] == pytest.approx(sum(diffs) / len(diffs), abs=1e-12)
        assert [p["seed"] for p in c["per_seed"]] == list(SEEDS)
    assert r.stdout.splitlines()[0].startswith("comparisons (holm): gs1_vs_grpo ")


def test_report_gives_the_answer_first(run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, _ = run
    md = (out / "report.md").read_text()
    headings = [line for line in md.splitlines() if line.startswith("## ")]
    assert headings[:2] == ["## Answer", "## What was run"]
    assert any(h.startswith("## Comparisons: gs1_vs_grpo ") for h in headings)
    html = (out / "report.html").read_text()
    assert 'aria-label="Each comparison across seeds and each seed"' in html
    assert 'aria-label="Learning curves per arm and seed"' in html
