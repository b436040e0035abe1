"""``rl-adv study --backend trl`` end to end on the small world (specs/arith-gs1-vs-grpo.json) at a reduced size:
real pre-training, calibration, pilot, gate, arms, eval and decision with TRL on CPU, through the built CLI
(``node dist/cli.js``, so ``npm run build`` first). Run by CI's Python step (the venv with
python/requirements-test.txt). Outside CI it skips when TRL is not installed; in CI (``CI`` or ``RL_ADV_REQUIRE_TORCH``
set) a missing TRL is a failure, never a skip.

Reduced size: 2 seeds (0 and 1) instead of the spec's 5, 3 steps per arm, 200 eval items, a learning curve on 50
items every 2 steps, 2000 calibration batches; the pre-training is the spec's own (the starting accuracy must be in
the spec's target range, or the preflight stops the study). The spec is copied with ``trl.save_every`` 2, and the first attempt is killed right after the GRPO pilot arm's step-2 checkpoint
(``RL_ADV_TRL_KILL_AT``); ``--resume`` finishes the run, and the resumed pilot arm must equal the uninterrupted
full arm of seed 0 (the same 3 steps on the same tasks: seed 0's order is the study's without the calibration set,
and its RL seed the arms' 0) bit for bit.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "dist" / "cli.js"
SPEC = REPO / "specs" / "arith-gs1-vs-grpo.json"
STEPS, EVAL_ITEMS, SEEDS = 3, 200, (0, 1)
#: The arm killed after its step-2 checkpoint in the pilot.
KILLED = "grpo_g8"

_MISSING = [m for m in ("torch", "trl", "transformers", "peft", "datasets") if importlib.util.find_spec(m) is None]
#: CI runs with RL_ADV_REQUIRE_TORCH=1 (.ci/run) or CI set: there a missing package fails instead of skipping.
_REQUIRED = bool(os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH"))
if _MISSING and not _REQUIRED:
    pytest.skip(f"TRL study test needs {', '.join(_MISSING)} (pip install -r python/requirements-test.txt)", allow_module_level=True)


def test_requirements_present_in_ci() -> None:
    """In CI the small world must run: a missing package fails here instead of skipping everything."""
    assert not _MISSING, f"CI's Python lacks {', '.join(_MISSING)}: add them to python/requirements-test.txt"
    assert CLI.exists(), f"{CLI} is missing: run npm run build first"


def study(out: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    args = ["node", str(CLI), "study", "--backend", "trl", "--spec", str(spec_of(out)), "--out", str(out), "--python", sys.executable]
    args += ["--steps", str(STEPS), "--eval-limit", str(EVAL_ITEMS), "--calibration-batches", "2000", *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=1500, env={**os.environ, **(env or {})})


def spec_of(out: Path) -> Path:
    """The run's spec: the shipped one with 2 seeds, a small learning curve and a checkpoint every 2 steps."""
    return out.parent / "spec.json"


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _MISSING or not CLI.exists():
        pytest.fail("the small world cannot run here (see test_requirements_present_in_ci)")
    out = tmp_path_factory.mktemp("trl") / "run"
    spec = json.loads(SPEC.read_text(encoding="utf-8"))
    spec["trl"]["save_every"] = 2
    spec["decision_rule"]["seeds"] = list(SEEDS)
    spec["eval"].update(curve_items=50, curve_every=2)
    spec_of(out).write_text(json.dumps(spec, indent=2), encoding="utf-8")
    killed = study(out, env={"RL_ADV_TRL_KILL_AT": f"{KILLED}:2"})
    assert killed.returncode != 0 and "was killed by SIGKILL" in killed.stderr, killed.stderr[-3000:]
    kept = out / "trl" / "checkpoints" / "pilot" / KILLED
    assert sorted(p.name for p in kept.iterdir() if p.name.startswith("checkpoint-")) == ["checkpoint-2"]
    assert not (out / "pilot" / KILLED / "result.json").exists()
    r = study(out, "--resume")
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-3000:]}"
    assert f"continuing with pilot ({KILLED} at step 2 of 3" in r.stderr + r.stdout
    assert "decision" in r.stdout
    return out


def test_every_phase_writes_its_artifacts(run: Path) -> None:
    summary = json.loads((run / "summary.json").read_text())
    assert summary["backend"] == "trl" and summary["simulation"] is False
    assert [p for p, v in summary["phases"].items() if v["status"] == "done"] == ["preflight", "calibration", "pilot", "gate", "arms", "eval", "decision"]
    for name in ["run.json", "preflight.json", "preflight_trl.json", "calibration/calibration.jsonl", "calibration/beff.json", "gate.json", "decision.json", "report.md", "report.html"]:
        assert (run / name).is_file(), name
    assert len(jsonl(run / "calibration" / "calibration.jsonl")) == 64 * 8
    assert len(jsonl(run / "eval" / "init.jsonl")) == EVAL_ITEMS
    for arm, group in (("grpo_g8", 8), ("gs1_tfidf_g1", 1)):
        for folder in (run / "pilot", *(run / "seeds" / str(s) / "arms" for s in SEEDS)):
            rows = jsonl(folder / arm / "advantages.jsonl")
            assert [r["step"] for r in rows] == list(range(STEPS))
            assert all(r["rollouts"] == 32 and r["group_size"] == group for r in rows)
        for seed in SEEDS:
            eval_rows = jsonl(run / "seeds" / str(seed) / "eval" / f"{arm}.jsonl")
            assert len(eval_rows) == EVAL_ITEMS and all(isinstance(r["correct"], bool) for r in eval_rows)
            curve = jsonl(run / "seeds" / str(seed) / "arms" / arm / "curve.jsonl")
            assert [p["step"] for p in curve] == [0, 2, 3] and all(p["n"] == 50 for p in curve)
    # The seeds train on different rollouts (RL seed) and tasks (data order).
    one, two = (jsonl(run / "seeds" / str(s) / "arms" / "grpo_g8" / "advantages.jsonl")[0] for s in SEEDS)
    assert one["task_ids"] != two["task_ids"]
    # The decision across the 2 seeds, each seed's own paired decision beside it, and each arm's change from the start.
    assert [r["seed"] for r in summary["replicates"]] == list(SEEDS)
    assert summary["decision"]["method"] == "seed_item_t" and summary["decision"]["seeds"] == 2
    assert [p["seed"] for p in summary["decision"]["per_seed"]] == list(SEEDS)
    assert all(r["difference"]["method"] == "paired_exact_unconditional" for r in summary["replicates"])
    assert set(summary["learning"]["arms"]) == {"grpo_g8", "gs1_tfidf_g1"}
    # GRPO's baselines are its group means; GS1's are the kernel's, never a rollout's own reward.
    grpo = jsonl(run / "seeds" / "0" / "arms" / "grpo_g8" / "advantages.jsonl")[0]
    for g in range(4):
        rewards = grpo["rewards"][8 * g : 8 * g + 8]
        assert grpo["baselines"][8 * g] == pytest.approx(sum(rewards) / 8, abs=1e-12)


