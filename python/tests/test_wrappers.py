"""calibrate, tune_kernel, decide, plan: the bundled command's --json, with the keyword arguments as its flags."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import rl_advantages as r
from rl_advantages._node import find_node
from rl_advantages._server import BUNDLE


def calibration_rows(tasks: int = 60, per_task: int = 2) -> list[dict]:
    rng = np.random.default_rng(5)
    rows = []
    for k in range(tasks):
        prompt = f"Question {k}: " + "Sam buys 3 more apples and pays $2 each. " * (1 + k % 5)
        p = 0.9 - 0.15 * (k % 5)
        rows += [{"task_id": f"t{k}", "prompt": prompt, "reward": int(rng.random() < p)} for _ in range(per_task)]
    return rows


def rl_adv_json(*args: str) -> dict:
    done = subprocess.run([find_node(), BUNDLE, *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_calibrate_is_the_command_s_json(tmp_path):
    rows = calibration_rows()
    path = tmp_path / "calib.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    ours = r.calibrate(rows, estimators=["loo_batch_mean", "length_bucket_loo"], reference="loo_batch_mean", corpus=path, corpus_field="prompt", batch_size=8, batches=300, seed=3)
    theirs = rl_adv_json("calibrate", "--input", str(path), "--estimators", "loo_batch_mean,length_bucket_loo", "--reference", "loo_batch_mean",
                         "--corpus", str(path), "--corpus-field", "prompt", "--batch-size", "8", "--batches", "300", "--seed", "3")  # fmt: skip
    ours.pop("settings", None), theirs.pop("settings", None)  # the settings name the input file (a temporary one for ours)
    assert ours == theirs
    assert set(ours["estimators"]) >= {"loo_batch_mean", "length_bucket_loo"}


def test_calibrate_reports_bad_rows_with_the_field():
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.calibrate([{"task_id": "t1", "prompt": "a", "reward": "yes"}], batches=10)
    assert caught.value.code == "bad_input"
    assert "reward" in caught.value.message and "calibrate" in caught.value.message
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.calibrate([{"task_id": "t1", "prompt": "a", "reward": float("nan")}])
    assert (caught.value.code, caught.value.field, caught.value.index) == ("non_finite", "input", 0)


def test_tune_kernel_writes_the_kernel_and_returns_its_figures(tmp_path):
    out = tmp_path / "kernel.json"
    figures = r.tune_kernel(calibration_rows(), out, families=["length", "loo_batch_mean"], batch_size=8, batches=200)
    assert [f["family"] for f in figures["per_family"]] == ["length", "loo_batch_mean"]
    kernel = json.loads(out.read_text())
    assert kernel["format"] == "rl-advantages/kernel"
    with pytest.raises(r.RlAdvantagesError) as caught:  # an existing --out is kept unless force=True
        r.tune_kernel(calibration_rows(), out, families=["length"], batch_size=8, batches=200)
    assert caught.value.code == "bad_input" and "--force" in caught.value.message
    r.tune_kernel(calibration_rows(), out, families=["length"], batch_size=8, batches=200, force=True)


def test_decide_and_plan(tmp_path):
    rng = np.random.default_rng(11)
    n = 400
    base = rng.random(n) < 0.5
    treat = np.where(rng.random(n) < 0.2, ~base, base)
    treatment = [{"item_id": f"i{k}", "correct": bool(treat[k])} for k in range(n)]
    baseline = [{"item_id": f"i{k}", "correct": bool(base[k])} for k in range(n)]
    ours = r.decide(treatment, baseline, method="paired_exact_binomial")
    t, b = tmp_path / "t.jsonl", tmp_path / "b.jsonl"
    t.write_text("".join(json.dumps(x) + "\n" for x in treatment))
    b.write_text("".join(json.dumps(x) + "\n" for x in baseline))
    assert ours == rl_adv_json("decide", "--treatment", str(t), "--baseline", str(b), "--method", "paired_exact_binomial")
    assert ours["n"] == n and ours["method"] == "paired_exact_binomial"
    # The exact unconditional interval (docs/method.md section 5.4.1): same estimate, narrower than the box.
    eu = r.decide(treatment, baseline, method="paired_exact_unconditional")
    assert eu == rl_adv_json("decide", "--treatment", str(t), "--baseline", str(b), "--method", "paired_exact_unconditional")
    c, e = ours["criteria"][0], eu["criteria"][0]
    assert e["estimate"] == c["estimate"] and e["upper"] - e["lower"] < c["upper"] - c["lower"]
    planned = r.plan(n=500, discordance=0.15)
    assert planned == rl_adv_json("plan", "--n", "500", "--discordance", "0.15")
    piloted = r.plan(pilot=(treatment, baseline), method="paired_hoeffding")
    assert piloted == rl_adv_json("plan", "--pilot", f"{t},{b}", "--method", "paired_hoeffding")
    # paired_newcombe (docs/method.md section 5.4.3): its interval uses the items both arms got right, its power the
    # control arm's accuracy (control_accuracy -> --control-accuracy).
    nc = r.decide(treatment, baseline, method="paired_newcombe")
    assert nc == rl_adv_json("decide", "--treatment", str(t), "--baseline", str(b), "--method", "paired_newcombe")
    assert nc["criteria"][0]["estimate"] == c["estimate"]
    planned_nc = r.plan(n=500, discordance=0.15, control_accuracy=0.7, method="paired_newcombe")
    assert planned_nc == rl_adv_json("plan", "--n", "500", "--discordance", "0.15", "--control-accuracy", "0.7", "--method", "paired_newcombe")
    assert planned_nc["control_accuracy"] == {"value": 0.7, "source": "given"}
    # The methods come from the catalogue: every name the command offers is accepted.
    for name in ("paired_tango", "paired_newcombe"):
        assert r.decide(treatment, baseline, method=name)["method"] == name
