"""An interrupted call (KeyboardInterrupt) keeps the server and its sessions; no option can take a protocol field's
place; a killed Python's server exits at once, even mid-computation."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import rl_advantages as r
import rl_advantages._server as server_module
from client_support import make_batch


@pytest.fixture()
def fresh(corpus_file):
    with r.Server(corpus=corpus_file) as s:
        yield s


def _session_step(server: r.Server, batch: dict, session: str = "s", **extra) -> r.Result:
    return r.compute_advantages("prompt_value", batch["rewards"], prompts=batch["prompts"], session=session, server=server, **extra)


def test_interrupt_while_waiting_keeps_the_server_and_its_sessions(fresh, corpus_file, monkeypatch):
    batch = make_batch()
    _session_step(fresh, batch)
    pid = fresh.pid
    real = server_module.Server._read_line
    calls = {"n": 0}

    def interrupted(self, deadline):
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt  # the request is sent whole: the server computes it, nobody reads the answer
        return real(self, deadline)

    monkeypatch.setattr(server_module.Server, "_read_line", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _session_step(fresh, batch)
    after = fresh.state_dict("s")  # the next call skips the abandoned answer and gets its own
    assert fresh.pid == pid
    # A request the server received whole is applied: the state is the one after two steps.
    with r.Server(corpus=corpus_file) as twin:
        _session_step(twin, batch)
        _session_step(twin, batch)
        assert after["state"] == twin.state_dict("s")["state"]


def test_interrupt_while_sending_ends_the_broken_line_and_applies_nothing(fresh, monkeypatch):
    batch = make_batch()
    _session_step(fresh, batch)
    before = fresh.state_dict("s")
    pid = fresh.pid
    real_write = os.write
    calls = {"n": 0}

    def half_then_interrupt(fd, data):
        calls["n"] += 1
        if calls["n"] == 1:
            real_write(fd, bytes(data[: len(data) // 2]))
            raise KeyboardInterrupt
        return real_write(fd, data)

    monkeypatch.setattr(server_module.os, "write", half_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        _session_step(fresh, batch)
    monkeypatch.setattr(server_module.os, "write", real_write)
    assert fresh.state_dict("s") == before  # half a request is not JSON: the server answered an error, applied nothing
    result = _session_step(fresh, batch, update=False)
    assert fresh.pid == pid and result.advantages.shape == (len(batch["rewards"]),)


def test_a_real_sigint_during_a_long_call_keeps_the_server(fresh):
    """Wherever the signal lands in the call (building, sending, waiting), the next call works on the same server."""
    batch = make_batch()
    _session_step(fresh, batch)
    before = fresh.state_dict("s")
    pid = fresh.pid
    rng = np.random.default_rng(3)
    size = 6000  # kernel_loo over 6000 rollouts: O(B^2 d), well over the 0.2 s before the signal
    timer = threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            r.compute_advantages("kernel_loo_T1", rng.random(size), features=rng.random((size, 8)), server=fresh)
    finally:
        timer.cancel()
    assert fresh.state_dict("s") == before
    assert r.compute_advantages("group_mean", [1, 0], group_ids=[0, 0], server=fresh).advantages.tolist() == [0.5, -0.5]
    assert fresh.pid == pid


@pytest.mark.parametrize("name", ["id", "op", "state"])
def test_an_option_named_like_a_protocol_field_is_the_estimators_unknown_option(fresh, name):
    pid = fresh.start().pid
    with pytest.raises(r.RlAdvantagesError) as caught:
        r.compute_advantages("group_mean", [1, 0], group_ids=[0, 0], server=fresh, **{name: 3})
    assert (caught.value.code, caught.value.field) == ("unknown_option", name)
    assert "not an option of group_mean" in caught.value.message
    assert r.compute_advantages("group_mean", [1, 0], group_ids=[0, 0], server=fresh).advantages.tolist() == [0.5, -0.5]
    assert fresh.pid == pid
    with pytest.raises(r.RlAdvantagesError) as raw:
        fresh.request({"id": 5, "op": "describe"})
    assert (raw.value.code, raw.value.field) == ("bad_request", "id")


def test_a_server_that_must_restart_names_the_sessions_lost_and_how_to_restore_them(fresh):
    batch = make_batch()
    _session_step(fresh, batch, session="run-7")
    os.kill(fresh.pid, signal.SIGKILL)
    with pytest.raises(r.RlAdvantagesError) as caught:
        _session_step(fresh, batch, session="run-7")
    assert caught.value.code == "server_exited"
    assert "'run-7'" in caught.value.message and "load_state_dict(session" in caught.value.message


KILLED_CLIENT = textwrap.dedent(
    """
    import sys, numpy as np, rl_advantages as r
    server = r.Server().start()
    print(server.pid, flush=True)
    rng = np.random.default_rng(0)
    size = 100_000  # kernel_loo: 10^10 pairs, minutes of work
    r.compute_advantages("kernel_loo_T1", rng.random(size), features=rng.random((size, 2)), server=server)
    """
)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as status:
            return any(line.startswith("State:") and "Z" in line for line in status)  # a zombie no one reaped
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_server_of_a_killed_python_exits_even_mid_computation(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(r.__file__)), os.environ.get("PYTHONPATH")]))}
    client = subprocess.Popen([sys.executable, "-c", KILLED_CLIENT], stdout=subprocess.PIPE, env=env)
    assert client.stdout is not None
    node = int(client.stdout.readline())
    time.sleep(1.0)  # the request is on its way or being computed; either way the server must not outlive its client
    client.kill()
    client.wait()
    deadline = time.monotonic() + 60  # the computation alone takes minutes
    while not _gone(node) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = not _gone(node)
    if alive:
        os.kill(node, signal.SIGKILL)
    assert not alive, "rl-adv serve kept computing after its Python client was killed"
