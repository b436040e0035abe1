"""``rl-adv study --backend trl`` on the LR follow-up (specs/arith-lr.json: GRPO G = 8, GS1 G = 1 and the batch mean
G = 1, each with a two-LR grid picked on held-out train) at a reduced size, end to end through the built CLI
(``node dist/cli.js``, so ``npm run build`` first): every arm x seed x learning rate trained by the TRL drivers at its
own learning rate, each scored greedily on the held-out split, one learning rate picked per arm by the spec's rule,
only the picked runs evaluated on test and decided under Holm. Run by CI's Python step; outside CI it skips when TRL
is not installed (in CI a missing package fails, as in test_trl_study.py).

Reduced size: 2 seeds (0 and 1), 2 steps per run, 100 eval items, 1000 calibration batches; the pre-training and the
held-out split (200 train tasks) are the spec's own. The sim backend's test of the same protocol, with the resume
refusal and the bad inputs, is test/study/lr-grid-run.test.ts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reduced_study import jsonl, skip_without_drivers, study, write_spec

STEPS, EVAL_ITEMS, SEEDS = 2, 100, (0, 1)
ARMS = ("grpo_g8", "gs1_tfidf_g1", "batchmean_g1")
GRID = (5e-05, 1.5e-04)

skip_without_drivers("TRL LR-grid test")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("trl-lr-grid")
    write_spec(root, "arith-lr.json", SEEDS)
    r = study(root, STEPS, EVAL_ITEMS)
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-3000:]}"
    return root / "run"


def test_every_learning_rate_trains_at_its_own_rate_and_is_scored_on_held_out_train(run: Path) -> None:
    summary = json.loads((run / "summary.json").read_text())
    sel = summary["lr_selection"]
    assert sel["rule"] == "max_mean_heldout_accuracy" and sel["ties"] == "lower_lr"
    assert sel["split"]["items"] == 200 and sel["split"]["overlap"] == {"training": 0, "calibration": 0, "tuning": 0, "test": 0}
    rows = set(json.loads((run / "lr_selection.json").read_text())["split"]["rows"])
    for arm in ARMS:
        a = sel["arms"][arm]
        assert a["grid"] == list(GRID)
        for i, lr in enumerate(GRID):
            for seed in SEEDS:
                folder = run / "seeds" / str(seed) / "arms" / arm / f"lr-{i}"
                held = jsonl(folder / "heldout.jsonl")
                assert len(held) == 200
                assert len(jsonl(folder / "advantages.jsonl")) == STEPS
                # The driver trained at this learning rate (the checkpoint fingerprint is gone once the arm is done;
                # the request's tasks never include a held-out row).
                tasks = jsonl(run / "trl" / "requests" / f"full_{arm}_lr{i}_seed{seed}.jsonl")
                assert not {t["task_id"] for t in tasks} & {h["item_id"] for h in held}
            assert a["lrs"][i]["lr"] == lr
            scores = [s["correct"] for s in a["lrs"][i]["seeds"]]
            assert a["lrs"][i]["mean_heldout_accuracy"] == pytest.approx(sum(scores) / 200 / len(SEEDS), abs=1e-12)
        # The rule: the higher mean held-out accuracy, a tie to the lower learning rate.
        totals = [sum(s["correct"] for s in l["seeds"]) for l in a["lrs"]]
        assert a["picked_index"] == (1 if totals[1] > totals[0] else 0)
        assert len(rows) == 200


def test_the_two_learning_rates_train_differently(run: Path) -> None:
    # Same seed, same tasks, same starting weights: the first step's rollouts agree, the trained weights do not.
    for arm in ARMS:
        low, high = (run / "seeds" / "0" / "arms" / arm / f"lr-{i}" for i in (0, 1))
        assert jsonl(low / "advantages.jsonl")[0]["rewards"] == jsonl(high / "advantages.jsonl")[0]["rewards"]
        assert (low / "adapter" / "model.safetensors").read_bytes() != (high / "adapter" / "model.safetensors").read_bytes()


def test_only_the_picked_learning_rate_is_evaluated_on_test_and_decided(run: Path) -> None:
    summary = json.loads((run / "summary.json").read_text())
    for rep in summary["replicates"]:
        for arm in ARMS:
            assert rep["arms"][arm]["lr"] == summary["lr_selection"]["arms"][arm]["picked_lr"]
            assert len(jsonl(run / "seeds" / str(rep["seed"]) / "eval" / f"{arm}.jsonl")) == EVAL_ITEMS
    assert summary["multiplicity"]["procedure"] == "holm" and len(summary["comparisons"]) == 3
    md = (run / "report.md").read_text()
    assert "## Learning rates: picked on held-out train" in md
    html = (run / "report.html").read_text()
    assert 'aria-label="Learning curves per arm and learning rate"' in html
