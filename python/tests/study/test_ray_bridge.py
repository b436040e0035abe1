"""The Ray bridge (``python -m rl_advantages.cluster``) as the orchestrator uses it, a real process speaking JSON
lines to a real two-node Ray cluster on this machine (conftest.py): placement and Ray's GPU ids, exit codes and the
log, cancel (the job's processes die), a lost node (``lost``, not ``failed``), a stale attempt stopped by its fence,
the orchestrator killed (Ray cancels the dead driver's tasks; the next bridge's claim waits for that), the probe of
each node (the run folder's token, paths, the drivers importable), and an unreachable address (one line, exit 2)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ENV = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")


class Bridge:
    def __init__(self, address: str, err: Path):
        self.proc = subprocess.Popen([sys.executable, "-m", "rl_advantages.cluster", "--address", address], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err.open("a"), text=True, env=ENV)
        self.ready = self.read()
        self.next = 100
        self.pending: list[dict[str, Any]] = []

    def read(self) -> dict[str, Any]:
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        assert line, "the bridge closed its stdout"
        return json.loads(line)

    def send(self, **request: Any) -> int:
        self.next += 1
        self.proc.stdin.write(json.dumps({**request, "id": self.next}) + "\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]
        return self.next

    def wait(self, rid: int, event: str | None = None) -> dict[str, Any]:
        """The next message for ``rid`` (others are kept for later)."""
        for i, m in enumerate(self.pending):
            if m.get("id") == rid and (event is None or m["event"] == event):
                return self.pending.pop(i)
        while True:
            m = self.read()
            if m.get("id") == rid and (event is None or m["event"] == event):
                return m
            self.pending.append(m)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.write(json.dumps({"op": "shutdown", "id": 0}) + "\n")  # type: ignore[union-attr]
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=120)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pid: int, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.2)
    return False


def job(run: Path, name: str, script: str, gpus: int = 1, attempt: int = 1, **extra: Any) -> dict[str, Any]:
    return dict(op="submit", job=f"test/{name}", attempt=attempt, argv=["/bin/sh", "-c", script], env={"JOB_VAR": name}, cwd=str(run), num_gpus=gpus, num_cpus=1, log_file=str(run / "logs" / f"{name}.log"), run_dir=str(run), **extra)


@pytest.fixture()
def bridge(ray_cluster: Any, tmp_path: Path):
    b = Bridge(ray_cluster.address, tmp_path / "bridge.err")
    assert b.ready["event"] == "ready", b.ready
    yield b
    b.close()


def test_an_attempt_reports_its_node_and_gpu_then_its_exit(bridge: Bridge, tmp_path: Path) -> None:
    ok = bridge.send(**job(tmp_path, "ok", 'echo "out $JOB_VAR gpu=$CUDA_VISIBLE_DEVICES"; echo to-log >&2'))
    bad = bridge.send(**job(tmp_path, "bad", "echo first >&2; echo last >&2; exit 3"))
    started = [bridge.wait(ok, "started"), bridge.wait(bad, "started")]
    ends = [bridge.wait(ok), bridge.wait(bad)]
    assert all(s["gpu_ids"] == ["0"] and s["ip"] == "127.0.0.1" and len(s["node_id"]) == 56 for s in started)
    assert ends[0] == {"id": ok, "event": "exit", "code": 0, "signal": None, "stdout": "out ok gpu=0\n", "tail": ""}
    assert ends[1]["code"] == 3 and ends[1]["tail"] == "first\nlast"
    # The log: stderr, then the stdout copy; the fence file names the attempt.
    assert (tmp_path / "logs" / "ok.log").read_text() == "to-log\nout ok gpu=0\n"
    assert (tmp_path / "ray" / "fence" / "test__ok").read_text().startswith("test/ok#1#")


def test_cancel_ends_the_task_and_the_jobs_process(bridge: Bridge, tmp_path: Path) -> None:
    rid = bridge.send(**job(tmp_path, "long", "exec sleep 300"))
    started = bridge.wait(rid, "started")
    bridge.send(op="cancel", target=rid)
    assert bridge.wait(rid, "cancelled") == {"id": rid, "event": "cancelled"}
    assert wait_gone(started["pid"]), "the job's process outlived its cancelled task"


def test_a_stale_attempt_is_stopped_by_its_fence(bridge: Bridge, tmp_path: Path) -> None:
    first = bridge.send(**job(tmp_path, "fenced", "exec sleep 300", gpus=0))
    started = bridge.wait(first, "started")
    # A newer attempt of the same job takes the fence (as a resumed orchestrator's would): the old one is stopped.
    second = bridge.send(**job(tmp_path, "fenced", "echo second", gpus=0, attempt=2))
    assert bridge.wait(first)["event"] == "fenced"
    assert not alive(started["pid"])
    bridge.wait(second, "started")
    assert bridge.wait(second)["stdout"] == "second\n"


def test_the_probe_names_what_each_node_lacks(bridge: Bridge, tmp_path: Path) -> None:
    token = tmp_path / "ray" / "probe-token"
    token.parent.mkdir(parents=True)
    token.write_text("abc\n")
    base = dict(op="probe", run_dir=str(tmp_path), token_file=str(token), token="abc", paths=[], commands=[])
    answer = bridge.wait(bridge.send(**base))
    assert len(answer["nodes"]) == 2 and all(n["problems"] == [] for n in answer["nodes"])
    # A run folder a node does not share (its token file is not there) and a path the jobs use that it lacks.
    for node in bridge.wait(bridge.send(**{**base, "token_file": "/nonexistent/run/ray/probe-token"}))["nodes"]:
        assert node["problems"] == [f"the run folder {tmp_path} is not shared with this node (cannot read /nonexistent/run/ray/probe-token: No such file or directory): mount the shared folder at the same path on every node"]
    for node in bridge.wait(bridge.send(**{**base, "token": "other"}))["nodes"]:
        assert "is another folder" in node["problems"][0]
    for node in bridge.wait(bridge.send(**{**base, "paths": ["/nonexistent/spec.json"]}))["nodes"]:
        assert node["problems"][0].startswith("paths the jobs use do not exist here: /nonexistent/spec.json")
    # An interpreter that cannot import the drivers there (-I -S: no site-packages, no PYTHONPATH).
    check = {"what": "the TRL drivers", "argv": [sys.executable, "-c", "import rl_advantages.study"], "env": {}, "cwd": str(tmp_path)}
    assert all(n["problems"] == [] for n in bridge.wait(bridge.send(**{**base, "commands": [check]}))["nodes"])
    hidden = {**check, "argv": [sys.executable, "-I", "-S", "-c", "import rl_advantages.study"]}
    for node in bridge.wait(bridge.send(**{**base, "commands": [hidden]}))["nodes"]:
        assert node["problems"] == ["the TRL drivers: ModuleNotFoundError: No module named 'rl_advantages'"]


def test_a_lost_node_is_lost_not_failed_and_a_killed_orchestrators_tasks_die(ray_cluster: Any, tmp_path: Path) -> None:
    b = Bridge(ray_cluster.address, tmp_path / "bridge.err")
    try:
        # Both GPUs busy: one attempt on each node; the worker node is then removed.
        rids = [b.send(**job(tmp_path, f"n{i}", "exec sleep 300")) for i in range(2)]
        started = {rid: b.wait(rid, "started") for rid in rids}
        worker_id = ray_cluster.worker.node_id
        on_worker = [rid for rid, s in started.items() if s["node_id"] == worker_id]
        assert len(on_worker) == 1, started
        ray_cluster.remove_worker()
        lost = b.wait(on_worker[0])
        assert lost["event"] == "lost" and "NodeDiedError" in lost["message"]
        # A job needing a GPU while no alive node has a free one: it waits (the head's GPU is busy, so not lost).
        # The orchestrator killed: its bridge sees the end of stdin; even SIGKILLed itself, Ray cancels its tasks.
        head_job = [rid for rid in rids if rid not in on_worker][0]
        b.proc.send_signal(signal.SIGKILL)
        b.proc.wait()
        assert wait_gone(started[head_job]["pid"]), "a dead driver's task kept running"
        b2 = Bridge(ray_cluster.address, tmp_path / "bridge.err")
        claim = b2.wait(b2.send(op="claim", run_dir=str(tmp_path)))
        assert claim["event"] == "claimed"
        assert json.loads((tmp_path / "ray" / "driver.json").read_text())["job_id"] == b2.ready["job_id"]
        b2.close()
    finally:
        if b.proc.poll() is None:
            b.proc.kill()
        ray_cluster.worker = ray_cluster.add_worker()


def test_an_unreachable_cluster_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    r = subprocess.run([sys.executable, "-m", "rl_advantages.cluster", "--address", f"127.0.0.1:{port}"], capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [f"python -m rl_advantages.cluster: cannot reach the Ray cluster at 127.0.0.1:{port} (Connection refused): start it with `ray start --head --node-ip-address IP --port {port}` or pass the head's address (--ray-address or RAY_ADDRESS)"]
