"""Sessions of stateful estimators: state_dict / load_state_dict resume bit for bit, on another server."""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pytest

import rl_advantages as r

from client_support import make_corpus


def steps(n: int = 4, size: int = 12) -> list[dict]:
    """Batches whose prompts recur across steps (so the state matters), with fractional rewards."""
    rng = np.random.default_rng(9)
    corpus = make_corpus()
    pool = corpus[:10]
    return [
        {"prompts": [pool[k] for k in rng.choice(len(pool), size=size)], "rewards": rng.integers(0, 9, size=size) / 8.0}
        for _ in range(n)
    ]


ESTIMATORS = ["prompt_value", {"name": "prompt_value", "kind": "beta", "decay": 0.8}, "prompt_value_tfidf_kernel_loo_T0.1"]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=["ema", "beta", "kernel-prior"])
def test_state_dict_resumes_bit_for_bit(corpus_file, estimator):
    batches = steps()
    with r.Server(corpus=corpus_file) as first, r.Server(corpus=corpus_file) as second:
        for b in batches[:2]:
            r.compute_advantages(estimator, b["rewards"], prompts=b["prompts"], session="run", server=first)
        saved = json.loads(json.dumps(first.state_dict("run")))  # through a file, as a checkpoint goes
        assert saved["session"] == "run" and isinstance(saved["estimator"], str) and saved["state"]
        expected = [r.compute_advantages(estimator, b["rewards"], prompts=b["prompts"], session="run", server=first) for b in batches[2:]]
        second.load_state_dict("resumed", saved["estimator"], saved["state"])
        resumed = [r.compute_advantages(estimator, b["rewards"], prompts=b["prompts"], session="resumed", server=second) for b in batches[2:]]
        for a, b in zip(expected, resumed):
            assert np.array_equal(a.advantages, b.advantages) and np.array_equal(a.baselines, b.baselines)
        assert first.state_dict("run")["state"] == second.state_dict("resumed")["state"]
        # A changed state changes the numbers: the comparison above is not vacuous.
        assert not np.array_equal(expected[0].baselines, r.compute_advantages(estimator, batches[2]["rewards"], prompts=batches[2]["prompts"], session="fresh", update=False, server=second).baselines)


def test_update_false_leaves_the_state(server):
    b = steps(1)[0]
    r.compute_advantages("prompt_value", b["rewards"], prompts=b["prompts"], session="ro", server=server)
    before = server.state_dict("ro")
    r.compute_advantages("prompt_value", b["rewards"], prompts=b["prompts"], session="ro", update=False, server=server)
    assert server.state_dict("ro") == before
    assert r.state_dict("ro", server=server) == before


def test_bad_sessions_and_checkpoints(server):
    b = steps(1)[0]
    with pytest.raises(r.RlAdvantagesError) as caught:
        server.state_dict("never-started")
    assert caught.value.code == "unknown_session" and caught.value.field == "session"
    r.compute_advantages("prompt_value", b["rewards"], prompts=b["prompts"], session="ok", server=server)
    saved = server.state_dict("ok")
    broken = json.loads(json.dumps(saved["state"]))
    broken["entries"][1] = ["a prompt", "not a number"]
    with pytest.raises(r.RlAdvantagesError) as caught:
        server.load_state_dict("broken", saved["estimator"], broken)
    assert caught.value.field is not None and "entries" in caught.value.field and caught.value.index == 1
    with pytest.raises(r.RlAdvantagesError) as caught:
        server.load_state_dict("other", "group_mean", saved["state"])
    assert caught.value.field == "estimator"
    with pytest.raises(r.RlAdvantagesError) as caught:  # a session keeps one estimator
        r.compute_advantages({"name": "prompt_value", "kind": "beta"}, b["rewards"], prompts=b["prompts"], session="ok", server=server)
    assert "session" in caught.value.message


def test_a_dead_server_names_its_lost_sessions(corpus_file):
    b = steps(1)[0]
    with r.Server(corpus=corpus_file) as server:
        r.compute_advantages("prompt_value", b["rewards"], prompts=b["prompts"], session="lost-one", server=server)
        saved = server.state_dict("lost-one")
        os.kill(server.pid, signal.SIGKILL)
        time.sleep(0.2)
        with pytest.raises(r.RlAdvantagesError) as caught:
            r.compute_advantages("prompt_value", b["rewards"], prompts=b["prompts"], session="lost-one", server=server)
        assert caught.value.code == "server_exited" and "'lost-one'" in caught.value.message
        server.load_state_dict("lost-one", saved["estimator"], saved["state"])
        assert server.state_dict("lost-one")["state"] == saved["state"]