def test_preflight_passes_with_its_errors_block(run: Path) -> None:
    report = json.loads((run / "preflight_trl.json").read_text())
    assert report["passed"] is True
    for name in ("baseline_advantages", "baseline_loss", "baseline_gradient", "reference_baseline_b", "reference_advantages", "reference_loss", "reference_gradient"):
        assert report["checks"][name]["passed"], name
        assert set(report["errors"][name]) == {"max_abs_error", "reference_max_abs", "relative_l2_error", "cosine_similarity"}
    assert report["checks"]["fixed_batch_same_completions"]["passed"]
    assert report["checks"]["lora_init_identical_across_arms"]["passed"]
    low, high = report["pretrain"]["target_accuracy"]
    assert low <= report["pretrain"]["heldout_accuracy"] <= high
    ids = [c["id"] for c in json.loads((run / "preflight.json").read_text())["checks"]]
    assert "trl:pretrain_accuracy_in_target" in ids and "trl:baseline_gradient" in ids


def test_gate_metrics_are_the_executed_configuration(run: Path) -> None:
    gate = json.loads((run / "gate.json").read_text())
    m = gate["metrics"]
    assert m["executed_rollouts_per_step"] == 32
    assert m["executed_group_size_gs1"] == 1 and m["executed_group_size_grpo"] == 8
    assert m["self_weight_max"] == 0
    assert gate["result"]["passed"] is True
    assert m["offline_beff_ratio_tfidf_vs_loo_mean"] >= 1.03


def test_report_has_every_chart(run: Path) -> None:
    html = (run / "report.html").read_text()
    md = (run / "report.md").read_text()
    assert "trl" in md
    assert html.count("<svg") >= 5
    assert 'aria-label="Learning curves per arm and seed"' in html
    assert 'aria-label="Treatment minus baseline per seed and across seeds"' in html
    assert "## Decision across seeds:" in md and "## Learning" in md


def test_rerun_of_a_pilot_prefix_is_bit_identical(run: Path, tmp_path: Path) -> None:
    """Deterministic training: 2 steps of an arm from the same starting policy repeat the pilot's first 2 rows
    exactly (constant lr, seeded torch, deterministic algorithms), and the greedy eval of a checkpoint repeats."""
    data = run / "trl" / "data"
    for arm in ("grpo_g8", "gs1_tfidf_g1"):
        out = tmp_path / arm
        cmd = [sys.executable, "-m", "rl_advantages.study", "train", "--spec", str(spec_of(run)), "--run-dir", str(run), "--data-dir", str(data)]
        cmd += ["--arm", arm, "--steps", "2", "--tasks", str(run / "trl" / "requests" / f"pilot_{arm}.jsonl"), "--out-dir", str(out)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stderr[-2000:]
        again = jsonl(out / "advantages.jsonl")
        assert again == jsonl(run / "pilot" / arm / "advantages.jsonl")[:2]


def test_an_arm_killed_mid_way_and_resumed_equals_an_uninterrupted_one(run: Path) -> None:
    """The pilot's GRPO arm was killed after its step-2 checkpoint and resumed from it; the full arm trained the same
    3 steps on the same tasks without interruption (seed 0, whose learning-curve evals do not change the training): the
    same log bytes, the same trained weights (the whole model: full fine-tuning), no checkpoint left."""
    import torch
    from safetensors.torch import load_file

    resumed, whole = run / "pilot" / KILLED, run / "seeds" / "0" / "arms" / KILLED
    assert (resumed / "advantages.jsonl").read_bytes() == (whole / "advantages.jsonl").read_bytes()
    a, b = load_file(str(resumed / "adapter" / "model.safetensors")), load_file(str(whole / "adapter" / "model.safetensors"))
    assert sorted(a) == sorted(b) and all(torch.equal(a[k], b[k]) for k in a)
    assert not any((run / "trl" / "checkpoints").rglob("checkpoint-*")), "finished arms remove their checkpoints"


def test_resume_of_a_finished_run_changes_nothing(run: Path) -> None:
    evals = [run / "eval" / "init.jsonl", *(run / "seeds" / str(s) / "eval" / f"{a}.jsonl" for s in SEEDS for a in ("grpo_g8", "gs1_tfidf_g1"))]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in evals}
    r = study(run, "--resume")
    assert r.returncode == 0, r.stderr[-2000:]
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in evals} == before
