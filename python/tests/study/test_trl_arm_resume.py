"""Mid-arm resume of the TRL ``train`` driver (python/rl_advantages/study/checkpoints.py): an arm killed right after
its step-2 checkpoint and resumed gives the same ``advantages.jsonl`` bytes and the same adapter tensors as an
uninterrupted run; a checkpoint folder of another run is refused; old checkpoints are pruned.

CPU-frugal: a small arithmetic world written here (one-digit problems), the spec's tiny model pre-trained for 150
steps (enough for varied rewards, so the arm's advantages and updates are not zero), 4 steps of the GS1 arm
(the TF-IDF kernel through the package's server), a checkpoint every 2 steps. About 40 s of CPU.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SPEC = REPO / "specs" / "arith-gs1-vs-grpo.json"
ARM, STEPS, EVERY = "gs1_tfidf_g1", 4, 2

_MISSING = [m for m in ("torch", "trl", "transformers", "peft", "datasets", "safetensors") if importlib.util.find_spec(m) is None]
_REQUIRED = bool(os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH"))
if _MISSING and not _REQUIRED:
    pytest.skip(f"the TRL arm resume test needs {', '.join(_MISSING)} (pip install -r python/requirements-test.txt)", allow_module_level=True)

from rl_advantages.study.checkpoints import ROWS_FILE, checkpoints, complete_checkpoint, open_folder  # noqa: E402
from rl_advantages.study.settings import DriverError  # noqa: E402


def _world(folder: Path) -> None:
    """One-digit plus/minus/times problems: train.jsonl (GSM8K's format, the TF-IDF corpus), sft.jsonl, tasks.jsonl."""
    rng = random.Random(0)
    signs = {"plus": "+", "minus": "-", "times": "*"}

    def item(i: int, split: str) -> dict[str, str]:
        op, a, b = rng.choice(sorted(signs)), rng.randrange(10), rng.randrange(10)
        value = a + b if op == "plus" else a - b if op == "minus" else a * b
        return {"task_id": f"{split}-{i}", "question": f"{op} 1x1: {a} {signs[op]} {b} =", "reference": str(value)}

    folder.mkdir(parents=True)
    train = [item(i, "train") for i in range(200)]
    sft = [item(i, "sft") for i in range(3000)]
    (folder / "train.jsonl").write_text("".join(json.dumps({"question": r["question"], "answer": f"#### {r['reference']}"}) + "\n" for r in train))
    (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in train))
    (folder / "curve.jsonl").write_text("".join(json.dumps(item(i, "test")) + "\n" for i in range(40)))
    (folder / "sft.jsonl").write_text("".join(json.dumps(r) + "\n" for r in sft))
    spec = json.loads(SPEC.read_text())
    spec["pretrain"].update(steps=150, eval_items=100)
    (folder / "spec.json").write_text(json.dumps(spec, indent=2))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if _MISSING:
        pytest.fail(f"CI's Python lacks {', '.join(_MISSING)}: add them to python/requirements-test.txt")
    root = tmp_path_factory.mktemp("armresume")
    _world(root / "data")
    return root


