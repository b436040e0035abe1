"""decide(replicates=...) and plan(seeds=...): the decision across seeds (docs/method.md sections 5.8-5.9) through the
bundled command, against the independent reference test/fixtures/seed-reference.json (plain Python, closed-form t)
that the library and the CLI are checked against too (test/cli/commands/decide-replicates.test.ts)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import rl_advantages as r
from rl_advantages._node import find_node
from rl_advantages._server import BUNDLE

FIXTURES = Path(__file__).resolve().parents[2] / "test" / "fixtures"
REF = json.loads((FIXTURES / "seed-reference.json").read_text())


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURES / "seeds" / name).read_text().splitlines() if line.strip()]


def listed() -> list[dict]:
    return [{"seed": line["seed"], "treatment": rows(line["treatment"]), "baseline": rows(line["baseline"])} for line in rows("replicates.jsonl")]


def rl_adv_json(*args: str) -> dict:
    done = subprocess.run([find_node(), BUNDLE, *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("method", ["seed_item_t", "seed_t"])
def test_decide_replicates_matches_the_reference_and_the_command(method):
    ours = r.decide(replicates=listed(), seed_method=method)
    want = REF["methods"][method]
    assert ours["method"] == method
    assert ours["estimate"] == pytest.approx(REF["estimate"], abs=1e-12)
    assert ours["interval"] == pytest.approx(want["interval"], abs=1e-12)
    assert ours["standard_error"] == pytest.approx(want["standard_error"], abs=1e-12)
    assert [ours["df"], ours["verdict"], ours["seeds"], ours["n"]] == [want["df"], want["verdict"], 3, 60]
    assert [p["estimate"] for p in ours["per_seed"]] == pytest.approx(REF["per_seed"], abs=1e-12)
    assert [p["seed"] for p in ours["per_seed"]] == REF["seeds"]
    # The same answer from a replicates file (paths relative to it) and from the command itself.
    path = FIXTURES / "seeds" / "replicates.jsonl"
    assert r.decide(replicates=path, seed_method=method) == ours
    assert rl_adv_json("decide", "--replicates", str(path), "--seed-method", method) == ours


def test_decide_replicates_with_paths_and_the_spec_default(tmp_path):
    entries = [{"seed": line["seed"], "treatment": FIXTURES / "seeds" / line["treatment"], "baseline": str(FIXTURES / "seeds" / line["baseline"])} for line in rows("replicates.jsonl")]
    d = r.decide(replicates=entries)
    assert d["method"] == "seed_item_t"
    assert d["interval"] == pytest.approx(REF["methods"]["seed_item_t"]["interval"], abs=1e-12)


def test_bad_replicates_name_the_replicate_and_seed():
    reps = listed()
    with pytest.raises(r.RlAdvantagesError, match=r"replicates\[2\]: field \"seed\": 22 repeats the seed of line 2") as e:
        r.decide(replicates=[reps[0], reps[1], {**reps[2], "seed": 22}])
    assert e.value.code == "bad_input"
    with pytest.raises(r.RlAdvantagesError, match=r"holds 1 replicate \(seed 11\): a decision across seeds needs at least 2 seeds"):
        r.decide(replicates=reps[:1])
    short = {**reps[1], "treatment": reps[1]["treatment"][:-1], "baseline": reps[1]["baseline"][1:]}
    with pytest.raises(r.RlAdvantagesError, match=r"replicates\[1\]: field \"treatment\": replicates\[1\] \(seed 22\) lacks 1 item"):
        r.decide(replicates=[reps[0], short])
    with pytest.raises(r.RlAdvantagesError, match=r"replicates\[1\] must be a dict") as e:
        r.decide(replicates=[reps[0], 5])
    assert (e.value.field, e.value.index) == ("replicates", 1)
    with pytest.raises(r.RlAdvantagesError, match="not both"):
        r.decide(reps[0]["treatment"], reps[0]["baseline"], replicates=reps)
    with pytest.raises(r.RlAdvantagesError, match="give treatment and baseline"):
        r.decide(reps[0]["treatment"])


def test_plan_seeds_is_the_command_s_json():
    ours = r.plan(seeds=4, between_seed_sd=0.02, effect=0.02, n=1000)
    assert ours == rl_adv_json("plan", "--seeds", "4", "--between-seed-sd", "0.02", "--effect", "0.02", "--n", "1000")
    assert ours["seeds"] == 4 and ours["method"] == "seed_item_t"
    assert 0 <= ours["p_validated"] <= 1 and ours["mc_error"]["p_validated"] >= 0
    with pytest.raises(r.RlAdvantagesError, match="--seeds needs --between-seed-sd"):
        r.plan(seeds=3)


def test_seeds_on_their_own_items_and_plan_from_a_decision(tmp_path):
    # The reference's own-items layout (test/fixtures/seed_reference.py): per_seed from the file, or seed_items=.
    want = REF["per_seed_items"]
    own = [{"seed": line["seed"], "treatment": rows(line["treatment"]), "baseline": rows(line["baseline"])} for line in rows("replicates-own.jsonl")]
    with pytest.raises(r.RlAdvantagesError, match="per_seed"):
        r.decide(replicates=own)
    d = r.decide(replicates=own, seed_items="per_seed")
    assert d == r.decide(replicates=FIXTURES / "seeds" / "replicates-own.jsonl")
    assert d["item_sets"] == "per_seed"
    assert d["interval"] == pytest.approx(want["interval"], abs=1e-12)
    # plan takes the decision's run-to-run SD, never its per-seed difference SD.
    saved = tmp_path / "decision.json"
    saved.write_text(json.dumps(r.decide(replicates=listed())))
    p = r.plan(from_decision=saved, n=1000)
    assert p["run_to_run_sd"] == pytest.approx(json.loads(saved.read_text())["run_to_run_sd"], abs=0)
    assert p["seeds"] == 3
