"""``rl-adv study --backend trl`` on the shipped kernel-arm study (specs/arith-kernels.json: GRPO G = 8, the batch
mean, TF-IDF, the run's own tuned kernel and the oracle cell kernel, G = 1 each) plus a kernel-file arm
(``kernel:PATH``, PATH relative to the spec: the batch mean written as a kernel file), at a reduced size, end to end
through the built CLI (``node dist/cli.js``, so ``npm run build`` first): the tuned kernel frozen and hashed into
run.json before the pilot, the oracle kernel written and hashed, every kernel arm trained by the TRL drivers with its
file, each kernel arm's B_eff ratio beside its gain in summary.json, and a resume that refuses a changed kernel.
Run by CI's Python step; outside CI it skips when TRL is not installed (in CI a missing package fails).

Reduced size: 2 seeds (0 and 1), 2 steps per arm, 100 eval items, 1000 calibration batches, 200 tuning tasks scored
on 200 batches; the pre-training is the spec's own.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from reduced_study import jsonl, skip_without_drivers, write_spec
from reduced_study import study as reduced_study

STEPS, EVAL_ITEMS, SEEDS = 2, 100, (0, 1)
KERNEL_ARMS = {"gs1_tfidf_g1": "tfidf_kernel_loo_T0.1", "tuned_g1": "tuned_kernel", "oracle_g1": "oracle_cell_kernel", "file_g1": "kernel:k/batchmean.json"}
BATCH_MEAN_FILE = {"format": "rl-advantages/kernel", "version": 1, "family": "loo_batch_mean", "params": {}, "fitted": {}}

skip_without_drivers("TRL kernel-arm test")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def study(root: Path, *extra: str) -> Any:
    return reduced_study(root, STEPS, EVAL_ITEMS, *extra)


def with_kernel_file_arm(spec: dict[str, Any]) -> None:
    """The spec's own 200 tuning tasks, and a fifth G = 1 arm whose kernel is a file (the batch mean written as one)."""
    spec["tuning"] = {"tasks": 200, "batches": 200}
    spec["arms"].append({**spec["arms"][2], "name": "file_g1", "advantage": KERNEL_ARMS["file_g1"]})
    spec["decision_rule"]["comparisons"].append({"id": "file_vs_batchmean", "treatment": "file_g1", "reference": "batchmean_g1", "kind": "superiority", "metric": "accuracy"})


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trl-kernels")
    (root / "k").mkdir()
    (root / "k" / "batchmean.json").write_text(json.dumps(BATCH_MEAN_FILE), encoding="utf-8")
    write_spec(root, "arith-kernels.json", SEEDS, with_kernel_file_arm)
    r = study(root)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-3000:]}"
    return root


def cell(question: str) -> str:
    m = re.match(r"^(\w+) (\d)x(\d):", question)
    assert m, question
    return " ".join(m.groups())


def test_kernels_are_frozen_and_hashed_before_the_pilot(run: Path) -> None:
    out = run / "run"
    summary = json.loads((out / "summary.json").read_text())
    done = [p for p, v in summary["phases"].items() if v["status"] == "done"]
    assert done == ["preflight", "calibration", "tuning", "kernel_arms", "pilot", "gate", "arms", "eval", "decision"]
    ident = json.loads((out / "run.json").read_text())
    assert ident["tuned_kernel"] == {"file": "kernel.json", "sha256": sha(out / "kernel.json")}
    assert ident["kernels"] == {
        "kernel:k/batchmean.json": {"file": "k/batchmean.json", "sha256": sha(run / "k" / "batchmean.json")},
        "oracle_cell_kernel": {"file": "oracle-kernel.json", "sha256": sha(out / "oracle-kernel.json")},
    }
    assert "frozen for tuned_g1" in summary["phases"]["tuning"]["result"]
    # The tuning tasks are in no seed's training tasks.
    tuned_on = {r["task_id"] for r in jsonl(out / "tuning.jsonl")}
    for seed in SEEDS:
        for arm in ("grpo_g8", *KERNEL_ARMS):
            assert not tuned_on & {t for row in jsonl(out / "seeds" / str(seed) / "arms" / arm / "advantages.jsonl") for t in row["task_ids"]}


