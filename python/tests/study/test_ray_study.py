"""``rl-adv study --executor ray`` end to end through the built CLI (``node dist/cli.js``: ``npm run build`` first) on
the two-node cluster of conftest.py (each node 1 GPU, 1 CPU, bound to 127.0.0.1):

- the reduced small-world TRL ablation (specs/arith-ablation.json: 3 arms, 2 seeds, 3 steps, a checkpoint every step,
  40 eval items) gives the bytes of ``--executor local`` (wall times, logs, the ledger and the report's timeline aside)
  when the worker node is removed while it trains an arm (the attempt is ``lost`` in RUN/jobs.jsonl and retried from
  the arm's checkpoint), and when the orchestrator is SIGKILLed mid-arm and resumed; jobs that ran at once show
  distinct (node, GPU) placements;
- the sim study under ``--executor ray`` gives the bytes of ``--executor local``;
- bad input: an unreachable address, resources no node has, a node whose ``python3`` lacks the drivers: one line
  each, exit 2, nothing in the run folder lost.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reduced_study import CLI, REPO, missing, skip_without_drivers

SPEC = REPO / "specs" / "arith-ablation.json"
SEEDS = (0, 1)
TRL = ["--backend", "trl", "--python", sys.executable, "--steps", "3", "--eval-limit", "40", "--calibration-batches", "300", "--job-gpus", "1"]
SIM = ["--steps", "12", "--eval-limit", "60", "--calibration-batches", "300", "--calibration-interval", "none"]
#: What differs between two runs of one command by design: where and when jobs ran.
NOT_COMPARED = {"jobs.jsonl", "report.md", "report.html", ".rl-adv.lock"}
NOT_COMPARED_DIRS = {"logs", "ray"}

skip_without_drivers("the Ray study tests", "ray")


def env() -> dict[str, str]:
    return dict(os.environ, RL_ADV_PYTHON=sys.executable, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")


def cli(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["node", str(CLI), "study", *args], capture_output=True, text=True, timeout=timeout, env=env())


def files(run: Path) -> dict[str, bytes]:
    """Every file of a run with its run folder's path replaced (result.json and preflight_trl.json name it) and its wall
    times aside (issue 40): the pre-training's seconds (pretrain.json, preflight_trl.json), each phase's wall time
    (summary.json), and in summary.json's artifact record the size and sha256 of each file that names the run folder
    (those differ with the folder's name; the files themselves are compared with it replaced)."""
    raw = {}
    for path in sorted(run.rglob("*")):
        rel = path.relative_to(run)
        if not path.is_dir() and rel.parts[0] not in NOT_COMPARED_DIRS and rel.name not in NOT_COMPARED:
            raw[str(rel)] = path.read_bytes()
    naming_run = {rel for rel, data in raw.items() if str(run).encode() in data}
    out = {}
    for rel, data in raw.items():
        data = data.replace(str(run).encode(), b"RUN")
        name = Path(rel).name
        if name in ("pretrain.json", "preflight_trl.json"):
            value = json.loads(data)
            value.pop("seconds", None)
            value.get("pretrain", {}).pop("seconds", None)
            data = json.dumps(value).encode()
        if name == "summary.json":
            value = json.loads(data)
            for phase in value.get("phases", {}).values():
                phase.pop("wall_seconds", None)
            for artifact in naming_run & set(value.get("artifacts", {})):
                value["artifacts"][artifact].pop("sha256")
                value["artifacts"][artifact].pop("bytes")
            data = json.dumps(value).encode()
        out[rel] = data
    return out


def assert_same_bytes(a: Path, b: Path) -> None:
    fa, fb = files(a), files(b)
    assert sorted(fa) == sorted(fb)
    differ = [name for name in fa if fa[name] != fb[name]]
    assert differ == [], f"{len(differ)} of {len(fa)} files differ: {differ[:10]}"


def ledger(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "jobs.jsonl").read_text().splitlines() if line.strip()]


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().split(")")[-1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return out


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def argv_of(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [a.decode() for a in handle.read().split(b"\0") if a]
    except OSError:
        return []


def training_with_checkpoint(root: int, full_only: bool = False) -> int | None:
    """A train driver under process ``root`` whose arm has a complete mid-arm checkpoint, or None; with ``full_only``,
    a full arm x seed's (its checkpoints under .../full/seedN/ARM), not a pilot arm's (the pilot runs one job at a time)."""
    for pid in descendants(root):
        argv = argv_of(pid)
        if "rl_advantages.study" in argv and "train" in argv and "--checkpoint-dir" in argv:
            folder = Path(argv[argv.index("--checkpoint-dir") + 1])
            if full_only and "full" not in folder.parts:
                continue
            if any(folder.glob("checkpoint-*/rl_adv_advantages.jsonl")):
                return pid
    return None


def wait_for(what: Any, proc: subprocess.Popen[str], seconds: float = 1200) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        assert proc.poll() is None, f"the study ended (exit {proc.returncode}) before the moment the test waits for"
        time.sleep(0.2)
    raise AssertionError("timed out waiting")


@pytest.fixture(scope="module")
def spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    gone = missing("ray")
    assert not gone and CLI.exists(), f"needs {', '.join(gone) or 'nothing'} and {CLI} (npm run build)"
    root = tmp_path_factory.mktemp("ray-spec")
    value = json.loads(SPEC.read_text(encoding="utf-8"))
    value["decision_rule"]["seeds"] = list(SEEDS)
    value["trl"]["save_every"] = 1  # a checkpoint after each step: a retried or resumed arm continues mid-arm
    (root / "spec.json").write_text(json.dumps(value, indent=2), encoding="utf-8")
    return root / "spec.json"


@pytest.fixture(scope="module")
def local_run(spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "run"
    r = cli(*TRL, "--spec", str(spec), "--out", str(out), "--jobs", "2")
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def test_a_node_lost_mid_arm_is_retried_and_the_bytes_are_the_local_runs(ray_cluster: Any, spec: Path, local_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.Popen(["node", str(CLI), "study", *TRL, "--spec", str(spec), "--out", str(out), "--executor", "ray", "--ray-address", ray_cluster.address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    try:
        raylet = ray_cluster.worker.all_processes["raylet"][0].process.pid
        # A full arm's training: the jobs of the full phase run at once, one per node, so the lost attempt ran beside
        # the head's (a pilot arm, run alone, would leave no attempts overlapping in time to check below).
        victim = wait_for(lambda: training_with_checkpoint(raylet, full_only=True), proc)
        victim_argv = argv_of(victim)
        ray_cluster.remove_worker()
        stdout, stderr = proc.communicate(timeout=1800)
    finally:
        if proc.poll() is None:
            proc.kill()
        ray_cluster.worker = ray_cluster.add_worker()
    assert proc.returncode == 0, stderr[-3000:]
    rows = ledger(out)
    lost = [r for r in rows if r["outcome"] == "lost"]
    assert len(lost) >= 1 and all(r["executor"] == "ray" for r in rows)
    job = lost[0]["job"]
    assert lost[0]["kind"] == "train" and lost[0]["job"].startswith("train/full/") and lost[0]["arm"] in victim_argv
    assert [r["outcome"] for r in rows if r["job"] == job][-1] == "done"
    assert f"job {job} lost" in stderr
    assert_same_bytes(local_run, out)
    # Attempts that ran at the same time ran on distinct GPUs (a node and Ray's GPU id there), the lost one included:
    # it ran beside a job on the head until its node went.
    spans = [(r["start"], r["end"], (r["node"], tuple(r["gpu_ids"]))) for r in rows if r["outcome"] in ("done", "lost")]
    overlapping = [(a[2], b[2]) for i, a in enumerate(spans) for b in spans[i + 1 :] if a[0] < b[1] and b[0] < a[1]]
    assert overlapping and all(x != y for x, y in overlapping)
    assert all(len(r["gpu_ids"]) == 1 for r in rows if r["outcome"] == "done")


def test_the_orchestrator_killed_mid_arm_then_resumed_gives_the_local_bytes(ray_cluster: Any, spec: Path, local_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [*TRL, "--spec", str(spec), "--out", str(out), "--executor", "ray", "--ray-address", ray_cluster.address]
    proc = subprocess.Popen(["node", str(CLI), "study", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, env=env())
    try:
        head_raylet = ray_cluster.cluster.head_node.all_processes["raylet"][0].process.pid
        worker_raylet = ray_cluster.worker.all_processes["raylet"][0].process.pid
        wait_for(lambda: training_with_checkpoint(head_raylet) or training_with_checkpoint(worker_raylet), proc)
        drivers = [p for root in (head_raylet, worker_raylet) for p in descendants(root) if "rl_advantages.study" in argv_of(p)]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    r = cli(*args, "--resume")
    assert r.returncode == 0, r.stderr[-3000:]
    assert all(argv_of(p) == [] or "rl_advantages.study" not in argv_of(p) for p in drivers), "a killed orchestrator's job outlived it"
    assert_same_bytes(local_run, out)


def test_the_sim_study_under_ray_gives_the_local_bytes(ray_cluster: Any, tmp_path: Path) -> None:
    local, ray = tmp_path / "local", tmp_path / "ray"
    a = cli(*SIM, "--out", str(local), "--jobs", "2")
    b = cli(*SIM, "--out", str(ray), "--executor", "ray", "--ray-address", ray_cluster.address)
    # The closing lines name each run's own folder; everything else they print is the same.
    assert a.returncode == b.returncode and a.stdout.replace(str(local), "RUN") == b.stdout.replace(str(ray), "RUN"), b.stderr[-3000:]
    assert_same_bytes(local, ray)
    assert {r["executor"] for r in ledger(ray)} == {"ray"}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bad_input_is_one_line_exit_2_and_nothing_lost(ray_cluster: Any, tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "mine.txt").write_text("the user's file\n")
    port = _closed_port()
    unreachable = cli(*SIM, "--out", str(out), "--executor", "ray", "--ray-address", f"127.0.0.1:{port}", timeout=300)
    assert unreachable.returncode == 2 and len(unreachable.stderr.strip().splitlines()) == 1, unreachable.stderr
    assert f"cannot reach the Ray cluster at 127.0.0.1:{port} (Connection refused)" in unreachable.stderr
    too_big = cli(*SIM, "--out", str(tmp_path / "big"), "--executor", "ray", "--ray-address", ray_cluster.address, "--job-gpus", "4", timeout=600)
    assert too_big.returncode == 2 and len(too_big.stderr.strip().splitlines()) == 1, too_big.stderr
    assert too_big.stderr.startswith("rl-adv: --job-gpus: job ") and "needs 4 GPU(s) on one node but no node of the Ray cluster" in too_big.stderr
    assert not (tmp_path / "big" / "jobs.jsonl").exists()
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"] and (out / "mine.txt").read_text() == "the user's file\n"


def test_a_node_without_the_drivers_fails_at_the_probe_before_any_job(ray_cluster: Any, spec: Path, tmp_path: Path) -> None:
    """``--python python3`` resolves on each node through that node's PATH: on the worker added here PATH holds only
    /usr/bin and /bin, whose python3 has neither torch nor TRL (the package too, when installed as a wheel), as on a
    node whose image lacks the drivers. The study must stop at the probe, naming the node and what it lacks."""
    venv_bin = str(Path(sys.executable).parent)
    assert Path("/usr/bin/python3").exists() and venv_bin not in ("/usr/bin", "/bin")
    out = tmp_path / "run"
    ray_cluster.remove_worker()
    try:
        ray_cluster.worker = ray_cluster.add_worker(PATH="/usr/bin:/bin")
        bare = dict(env(), PATH=f"{venv_bin}:{os.environ.get('PATH', '/usr/bin:/bin')}")
        args = [a if a != sys.executable else "python3" for a in TRL]
        r = subprocess.run(["node", str(CLI), "study", *args, "--spec", str(spec), "--out", str(out), "--executor", "ray", "--ray-address", ray_cluster.address], capture_output=True, text=True, timeout=900, env=bare)
    finally:
        ray_cluster.remove_worker()
        ray_cluster.worker = ray_cluster.add_worker()
    # The study's progress line ("rl-adv study: preflight...") comes first: the probe runs before the first job.
    errors = [line for line in r.stderr.splitlines() if line.startswith("rl-adv:")]
    assert r.returncode == 2 and len(errors) == 1 and errors[0] == r.stderr.strip().splitlines()[-1], r.stderr
    assert errors[0].startswith("rl-adv: --executor ray: node 127.0.0.1/") and errors[0].count(" node 127.0.0.1/") == 1, r.stderr
    # Its python3 lacks torch (the package found through PYTHONPATH, run from a checkout) or the package itself (CI: a wheel).
    assert re.search(r"the TRL drivers \(python3 -m rl_advantages\.study\): (the Python package torch|.*No module named 'rl_advantages')", errors[0]), errors[0]
    assert "install the package and python/requirements-trl.txt on every node" in r.stderr
    # The first job's attempt (the preflight) failed at the probe, never placed on a node.
    assert [(row["job"], row["outcome"], row["node"]) for row in ledger(out)] == [("preflight", "failed", None)]