def train(root: Path, out: str, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    data = root / "data"
    cmd = [sys.executable, "-m", "rl_advantages.study", "train", "--spec", str(data / "spec.json"), "--run-dir", str(root / "run"), "--data-dir", str(data)]
    cmd += ["--arm", ARM, "--steps", str(STEPS), "--tasks", str(data / "tasks.jsonl"), "--out-dir", str(root / out), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, env={**os.environ, **(env or {})})


def tensors(adapter: Path) -> dict[str, object]:
    """The arm's trained weights: its LoRA adapter, or the whole model under full fine-tuning (lora_rank 0)."""
    from safetensors.torch import load_file

    lora = adapter / "adapter_model.safetensors"
    return load_file(str(lora if lora.is_file() else adapter / "model.safetensors"))


def test_killed_and_resumed_arm_equals_an_uninterrupted_one(world: Path) -> None:
    import torch

    whole = train(world, "whole")  # pre-trains the starting policy into RUN/trl/init first
    assert whole.returncode == 0, whole.stderr[-3000:]
    ckpt = world / "ckpt"
    # The resumed arm also keeps a learning curve (every 3 steps: 0, 3 and the last, 4): its greedy evals must not
    # change the training (same log and adapter as "whole", which has none) and must resume to the same rows.
    curve = ("--curve-items", str(world / "data" / "curve.jsonl"), "--curve-every", "3")
    killed = train(world, "resumed", "--checkpoint-dir", str(ckpt), "--save-every", str(EVERY), *curve, env={"RL_ADV_TRL_KILL_AT": f"{ARM}:2"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    # The arm's log holds the steps of its latest checkpoint (what `rl-adv study --resume` reports).
    first = (world / "whole" / "advantages.jsonl").read_bytes().splitlines(keepends=True)[:2]
    assert (world / "resumed" / "advantages.jsonl").read_bytes() == b"".join(first)
    assert not (world / "resumed" / "adapter").exists()
    assert [(n, c) for n, _, c in checkpoints(str(ckpt))] == [(2, True)]
    for name in ("model.safetensors", "optimizer.pt", "scheduler.pt", "rng_state.pth", "trainer_state.json", ROWS_FILE):
        assert (ckpt / "checkpoint-2" / name).is_file(), name

    assert [json.loads(line)["step"] for line in (world / "resumed" / "curve.jsonl").read_text().splitlines()] == [0]
    refused = train(world, "resumed", "--checkpoint-dir", str(ckpt), "--save-every", str(EVERY), *curve)
    assert refused.returncode == 2 and "pass --resume to continue from it" in refused.stderr

    resumed = train(world, "resumed", "--checkpoint-dir", str(ckpt), "--save-every", str(EVERY), "--resume", *curve)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert json.loads(resumed.stdout.strip().splitlines()[-1])["resumed_from_step"] == 2
    assert not ckpt.exists(), "a finished arm removes its checkpoints"

    log = (world / "whole" / "advantages.jsonl").read_bytes()
    assert (world / "resumed" / "advantages.jsonl").read_bytes() == log
    rows = [json.loads(line) for line in log.decode().splitlines()]
    assert [r["step"] for r in rows] == list(range(STEPS))
    assert len({r["rewards"][i] for r in rows for i in range(32)}) > 1, "rewards must vary, or the arm would not move"
    a, b = tensors(world / "whole" / "adapter"), tensors(world / "resumed" / "adapter")
    assert sorted(a) == sorted(b) and len(a) > 0
    for key in a:
        assert torch.equal(a[key], b[key]), key
    # The arm trained: its weights differ from the starting policy's (full fine-tuning, the shipped spec's lora_rank 0).
    start = tensors(world / "run" / "trl" / "init")
    assert sorted(start) == sorted(a) and any(not torch.equal(start[k], a[k]) for k in a)
    # The resumed curve equals an uninterrupted arm's with the same curve.
    curved = train(world, "curved", *curve)
    assert curved.returncode == 0, curved.stderr[-3000:]
    assert json.loads(curved.stdout.strip().splitlines()[-1])["curve"].endswith("curve.jsonl")
    points = [json.loads(line) for line in (world / "curved" / "curve.jsonl").read_text().splitlines()]
    assert [p["step"] for p in points] == [0, 3, 4] and all(p["n"] == 40 and p["correct"] == round(p["accuracy"] * 40) for p in points)
    assert (world / "resumed" / "curve.jsonl").read_bytes() == (world / "curved" / "curve.jsonl").read_bytes()


def test_the_seed_flag_sets_the_rl_seed(world: Path) -> None:
    """--seed 0 is the spec arm's own seed (0): the same bytes as no flag; --seed 1 samples other rollouts."""
    whole = world / "whole" / "advantages.jsonl"
    if not whole.exists():
        assert train(world, "whole").returncode == 0
    zero, one = train(world, "seed0", "--seed", "0"), train(world, "seed1", "--seed", "1")
    assert zero.returncode == 0 and one.returncode == 0, (zero.stderr + one.stderr)[-3000:]
    assert (world / "seed0" / "advantages.jsonl").read_bytes() == whole.read_bytes()
    rewards = lambda out: [json.loads(line)["rewards"] for line in (world / out / "advantages.jsonl").read_text().splitlines()]  # noqa: E731
    assert rewards("seed1") != rewards("seed0")
    bad = train(world, "seedbad", "--seed", "-1")
    assert bad.returncode == 2 and "--seed must be an integer >= 0" in bad.stderr
    lone = train(world, "lone", "--curve-every", "2")
    assert lone.returncode == 2 and "--curve-items and --curve-every go together" in lone.stderr


def test_a_checkpoint_of_another_run_is_refused(world: Path) -> None:
    """Checkpoints kept for 4 steps of the arm are not resumed into a run of 3 steps (another fingerprint)."""
    ckpt = world / "other"
    killed = train(world, "other_out", "--checkpoint-dir", str(ckpt), "--save-every", "1", env={"RL_ADV_TRL_KILL_AT": f"{ARM}:1"})
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]
    data = world / "data"
    cmd = [sys.executable, "-m", "rl_advantages.study", "train", "--spec", str(data / "spec.json"), "--run-dir", str(world / "run"), "--data-dir", str(data)]
    cmd += ["--arm", ARM, "--steps", "3", "--tasks", str(data / "tasks.jsonl"), "--out-dir", str(world / "other_out"), "--checkpoint-dir", str(ckpt), "--resume"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert r.returncode == 2
    assert "holds the checkpoints of another run (steps (4 there, 3 now)); refusing to resume from them" in r.stderr


def _fake_checkpoint(folder: Path, steps: int, complete: bool) -> None:
    path = folder / f"checkpoint-{steps}"
    path.mkdir(parents=True)
    if complete:
        (path / ROWS_FILE).write_text("".join(json.dumps({"step": s}) + "\n" for s in range(steps)))


def test_latest_complete_checkpoint_pruning_and_fingerprints(tmp_path: Path) -> None:
    mark = {"spec_sha256": "a", "steps": 6}
    folder = tmp_path / "ck"
    assert open_folder(str(folder), mark, resume=True) is None  # a fresh start claims the folder
    for steps, complete in ((2, True), (4, True), (6, False)):
        _fake_checkpoint(folder, steps, complete)
    with pytest.raises(DriverError, match="pass --resume"):
        open_folder(str(folder), mark, resume=False)
    with pytest.raises(DriverError, match=r"another run \(spec_sha256 \(\"a\" there, \"b\" now\)\)"):
        open_folder(str(folder), {**mark, "spec_sha256": "b"}, resume=True)
    found = open_folder(str(folder), mark, resume=True)
    assert found is not None and found[0].endswith("checkpoint-4") and [r["step"] for r in found[1]] == [0, 1, 2, 3]
    assert [n for n, _, _ in checkpoints(str(folder))] == [2, 4], "the incomplete checkpoint-6 (cut short) is removed"
    (folder / "checkpoint-6").mkdir()
    complete_checkpoint(str(folder / "checkpoint-6"), 6, [{"step": s} for s in range(6)])
    assert [(n, c) for n, _, c in checkpoints(str(folder))] == [(4, True), (6, True)], "the latest 2 complete are kept"
    with pytest.raises(DriverError, match="5 rows after 6 steps"):
        complete_checkpoint(str(folder / "checkpoint-6"), 6, [{"step": s} for s in range(5)])
    (tmp_path / "bare" / "checkpoint-2").mkdir(parents=True)
    with pytest.raises(DriverError, match="without fingerprint.json"):
        open_folder(str(tmp_path / "bare"), mark, resume=True)