def test_every_kernel_arm_trains_with_its_kernel(run: Path) -> None:
    out = run / "run"
    train = jsonl(out / "trl" / "data" / "train.jsonl")
    question = {f"arith_train_{i}": row["question"] for i, row in enumerate(train)}
    for seed in SEEDS:
        for arm, advantage in KERNEL_ARMS.items():
            rows = jsonl(out / "seeds" / str(seed) / "arms" / arm / "advantages.jsonl")
            assert len(rows) == STEPS and all(r["estimator"] == advantage and r["group_size"] == 1 and r["rollouts"] == 32 and r["max_self_weight"] == 0 for r in rows)
        for step in jsonl(out / "seeds" / str(seed) / "arms" / "oracle_g1" / "advantages.jsonl"):
            # The oracle's baseline (docs/method.md section 2.4.1): the mean reward of the cell-mates, else the LOO batch mean.
            r, cells = step["rewards"], [cell(question[t]) for t in step["task_ids"]]
            for i, b in enumerate(step["baselines"]):
                mates = [x for j, x in enumerate(r) if j != i and cells[j] == cells[i]] or [x for j, x in enumerate(r) if j != i]
                assert abs(b - sum(mates) / len(mates)) < 1e-6  # TRL hands the estimator float32 rewards
        for step in jsonl(out / "seeds" / str(seed) / "arms" / "file_g1" / "advantages.jsonl"):
            r = step["rewards"]
            assert max(abs(b - (sum(r) - x) / (len(r) - 1)) for b, x in zip(step["baselines"], r)) < 1e-6


def test_each_kernel_arm_has_its_beff_ratio_beside_its_gain(run: Path) -> None:
    out = run / "run"
    summary = json.loads((out / "summary.json").read_text())
    k = summary["kernel_arms"]
    assert k["reference_arm"] == "batchmean_g1" and k["file"] == "calibration/kernel-arms.json"
    assert [(a["arm"], a["advantage"]) for a in k["arms"]] == list(KERNEL_ARMS.items())
    # TF-IDF's ratio is the calibration phase's (the same rows, batches and seed); the batch mean as a file is 1.
    assert k["arms"][0]["beff_ratio"] == summary["calibration"]["estimators"]["tfidf_kernel_loo_T0.1"]["ratio"]
    assert k["arms"][3]["beff_ratio"] == pytest.approx(1, abs=1e-12)
    comparisons = {c["treatment"]: c for c in summary["comparisons"] if c["reference"] == "batchmean_g1"}
    for a in k["arms"]:
        c = comparisons[a["arm"]]
        assert a["gain"]["estimate"] == c["estimate"] and a["gain"]["interval"] == c["interval"]
        assert [p["gain"] for p in a["gain"]["per_seed"]] == [p["estimate"] for p in c["per_seed"]]
    assert 'aria-label="B_eff ratio against the gain over the batch-mean arm, per kernel arm"' in (out / "report.html").read_text()


def test_resume_refuses_a_changed_kernel_and_loses_nothing(run: Path) -> None:
    out = run / "run"
    before = {p: p.read_bytes() for p in (out / "summary.json", out / "run.json", out / "kernel.json")}
    (out / "kernel.json").write_bytes(before[out / "kernel.json"] + b" ")
    r = study(run, "--resume")
    assert r.returncode == 2, r.stderr[-2000:]
    assert "the kernel of arm tuned_g1 (tuned_kernel, file kernel.json) changed" in r.stderr
    (out / "kernel.json").write_bytes(before[out / "kernel.json"])
    (run / "k" / "batchmean.json").write_text(json.dumps({**BATCH_MEAN_FILE, "provenance": {"note": "edited"}}), encoding="utf-8")
    r = study(run, "--resume")
    assert r.returncode == 2 and "the kernel of arm file_g1 (kernel:k/batchmean.json, file k/batchmean.json) changed" in r.stderr
    assert {p: p.read_bytes() for p in before} == before
