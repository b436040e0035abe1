"""Shared fixtures of the adapters' tests: the fakes on sys.path, a server with a small TF-IDF corpus."""

from __future__ import annotations

import json
import sys

import pytest

import rl_advantages

from adapter_support import FAKES, QUESTIONS  # noqa: F401


@pytest.fixture()
def fakes_on_path(monkeypatch):
    """The fake frameworks importable by their real names; their modules dropped afterwards."""
    monkeypatch.syspath_prepend(FAKES)
    yield FAKES
    for name in list(sys.modules):
        if name.split(".")[0] in ("verl", "openrlhf", "skyrl", "slime", "transfer_queue"):
            del sys.modules[name]


@pytest.fixture(scope="session")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.jsonl"
    path.write_text("".join(json.dumps({"question": q}) + "\n" for q in QUESTIONS))
    return str(path)


@pytest.fixture(scope="session")
def server(corpus_file):
    with rl_advantages.Server(corpus=corpus_file) as s:
        yield s
